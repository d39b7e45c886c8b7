package engine

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/citegate/citegate/engine/fsx"
)

// The demo's one blocked citation (testdata/demo/offline-fixtures.json).
const demoBlocked = "https://www.science.org/doi/10.1126/science.adg7942"

// recordOf finds the record of a normalized URL in citations.jsonl.
func recordOf(t *testing.T, r testRun, url string) Citation {
	t.Helper()
	for _, c := range readCitationLines(t, r.cit("citations.jsonl")) {
		if c.NormalizedURL == url {
			return c
		}
	}
	t.Fatalf("no record for %s", url)
	return Citation{}
}

// TestDecideAppliesOnNextRun: a decision changes the record the next run
// writes (status, operator note, checked_at = when it was decided) and Gate
// C's counts; undo gives the fixture's record back byte for byte.
func TestDecideAppliesOnNextRun(t *testing.T) {
	r := copyDemo(t)
	e := newEngine()
	first, err := e.Run(bg, RunArgs{ManifestPath: r.Manifest}, nil)
	if err != nil {
		t.Fatal(err)
	}
	before := readFile(t, r.cit("citations.jsonl"))
	if got := recordOf(t, r, demoBlocked).Status; got != StatusBlocked {
		t.Fatalf("demo's record is %s, want blocked", got)
	}
	decidedAt := testNow.Add(time.Hour)
	res, err := newEngineAt(decidedAt).Decide(bg, DecideArgs{Dir: r.Root, URL: demoBlocked, Status: "valid",
		Note: "read through the library", Who: "alice"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Action != "decided" || len(res.Decisions) != 1 || res.Decision.Overrides != StatusBlocked || res.Decision.Who != "alice" {
		t.Fatalf("result = %s", mustJSON(t, res))
	}
	for _, u := range res.Undecided {
		if u.NormalizedURL == demoBlocked {
			t.Errorf("the decided URL is still listed undecided")
		}
	}
	if readFile(t, r.cit("citations.jsonl")) != before {
		t.Errorf("decide rewrote citations.jsonl; only a run applies decisions")
	}
	second, err := e.Run(bg, RunArgs{ManifestPath: r.Manifest}, nil)
	if err != nil {
		t.Fatal(err)
	}
	rec := recordOf(t, r, demoBlocked)
	if rec.Status != StatusValid || rec.Notes != "operator: read through the library" || rec.CheckedAt != "2026-02-14T13:00:00.123Z" {
		t.Errorf("decided record = %s", mustJSON(t, rec))
	}
	if second.Counts.Blocked != first.Counts.Blocked-1 || second.Counts.Valid != first.Counts.Valid+1 {
		t.Errorf("counts %v -> %v", first.Counts, second.Counts)
	}
	if second.GateC.Metrics.ValidatedURLRate <= first.GateC.Metrics.ValidatedURLRate {
		t.Errorf("Gate C did not change: %v -> %v", first.GateC.Metrics, second.GateC.Metrics)
	}
	if second.InputsDigests["validate"] == first.InputsDigests["validate"] {
		t.Errorf("the validate digest does not cover the decisions")
	}
	audit := readFile(t, r.path("logs/audit.jsonl"))
	if !strings.Contains(audit, `"kind":"operator_decision"`) || !strings.Contains(audit, `"operator_decisions":1`) {
		t.Errorf("audit lacks the decision or its application:\n%s", audit)
	}
	// The same decisions give the same artifacts.
	again := readFile(t, r.cit("citations.jsonl"))
	if _, err := e.Run(bg, RunArgs{ManifestPath: r.Manifest}, nil); err != nil {
		t.Fatal(err)
	}
	if readFile(t, r.cit("citations.jsonl")) != again {
		t.Errorf("a second run with the same decisions changed citations.jsonl")
	}

	if _, err := e.Decide(bg, DecideArgs{Dir: r.Root, URL: demoBlocked, Undo: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Run(bg, RunArgs{ManifestPath: r.Manifest}, nil); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, r.cit("citations.jsonl")); got != before {
		t.Errorf("after undo citations.jsonl differs from the first run")
	}
}

// TestDecideExclude: an excluded citation is recorded invalid with the
// operator's words, and still counts in Gate C's denominator.
func TestDecideExclude(t *testing.T) {
	r := copyDemo(t)
	e := newEngine()
	first, err := e.Run(bg, RunArgs{ManifestPath: r.Manifest}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Decide(bg, DecideArgs{Dir: r.Root, URL: demoBlocked, Exclude: true}); err != nil {
		t.Fatal(err)
	}
	sum, err := e.Run(bg, RunArgs{ManifestPath: r.Manifest}, nil)
	if err != nil {
		t.Fatal(err)
	}
	rec := recordOf(t, r, demoBlocked)
	if rec.Status != StatusInvalid || rec.Notes != "operator: excluded from synthesis" {
		t.Errorf("excluded record = %s", mustJSON(t, rec))
	}
	if sum.UniqueNormalized != first.UniqueNormalized || sum.Counts.Invalid != first.Counts.Invalid+1 {
		t.Errorf("exclude changed the denominator or did not count invalid: %v -> %v", first.Counts, sum.Counts)
	}
}

// TestDecideQueueShrinks: in online mode the blocked queue lists only what
// no decision covers.
func TestDecideQueueShrinks(t *testing.T) {
	r := copyDemo(t)
	writeFile(t, r.path("run-config.json"), strings.Replace(readFile(t, r.path("run-config.json")), `"mode": "offline"`, `"mode": "online"`, 1))
	e := newEngine()
	a := RunArgs{ManifestPath: r.Manifest, OnlineDryRun: ptr(true)}
	if _, err := e.Run(bg, a, nil); err != nil {
		t.Fatal(err)
	}
	queue := readFile(t, r.cit("blocked-urls.queue.md"))
	if !strings.Contains(queue, demoBlocked) {
		t.Fatalf("queue lacks %s:\n%s", demoBlocked, queue)
	}
	if _, err := e.Decide(bg, DecideArgs{Dir: r.Root, URL: demoBlocked, Status: "paywalled", Note: "subscription"}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Run(bg, a, nil); err != nil {
		t.Fatal(err)
	}
	after := readFile(t, r.cit("blocked-urls.queue.md"))
	if strings.Contains(after, demoBlocked) || len(after) >= len(queue) {
		t.Errorf("queue did not shrink:\n%s", after)
	}
}

// TestDecideRefuses: every argument mistake is INVALID_ARGS and writes
// nothing; an unknown URL and a run without citations are NOT_FOUND; a held
// lock is RUN_LOCKED.
func TestDecideRefuses(t *testing.T) {
	r := copyDemo(t)
	e := newEngine()
	asError(t, func() error {
		_, err := e.Decide(bg, DecideArgs{Dir: r.Root, URL: demoBlocked, Status: "valid", Note: "x"})
		return err
	}(), CodeNotFound)
	if _, err := e.Run(bg, RunArgs{ManifestPath: r.Manifest}, nil); err != nil {
		t.Fatal(err)
	}
	for name, a := range map[string]DecideArgs{
		"no note":         {Status: "valid", URL: demoBlocked},
		"blank note":      {Status: "valid", URL: demoBlocked, Note: " \t"},
		"blocked status":  {Status: "blocked", URL: demoBlocked, Note: "n"},
		"two actions":     {Status: "valid", Undo: true, URL: demoBlocked, Note: "n"},
		"no action":       {URL: demoBlocked},
		"no url":          {Exclude: true},
		"long note":       {Status: "valid", URL: demoBlocked, Note: strings.Repeat("x", 501)},
		"relative run":    {Status: "valid", URL: demoBlocked, Note: "n", Dir: "run"},
		"status is Valid": {Status: "Valid", URL: demoBlocked, Note: "n"},
	} {
		if a.Dir == "" {
			a.Dir = r.Root
		}
		_, err := e.Decide(bg, a)
		asError(t, err, CodeInvalidArgs)
		if _, serr := os.Stat(filepath.Join(r.Root, DecisionsFile)); serr == nil {
			t.Fatalf("%s: wrote the decisions file", name)
		}
	}
	_, err := e.Decide(bg, DecideArgs{Dir: r.Root, URL: "https://nowhere.example/x", Status: "valid", Note: "n"})
	asError(t, err, CodeNotFound)
	_, err = e.Decide(bg, DecideArgs{Dir: r.Root, URL: demoBlocked, Undo: true})
	asError(t, err, CodeNotFound)
	lock, lerr := fsx.LockDir(r.Root)
	if lerr != nil {
		t.Fatal(lerr)
	}
	_, err = e.Decide(bg, DecideArgs{Dir: r.Root, URL: demoBlocked, Status: "valid", Note: "n"})
	_ = lock.Unlock()
	asError(t, err, CodeRunLocked)
}

// TestDecideRedacts: a credential in the note or the URL given never
// reaches the file or the audit log.
func TestDecideRedacts(t *testing.T) {
	r := copyDemo(t)
	e := newEngine()
	if _, err := e.Run(bg, RunArgs{ManifestPath: r.Manifest}, nil); err != nil {
		t.Fatal(err)
	}
	const token = "ghp_abcdefghijklmnopqrstuvwxyz0123456789"
	if _, err := e.Decide(bg, DecideArgs{Dir: r.Root, URL: demoBlocked, Status: "valid", Note: "opened with token=" + token}); err != nil {
		t.Fatal(err)
	}
	_, err := e.Decide(bg, DecideArgs{Dir: r.Root, URL: "https://example.org/?access_token=" + token, Status: "valid", Note: "n"})
	asError(t, err, CodeNotFound)
	for _, f := range []string{DecisionsFile, "logs/audit.jsonl"} {
		if strings.Contains(readFile(t, r.path(f)), token) {
			t.Errorf("%s holds the token", f)
		}
	}
}

// TestDecisionsFileChecked: a decisions file that breaks its schema, or
// names another run, stops the run before anything is written.
func TestDecisionsFileChecked(t *testing.T) {
	for name, body := range map[string]string{
		"unknown field": `{"schema_version":"operator_decisions.v1","run_id":"dr_demo_ev_batteries","decisions":[],"x":1}`,
		"no note":       `{"schema_version":"operator_decisions.v1","run_id":"dr_demo_ev_batteries","decisions":[{"normalized_url":"https://a.example/","cid":"cid_` + strings.Repeat("0", 64) + `","action":"status","status":"valid","overrides":"blocked","note":"","who":"a","at":"t"}]}`,
		"blocked":       `{"schema_version":"operator_decisions.v1","run_id":"dr_demo_ev_batteries","decisions":[{"normalized_url":"https://a.example/","cid":"cid_` + strings.Repeat("0", 64) + `","action":"status","status":"blocked","overrides":"valid","note":"n","who":"a","at":"t"}]}`,
		"other run":     `{"schema_version":"operator_decisions.v1","run_id":"dr_other","decisions":[]}`,
	} {
		t.Run(name, func(t *testing.T) {
			r := copyDemo(t)
			writeFile(t, r.path(DecisionsFile), body)
			_, err := newEngine().Run(bg, RunArgs{ManifestPath: r.Manifest}, nil)
			asError(t, err, CodeSchemaValidation)
			if _, serr := os.Stat(r.cit("citations.jsonl")); serr == nil {
				t.Errorf("the run wrote citations.jsonl")
			}
		})
	}
}
