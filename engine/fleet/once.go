package fleet

import (
	"context"
	"time"
)

// SharedKey is the key of a value computed once for the fleet (Once).
func SharedKey(h string) string { return prefix + "shared:{" + h + "}" }

// Once returns the fleet's value under hash h, computing it in this process
// only when no process has (single flight under the lease on h): compute's
// value is stored for ttl unless it says keep=false (a cancelled or
// inconclusive answer). With the store lost, it computes locally.
func (s *Store) Once(ctx context.Context, h string, ttl time.Duration, compute func() (value []byte, keep bool)) []byte {
	get := func() ([]byte, bool) {
		if !s.usable() {
			return nil, false
		}
		c, cancel := op(ctx)
		defer cancel()
		b, err := s.rdb.Get(c, SharedKey(h)).Bytes()
		if err != nil {
			s.fail(ctx, err)
			return nil, false
		}
		return b, true
	}
	for {
		if v, ok := get(); ok {
			return v
		}
		release := s.Await(ctx, "shared:"+h)
		if release == nil {
			continue // another process computed it, or gave up: look again
		}
		defer release()
		if v, ok := get(); ok {
			return v
		}
		v, keep := compute()
		if keep && s.usable() {
			c, cancel := op(ctx)
			s.fail(ctx, s.rdb.Set(c, SharedKey(h), v, ttl).Err())
			cancel()
		}
		return v
	}
}
