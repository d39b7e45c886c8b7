package engine

import (
	"bytes"
	"context"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// outputs are the paths (relative to the run root) a pipeline run produces.
var pipelineOutputs = []string{
	"citations/extracted-urls.txt", "citations/found-by.json", "citations/normalized-urls.txt",
	"citations/url-map.json", "citations/citations.jsonl", "citations/validated-citations.md",
	"gates.json", "logs/audit.jsonl",
}

// resetOutputs removes everything a run wrote, keeping the inputs.
func resetOutputs(t *testing.T, r testRun) {
	t.Helper()
	for _, p := range []string{"citations", "gates.json", "logs"} {
		if err := os.RemoveAll(r.path(p)); err != nil {
			t.Fatal(err)
		}
	}
}

// collect runs the pipeline with an events channel and returns the events;
// it fails the test if the channel is not closed once Run has returned.
func collect(t *testing.T, e *Engine, ctx context.Context, a RunArgs, onEvent func(Event)) (*RunSummary, []Event, error) {
	t.Helper()
	ch := make(chan Event)
	var events []Event
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ev := range ch {
			events = append(events, ev)
			if onEvent != nil {
				onEvent(ev)
			}
		}
	}()
	sum, err := e.Run(ctx, a, ch)
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("events channel not closed after Run returned")
	}
	return sum, events, err
}

func TestRunDemo(t *testing.T) {
	r := copyDemo(t)
	sum, events, err := collect(t, newEngine(), bg, RunArgs{ManifestPath: r.Manifest}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !sum.OK || !sum.Passed() || sum.Mode != ModeOffline || sum.ModeSource != "run-config.effective.citations" ||
		sum.OnlineDryRun != nil || sum.RunID != "dr_demo_ev_batteries" || sum.UniqueNormalized != 30 ||
		sum.Counts.Valid+sum.Counts.Paywalled+sum.Counts.Blocked+sum.Counts.Mismatch+sum.Counts.Invalid != 30 {
		t.Fatalf("summary = %s", mustJSON(t, sum))
	}
	for _, n := range []int{sum.Counts.Valid, sum.Counts.Paywalled, sum.Counts.Blocked, sum.Counts.Mismatch, sum.Counts.Invalid} {
		if n == 0 {
			t.Errorf("demo lacks a status: %+v", sum.Counts)
		}
	}
	for _, p := range pipelineOutputs {
		if _, err := os.Stat(r.path(p)); err != nil {
			t.Errorf("output %s: %v", p, err)
		}
	}
	for k, d := range sum.InputsDigests {
		if !strings.HasPrefix(d, "sha256:") || len(d) != 71 {
			t.Errorf("digest %s = %q", k, d)
		}
	}

	// Events (item 7): strictly increasing Seq from 1, the five stages in
	// order, one queued and one finished event per URL.
	var stages []string
	queued, finished := map[string]int{}, map[string]int{}
	var kinds []EventKind
	for i, ev := range events {
		if ev.Seq != uint64(i+1) {
			t.Fatalf("event %d has Seq %d", i, ev.Seq)
		}
		if len(kinds) == 0 || kinds[len(kinds)-1] != ev.Kind {
			kinds = append(kinds, ev.Kind)
		}
		switch ev.Kind {
		case EventStage:
			stages = append(stages, ev.Stage)
		case EventQueued:
			queued[ev.URL]++
			if ev.Total != 30 || ev.CID != cidOf(ev.URL) {
				t.Errorf("queued event %+v", ev)
			}
		case EventFinished:
			finished[ev.URL]++
			if ev.Citation == nil || ev.Citation.NormalizedURL != ev.URL || ev.Rung != "offline-fixture" || ev.Total != 30 {
				t.Errorf("finished event %+v", ev)
			}
		}
	}
	if want := []string{"extract", "normalize", "validate", "gate-c", "render"}; !slices.Equal(stages, want) {
		t.Errorf("stages = %v, want %v", stages, want)
	}
	if want := []EventKind{EventStage, EventQueued, EventFinished, EventStage}; !slices.Equal(kinds, want) {
		t.Errorf("event kind runs = %v, want %v", kinds, want)
	}
	if len(queued) != 30 || len(finished) != 30 {
		t.Errorf("queued %d, finished %d distinct URLs, want 30", len(queued), len(finished))
	}
	for u, n := range queued {
		if n != 1 || finished[u] != 1 {
			t.Errorf("URL %s queued %d finished %d times", u, n, finished[u])
		}
	}
	// Finished events carry the records in citations.jsonl order.
	recs := readCitationLines(t, sum.Artifacts.Citations)
	i := 0
	for _, ev := range events {
		if ev.Kind == EventFinished {
			if ev.Index != i || mustJSON(t, ev.Citation) != mustJSON(t, recs[i]) {
				t.Errorf("finished event %d does not match record %d", ev.Index, i)
			}
			i++
		}
	}
}

// TestValidateEventsClosed: Validate closes its channel too, also on error.
func TestValidateEventsClosed(t *testing.T) {
	r := newRun(t, runSpec{RunID: "RUN", Sensitivity: "normal"})
	ch := make(chan Event, 8)
	_, err := newEngine().Validate(bg, ValidateArgs{ManifestPath: r.Manifest, Reason: "x"}, ch)
	asError(t, err, CodeNotFound)
	select {
	case _, ok := <-ch:
		if ok {
			t.Error("event sent before the url-map was read")
		}
	default:
		t.Error("channel not closed")
	}
}

// TestRunDeterminism (item 6): the same inputs and clock give byte-identical
// files; another clock changes only gates.json timestamps and audit ts.
func TestRunDeterminism(t *testing.T) {
	r := copyDemo(t)
	run := func(at time.Time) map[string][]byte {
		t.Helper()
		resetOutputs(t, r)
		if _, err := newEngineAt(at).Run(bg, RunArgs{ManifestPath: r.Manifest}, nil); err != nil {
			t.Fatal(err)
		}
		return snapshot(t, r.Root)
	}
	first := run(testNow)
	if d := diffSnapshots(first, run(testNow)); len(d) != 0 {
		t.Errorf("same clock, different files: %v", d)
	}
	later := testNow.Add(49*time.Hour + 7*time.Millisecond)
	laterISO := "2026-02-16T13:00:00.130Z"
	other := run(later)
	d := diffSnapshots(first, other)
	if !slices.Equal(d, []string{"~gates.json", "~logs/audit.jsonl"}) {
		t.Errorf("other clock changed %v, want only gates.json and audit.jsonl", d)
	}
	for _, p := range []string{"gates.json", "logs/audit.jsonl"} {
		if n := bytes.Count(other[p], []byte(laterISO)); n == 0 {
			t.Errorf("%s does not carry the new clock", p)
		}
		if got := bytes.ReplaceAll(first[p], []byte(testNowISO), []byte(laterISO)); !bytes.Equal(got, other[p]) {
			t.Errorf("%s differs beyond timestamps:\n%s\n%s", p, got, other[p])
		}
	}
	// checked_at comes from the manifest, not the clock.
	if !bytes.Contains(first["citations/citations.jsonl"], []byte(`"checked_at":"2026-11-20T10:30:00.000Z"`)) {
		t.Error("checked_at is not manifest.updated_at")
	}
}

// TestRunEqualsTools (item 6): the pipeline writes the same bytes as the five
// tools called one after another, audit lines included.
func TestRunEqualsTools(t *testing.T) {
	for _, tc := range []struct {
		name string
		mk   func(t *testing.T) (testRun, RunArgs, ValidateArgs)
	}{
		{"demo offline", func(t *testing.T) (testRun, RunArgs, ValidateArgs) {
			r := copyDemo(t)
			return r, RunArgs{ManifestPath: r.Manifest, Reason: "same"},
				ValidateArgs{ManifestPath: r.Manifest, OfflineFixturesPath: r.path("offline-fixtures.json"), Reason: "same"}
		}},
		{"wave corpus online dry-run", func(t *testing.T) (testRun, RunArgs, ValidateArgs) {
			r := waveCorpusRun(t, runSpec{RunID: "RUN", Sensitivity: "normal"})
			return r, RunArgs{ManifestPath: r.Manifest, OnlineDryRun: ptr(true), Reason: "same"},
				ValidateArgs{ManifestPath: r.Manifest, OnlineDryRun: ptr(true), Reason: "same"}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, ra, va := tc.mk(t)
			e := newEngine()
			sum, err := e.Run(bg, ra, nil)
			if err != nil {
				t.Fatal(err)
			}
			viaRun := snapshot(t, r.Root)
			resetOutputs(t, r)
			x, err := e.Extract(bg, ExtractArgs{ManifestPath: r.Manifest, Reason: "same"})
			if err != nil {
				t.Fatal(err)
			}
			n, err := e.Normalize(bg, NormalizeArgs{ManifestPath: r.Manifest, Reason: "same"})
			if err != nil {
				t.Fatal(err)
			}
			v, err := e.Validate(bg, va, nil)
			if err != nil {
				t.Fatal(err)
			}
			g, err := e.GateC(bg, GateCArgs{ManifestPath: r.Manifest, Reason: "same", Write: true})
			if err != nil {
				t.Fatal(err)
			}
			rd, err := e.Render(bg, RenderArgs{ManifestPath: r.Manifest, Reason: "same"})
			if err != nil {
				t.Fatal(err)
			}
			viaTools := snapshot(t, r.Root)
			if d := diffSnapshots(viaRun, viaTools); len(d) != 0 {
				t.Errorf("pipeline and tools differ: %v", d)
				for _, p := range d {
					p = strings.TrimLeft(p, "~+-")
					t.Logf("%s\nrun:\n%s\ntools:\n%s", p, viaRun[p], viaTools[p])
				}
			}
			want := map[string]string{"extract": x.InputsDigest, "normalize": n.InputsDigest, "validate": v.InputsDigest,
				"gate_c": g.InputsDigest, "render": rd.InputsDigest}
			if mustJSON(t, sum.InputsDigests) != mustJSON(t, want) {
				t.Errorf("digests: run %v, tools %v", sum.InputsDigests, want)
			}
			if sum.TotalFound != x.TotalFound || sum.UniqueFound != x.UniqueFound || sum.UniqueNormalized != n.UniqueNormalized ||
				sum.Counts != v.Counts || sum.GateC.Status != g.Status || sum.GateC.Metrics != g.Metrics {
				t.Errorf("summary %s disagrees with tool results", mustJSON(t, sum))
			}
		})
	}
}

// TestRunLateFailureChangesNothing (item 5a): when a run fails because an
// output cannot be written, not one earlier artifact has changed and no
// temporary file is left. An output path that is a directory is INVALID_ARGS
// (issue 10 item 2), found before any work.
func TestRunLateFailureChangesNothing(t *testing.T) {
	for _, tc := range []struct {
		name     string
		args     func(r testRun) RunArgs
		spec     runSpec
		sabotage func(t *testing.T, r testRun)
		code     string
	}{
		{"gates.json is a directory", func(r testRun) RunArgs { return RunArgs{ManifestPath: r.Manifest} },
			runSpec{Sensitivity: "no_web"},
			func(t *testing.T, r testRun) { replaceWithDir(t, r.path("gates.json")) }, CodeInvalidArgs},
		{"report path is a directory", func(r testRun) RunArgs { return RunArgs{ManifestPath: r.Manifest} },
			runSpec{Sensitivity: "no_web"},
			func(t *testing.T, r testRun) { replaceWithDir(t, r.cit("validated-citations.md")) }, CodeInvalidArgs},
		{"citations.jsonl is a directory", func(r testRun) RunArgs { return RunArgs{ManifestPath: r.Manifest} },
			runSpec{Sensitivity: "no_web"},
			func(t *testing.T, r testRun) { replaceWithDir(t, r.cit("citations.jsonl")) }, CodeInvalidArgs},
		{"blocked-urls.json is a directory (online)", func(r testRun) RunArgs {
			return RunArgs{ManifestPath: r.Manifest, OnlineDryRun: ptr(true)}
		}, runSpec{Sensitivity: "normal"},
			func(t *testing.T, r testRun) { replaceWithDir(t, r.cit("blocked-urls.json")) }, CodeInvalidArgs},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.spec.RunID = "RUN"
			tc.spec.Files = map[string]string{
				"wave-1/p1.md":          "## Sources\n\n- https://example.org/a\n- https://example.org/b\n",
				"offline-fixtures.json": `{"https://example.org/a": "valid", "https://example.org/b": "valid", "https://example.org/c": "paywalled"}`,
			}
			r := newRun(t, tc.spec)
			e := newEngine()
			if _, err := e.Run(bg, tc.args(r), nil); err != nil {
				t.Fatal(err)
			}
			// New input: every artifact of the next run would differ.
			writeFile(t, r.path("wave-2/p2.md"), "## Sources\n\n- https://example.org/c\n")
			tc.sabotage(t, r)
			before := snapshot(t, r.Root)
			_, err := newEngineAt(testNow.Add(time.Hour)).Run(bg, tc.args(r), nil)
			asError(t, err, tc.code)
			if d := diffSnapshots(before, snapshot(t, r.Root)); len(d) != 0 {
				t.Errorf("failed run changed files: %v", d)
			}
			if tmp := tempFiles(t, r.Root); len(tmp) != 0 {
				t.Errorf("temporary files left: %v", tmp)
			}
		})
	}
}

// replaceWithDir turns path into a non-empty directory, so renaming a file
// over it fails.
func replaceWithDir(t *testing.T, path string) {
	t.Helper()
	if err := os.RemoveAll(path); err != nil {
		t.Fatal(err)
	}
	writeFile(t, path+"/keep", "x")
}

// TestRunCancelledFromConsumer (item 5b): cancelling from the events consumer
// after the first finished URL gives CANCELLED and changes nothing.
func TestRunCancelledFromConsumer(t *testing.T) {
	r := copyDemo(t)
	if _, err := newEngine().Run(bg, RunArgs{ManifestPath: r.Manifest}, nil); err != nil {
		t.Fatal(err)
	}
	// Change an input so that a completed run would rewrite artifacts.
	writeFile(t, r.path("wave-2/p5-extra.md"), "## Sources\n\n- https://www.iea.org/reports/global-ev-outlook-2024\n")
	before := snapshot(t, r.Root)
	ctx, cancel := context.WithCancel(bg)
	defer cancel()
	var once sync.Once
	var finishedSeen int
	sum, events, err := collect(t, newEngineAt(testNow.Add(time.Hour)), ctx, RunArgs{ManifestPath: r.Manifest}, func(ev Event) {
		if ev.Kind == EventFinished {
			finishedSeen++
			once.Do(cancel)
		}
	})
	e := asError(t, err, CodeCancelled)
	if sum != nil {
		t.Errorf("cancelled run returned a summary: %+v", sum)
	}
	if !strings.Contains(e.Message, "no artifacts were written") {
		t.Errorf("message = %q", e.Message)
	}
	if finishedSeen == 0 || len(events) == 0 {
		t.Errorf("no finished event seen")
	}
	if d := diffSnapshots(before, snapshot(t, r.Root)); len(d) != 0 {
		t.Errorf("cancelled run changed files: %v", d)
	}
	if tmp := tempFiles(t, r.Root); len(tmp) != 0 {
		t.Errorf("temporary files left: %v", tmp)
	}
}
