package fleet

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// prefix starts every key citegate writes; v1 is the layout's version.
const prefix = "citegate:v1:"

// poolSize bounds one process's connections to the store.
const poolSize = 8

// opTimeout bounds one Redis operation: a fleet store slower than this is
// treated as lost, and the run goes on with its local limits.
const opTimeout = 2 * time.Second

// Store is one process's connection to the fleet's Redis.
type Store struct {
	rdb  *redis.Client
	addr Addr
	what string // "cache" or "fleet", for messages
	warn func(string)
	// LeaseTTL overrides DefaultLeaseTTL (tests).
	LeaseTTL time.Duration

	mu   sync.Mutex
	lost error
	// sub and waiters wake the processes waiting for a lease (wake.go).
	sub     *redis.PubSub
	waiters map[string][]chan struct{}
}

// Open connects to addr and checks it answers (PING, which also runs
// AUTH). what names the role in messages; warn receives the one warning
// said when the store is lost mid-run. The error names the address with its
// password redacted.
func Open(ctx context.Context, addr Addr, what string, warn func(string)) (*Store, error) {
	o := *addr.opts
	o.DialTimeout, o.ReadTimeout, o.WriteTimeout = opTimeout, opTimeout, opTimeout
	o.MaxRetries = 1
	// A few connections serve a process's workers (an operation takes well
	// under a millisecond), and keep a thousand runners under Redis's
	// default maxclients (10,000); the release announcements take one more.
	o.PoolSize = poolSize
	o.DisableIdentity = true // CLIENT SETINFO is noise on older servers
	s := &Store{rdb: redis.NewClient(&o), addr: addr, what: what, warn: warn}
	pctx, cancel := context.WithTimeout(ctx, opTimeout)
	defer cancel()
	if err := s.rdb.Ping(pctx).Err(); err != nil {
		_ = s.rdb.Close()
		return nil, s.describe(err)
	}
	return s, nil
}

// Close ends the connection.
func (s *Store) Close() error {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	sub := s.sub
	s.mu.Unlock()
	if sub != nil {
		_ = sub.Close()
	}
	return s.rdb.Close()
}

// describe is err as an error that names the address, not its secret.
func (s *Store) describe(err error) error {
	return fmt.Errorf("%s Redis %s: %s", s.what, s.addr.shown, scrub(err.Error(), "", s.addr.secret))
}

// Lost is the error that made the store fall back to local state, or nil.
func (s *Store) Lost() error {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lost
}

// usable reports whether the store may still be asked.
func (s *Store) usable() bool { return s != nil && s.Lost() == nil }

// fail records a Redis error: the first one marks the store lost and is
// said once. A cancelled run is not a lost store.
func (s *Store) fail(ctx context.Context, err error) {
	if err == nil || errors.Is(err, redis.Nil) || ctx.Err() != nil {
		return
	}
	s.mu.Lock()
	first := s.lost == nil
	if first {
		s.lost = s.describe(err)
	}
	lost := s.lost
	s.mu.Unlock()
	if first && s.warn != nil {
		s.warn(fmt.Sprintf("%v; %s", lost, Fallback(s.what)))
	}
}

// op bounds one operation's time.
func op(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, opTimeout)
}

// Fallback says what a run does without the store whose role is what
// ("cache", "fleet", or "cache and fleet").
func Fallback(what string) string {
	switch what {
	case "cache":
		return "this run goes on without the shared cache"
	case "fleet":
		return "this run goes on with local politeness limits"
	}
	return "this run goes on with local politeness limits and without the shared cache"
}
