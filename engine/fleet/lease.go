package fleet

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"time"

	"github.com/redis/go-redis/v9"
)

// DefaultLeaseTTL is how long a URL's lease outlives a process that stopped
// renewing it (killed mid-fetch): the others wait at most this long. The
// holder renews it every third of that while its fetch runs.
const DefaultLeaseTTL = 15 * time.Second

// leaseRecheck is the longest a waiter goes without looking at a lease: a
// release is announced (released, below), but an expiry is not, and a
// missed announcement must not strand anyone.
const leaseRecheck = time.Second

// released is the channel a holder announces its release on (the message
// is the verdict hash), so that waiters read the cache at once instead of
// polling.
const released = prefix + "released"

// LeaseKey is the key of the single-flight lease on verdict hash h.
func LeaseKey(h string) string { return prefix + "lease:{" + h + "}" }

// renewIfMine and releaseIfMine touch a lease only while it still holds the
// caller's token: a lease that expired and was taken by another process is
// not the caller's to extend or delete.
var (
	renewIfMine   = redis.NewScript(`if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end return 0`)
	releaseIfMine = redis.NewScript(`if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) redis.call('PUBLISH', ARGV[2], ARGV[3]) return 1 end return 0`)
)

// Await is single flight: it returns a release when this process may fetch
// the URL of verdict hash h — it holds the lease, renewed until release is
// called, or the store is lost and every process fetches for itself. It
// returns nil once another process's lease on h is gone (released or
// expired): the caller reads the cache, and calls Await again on a miss.
func (s *Store) Await(ctx context.Context, h string) (release func()) {
	noop := func() {}
	if !s.usable() {
		return noop
	}
	key, token := LeaseKey(h), newToken()
	ttl := s.leaseTTL()
	c, cancel := op(ctx)
	ok, err := s.rdb.SetNX(c, key, token, ttl).Result()
	cancel()
	if err != nil {
		s.fail(ctx, err)
		return noop
	}
	if ok {
		return s.hold(h, key, token, ttl)
	}
	return s.awaitRelease(ctx, h, key)
}

// awaitRelease waits until the lease on h is gone: announced released, or
// expired (the wait is bounded by its remaining TTL). It returns nil, or a
// no-op release when the store is lost or ctx ends.
func (s *Store) awaitRelease(ctx context.Context, h, key string) func() {
	noop := func() {}
	woken := s.watch(ctx, h)
	defer s.unwatch(h, woken)
	for {
		c, cancel := op(ctx)
		left, err := s.rdb.PTTL(c, key).Result()
		cancel()
		switch {
		case err != nil:
			s.fail(ctx, err)
			return noop
		case left == -2: // no such key (go-redis passes PTTL's -2 through)
			return nil
		}
		wait := leaseRecheck
		if left > 0 {
			wait = min(left+5*time.Millisecond, leaseRecheck)
		}
		select {
		case <-ctx.Done():
			return noop
		case <-woken:
			return nil
		case <-time.After(wait):
		}
	}
}

// hold renews a lease until the returned release deletes it.
func (s *Store) hold(h, key, token string, ttl time.Duration) func() {
	return s.renewWhileHeld(ttl, func(c context.Context) error {
		return renewIfMine.Run(c, s.rdb, []string{key}, token, ttl.Milliseconds()).Err()
	}, func(c context.Context) error {
		return releaseIfMine.Run(c, s.rdb, []string{key}, token, released, h).Err()
	})
}

// renewWhileHeld runs renew every third of ttl until the returned release
// stops it and runs free — once, after the last renewal, and only while
// the store is usable. A lease and a host slot are both held this way: a
// holder that dies stops renewing and its claim expires within ttl.
func (s *Store) renewWhileHeld(ttl time.Duration, renew, free func(context.Context) error) func() {
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(ttl / 3)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				c, cancel := op(context.Background())
				err := renew(c)
				cancel()
				s.fail(context.Background(), err)
			}
		}
	}()
	return func() {
		close(stop)
		<-done
		if !s.usable() {
			return
		}
		c, cancel := op(context.Background())
		defer cancel()
		s.fail(context.Background(), free(c))
	}
}

func (s *Store) leaseTTL() time.Duration {
	if s.LeaseTTL > 0 {
		return s.LeaseTTL
	}
	return DefaultLeaseTTL
}

// newToken names one holder of a lease or a host slot.
func newToken() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
