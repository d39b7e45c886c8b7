package engine

import (
	"net/url"
	"strings"
	"testing"

	"github.com/citegate/citegate/engine/classify"
	"github.com/citegate/citegate/engine/simweb"
)

// TestSiteProbe: a host is probed once, through the event stream, only
// when one of its pages would be valid; a catch-all answer makes a
// citation invalid and leaves a real page on the same host valid; a host
// that answers the probe with a real 404 is not compared; an app shell is
// escalated to the next rung, which renders the page.
func TestSiteProbe(t *testing.T) {
	w := startWeb(t)
	names := []string{"soft-404-probe", "catchall-real-article", "news-article", "app-shell", "dead-404", "soft-404"}
	scs := simScenarios(t, w, names...)
	r := simRunOpts(t, w, simOpts{scenarios: names})
	_, events, err := collect(t, fastSimEngine(w, true), bg, RunArgs{ManifestPath: r.Manifest}, nil)
	if err != nil {
		t.Fatal(err)
	}
	recs := recordsByScenario(t, r, scs)
	for _, sc := range scs {
		c := recs[sc.Name]
		if want := sc.Want[simweb.TierStandard]; string(c.Status) != want {
			t.Errorf("%s: %s %q, want %s", sc.Name, c.Status, c.Notes, want)
		}
	}
	if n := recs["soft-404-probe"].Notes; !strings.Contains(n, "soft 404 [site-probe]: answers like a page that does not exist") {
		t.Errorf("soft-404-probe notes %q", n)
	}
	if n := recs["app-shell"].Notes; !strings.Contains(n, "online ladder: bright_data") {
		t.Errorf("app-shell notes %q: want the unlocker's rendering", n)
	}
	// Probes only to hosts that had a page worth comparing: one where the
	// first probe gets a real 404; a control after it where the first
	// answer may be the cited page (the app shell always; the catch-all
	// when the probes were built from its soft 404 rather than its
	// article, whichever the workers reached first).
	type span struct{ lo, hi int }
	wantProbes := map[string]span{"www.catchall-review.sim": {1, 2}, "news.example.com": {1, 1}, "app.fleet-dashboards.sim": {2, 2},
		"old.example.net": {0, 0}, "blog.example.com": {0, 0}}
	for host, want := range wantProbes {
		if got := w.Probes(host); got < want.lo || got > want.hi {
			t.Errorf("%s received %d probes, want %d to %d", host, got, want.lo, want.hi)
		}
	}
	// Each probe shows in the event stream as one attempt of the rung
	// site_probe, with its outcome.
	probes := map[string][]Event{}
	for _, ev := range events {
		if ev.Rung == RungProbe && ev.Kind == EventAttemptDone {
			u, _ := url.Parse(ev.URL)
			probes[u.Hostname()] = append(probes[u.Hostname()], ev)
		}
	}
	for host := range wantProbes {
		if len(probes[host]) != w.Probes(host) {
			t.Errorf("%s: %d probe events for %d probes", host, len(probes[host]), w.Probes(host))
		}
	}
	if evs := probes["news.example.com"]; len(evs) == 1 && (evs[0].HTTPStatus != 404 || !strings.Contains(evs[0].Detail, "real 404")) {
		t.Errorf("news probe event %+v", evs[0])
	}
	if evs := probes["www.catchall-review.sim"]; len(evs) > 0 && !strings.Contains(evs[0].Detail, classify.ProbeName) {
		t.Errorf("catch-all probe event does not name the probe URL: %+v", evs[0])
	}

	// The basic tier checks reachability: no probe.
	w.Reset()
	rb := simRunOpts(t, w, simOpts{scenarios: names, tier: "basic"})
	if _, err := fastSimEngine(w, true).Run(bg, RunArgs{ManifestPath: rb.Manifest}, nil); err != nil {
		t.Fatal(err)
	}
	if n := w.TotalProbes(); n != 0 {
		t.Errorf("basic tier sent %d probes", n)
	}
}
