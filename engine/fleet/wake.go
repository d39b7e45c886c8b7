package fleet

import (
	"context"

	"github.com/redis/go-redis/v9"
)

// watch returns a channel closed when the release of h is announced. The
// process subscribes once, on its first wait, and shares the subscription
// among its waiters; if it cannot, waiters fall back to their timed looks.
func (s *Store) watch(ctx context.Context, h string) chan struct{} {
	ch := make(chan struct{})
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.sub == nil && s.lost == nil {
		sub := s.rdb.Subscribe(ctx, released)
		c, cancel := op(ctx)
		_, err := sub.Receive(c) // the subscription's confirmation
		cancel()
		if err != nil {
			_ = sub.Close()
			return ch
		}
		s.sub, s.waiters = sub, map[string][]chan struct{}{}
		go s.dispatch(sub)
	}
	if s.waiters != nil {
		s.waiters[h] = append(s.waiters[h], ch)
	}
	return ch
}

// unwatch forgets a waiter that is done.
func (s *Store) unwatch(h string, ch chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ws := s.waiters[h]
	for i, w := range ws {
		if w == ch {
			ws = append(ws[:i], ws[i+1:]...)
			break
		}
	}
	if len(ws) == 0 {
		delete(s.waiters, h)
	} else {
		s.waiters[h] = ws
	}
}

// dispatch wakes the waiters of each announced release until the
// subscription is closed.
func (s *Store) dispatch(sub *redis.PubSub) {
	for msg := range sub.Channel() {
		s.mu.Lock()
		for _, ch := range s.waiters[msg.Payload] {
			close(ch)
		}
		delete(s.waiters, msg.Payload)
		s.mu.Unlock()
	}
}
