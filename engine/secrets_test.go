package engine

import (
	"bytes"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// plantedSecrets occur in testdata/engine/secrets (wave files) and in the
// reasons below; none may reach any artifact, audit line, event or result.
var plantedSecrets = []string{
	"alice",          // userinfo user
	"hunter2pw",      // userinfo password
	"SECRETTOKEN1",   // ?token=
	"SECRETAPIKEY2",  // ?api_key=
	"SECRETAMZSIG3",  // ?X-Amz-Signature=
	"SECRETACCESS4",  // #access_token=
	"SECRETSLACK5",   // hooks.slack.com/services/… webhook path
	"SECRETGHTOKEN6", // a GitHub token in a source line's text, outside any URL
	"SECRETREASON7",  // in --reason
	"T000/B000",      // the rest of the Slack webhook path
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
	if sum.Mode != ModeOffline || sum.UniqueNormalized != 7 || sum.TotalFound != 9 || sum.UniqueFound != 8 ||
		sum.Counts != (Counts{Valid: 5, Paywalled: 1, Invalid: 1}) {
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
	if x.UniqueFound != 8 || n.UniqueNormalized != 7 || v.Validated != 7 || rd.Rendered != 7 || g.Status != "fail" {
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
	if sum.Mode != ModeOnline || sum.Counts != (Counts{Blocked: 6, Invalid: 1}) || sum.Artifacts.BlockedURLsQueue == nil {
		t.Errorf("summary = %s", mustJSON(t, sum))
	}
	queue := readFile(t, *sum.Artifacts.BlockedURLsQueue)
	if !strings.Contains(queue, "    line: - https://example.com/plain (deploy token %5BREDACTED%5D pasted by mistake)\n") {
		t.Errorf("queue lacks the redacted source line:\n%s", queue)
	}
	assertNoSecrets(t, r.Root, inputs, sum)
}
