package engine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/citegate/citegate/engine/fleet/fleettest"
	"github.com/citegate/citegate/engine/simweb"
)

// fleetPassword is planted in the test Redis's address: it must appear in
// no artifact, event or error.
const fleetPassword = "planted-Fleet-pw-7d1e"

// statusesOf is a run's status per scenario.
func statusesOf(t *testing.T, r testRun, scs []simweb.Scenario) map[string]Status {
	t.Helper()
	out := map[string]Status{}
	for name, c := range recordsByScenario(t, r, scs) {
		out[name] = c.Status
	}
	return out
}

// totalRequests is every request the simulated web's scenario hosts saw.
func totalRequests(t *testing.T, w *simweb.Web, scs []simweb.Scenario) int {
	seen, n := map[string]bool{}, 0
	for _, sc := range scs {
		if h := scenarioHost(t, sc); !seen[h] {
			seen[h] = true
			n += w.Requests(h)
		}
	}
	return n
}

// baseline runs the catalogue once without any fleet: the statuses every
// fleet run must reproduce, and the requests one process makes.
func baseline(t *testing.T, w *simweb.Web) (statuses map[string]Status, requests, probes int) {
	t.Helper()
	r := simRunOpts(t, w, simOpts{})
	if _, err := fastSimEngine(w, true).Run(bg, RunArgs{ManifestPath: r.Manifest}, nil); err != nil {
		t.Fatal(err)
	}
	scs := w.Catalogue()
	st, n, p := statusesOf(t, r, scs), totalRequests(t, w, scs), w.TotalProbes()
	w.Reset()
	return st, n, p
}

// noSecret fails if the planted password is anywhere in a run directory or
// the events.
func noSecret(t *testing.T, r testRun, events []Event) {
	t.Helper()
	_ = filepath.WalkDir(filepath.Dir(r.Manifest), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.Contains(readFile(t, p), fleetPassword) {
			t.Errorf("%s holds the Redis password", p)
		}
		return err
	})
	for _, ev := range events {
		if strings.Contains(ev.Detail, fleetPassword) {
			t.Errorf("event %s shows the Redis password: %q", ev.Kind, ev.Detail)
		}
	}
}

func redisWarnings(events []Event) []string {
	var out []string
	for _, ev := range events {
		if ev.Kind == EventWarning && strings.Contains(ev.Detail, "Redis") {
			out = append(out, ev.Detail)
		}
	}
	return out
}

// TestFleetConcurrentRunsShareVerdicts: two processes' engines started at
// once on the same citations with one Redis (cache and fleet) reach the
// same statuses as a lone run, and together send fewer requests than two
// lone runs would: each definitive URL is fetched by one of them, the
// other waits for its lease and reads the verdict; a site shape is probed
// once for both. The Redis holds no secret.
func TestFleetConcurrentRunsShareVerdicts(t *testing.T) {
	w := startWeb(t)
	want, lone, loneProbes := baseline(t, w)
	srv := fleettest.New(t, fleetPassword)
	scs := w.Catalogue()
	runs := []testRun{simRunOpts(t, w, simOpts{}), simRunOpts(t, w, simOpts{})}
	var wg sync.WaitGroup
	events := make([][]Event, len(runs))
	errs := make([]error, len(runs))
	for i, r := range runs {
		e := fastSimEngine(w, true)
		e.Net.Fleet = srv.URL()
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, events[i], errs[i] = collect(t, e, bg, RunArgs{ManifestPath: r.Manifest}, nil)
		}()
	}
	wg.Wait()
	for i, r := range runs {
		if errs[i] != nil {
			t.Fatalf("run %d: %v", i, errs[i])
		}
		for name, st := range statusesOf(t, r, scs) {
			if st != want[name] {
				t.Errorf("run %d: %s is %s, want %s as a lone run", i, name, st, want[name])
			}
		}
		if ws := redisWarnings(events[i]); len(ws) != 0 {
			t.Errorf("run %d warned %q", i, ws)
		}
		noSecret(t, r, events[i])
	}
	both := totalRequests(t, w, scs)
	t.Logf("requests: two fleet runs %d, one lone run %d", both, lone)
	if both >= 2*lone {
		t.Errorf("two fleet runs sent %d requests, a lone run %d: nothing was shared", both, lone)
	}
	// Site probes are shared too: the fleet probes a shape once (a URL
	// that carried credentials keeps its own probes).
	t.Logf("site probes: two fleet runs %d, one lone run %d", w.TotalProbes(), loneProbes)
	if p := w.TotalProbes(); p >= 2*loneProbes || loneProbes == 0 {
		t.Errorf("two fleet runs sent %d site probes, a lone run %d", p, loneProbes)
	}
	c := srv.Client()
	keys := c.Keys(bg, "citegate:v1:verdict:*").Val()
	if len(keys) == 0 {
		t.Fatal("no verdict in the shared cache")
	}
	for _, k := range keys {
		if v := c.Get(bg, k).Val(); strings.Contains(v, simweb.SecretToken) || strings.Contains(v, fleetPassword) {
			t.Errorf("%s holds a secret", k)
		}
	}
	if leases := c.Keys(bg, "citegate:v1:lease:*").Val(); len(leases) != 0 {
		t.Errorf("leases left after the runs: %q", leases)
	}
}

// TestFleetRedisKilledMidRun: Redis dies while the ladder works; the run
// ends with the verdicts a lone run reaches and one warning that names the
// address without its password. With --fleet-required the same loss is the
// run's error.
func TestFleetRedisKilledMidRun(t *testing.T) {
	w := startWeb(t)
	want, _, _ := baseline(t, w)
	scs := w.Catalogue()
	for _, required := range []bool{false, true} {
		srv := fleettest.New(t, fleetPassword)
		r := simRunOpts(t, w, simOpts{})
		e := fastSimEngine(w, true)
		e.Net.Fleet, e.Net.FleetRequired = srv.URL(), required
		var once sync.Once
		_, events, err := collect(t, e, bg, RunArgs{ManifestPath: r.Manifest}, func(ev Event) {
			if ev.Kind == EventAttemptDone {
				once.Do(srv.Kill)
			}
		})
		noSecret(t, r, events)
		if required {
			if err == nil || !strings.Contains(err.Error(), "--fleet-required") || strings.Contains(err.Error(), fleetPassword) {
				t.Errorf("required: error %v, want the lost Redis named (no password) and --fleet-required", err)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		for name, st := range statusesOf(t, r, scs) {
			if st != want[name] {
				t.Errorf("%s is %s after Redis died, want %s", name, st, want[name])
			}
		}
		ws := redisWarnings(events)
		if len(ws) != 1 || !strings.HasSuffix(ws[0], "this run goes on with local politeness limits and without the shared cache") ||
			!strings.Contains(ws[0], "REDACTED@127.0.0.1") {
			t.Errorf("warnings %q, want one naming the redacted address and the local fallback", ws)
		}
		w.Reset()
	}
}

// TestFleetUnreachableAtStart: a Redis that cannot be reached, or refuses
// the password, is one warning and a lone run's verdicts; with
// --fleet-required it is an error before any URL is fetched. Neither shows
// the password.
func TestFleetUnreachableAtStart(t *testing.T) {
	w := startWeb(t)
	want, _, _ := baseline(t, w)
	scs := w.Catalogue()
	srv := fleettest.New(t, "the-right-one-9c2f")
	dead := fleettest.New(t, "")
	dead.Stop()
	for _, tt := range []struct{ name, url, says string }{
		{"nothing listening", strings.Replace(dead.URL(), "redis://", "redis://:"+fleetPassword+"@", 1), "refused"},
		{"wrong password", strings.Replace(srv.URL(), "the-right-one-9c2f", fleetPassword, 1), "WRONGPASS"},
	} {
		for _, required := range []bool{false, true} {
			r := simRunOpts(t, w, simOpts{})
			e := fastSimEngine(w, true)
			e.Net.Fleet, e.Net.FleetRequired = tt.url, required
			_, events, err := collect(t, e, context.Background(), RunArgs{ManifestPath: r.Manifest}, nil)
			noSecret(t, r, events)
			if required {
				if err == nil || !strings.Contains(err.Error(), tt.says) || strings.Contains(err.Error(), fleetPassword) {
					t.Errorf("%s, required: error %v, want %q and no password", tt.name, err, tt.says)
				}
				if n := totalRequests(t, w, scs); n != 0 {
					t.Errorf("%s, required: %d requests before failing", tt.name, n)
				}
				continue
			}
			if err != nil {
				t.Fatalf("%s: %v", tt.name, err)
			}
			if ws := redisWarnings(events); len(ws) != 1 || !strings.Contains(ws[0], tt.says) {
				t.Errorf("%s: warnings %q, want one saying %q", tt.name, ws, tt.says)
			}
			for name, st := range statusesOf(t, r, scs) {
				if st != want[name] {
					t.Errorf("%s: %s is %s, want %s", tt.name, name, st, want[name])
				}
			}
			w.Reset()
		}
	}
}
