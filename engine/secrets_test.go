package engine

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/citegate/citegate/engine/simweb"
)

// plantedSecrets occur in testdata/engine/secrets (wave files) and in the
// reasons below; none may reach any artifact, audit line, event or result.
var plantedSecrets = []string{
	"alice",            // userinfo user
	"hunter2pw",        // userinfo password
	"SECRETTOKEN1",     // ?token=
	"SECRETAPIKEY2",    // ?api_key=
	"SECRETAMZSIG3",    // ?X-Amz-Signature=
	"SECRETACCESS4",    // #access_token=
	"SECRETSLACK5",     // hooks.slack.com/services/… webhook path
	"SECRETGHTOKEN6",   // a GitHub token in a source line's text, outside any URL
	"SECRETREASON7",    // in --reason
	"T000/B000",        // the rest of the Slack webhook path
	"SECRETPATHGH8",    // a GitHub token as a path segment
	"SECRETSTRIPE9",    // a Stripe key as a path segment
	"SECRETJSESSION10", // ;jsessionid= path parameter
	"SECRETCURL11",     // curl -u admin:… in a source line's text
	"SECRETBEARER12",   // Authorization: Bearer … in a source line's text
}

const secretsReason = "rerun after rotating password=SECRETREASON7"

var secretsCorpus = filepath.Join(testdataDir, "secrets")

// assertNoSecrets checks every file under root except the inputs listed in
// before (which must be unchanged), plus the given JSON-marshalled values.
func assertNoSecrets(t *testing.T, root string, inputs map[string][]byte, values ...any) {
	t.Helper()
	after := snapshot(t, root)
	checked := 0
	for path, data := range after {
		if in, ok := inputs[path]; ok {
			if !bytes.Equal(in, data) {
				t.Errorf("input %s was modified", path)
			}
			continue
		}
		checked++
		for _, s := range plantedSecrets {
			if bytes.Contains(data, []byte(s)) {
				t.Errorf("%s contains planted secret %q", path, s)
			}
		}
	}
	if checked < 8 {
		t.Errorf("only %d output files checked: %v", checked, slices.Sorted(func(yield func(string) bool) {
			for k := range after {
				if !yield(k) {
					return
				}
			}
		}))
	}
	for i, v := range values {
		js := mustJSON(t, v)
		for _, s := range plantedSecrets {
			if strings.Contains(js, s) {
				t.Errorf("result %d (%T) contains planted secret %q: %s", i, v, s, js)
			}
		}
	}
}

// assertUserinfoInvalid checks the record of the userinfo URL.
func assertUserinfoInvalid(t *testing.T, path string) {
	t.Helper()
	var found bool
	for _, c := range readCitationLines(t, path) {
		if c.NormalizedURL != "https://example.com/x" {
			continue
		}
		found = true
		if c.Status != StatusInvalid || c.URLOriginal != "https://REDACTED@example.com/x" ||
			c.Notes != "fixture says valid; userinfo redacted; marked invalid per redaction policy" {
			t.Errorf("userinfo record = %+v", c)
		}
	}
	if !found {
		t.Error("no record for the userinfo URL")
	}
}

func TestPlantedSecretsPipeline(t *testing.T) {
	r := newRun(t, runSpec{RunID: "RUN", Sensitivity: "no_web", Copy: map[string]string{"": secretsCorpus}})
	inputs := snapshot(t, r.Root)
	ch := make(chan Event)
	var events []Event
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ev := range ch {
			events = append(events, ev)
		}
	}()
	sum, err := newEngine().Run(bg, RunArgs{ManifestPath: r.Manifest, Reason: secretsReason}, ch)
	<-done
	if err != nil {
		t.Fatal(err)
	}
	if sum.Mode != ModeOffline || sum.UniqueNormalized != 11 || sum.TotalFound != 13 || sum.UniqueFound != 12 ||
		sum.Counts != (Counts{Valid: 7, Paywalled: 1, Invalid: 3}) {
		t.Errorf("summary = %s", mustJSON(t, sum))
	}
	assertUserinfoInvalid(t, sum.Artifacts.Citations)
	assertNoSecrets(t, r.Root, inputs, sum, events)
	// The free-text token was redacted where it stood, not dropped.
	if fb := readFile(t, sum.Artifacts.FoundBy); !strings.Contains(fb, `"- https://example.com/plain (deploy token %5BREDACTED%5D pasted by mistake)"`) {
		t.Errorf("found-by.json lacks the redacted source line:\n%s", fb)
	}
	if audit := readFile(t, sum.Artifacts.Audit); !strings.Contains(audit, `"reason":"rerun after rotating password=%5BREDACTED%5D"`) {
		t.Errorf("audit reason not redacted:\n%s", audit)
	}
}

func TestPlantedSecretsTools(t *testing.T) {
	r := newRun(t, runSpec{RunID: "RUN", Sensitivity: "no_web", Copy: map[string]string{"": secretsCorpus}})
	inputs := snapshot(t, r.Root)
	e := newEngine()
	x, err := e.Extract(bg, ExtractArgs{ManifestPath: r.Manifest, Reason: secretsReason})
	if err != nil {
		t.Fatal(err)
	}
	n, err := e.Normalize(bg, NormalizeArgs{ManifestPath: r.Manifest, Reason: secretsReason})
	if err != nil {
		t.Fatal(err)
	}
	ch := make(chan Event, 64)
	v, err := e.Validate(bg, ValidateArgs{ManifestPath: r.Manifest, OfflineFixturesPath: r.path("offline-fixtures.json"), Reason: secretsReason}, ch)
	if err != nil {
		t.Fatal(err)
	}
	var events []Event
	for ev := range ch {
		events = append(events, ev)
	}
	g, err := e.GateC(bg, GateCArgs{ManifestPath: r.Manifest, Reason: secretsReason, Write: true})
	if err != nil {
		t.Fatal(err)
	}
	rd, err := e.Render(bg, RenderArgs{ManifestPath: r.Manifest, Reason: secretsReason})
	if err != nil {
		t.Fatal(err)
	}
	if x.UniqueFound != 12 || n.UniqueNormalized != 11 || v.Validated != 11 || rd.Rendered != 11 || g.Status != "fail" {
		t.Errorf("extract %d, normalize %d, validate %d, gate %s, render %d", x.UniqueFound, n.UniqueNormalized, v.Validated, g.Status, rd.Rendered)
	}
	assertUserinfoInvalid(t, v.CitationsPath)
	assertNoSecrets(t, r.Root, inputs, x, n, v, g, rd, events)
}

// TestPlantedSecretsOnlineDryRun covers the online side artifacts (capture,
// blocked-urls.json and the queue, which repeat found_by source lines).
func TestPlantedSecretsOnlineDryRun(t *testing.T) {
	r := newRun(t, runSpec{RunID: "RUN", Sensitivity: "normal", Copy: map[string]string{"": secretsCorpus}})
	inputs := snapshot(t, r.Root)
	sum, err := newEngine().Run(bg, RunArgs{ManifestPath: r.Manifest, OnlineDryRun: ptr(true), Reason: secretsReason}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Mode != ModeOnline || sum.Counts != (Counts{Blocked: 10, Invalid: 1}) || sum.Artifacts.BlockedURLsQueue == nil {
		t.Errorf("summary = %s", mustJSON(t, sum))
	}
	queue := readFile(t, *sum.Artifacts.BlockedURLsQueue)
	if !strings.Contains(queue, "    line: - https://example.com/plain (deploy token %5BREDACTED%5D pasted by mistake)\n") {
		t.Errorf("queue lacks the redacted source line:\n%s", queue)
	}
	assertNoSecrets(t, r.Root, inputs, sum)
}

// TestPathCredentialsStayWithTheSite: a URL whose credential sits in a path
// segment (GitHub, Stripe, AWS, Slack tokens, a JWT), a matrix parameter or
// the fragment carries credentials everywhere, through run and through the
// tool chain. The direct rung may fetch it from its own site; when that
// site only answers an app shell (so the ladder would escalate), no
// provider is sent the URL, and when the site gives a definitive answer it
// is not cached. No artifact, cache file, event or result holds the token.
func TestPathCredentialsStayWithTheSite(t *testing.T) {
	t.Parallel()
	drivers := map[string]func(e *Engine, r testRun) ([]any, error){
		"run": func(e *Engine, r testRun) ([]any, error) {
			sum, events, err := collect(t, e, bg, RunArgs{ManifestPath: r.Manifest}, nil)
			return []any{sum, events}, err
		},
		"tools": func(e *Engine, r testRun) ([]any, error) {
			x, err := e.Extract(bg, ExtractArgs{ManifestPath: r.Manifest, Reason: "extract"})
			if err != nil {
				return nil, err
			}
			n, err := e.Normalize(bg, NormalizeArgs{ManifestPath: r.Manifest, Reason: "normalize"})
			if err != nil {
				return nil, err
			}
			ch := make(chan Event, 1024)
			v, err := e.Validate(bg, ValidateArgs{ManifestPath: r.Manifest, Reason: "validate"}, ch)
			var events []Event
			for ev := range ch {
				events = append(events, ev)
			}
			return []any{x, n, v, events}, err
		},
	}
	for name, drive := range drivers {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			checkPathCredentials(t, drive)
		})
	}
}

func checkPathCredentials(t *testing.T, drive func(e *Engine, r testRun) ([]any, error)) {
	w := startWeb(t)
	shell := scenarioHost(t, simScenarios(t, w, "app-shell")[0])
	news := scenarioHost(t, simScenarios(t, w, "news-article")[0])
	// Each URL's marker is what must not appear anywhere.
	type cited struct{ url, marker string }
	escalating := []cited{
		{w.URL(shell, "/o/r/ghp_PATHGHTOKEN1aBcDeFgHiJkLmNoPqRs/README.md"), "PATHGHTOKEN1"},
		{w.URL(shell, "/v1/sk_live_PATHSTRIPE2aBcDeFgHiJk/export"), "PATHSTRIPE2"},
		{w.URL(shell, "/keys/AKIAPATHAWS3ABCDEFGH/report"), "AKIAPATHAWS3"},
		{w.URL(shell, "/hooks/xoxb-1234567890-PATHSLACK4abc/feed"), "PATHSLACK4"},
		{w.URL(shell, "/s/eyJhbGciOiJIUzI1NiJ9.eyJQQVRISldUNSI6MX0.PATHJWT5sig/dashboard"), "PATHJWT5"},
		{w.URL(shell, "/reports/2026;jsessionid=PATHSESSION6/summary"), "PATHSESSION6"},
		{w.URL(shell, "/reports/2026/fleet#ghp_PATHFRAGMENT7aBcDeFgHiJkLm"), "PATHFRAGMENT7"},
	}
	// The news site answers 404: a definitive invalid that would be cached.
	definitive := cited{w.URL(news, "/ghp_PATHNEWS8aBcDeFgHiJkLmNoPq/2026/missing"), "PATHNEWS8"}
	all := append(slices.Clone(escalating), definitive)
	var lines []string
	for i, c := range all {
		lines = append(lines, fmt.Sprintf("- [Credentialed %d](%s)", i, c.url))
	}
	r := simRunOpts(t, w, simOpts{scenarios: []string{"news-article"}, extra: lines})
	inputs := snapshot(t, r.Root)
	e := fastSimEngine(w, true)
	e.Net.CacheDir = filepath.Join(t.TempDir(), "cache")
	results, err := drive(e, r)
	if err != nil {
		t.Fatal(err)
	}
	if got := w.ProviderTargets(); len(got) != 0 {
		t.Errorf("providers were sent %d targets: %q", len(got), got)
	}
	for _, h := range []string{simweb.BrightDataHost, simweb.ApifyHost} {
		if n := w.Requests(h); n != 0 {
			t.Errorf("%s received %d requests", h, n)
		}
	}
	if w.Requests(shell) == 0 || w.Requests(news) == 0 {
		t.Errorf("the cited sites were not fetched directly: %d, %d requests", w.Requests(shell), w.Requests(news))
	}
	recs := readCitationLines(t, r.cit("citations.jsonl"))
	if len(recs) != len(all)+1 {
		t.Fatalf("%d records, want %d", len(recs), len(all)+1)
	}
	const withheld = "bright_data=skipped(URL carried credentials; never sent to a third party); " +
		"apify=skipped(URL carried credentials; never sent to a third party)"
	for _, c := range recs {
		switch {
		case strings.Contains(c.URLOriginal, news+":") && strings.Contains(c.URLOriginal, "/2026/missing"):
			if c.Status != StatusInvalid || strings.Contains(c.Notes, "cache") {
				t.Errorf("404 record %s %q, want invalid from the site", c.Status, c.Notes)
			}
		case strings.Contains(c.URLOriginal, shell):
			if c.Status != StatusBlocked || !strings.Contains(c.Notes, withheld) {
				t.Errorf("%s: %s %q, want blocked with the providers withheld", c.URLOriginal, c.Status, c.Notes)
			}
			if !strings.Contains(c.URLOriginal, "REDACTED") {
				t.Errorf("url_original %s shows no redaction", c.URLOriginal)
			}
		}
	}
	// Only the ordinary article is cached.
	files, _ := os.ReadDir(e.Net.CacheDir)
	if len(files) != 1 {
		t.Errorf("cache holds %d entries, want 1 (the ordinary article)", len(files))
	}
	outputs := snapshot(t, r.Root)
	maps.Copy(outputs, snapshot(t, e.Net.CacheDir))
	values := mustJSON(t, results)
	for _, c := range all {
		for path, data := range outputs {
			if _, in := inputs[path]; !in && bytes.Contains(data, []byte(c.marker)) {
				t.Errorf("%s contains %q", path, c.marker)
			}
		}
		if strings.Contains(values, c.marker) {
			t.Errorf("a result or an event contains %q", c.marker)
		}
	}
}

// TestProviderZoneNeverInArtifacts: Bright Data answers a zone it does not
// know with "Zone not found: <zone>". The zone name, which comes from
// BRIGHTDATA_UNLOCKER_ZONE like the key, is scrubbed from the record's
// notes and from every file, as the key is.
func TestProviderZoneNeverInArtifacts(t *testing.T) {
	t.Parallel()
	const zone = "zone_SECRETZONE9"
	w := startWeb(t)
	e := fastSimEngine(w, true)
	env := map[string]string{"BRIGHTDATA_API_KEY": simBDKey, "BRIGHTDATA_UNLOCKER_ZONE": zone}
	e.Net.Getenv = func(k string) string { return env[k] }
	r := simRunOpts(t, w, simOpts{scenarios: []string{"cloudflare-challenge"}})
	inputs := snapshot(t, r.Root)
	sum, events, err := collect(t, e, bg, RunArgs{ManifestPath: r.Manifest}, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := recordsByScenario(t, r, simScenarios(t, w, "cloudflare-challenge"))["cloudflare-challenge"]
	if !strings.Contains(c.Notes, "request rejected (unknown zone or invalid URL): Zone not found: [REDACTED]") {
		t.Errorf("notes %q do not show the scrubbed refusal", c.Notes)
	}
	for path, data := range snapshot(t, r.Root) {
		if _, in := inputs[path]; !in && bytes.Contains(data, []byte("SECRETZONE9")) {
			t.Errorf("%s contains the zone", path)
		}
	}
	if js := mustJSON(t, sum) + mustJSON(t, events); strings.Contains(js, "SECRETZONE9") {
		t.Error("the summary or an event contains the zone")
	}
}
