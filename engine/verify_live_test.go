package engine

import (
	"context"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/citegate/citegate/engine/verify"
	"github.com/citegate/citegate/parse"
)

// demoSynthesis cites, in order, a source the demo marks blocked, one it
// marks valid, one the run never saw, and a work without a URL.
const demoSynthesis = "Solid-state cells suppress dendrites [1]. Battery packs got cheaper [2]. " +
	"Recycling doubled in Norway [3]. Costs fell by a third (Doe, 2020).\n\n## Sources\n\n" +
	"1. https://www.science.org/doi/10.1126/science.adg7942\n2. https://www.iea.org/reports/global-ev-outlook-2024\n" +
	"3. https://recycling.example.org/norway\n"

// TestRunVerifyEvents (issue 11 item 5): `run --verify` reports the verify
// step on the event stream — a "verify" stage after "render", then one
// EventVerified per citation of verify.json, in its order, carrying that
// very entry, the claim, and the Gate C status the run gave the source — so
// the terminal UI can show the verification live. Before, the stream ended
// with "render" and the claims reached no front end.
func TestRunVerifyEvents(t *testing.T) {
	r := copyDemo(t)
	sum, events, err := collect(t, newEngine(), bg, RunArgs{ManifestPath: r.Manifest, VerifyOutput: []byte(demoSynthesis)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var stages []string
	var verified []Event
	for i, ev := range events {
		if ev.Seq != uint64(i+1) {
			t.Fatalf("event %d has Seq %d", i, ev.Seq)
		}
		switch ev.Kind {
		case EventStage:
			stages = append(stages, ev.Stage)
		case EventVerified:
			if stages[len(stages)-1] != "verify" {
				t.Errorf("EventVerified %d outside the verify stage (in %q)", ev.Index, stages[len(stages)-1])
			}
			verified = append(verified, ev)
		}
	}
	if want := []string{"extract", "normalize", "validate", "gate-c", "render", "verify"}; !slices.Equal(stages, want) {
		t.Errorf("stages = %v, want %v", stages, want)
	}
	if sum.Verify == nil || len(verified) != len(sum.Verify.Citations) || len(verified) != 4 {
		t.Fatalf("%d EventVerified for %d verify.json citations (want 4)", len(verified), len(sum.Verify.Citations))
	}
	want := []struct {
		url, claim string
		gate       Status
		kind       string
	}{
		{"https://www.science.org/doi/10.1126/science.adg7942", "Solid-state cells suppress dendrites", StatusBlocked, "not_citable"},
		{"https://www.iea.org/reports/global-ev-outlook-2024", "Battery packs got cheaper", StatusValid, "fetch_disabled"},
		{"https://recycling.example.org/norway", "Recycling doubled in Norway", "", "fetch_disabled"},
		{"", "Costs fell by a third", "", "unresolvable_kind"},
	}
	for i, ev := range verified {
		v := ev.Verified
		if ev.Index != i || ev.Total != 4 || v == nil {
			t.Fatalf("event %d: index %d total %d verified %v", i, ev.Index, ev.Total, v)
		}
		if got, entry := mustJSON(t, v.Citation), mustJSON(t, sum.Verify.Citations[i]); got != entry {
			t.Errorf("event %d carries %s, verify.json has %s", i, got, entry)
		}
		w := want[i]
		if ev.URL != w.url || v.GateC != w.gate || !strings.Contains(v.Claim, w.claim) ||
			v.Citation.ResolveError == nil || v.Citation.ResolveError.Kind != w.kind {
			t.Errorf("event %d: url %q gate %q claim %q error %+v; want %+v", i, ev.URL, v.GateC, v.Claim, v.Citation.ResolveError, w)
		}
		if v.Passage != "" || v.PassageBytes != 0 {
			t.Errorf("event %d: no judge read anything offline, yet passage %q (%d bytes)", i, v.Passage, v.PassageBytes)
		}
	}
}

// TestVerifyRecordsEventsCarryVerdictAndPassage (issue 11 item 5): online,
// each EventVerified of a judged citation carries the judge's verdict and
// rationale (as verify.json has them) and the text the judge read, and the
// source's Gate C status from the run's records.
func TestVerifyRecordsEventsCarryVerdictAndPassage(t *testing.T) {
	out, err := os.ReadFile(verifyDir + "/output-numbered.md")
	if err != nil {
		t.Fatal(err)
	}
	e := newEngine()
	e.GuardOptions = verifyWeb(t)
	e.Net.DOIResolver = "https://doi.example.com"
	records := []Citation{
		{NormalizedURL: "http://research.heat.example/cold-climate-study", Status: StatusValid},
		{NormalizedURL: "http://grid.heat.example/annual-update", Status: StatusBlocked},
	}
	ch := make(chan Event, 64)
	res, _, err := e.verifyRecords(bg, ModeOnline, records, out, &emitter{ch: ch})
	if err != nil {
		t.Fatal(err)
	}
	close(ch)
	var evs []Event
	for ev := range ch {
		evs = append(evs, ev)
	}
	if len(evs) != len(res.Citations) || len(evs) != 6 {
		t.Fatalf("%d events for %d citations", len(evs), len(res.Citations))
	}
	for i, ev := range evs {
		if ev.Kind != EventVerified || ev.Index != i || ev.Seq != uint64(i+1) || mustJSON(t, ev.Verified.Citation) != mustJSON(t, res.Citations[i]) {
			t.Fatalf("event %d = %+v, want the EventVerified of %s", i, ev, mustJSON(t, res.Citations[i]))
		}
	}
	first := evs[0].Verified // [1], judged supported from the field study
	if j := first.Citation.Judge; j == nil || j.Verdict == "" || j.Rationale == "" {
		t.Fatalf("[1] has no verdict: %+v", first.Citation)
	}
	if first.GateC != StatusValid || !strings.Contains(first.Claim, "coefficient of performance") ||
		!strings.Contains(first.Passage, "seasonal coefficient of performance of 2.5") || first.PassageBytes != len(first.Passage) {
		t.Errorf("[1]: gate %q claim %q passage %q (%d bytes)", first.GateC, first.Claim, first.Passage, first.PassageBytes)
	}
	if third := evs[2].Verified; third.GateC != StatusBlocked || third.Citation.ResolveError == nil ||
		third.Citation.ResolveError.Kind != "not_citable" || third.Passage != "" {
		t.Errorf("[3] cites a source the run blocked: %+v", third)
	}
	if second := evs[1].Verified; second.GateC != "" || second.Citation.Judge == nil || second.Passage == "" {
		t.Errorf("[2], a source the run never validated, was judged: %+v", second)
	}
}

// TestShownPassageCapped: the judge's text on an event is bounded; a long
// page is narrowed to the passages about the claim (not its first 4,000
// bytes), cut on a rune boundary, and redacted.
func TestShownPassageCapped(t *testing.T) {
	filler := strings.Repeat("Unrelated paragraph about gardening tools and the weather in spring. ", 200)
	fact := "The pilot plant recovered 95 percent of the lithium from spent cells in 2024."
	long := "Recycling report.\n\n" + filler + fact + " " + filler
	got := shownPassage(long, "The pilot plant recovered 95 percent of the lithium in 2024.")
	if len(got) > maxShownPassage+len(" …") || !strings.Contains(got, fact) {
		t.Errorf("narrowed passage (%d bytes) lacks the fact or exceeds the cap:\n%.300s", len(got), got)
	}
	runes := strings.Repeat("é", maxShownPassage) // 2 bytes each, no sentence to narrow to
	if got := shownPassage(runes, "x"); len(got) > maxShownPassage+len(" …") || !utf8.ValidString(got) {
		t.Errorf("cut passage: %d bytes, valid UTF-8 %v", len(got), utf8.ValidString(got))
	}
	secret := "See https://data.example.org/export?api_key=sk-live-0123456789abcdef for the figures."
	if got := shownPassage(secret, "figures"); strings.Contains(got, "sk-live-0123456789abcdef") {
		t.Errorf("secret in the shown passage: %q", got)
	}
}

// TestVerifyProgressGivesUpOnCancel: reporting a verified citation never
// blocks past cancellation, even when nobody reads the stream.
func TestVerifyProgressGivesUpOnCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(bg)
	cancel()
	report := verifyProgress(&emitter{ch: make(chan Event)}, nil)
	err := report(ctx, 0, 1, parse.Citation{Raw: "[1]", Claim: "x"}, verify.Citation{ResolveStatus: "skipped"}, "")
	var e *Error
	if !errors.As(err, &e) || e.Code != CodeCancelled {
		t.Errorf("err = %v, want CANCELLED", err)
	}
}

// TestRunVerifyCancelledWritesNothing: a run cancelled while it reports the
// verification writes no artifact, verify.json included.
func TestRunVerifyCancelledWritesNothing(t *testing.T) {
	r := copyDemo(t)
	ctx, cancel := context.WithCancel(bg)
	defer cancel()
	_, _, err := collect(t, newEngine(), ctx, RunArgs{ManifestPath: r.Manifest, VerifyOutput: []byte(demoSynthesis)},
		func(ev Event) {
			if ev.Kind == EventVerified {
				cancel()
			}
		})
	asError(t, err, CodeCancelled)
	for _, p := range append(pipelineOutputs[:7], "citations/verify.json") {
		if _, err := os.Stat(r.path(p)); err == nil {
			t.Errorf("%s written by a cancelled run", p)
		}
	}
}
