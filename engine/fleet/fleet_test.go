package fleet_test

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/citegate/citegate/engine/fleet"
	"github.com/citegate/citegate/engine/fleet/fleettest"
)

var bg = context.Background()

// open connects a store ("a process") to srv, collecting its warnings.
func open(t *testing.T, url string) (*fleet.Store, *warnings) {
	t.Helper()
	addr, err := fleet.ParseAddr(url)
	if err != nil {
		t.Fatal(err)
	}
	w := &warnings{}
	s, err := fleet.Open(bg, addr, "fleet", w.add)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s, w
}

type warnings struct {
	mu   sync.Mutex
	said []string
}

func (w *warnings) add(s string) { w.mu.Lock(); w.said = append(w.said, s); w.mu.Unlock() }
func (w *warnings) all() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.said...)
}

// TestCacheRoundTrip: a value put by one process is read by another,
// under the documented key, expiring with the TTL given.
func TestCacheRoundTrip(t *testing.T) {
	srv := fleettest.New(t, "")
	a, _ := open(t, srv.URL())
	b, _ := open(t, srv.URL())
	if _, ok := b.Get(bg, "h1"); ok {
		t.Fatal("hit in an empty cache")
	}
	a.Put(bg, "h1", []byte(`{"v":1}`), time.Hour)
	got, ok := b.Get(bg, "h1")
	if !ok || string(got) != `{"v":1}` {
		t.Fatalf("Get = %q, %v", got, ok)
	}
	ttl := srv.Client().PTTL(bg, fleet.VerdictKey("h1")).Val()
	if ttl <= 59*time.Minute || ttl > time.Hour {
		t.Errorf("TTL %v, want about an hour", ttl)
	}
}

// TestLeaseSingleFlight: while one process holds a URL's lease, another
// waits; once it is released the other is told to read the cache, and may
// then take the lease itself.
func TestLeaseSingleFlight(t *testing.T) {
	srv := fleettest.New(t, "")
	a, _ := open(t, srv.URL())
	b, _ := open(t, srv.URL())
	release := a.Await(bg, "h")
	if release == nil {
		t.Fatal("first Await did not get the lease")
	}
	got := make(chan func(), 1)
	go func() { got <- b.Await(bg, "h") }()
	select {
	case <-got:
		t.Fatal("second Await returned while the lease was held")
	case <-time.After(200 * time.Millisecond):
	}
	release()
	select {
	case r := <-got:
		if r != nil {
			t.Fatal("the waiter got a lease instead of being told to read the cache")
		}
	case <-time.After(2 * time.Second):
		t.Fatal("the waiter still waits after the release")
	}
	r := b.Await(bg, "h")
	if r == nil {
		t.Fatal("no lease once free")
	}
	r()
}

// TestLeaseRenewedWhileHeld: a fetch longer than the TTL keeps its lease.
func TestLeaseRenewedWhileHeld(t *testing.T) {
	srv := fleettest.New(t, "")
	a, _ := open(t, srv.URL())
	a.LeaseTTL = 300 * time.Millisecond
	release := a.Await(bg, "h")
	time.Sleep(time.Second)
	if n := srv.Client().Exists(bg, fleet.LeaseKey("h")).Val(); n != 1 {
		t.Fatal("the lease expired while its holder was alive")
	}
	release()
	if n := srv.Client().Exists(bg, fleet.LeaseKey("h")).Val(); n != 0 {
		t.Fatal("release left the lease")
	}
}

// TestHostsLimitAcrossProcesses: three stores (three processes) pushing
// at one host never have more than perHost requests in flight together,
// and their starts keep the interval.
func TestHostsLimitAcrossProcesses(t *testing.T) {
	srv := fleettest.New(t, "")
	const perHost, interval = 2, 40 * time.Millisecond
	var inFlight, peak atomic.Int32
	var mu sync.Mutex
	var starts []time.Time
	var wg sync.WaitGroup
	for range 3 {
		s, _ := open(t, srv.URL())
		h := fleet.NewHosts(s, perHost, interval)
		for range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				release, err := h.Acquire(bg, "example.org")
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				starts = append(starts, time.Now())
				mu.Unlock()
				n := inFlight.Add(1)
				for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
				}
				time.Sleep(60 * time.Millisecond)
				inFlight.Add(-1)
				release()
			}()
		}
	}
	wg.Wait()
	if p := peak.Load(); p > perHost || p == 0 {
		t.Errorf("peak in flight %d, want 1..%d", p, perHost)
	}
	if len(starts) != 12 {
		t.Fatalf("%d starts, want 12", len(starts))
	}
	first, last := starts[0], starts[0]
	for _, s := range starts {
		first, last = minTime(first, s), maxTime(last, s)
	}
	// 12 starts spaced by interval span at least 11 intervals (a little
	// slack for the millisecond clock).
	if span := last.Sub(first); span < 11*interval-20*time.Millisecond {
		t.Errorf("12 starts within %v, want at least %v", span, 11*interval)
	}
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// TestSlowDownShared: one process told to slow down (a 429 with
// Retry-After) holds back another process's next request to that host.
func TestSlowDownShared(t *testing.T) {
	srv := fleettest.New(t, "")
	a, _ := open(t, srv.URL())
	b, _ := open(t, srv.URL())
	ha, hb := fleet.NewHosts(a, 4, 0), fleet.NewHosts(b, 4, 0)
	ha.SlowDown(bg, "slow.example", time.Now().Add(400*time.Millisecond))
	start := time.Now()
	release, err := hb.Acquire(bg, "slow.example")
	if err != nil {
		t.Fatal(err)
	}
	release()
	if d := time.Since(start); d < 300*time.Millisecond {
		t.Errorf("other process started after %v, want the shared pause (~400ms)", d)
	}
	if sp := srv.Client().HGet(bg, "citegate:v1:host:{slow.example}:slow", "spacing").Val(); sp != "250" {
		t.Errorf("shared spacing %q ms, want 250 (doubled from 0, at least the minimum)", sp)
	}
	// Another host is not held back.
	start = time.Now()
	release, _ = hb.Acquire(bg, "fast.example")
	release()
	if d := time.Since(start); d > 200*time.Millisecond {
		t.Errorf("an unrelated host waited %v", d)
	}
}

// TestLostStoreWarnsOnceAndAdmits: a Redis killed mid-run makes every
// operation a local no-op at once, said in one warning.
func TestLostStoreWarnsOnceAndAdmits(t *testing.T) {
	srv := fleettest.New(t, "planted-Pa55word-xyz")
	s, w := open(t, srv.URL())
	h := fleet.NewHosts(s, 1, time.Second)
	s.Put(bg, "k", []byte("v"), time.Minute)
	srv.Kill()
	for range 3 {
		if _, ok := s.Get(bg, "k"); ok {
			t.Error("hit from a dead Redis")
		}
		s.Put(bg, "k2", []byte("v"), time.Minute)
		start := time.Now()
		release, err := h.Acquire(bg, "example.org")
		if err != nil {
			t.Fatal(err)
		}
		release()
		if r := s.Await(bg, "h"); r == nil {
			t.Error("Await on a lost store did not let this process fetch")
		} else {
			r()
		}
		if d := time.Since(start); d > 500*time.Millisecond {
			t.Errorf("a lost store held a request %v", d)
		}
	}
	said := w.all()
	if len(said) != 1 {
		t.Fatalf("warnings %q, want exactly one", said)
	}
	if !strings.Contains(said[0], "local politeness limits") || !strings.Contains(said[0], "127.0.0.1") {
		t.Errorf("warning %q does not say what was lost and what happens", said[0])
	}
	if strings.Contains(said[0], "planted-Pa55word-xyz") || s.Lost() == nil || strings.Contains(s.Lost().Error(), "planted") {
		t.Errorf("warning or error shows the password: %q / %v", said[0], s.Lost())
	}
}

// TestWrongPasswordNoSecret: a wrong password is a clear error that shows
// neither the password given nor the address's userinfo.
func TestWrongPasswordNoSecret(t *testing.T) {
	srv := fleettest.New(t, "right-Pa55word-abc")
	for _, tt := range []struct{ name, url string }{
		{"wrong password", strings.Replace(srv.URL(), "right-Pa55word-abc", "wrong-Pa55word-def", 1)},
		{"no password", strings.Replace(srv.URL(), ":right-Pa55word-abc@", "", 1)},
		{"user and wrong password", strings.Replace(srv.URL(), ":right-Pa55word-abc@", "ops:wrong-Pa55word-def@", 1)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			addr, err := fleet.ParseAddr(tt.url)
			if err != nil {
				t.Fatal(err)
			}
			_, err = fleet.Open(bg, addr, "fleet", nil)
			if err == nil {
				t.Fatal("Open succeeded")
			}
			msg := err.Error()
			for _, secret := range []string{"wrong-Pa55word-def", "right-Pa55word-abc"} {
				if strings.Contains(msg, secret) || strings.Contains(addr.String(), secret) {
					t.Errorf("secret %q shown: %q / %q", secret, msg, addr)
				}
			}
			if !strings.Contains(msg, "fleet Redis redis://") || !(strings.Contains(msg, "WRONGPASS") || strings.Contains(msg, "NOAUTH")) {
				t.Errorf("error %q does not name the store and the refusal", msg)
			}
		})
	}
}

// TestParseAddr: what ParseAddr accepts, and that a bad address's error
// holds no password.
func TestParseAddr(t *testing.T) {
	for _, tt := range []struct {
		raw, shown, errHas string
	}{
		{"redis://127.0.0.1:6379/0", "redis://127.0.0.1:6379/0", ""},
		{"rediss://u:planted-secret@cache.internal:6380/2", "rediss://REDACTED@cache.internal:6380/2", ""},
		{"redis://:planted-secret@127.0.0.1:6379/notadb", "", "invalid database"},
		{"http://127.0.0.1:6379", "", "not a redis://"},
		{"redis://:planted%2Dsecret@[::1", "", "REDACTED"},
	} {
		a, err := fleet.ParseAddr(tt.raw)
		switch {
		case tt.errHas == "" && err != nil:
			t.Errorf("%s: %v", tt.raw, err)
		case tt.errHas == "" && a.String() != tt.shown:
			t.Errorf("%s shown as %q, want %q", tt.raw, a, tt.shown)
		case tt.errHas != "" && (err == nil || !strings.Contains(err.Error(), tt.errHas)):
			t.Errorf("%s: error %v, want one holding %q", tt.raw, err, tt.errHas)
		case err != nil && (strings.Contains(err.Error(), "planted-secret") || strings.Contains(err.Error(), "planted%2Dsecret")):
			t.Errorf("%s: error shows the password: %v", tt.raw, err)
		}
	}
}

// TestOnceAcrossProcesses: processes asking for the same shared value at
// once compute it once; a value not kept is computed again.
func TestOnceAcrossProcesses(t *testing.T) {
	srv := fleettest.New(t, "")
	var computed atomic.Int32
	var wg sync.WaitGroup
	for range 4 {
		s, _ := open(t, srv.URL())
		wg.Add(1)
		go func() {
			defer wg.Done()
			v := s.Once(bg, "shape", time.Minute, func() ([]byte, bool) {
				computed.Add(1)
				time.Sleep(100 * time.Millisecond)
				return []byte("answer"), true
			})
			if string(v) != "answer" {
				t.Errorf("Once = %q", v)
			}
		}()
	}
	wg.Wait()
	if n := computed.Load(); n != 1 {
		t.Errorf("computed %d times by 4 processes, want once", n)
	}
	s, _ := open(t, srv.URL())
	for range 2 {
		s.Once(bg, "inconclusive", time.Minute, func() ([]byte, bool) { computed.Add(1); return nil, false })
	}
	if n := computed.Load(); n != 3 {
		t.Errorf("an unkept value was reused (%d computations, want 3)", n)
	}
}
