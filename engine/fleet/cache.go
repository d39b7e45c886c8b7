package fleet

import (
	"context"
	"errors"
	"time"

	"github.com/redis/go-redis/v9"
)

// VerdictKey is the key of a verdict whose hash is h.
func VerdictKey(h string) string { return prefix + "verdict:{" + h + "}" }

// Get returns the value stored under the verdict hash h. A miss, or a lost
// store, is ok=false.
func (s *Store) Get(ctx context.Context, h string) ([]byte, bool) {
	if !s.usable() {
		return nil, false
	}
	c, cancel := op(ctx)
	defer cancel()
	b, err := s.rdb.Get(c, VerdictKey(h)).Bytes()
	if err != nil {
		if !errors.Is(err, redis.Nil) {
			s.fail(ctx, err)
		}
		return nil, false
	}
	return b, true
}

// Put stores value under h for ttl.
func (s *Store) Put(ctx context.Context, h string, value []byte, ttl time.Duration) {
	if !s.usable() || ttl <= 0 {
		return
	}
	c, cancel := op(ctx)
	defer cancel()
	s.fail(ctx, s.rdb.Set(c, VerdictKey(h), value, ttl).Err())
}
