package ladder

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/citegate/citegate/engine/classify"
)

// memProbes is a fleet's shared probe store in memory: Once runs each key
// once across every ladder that holds it.
type memProbes struct {
	mu   sync.Mutex
	vals map[string][]byte
}

func (m *memProbes) Once(_ context.Context, key string, run func() ([]byte, bool)) []byte {
	m.mu.Lock()
	defer m.mu.Unlock() // held while run works: the others wait, as behind a lease
	if v, ok := m.vals[key]; ok {
		return v
	}
	v, keep := run()
	if keep {
		m.vals[key] = v
	}
	return v
}

// TestSharedProbesOncePerFleet: two ladders ("processes") checking
// different pages of one catch-all site probe it once between them when
// they share probes (half the requests of two unshared ladders), and still
// both find the pages soft 404s.
func TestSharedProbesOncePerFleet(t *testing.T) {
	sent := map[bool]int{}
	for _, shared := range []bool{false, true} {
		var mu sync.Mutex
		probes := 0
		s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if strings.Contains(r.URL.Path, classify.ProbeName) {
				mu.Lock()
				probes++
				mu.Unlock()
			}
			_, _ = w.Write([]byte(sitePage("Catch-all", "", "Catch-all", paras("everything"))))
		}))
		store := &memProbes{vals: map[string][]byte{}}
		var wg sync.WaitGroup
		verdicts := make([][]Decision, 2)
		for p := range 2 {
			var items []Item
			for i := range 3 {
				u := fmt.Sprintf("%s/news/story-%d-%d", s.URL, p, i)
				items = append(items, Item{Index: i, URL: u, Fetch: u})
			}
			cfg := Config{Guard: loopbackGuard(s), Tier: classify.Standard, Concurrency: 2, PerHost: 2, DirectAttempts: 1,
				MaxRetryWait: time.Second, Now: time.Now}
			if shared {
				cfg.SharedProbes = store
			}
			l := New(cfg)
			verdicts[p] = make([]Decision, len(items))
			wg.Add(1)
			go func() {
				defer wg.Done()
				l.Run(context.Background(), items, func(it *Item, d Decision, _ string) { verdicts[p][it.Index] = d })
			}()
		}
		wg.Wait()
		s.Close()
		for p, ds := range verdicts {
			for i, d := range ds {
				if !strings.Contains(d.Notes, "soft 404") {
					t.Errorf("shared=%v: process %d page %d: %s %q, want a soft 404", shared, p, i, d.Status, d.Notes)
				}
			}
		}
		sent[shared] = probes
	}
	// Unshared, each process sends the shape's probes; shared, one does.
	if sent[false] == 0 || sent[true]*2 != sent[false] {
		t.Errorf("probe requests: %d shared, %d unshared; want half as many shared", sent[true], sent[false])
	}
}
