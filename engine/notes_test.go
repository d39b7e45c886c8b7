package engine

import (
	"strings"
	"testing"

	"github.com/citegate/citegate/engine/simweb"
)

// TestLadderNotesActionable: a record says why each rung failed in terms an
// operator can act on, keeps the site's last HTTP status when blocked, and
// never calls a GET with an empty body a HEAD response.
func TestLadderNotesActionable(t *testing.T) {
	w := startWeb(t)
	names := []string{"blocked-everywhere", "empty-body", "cloudflare-challenge"}
	scs := simScenarios(t, w, names...)

	t.Run("provider answers and the last direct status", func(t *testing.T) {
		r := simRunOpts(t, w, simOpts{scenarios: names})
		if _, err := fastSimEngine(w, true).Run(bg, RunArgs{ManifestPath: r.Manifest}, nil); err != nil {
			t.Fatal(err)
		}
		recs := recordsByScenario(t, r, scs)
		b := recs["blocked-everywhere"]
		if b.Status != StatusBlocked || b.HTTPStatus == nil || *b.HTTPStatus != 403 {
			t.Errorf("blocked record %s http_status %v, want blocked with the direct rung's 403", b.Status, b.HTTPStatus)
		}
		for _, want := range []string{"bright_data=failed(attempt 1/1: provider could not unlock the page (", "reject_block", "Request was blocked by the target site",
			"apify=failed(attempt 1/1: provider could not unlock the page (", "received 403"} {
			if !strings.Contains(b.Notes, want) {
				t.Errorf("blocked notes lack %q: %q", want, b.Notes)
			}
		}
		if e := recs["empty-body"]; strings.Contains(e.Notes, "HEAD") || e.HTTPStatus == nil || *e.HTTPStatus != 200 {
			t.Errorf("empty GET body: %v %q", e.HTTPStatus, e.Notes)
		}
	})

	t.Run("refused credentials", func(t *testing.T) {
		e := fastSimEngine(w, true)
		env := map[string]string{"BRIGHTDATA_API_KEY": "wrong-key", "BRIGHTDATA_UNLOCKER_ZONE": simBDZone}
		e.Net.Getenv = func(k string) string { return env[k] }
		r := simRunOpts(t, w, simOpts{scenarios: []string{"cloudflare-challenge"}})
		if _, err := e.Run(bg, RunArgs{ManifestPath: r.Manifest}, nil); err != nil {
			t.Fatal(err)
		}
		c := recordsByScenario(t, r, scs[2:])["cloudflare-challenge"]
		if !strings.Contains(c.Notes, "bright_data=failed(attempt 1/1: provider refused the credentials (401 from bright_data") {
			t.Errorf("notes %q do not say the key was refused", c.Notes)
		}
		if strings.Contains(c.Notes, "wrong-key") {
			t.Errorf("notes leak the key: %q", c.Notes)
		}
	})

	t.Run("a configuration that can never work", func(t *testing.T) {
		w.Reset()
		e := fastSimEngine(w, true)
		e.Net.BrightDataURL = "http://api.brightdata.example"
		r := simRunOpts(t, w, simOpts{scenarios: names})
		sum, events, err := collect(t, e, bg, RunArgs{ManifestPath: r.Manifest}, nil)
		if err != nil {
			t.Fatal(err)
		}
		want := "bright_data is never used: provider failed (refusing to send credentials over plain http to http://api.brightdata.example)"
		if len(sum.Warnings) != 1 || sum.Warnings[0] != want {
			t.Errorf("summary warnings %q, want [%q]", sum.Warnings, want)
		}
		n := 0
		for _, ev := range events {
			if ev.Kind == EventWarning {
				n++
				if ev.Detail != want {
					t.Errorf("warning event %q", ev.Detail)
				}
			}
		}
		if n != 1 {
			t.Errorf("%d warning events, want 1", n)
		}
		c := recordsByScenario(t, r, scs)["blocked-everywhere"]
		if !strings.Contains(c.Notes, "bright_data=skipped(misconfigured: provider failed (refusing to send credentials over plain http to http://api.brightdata.example))") {
			t.Errorf("notes %q", c.Notes)
		}
		if n := w.Requests(simweb.BrightDataHost); n != 0 {
			t.Errorf("the misconfigured rung still sent %d requests", n)
		}
	})
}
