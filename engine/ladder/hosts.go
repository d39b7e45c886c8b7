package ladder

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/citegate/citegate/netguard"
)

// hostGate is the politeness layer of the live ladder: at most perHost
// requests in flight to one host, starts spaced by at least interval, a
// host-wide pause after the host answered 429 (every worker waits, not just
// the one that was told to), and adaptive spacing: a host that asks us to
// slow down (429, 503, an exhausted rate-limit header; see slowDown) gets
// its requests spaced twice as far apart, and a run of ordinary answers
// halves that again, back to interval.
type hostGate struct {
	perHost  int
	interval time.Duration
	mu       sync.Mutex
	hosts    map[string]*hostState
}

type hostState struct {
	slots chan struct{}
	next  time.Time // earliest next start: interval spacing and pauses
	// spacing is this host's current interval: the gate's, or longer after
	// the host asked to slow down; calm counts ordinary answers since.
	spacing time.Duration
	calm    int
	// floor is the least spacing the host asked for in its rate-limit
	// headers (Crossref's X-Rate-Limit-*); recovery never goes below it.
	floor time.Duration
}

// Adaptive spacing: a host that asked to slow down gets at least
// minSlowSpacing between starts, doubled at each further request, up to
// maxSlowSpacing; recoverAfter ordinary answers in a row halve it.
const (
	minSlowSpacing = 250 * time.Millisecond
	maxSlowSpacing = 8 * time.Second
	recoverAfter   = 5
)

func newHostGate(perHost int, interval time.Duration) *hostGate {
	return &hostGate{perHost: max(1, perHost), interval: interval, hosts: map[string]*hostState{}}
}

func (g *hostGate) state(host string) *hostState {
	g.mu.Lock()
	defer g.mu.Unlock()
	s := g.hosts[host]
	if s == nil {
		s = &hostState{slots: make(chan struct{}, g.perHost), spacing: g.interval}
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
			s.next = now.Add(s.spacing)
			g.mu.Unlock()
			return release, nil
		}
		g.mu.Unlock()
		if err := netguard.Sleep(ctx, wait); err != nil {
			release()
			return nil, err
		}
	}
}

// readyAt is when host may next start a request (its spacing and any
// pause); the zero time for a host not seen yet.
func (g *hostGate) readyAt(host string) time.Time {
	g.mu.Lock()
	defer g.mu.Unlock()
	if s := g.hosts[host]; s != nil {
		return s.next
	}
	return time.Time{}
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

// slowDown is the host asking for fewer requests: every request to it waits
// until until, and its spacing doubles (at least minSlowSpacing, at most
// maxSlowSpacing).
func (g *hostGate) slowDown(host string, until time.Time) {
	s := g.state(host)
	g.mu.Lock()
	defer g.mu.Unlock()
	s.spacing = min(max(2*s.spacing, minSlowSpacing), maxSlowSpacing)
	s.calm = 0
	if until.After(s.next) {
		s.next = until
	}
}

// answered is an ordinary answer from host: after recoverAfter of them in a
// row, a slowed-down host's spacing halves, back towards the gate's
// interval.
func (g *hostGate) answered(host string) {
	s := g.state(host)
	g.mu.Lock()
	defer g.mu.Unlock()
	base := max(g.interval, s.floor)
	if s.spacing <= base {
		return
	}
	if s.calm++; s.calm >= recoverAfter {
		s.spacing, s.calm = max(base, s.spacing/2), 0
		if s.spacing < minSlowSpacing {
			s.spacing = base
		}
	}
}

// floor sets the least spacing host asked for in its rate-limit headers.
func (g *hostGate) floor(host string, d time.Duration) {
	s := g.state(host)
	g.mu.Lock()
	defer g.mu.Unlock()
	s.floor = min(d, maxSlowSpacing)
	s.spacing = max(s.spacing, s.floor)
}

// spacingOf is host's current spacing (for tests and reports).
func (g *hostGate) spacingOf(host string) time.Duration {
	s := g.state(host)
	g.mu.Lock()
	defer g.mu.Unlock()
	return s.spacing
}

// slowSignal reports whether a response asks the client to slow down, and
// until when: 429 and 503 (with their Retry-After), or a rate-limit header
// that says no request is left (RateLimit-Remaining or X-RateLimit-Remaining
// 0, with RateLimit-Reset / X-RateLimit-Reset in seconds from now, or a Unix
// time). The wait is capped at maxWait.
func slowSignal(status int, retryAfter time.Duration, h http.Header, now time.Time, maxWait time.Duration) (time.Time, bool) {
	switch {
	case status == http.StatusTooManyRequests || status == http.StatusServiceUnavailable:
		return now.Add(min(retryAfter, maxWait)), true
	case h == nil:
		return time.Time{}, false
	}
	for _, prefix := range []string{"RateLimit-", "X-RateLimit-"} {
		rem := strings.TrimSpace(h.Get(prefix + "Remaining"))
		if rem != "0" {
			continue
		}
		wait := time.Duration(0)
		if v, err := strconv.ParseInt(strings.TrimSpace(h.Get(prefix+"Reset")), 10, 64); err == nil && v > 0 {
			if v > 1_000_000_000 { // a Unix time
				wait = time.Unix(v, 0).Sub(now)
			} else {
				wait = time.Duration(v) * time.Second
			}
		}
		return now.Add(min(max(wait, 0), maxWait)), true
	}
	return time.Time{}, false
}
