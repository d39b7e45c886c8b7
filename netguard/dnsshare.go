package netguard

import (
	"context"
	"errors"
	"net/netip"
	"sync"
	"time"
)

// ShareLookups makes the Guard resolve each name once and share the
// answer among all its dials and Address calls: while a lookup is in
// flight, every caller waits for it, and its outcome (addresses, NODATA or
// a confirmed NXDOMAIN) is kept for the answer's TTL, at most maxAge (≤ 0:
// DefaultShareMaxAge). A failure (ErrDNSNoAnswer) is not kept, so the next
// dial asks again. The engine builds one Guard per run, so this is "once
// per run" within the TTL.
//
// Sharing opens no rebinding hole: a shared answer goes through the same
// classification as a fresh one on every dial (DialContext checks every
// address it is given before it dials any), and the socket's address is
// checked once more just before connect. It closes one instead: the address
// dialled is always one that was checked, never a second answer.
//
// Without this option every dial resolves afresh (ssrf.md §2 #80, #81).
func ShareLookups(maxAge time.Duration) Option {
	return func(g *Guard) {
		if maxAge <= 0 {
			maxAge = DefaultShareMaxAge
		}
		g.shared = &lookupShare{maxAge: maxAge, now: time.Now, entries: map[shareKey]*shareEntry{}}
	}
}

// DefaultShareMaxAge caps how long a shared answer is kept. Go's resolver
// does not return TTLs; the built-in resolver reads them off the responses
// (dnssniff.go), and an injected Resolver's answers, or those from
// /etc/hosts, have none and are kept this long.
const DefaultShareMaxAge = 60 * time.Second

type shareKey struct{ family, name string }

// lookupShare holds the shared lookups of one Guard.
type lookupShare struct {
	maxAge  time.Duration
	now     func() time.Time
	mu      sync.Mutex
	entries map[shareKey]*shareEntry
}

// shareEntry is one lookup, in flight until done is closed.
type shareEntry struct {
	done    chan struct{}
	addrs   []netip.Addr
	err     error
	expires time.Time
	waiters int
	cancel  context.CancelFunc
}

// lookup returns the shared outcome of resolve for key, starting it if no
// fresh one exists. The lookup runs on its own context, so one caller's
// deadline does not fail the others; it is cancelled when every caller
// waiting for it has given up.
func (s *lookupShare) lookup(ctx context.Context, key shareKey, resolve func(context.Context) ([]netip.Addr, time.Duration, error)) ([]netip.Addr, error) {
	s.mu.Lock()
	e := s.entries[key]
	if e != nil && isClosed(e.done) && !s.now().Before(e.expires) {
		delete(s.entries, key)
		e = nil
	}
	if e == nil {
		lctx, cancel := context.WithCancel(context.Background())
		e = &shareEntry{done: make(chan struct{}), cancel: cancel}
		s.entries[key] = e
		go s.run(lctx, key, e, resolve)
	}
	e.waiters++
	s.mu.Unlock()
	select {
	case <-e.done:
		s.mu.Lock()
		e.waiters--
		s.mu.Unlock()
		return e.addrs, e.err
	case <-ctx.Done():
		s.mu.Lock()
		if e.waiters--; e.waiters == 0 && !isClosed(e.done) {
			e.cancel()
			s.forget(key, e)
		}
		s.mu.Unlock()
		return nil, ctx.Err()
	}
}

func (s *lookupShare) run(ctx context.Context, key shareKey, e *shareEntry, resolve func(context.Context) ([]netip.Addr, time.Duration, error)) {
	defer e.cancel()
	addrs, ttl, err := resolve(ctx)
	s.mu.Lock()
	defer s.mu.Unlock()
	e.addrs, e.err = addrs, err
	if ttl < 0 || ttl > s.maxAge {
		ttl = s.maxAge
	}
	e.expires = s.now().Add(ttl)
	if err != nil && !errors.Is(err, ErrNoSuchHost) {
		s.forget(key, e) // no answer, or cancelled: ask again next time
	}
	close(e.done)
}

// forget drops e if it is still key's entry. s.mu is held.
func (s *lookupShare) forget(key shareKey, e *shareEntry) {
	if s.entries[key] == e {
		delete(s.entries, key)
	}
}

func isClosed(c chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}
