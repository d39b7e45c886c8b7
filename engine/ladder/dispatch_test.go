package ladder

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"
)

// TestRunSkipsHostsThatMustWait: a host that must wait (here paused, as a
// Retry-After pauses it) does not take the only worker while another host
// has work. Before dispatch looked at each host's next start time, the
// worker took the paused host's URL first and slept in the host gate.
func TestRunSkipsHostsThatMustWait(t *testing.T) {
	page := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/a" && r.URL.Path != "/b" {
			http.NotFound(w, r) // the site probe's random sibling
			return
		}
		_, _ = w.Write([]byte(articleHTML("Report " + r.URL.Path)))
	})
	paused, other := httptest.NewServer(page), httptest.NewServer(page)
	defer paused.Close()
	defer other.Close()
	guard := loopbackGuard(paused, other)
	l := New(Config{Guard: guard, Concurrency: 1, PerHost: 4, DirectAttempts: 1, MaxRetryWait: time.Second, Now: time.Now})
	l.gate.pause(hostOf(paused.URL), time.Now().Add(400*time.Millisecond))

	items := []Item{
		{Index: 0, URL: paused.URL + "/a", Fetch: paused.URL + "/a"},
		{Index: 1, URL: other.URL + "/a", Fetch: other.URL + "/a"},
		{Index: 2, URL: other.URL + "/b", Fetch: other.URL + "/b"},
	}
	var mu sync.Mutex
	var order []int
	l.Run(context.Background(), items, func(it *Item, _ Decision, _ string) {
		mu.Lock()
		order = append(order, it.Index)
		mu.Unlock()
	})
	if want := []int{1, 2, 0}; !slices.Equal(order, want) {
		t.Errorf("settled in order %v, want %v: the paused host's URL held the only worker", order, want)
	}
}
