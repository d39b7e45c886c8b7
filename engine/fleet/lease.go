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

// leasePoll is the first pause between looks at another process's lease;
// it grows to leasePollMax.
const (
	leasePoll    = 20 * time.Millisecond
	leasePollMax = 250 * time.Millisecond
)

// LeaseKey is the key of the single-flight lease on verdict hash h.
func LeaseKey(h string) string { return prefix + "lease:{" + h + "}" }

// renewIfMine and releaseIfMine touch a lease only while it still holds the
// caller's token: a lease that expired and was taken by another process is
// not the caller's to extend or delete.
var (
	renewIfMine   = redis.NewScript(`if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end return 0`)
	releaseIfMine = redis.NewScript(`if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`)
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
		return s.hold(key, token, ttl)
	}
	for wait := leasePoll; ; wait = min(2*wait, leasePollMax) {
		select {
		case <-ctx.Done():
			return noop
		case <-time.After(wait):
		}
		c, cancel := op(ctx)
		n, err := s.rdb.Exists(c, key).Result()
		cancel()
		if err != nil {
			s.fail(ctx, err)
			return noop
		}
		if n == 0 {
			return nil
		}
	}
}

// hold renews a lease until the returned release deletes it.
func (s *Store) hold(key, token string, ttl time.Duration) func() {
	stop := make(chan struct{})
	done := make(chan struct{})
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
				err := renewIfMine.Run(c, s.rdb, []string{key}, token, ttl.Milliseconds()).Err()
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
		s.fail(context.Background(), releaseIfMine.Run(c, s.rdb, []string{key}, token).Err())
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
