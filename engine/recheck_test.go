package engine

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"github.com/citegate/citegate/engine/simweb"
)

// TestRunRecheckOnlyBlocked is the TUI's "re-run the blocked ones": only the
// listed URLs are fetched again; every other record is kept as it was.
func TestRunRecheckOnlyBlocked(t *testing.T) {
	w, err := simweb.Start(simweb.Options{BrightDataKey: simBDKey, BrightDataZone: simBDZone, ApifyToken: simApifyTok})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	r := simRun(t, w, simweb.TierStandard)
	if _, err := simEngine(w).Run(context.Background(), RunArgs{ManifestPath: r.Manifest}, nil); err != nil {
		t.Fatal(err)
	}
	before := readCitationLines(t, r.cit("citations.jsonl"))
	var blocked []string
	blockedHosts := map[string]bool{}
	for _, c := range before {
		if c.Status == StatusBlocked {
			blocked = append(blocked, c.NormalizedURL)
			u, _ := url.Parse(c.NormalizedURL)
			blockedHosts[u.Hostname()] = true
		}
	}
	if len(blocked) == 0 {
		t.Fatal("the simulated web produced no blocked URL")
	}
	w.Reset()
	if _, err := simEngine(w).Run(context.Background(), RunArgs{ManifestPath: r.Manifest, Recheck: blocked}, nil); err != nil {
		t.Fatal(err)
	}
	for _, h := range w.Hosts() {
		if n := w.Requests(h); n > 0 && !blockedHosts[h] && !strings.HasPrefix(h, "api.") {
			t.Errorf("re-run fetched %d times from %s, which had no blocked URL", n, h)
		}
	}
	after := readCitationLines(t, r.cit("citations.jsonl"))
	if len(after) != len(before) {
		t.Fatalf("re-run has %d records, want %d", len(after), len(before))
	}
	for i := range before {
		if before[i].Status != StatusBlocked && mustJSON(t, before[i]) != mustJSON(t, after[i]) {
			t.Errorf("kept record changed:\n%s\n%s", mustJSON(t, before[i]), mustJSON(t, after[i]))
		}
	}
}
