package ladder

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"sync/atomic"
	"testing"
	"time"
)

func TestAddrGate(t *testing.T) {
	shared := netip.MustParseAddr("203.0.113.7")
	resolves := map[string]int{}
	resolve := func(_ context.Context, host string, port int) (netip.Addr, error) {
		resolves[host+":"+strconv.Itoa(port)]++
		if host == "nxdomain.example" {
			return netip.Addr{}, errors.New("no such host")
		}
		return shared, nil
	}
	g := newAddrGate(2, resolve)
	var releases []func()
	for _, h := range []string{"a.example", "b.example"} {
		r, err := g.acquire(context.Background(), h, "https://"+h+"/x")
		if err != nil {
			t.Fatal(err)
		}
		releases = append(releases, r)
	}
	if g.busy("c.example:8080") {
		t.Error("a host not resolved yet is not known to be busy")
	}
	if !g.busy("a.example") || !g.busy("b.example") {
		t.Fatal("two requests to one address at limit 2: both its hosts should be busy")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := g.acquire(ctx, "c.example:8080", "http://c.example:8080/"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a third host at the same address got a slot (err %v); want to wait", err)
	}
	releases[0]()
	r, err := g.acquire(context.Background(), "c.example:8080", "http://c.example:8080/")
	if err != nil {
		t.Fatal(err)
	}
	r()
	// An unresolvable host is not limited here; its fetch fails as before.
	for range 3 {
		r, err := g.acquire(context.Background(), "nxdomain.example", "http://nxdomain.example/")
		if err != nil {
			t.Fatal(err)
		}
		defer r()
	}
	if resolves["a.example:443"] != 1 || resolves["c.example:8080"] != 1 || resolves["nxdomain.example:80"] != 1 {
		t.Errorf("each host is resolved once, with the scheme's port: %v", resolves)
	}
	if g := newAddrGate(0, resolve); g.busy("a.example") {
		t.Error("limit 0 means no limit")
	}
}

// TestRunLimitsRequestsPerAddress: two hosts (two ports of 127.0.0.1) are one
// server address; with PerAddress 1 the server never sees two requests at
// once although Concurrency and PerHost allow four.
func TestRunLimitsRequestsPerAddress(t *testing.T) {
	var inFlight, peak atomic.Int32
	page := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := inFlight.Add(1)
		defer inFlight.Add(-1)
		for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
		}
		time.Sleep(20 * time.Millisecond)
		_, _ = w.Write([]byte(articleHTML("Report")))
	})
	a, b := httptest.NewServer(page), httptest.NewServer(page)
	defer a.Close()
	defer b.Close()
	var items []Item
	for _, s := range []*httptest.Server{a, b} {
		for _, path := range []string{"/1", "/2", "/3"} {
			items = append(items, Item{Index: len(items), URL: s.URL + path, Fetch: s.URL + path})
		}
	}
	guard := loopbackGuard(a, b)
	for _, tc := range []struct {
		perAddress int
		wantPeak   int32
	}{{1, 1}, {0, 2}} {
		peak.Store(0)
		l := New(Config{Guard: guard, Concurrency: 4, PerHost: 4, PerAddress: tc.perAddress, DirectAttempts: 1, MaxRetryWait: time.Second, Now: time.Now})
		var settled atomic.Int32
		l.Run(context.Background(), items, func(*Item, Decision, string) { settled.Add(1) })
		if int(settled.Load()) != len(items) {
			t.Fatalf("settled %d of %d", settled.Load(), len(items))
		}
		if tc.perAddress > 0 && peak.Load() > tc.wantPeak || tc.perAddress == 0 && peak.Load() < tc.wantPeak {
			t.Errorf("PerAddress %d: the server saw %d requests at once", tc.perAddress, peak.Load())
		}
	}
}
