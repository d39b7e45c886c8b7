package ladder

import (
	"context"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestHostGateLimitsConcurrencyPerHost(t *testing.T) {
	g := newHostGate(2, 0)
	var inFlight, peak atomic.Int32
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			release, err := g.acquire(context.Background(), "a.example")
			if err != nil {
				t.Error(err)
				return
			}
			n := inFlight.Add(1)
			for {
				p := peak.Load()
				if n <= p || peak.CompareAndSwap(p, n) {
					break
				}
			}
			time.Sleep(5 * time.Millisecond)
			inFlight.Add(-1)
			release()
		}()
	}
	wg.Wait()
	if peak.Load() != 2 {
		t.Errorf("peak in flight = %d, want 2", peak.Load())
	}
}

func TestHostGateIntervalAndPause(t *testing.T) {
	g := newHostGate(4, 20*time.Millisecond)
	start := time.Now()
	for range 3 {
		release, err := g.acquire(context.Background(), "b.example")
		if err != nil {
			t.Fatal(err)
		}
		release()
	}
	if d := time.Since(start); d < 40*time.Millisecond {
		t.Errorf("3 starts took %v, want ≥ 2 intervals", d)
	}
	g.pause("b.example", time.Now().Add(60*time.Millisecond))
	start = time.Now()
	release, err := g.acquire(context.Background(), "b.example")
	if err != nil {
		t.Fatal(err)
	}
	release()
	if d := time.Since(start); d < 50*time.Millisecond {
		t.Errorf("acquire after pause took %v, want ≥ the pause", d)
	}
	// Another host is not held up.
	start = time.Now()
	release, _ = g.acquire(context.Background(), "c.example")
	release()
	if d := time.Since(start); d > 15*time.Millisecond {
		t.Errorf("unrelated host waited %v", d)
	}
}

func TestHostGateHonoursCancellation(t *testing.T) {
	g := newHostGate(1, 0)
	release, _ := g.acquire(context.Background(), "d.example")
	defer release()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := g.acquire(ctx, "d.example"); err == nil {
		t.Fatal("acquire on a full host ignored the cancelled context")
	}
}

func TestHostGateAdaptiveSpacing(t *testing.T) {
	g := newHostGate(4, 10*time.Millisecond)
	const h = "slow.example"
	if got := g.spacingOf(h); got != 10*time.Millisecond {
		t.Fatalf("initial spacing %v", got)
	}
	// A request to slow down: at least minSlowSpacing, then doubling, capped.
	for _, want := range []time.Duration{minSlowSpacing, 2 * minSlowSpacing, 4 * minSlowSpacing} {
		g.slowDown(h, time.Time{})
		if got := g.spacingOf(h); got != want {
			t.Errorf("after slowDown: spacing %v, want %v", got, want)
		}
	}
	for range 10 {
		g.slowDown(h, time.Time{})
	}
	if got := g.spacingOf(h); got != maxSlowSpacing {
		t.Errorf("spacing %v, want the cap %v", got, maxSlowSpacing)
	}
	// Ordinary answers: recoverAfter in a row halve it; fewer do not.
	for range recoverAfter - 1 {
		g.answered(h)
	}
	if got := g.spacingOf(h); got != maxSlowSpacing {
		t.Errorf("%d answers changed the spacing to %v", recoverAfter-1, got)
	}
	g.answered(h)
	if got := g.spacingOf(h); got != maxSlowSpacing/2 {
		t.Errorf("after %d answers: spacing %v, want %v", recoverAfter, got, maxSlowSpacing/2)
	}
	// A slow-down in the middle of a calm run starts the count again.
	g.answered(h)
	g.slowDown(h, time.Time{})
	for range recoverAfter - 1 {
		g.answered(h)
	}
	if got := g.spacingOf(h); got != maxSlowSpacing {
		t.Errorf("spacing %v, want %v (slowed again, not yet recovered)", got, maxSlowSpacing)
	}
	// All the way back: the gate's own interval, never below it.
	for range 100 {
		g.answered(h)
	}
	if got := g.spacingOf(h); got != 10*time.Millisecond {
		t.Errorf("recovered spacing %v, want the gate's 10ms", got)
	}
	// Other hosts are untouched.
	if got := g.spacingOf("other.example"); got != 10*time.Millisecond {
		t.Errorf("other host spacing %v", got)
	}
}

func TestHostGateSlowDownPausesAndSpaces(t *testing.T) {
	g := newHostGate(4, 0)
	const h = "pause.example"
	g.slowDown(h, time.Now().Add(40*time.Millisecond))
	start := time.Now()
	for range 2 {
		release, err := g.acquire(context.Background(), h)
		if err != nil {
			t.Fatal(err)
		}
		release()
	}
	// The pause, then one minSlowSpacing between the two starts.
	if d := time.Since(start); d < 30*time.Millisecond+minSlowSpacing {
		t.Errorf("two starts after a slow-down took %v, want ≥ pause + %v", d, minSlowSpacing)
	}
}

func TestSlowSignal(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	hdr := func(kv ...string) http.Header {
		h := http.Header{}
		for i := 0; i < len(kv); i += 2 {
			h.Set(kv[i], kv[i+1])
		}
		return h
	}
	for _, tc := range []struct {
		name       string
		status     int
		retryAfter time.Duration
		h          http.Header
		wantSlow   bool
		wantWait   time.Duration
	}{
		{"200", 200, 0, hdr(), false, 0},
		{"404", 404, 0, nil, false, 0},
		{"429 with Retry-After", 429, 3 * time.Second, nil, true, 3 * time.Second},
		{"429 Retry-After capped", 429, time.Hour, nil, true, 30 * time.Second},
		{"503 without Retry-After", 503, 0, nil, true, 0},
		{"500 is not a request to slow down", 500, 0, nil, false, 0},
		{"RateLimit exhausted, reset in seconds", 200, 0, hdr("RateLimit-Remaining", "0", "RateLimit-Reset", "7"), true, 7 * time.Second},
		{"X-RateLimit exhausted, reset as Unix time", 200, 0, hdr("X-RateLimit-Remaining", "0", "X-RateLimit-Reset", "1800000012"), true, 12 * time.Second},
		{"X-RateLimit reset far away is capped", 200, 0, hdr("X-RateLimit-Remaining", "0", "X-RateLimit-Reset", "1900000000"), true, 30 * time.Second},
		{"RateLimit exhausted, no reset", 200, 0, hdr("RateLimit-Remaining", "0"), true, 0},
		{"requests left", 200, 0, hdr("RateLimit-Remaining", "5", "RateLimit-Reset", "7"), false, 0},
		{"reset in the past", 200, 0, hdr("X-RateLimit-Remaining", "0", "X-RateLimit-Reset", "1700000000"), true, 0},
	} {
		until, slow := slowSignal(tc.status, tc.retryAfter, tc.h, now, 30*time.Second)
		if slow != tc.wantSlow || (slow && until.Sub(now) != tc.wantWait) {
			t.Errorf("%s: slow %v wait %v; want %v %v", tc.name, slow, until.Sub(now), tc.wantSlow, tc.wantWait)
		}
	}
}
