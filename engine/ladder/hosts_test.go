package ladder

import (
	"context"
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
