package ladder

import (
	"context"
	"sync"
	"time"
)

// hostGate is the politeness layer of the live ladder: at most perHost
// requests in flight to one host, starts spaced by interval, and a host-wide
// pause after the host answered 429 (every worker waits, not just the one
// that was told to).
type hostGate struct {
	perHost  int
	interval time.Duration
	mu       sync.Mutex
	hosts    map[string]*hostState
}

type hostState struct {
	slots chan struct{}
	next  time.Time // earliest next start: interval spacing and 429 pauses
}

func newHostGate(perHost int, interval time.Duration) *hostGate {
	return &hostGate{perHost: max(1, perHost), interval: interval, hosts: map[string]*hostState{}}
}

func (g *hostGate) state(host string) *hostState {
	g.mu.Lock()
	defer g.mu.Unlock()
	s := g.hosts[host]
	if s == nil {
		s = &hostState{slots: make(chan struct{}, g.perHost)}
		g.hosts[host] = s
	}
	return s
}

// acquire waits for a slot and for the host's next start time. The returned
// release must be called when the request is over.
func (g *hostGate) acquire(ctx context.Context, host string) (func(), error) {
	s := g.state(host)
	select {
	case s.slots <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	release := func() { <-s.slots }
	for {
		g.mu.Lock()
		now := time.Now()
		wait := s.next.Sub(now)
		if wait <= 0 {
			s.next = now.Add(g.interval)
			g.mu.Unlock()
			return release, nil
		}
		g.mu.Unlock()
		if err := sleep(ctx, wait); err != nil {
			release()
			return nil, err
		}
	}
}

// pause holds every request to host until at least until.
func (g *hostGate) pause(host string, until time.Time) {
	s := g.state(host)
	g.mu.Lock()
	defer g.mu.Unlock()
	if until.After(s.next) {
		s.next = until
	}
}

// sleep waits for d or until ctx is done.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
