package ladder

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/citegate/citegate/engine/record"
)

// TestWithRegistry: at the thorough tier the publisher page decides only
// when it is valid or paywalled; a walled, blocked or dead page leaves the
// registry's valid verdict (a registered work is never made invalid by
// its publisher's site); a registry that could not answer adds its note.
func TestWithRegistry(t *testing.T) {
	reg := &Decision{Verdict: record.Verdict{Status: record.StatusValid, Notes: "online ladder: registry; DOI 10.1/x found in Crossref; title agrees (score 1.00)",
		Title: "Registry title", Publisher: "Registry publisher"}, Rung: RungRegistry}
	page := func(st record.Status) Decision {
		return Decision{Verdict: record.Verdict{Status: st, Notes: "online ladder: direct_fetch"}, Rung: rungDirect}
	}
	for _, tc := range []struct {
		name       string
		reg        *Decision
		note       string
		d          Decision
		want       record.Status
		rung       string
		notesParts []string
	}{
		{"page valid", reg, "", page(record.StatusValid), record.StatusValid, rungDirect, []string{"direct_fetch", "found in Crossref"}},
		{"page paywalled", reg, "", page(record.StatusPaywalled), record.StatusPaywalled, rungDirect, []string{"found in Crossref"}},
		{"page blocked", reg, "", page(record.StatusBlocked), record.StatusValid, RungRegistry, []string{"publisher page blocked"}},
		{"page dead", reg, "", page(record.StatusInvalid), record.StatusValid, RungRegistry, []string{"publisher page invalid"}},
		{"registry down", nil, "registry unavailable: Crossref: HTTP 503", page(record.StatusInvalid), record.StatusInvalid, rungDirect,
			[]string{"direct_fetch; registry unavailable: Crossref: HTTP 503"}},
	} {
		got := withRegistry(tc.reg, tc.note, tc.d)
		if got.Status != tc.want || got.Rung != tc.rung {
			t.Errorf("%s: %s by %s, want %s by %s", tc.name, got.Status, got.Rung, tc.want, tc.rung)
		}
		for _, p := range tc.notesParts {
			if !strings.Contains(got.Notes, p) {
				t.Errorf("%s: notes %q lack %q", tc.name, got.Notes, p)
			}
		}
	}
	if got := withRegistry(reg, "", page(record.StatusValid)); got.Title != "Registry title" {
		t.Errorf("a page without a title did not take the registry's: %q", got.Title)
	}
}

func TestRateFloor(t *testing.T) {
	for _, tc := range []struct {
		limit, interval string
		want            time.Duration
	}{
		{"50", "1s", 20 * time.Millisecond}, {"5", "1s", 200 * time.Millisecond}, {"", "1s", 0}, {"50", "", 0}, {"0", "1s", 0}, {"x", "1s", 0},
	} {
		h := http.Header{}
		if tc.limit != "" {
			h.Set("X-Rate-Limit-Limit", tc.limit)
		}
		if tc.interval != "" {
			h.Set("X-Rate-Limit-Interval", tc.interval)
		}
		if got := rateFloor(h); got != tc.want {
			t.Errorf("%q per %q: %s, want %s", tc.limit, tc.interval, got, tc.want)
		}
	}
	g := newHostGate(1, 0)
	g.floor("api.crossref.org", 200*time.Millisecond)
	for range recoverAfter * 3 {
		g.answered("api.crossref.org")
	}
	if s := g.spacingOf("api.crossref.org"); s != 200*time.Millisecond {
		t.Errorf("spacing %s after calm answers: the host's rate-limit floor must hold", s)
	}
}
