package tui

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/teatest"
	"github.com/citegate/citegate/engine"
	"github.com/citegate/citegate/engine/gate"
)

// reviewRig is a completed scripted run whose Decide, Recompute, OpenURL and
// Copy hooks record their calls; a recompute's stream is the test's to feed.
type reviewRig struct {
	*harness
	decided   []engine.DecideArgs
	decideErr error
	recompute [][]string
	events    chan engine.Event
	outcome   chan Outcome
	opened    []string
	copied    []string
}

func newReviewRig(t *testing.T) *reviewRig {
	t.Helper()
	rg := &reviewRig{}
	oc := make(chan Outcome, 1)
	rg.harness = newHarness(t, Options{Outcome: oc,
		Decide: func(a engine.DecideArgs) (*engine.DecideResult, error) {
			rg.decided = append(rg.decided, a)
			if rg.decideErr != nil {
				return nil, rg.decideErr
			}
			action, d := "decided", &engine.OperatorDecision{NormalizedURL: a.URL, Status: engine.Status(a.Status), Note: a.Note}
			switch {
			case a.Undo:
				action = "undone"
			case a.Exclude:
				action, d.Status = "excluded", engine.StatusInvalid
			}
			return &engine.DecideResult{OK: true, Action: action, Decision: d}, nil
		},
		Recompute: func(urls []string) (<-chan engine.Event, <-chan Outcome) {
			rg.recompute = append(rg.recompute, urls)
			rg.events, rg.outcome = make(chan engine.Event), make(chan Outcome, 1)
			return rg.events, rg.outcome
		},
		OpenURL: func(u string) error { rg.opened = append(rg.opened, u); return nil },
		Copy:    func(s string) error { rg.copied = append(rg.copied, s); return nil },
	})
	rg.script()
	rg.finishSlow(engine.StatusValid)
	rg.complete(Outcome{Summary: sampleSummary("fail")}, oc)
	return rg
}

// selectRow moves the cursor to the row of domain.
func (rg *reviewRig) selectRow(domain string) {
	rg.t.Helper()
	rg.key("g")
	for range rg.m.list.view {
		if r := rg.m.list.selected(); r != nil && r.domain == domain {
			return
		}
		rg.key("down")
	}
	rg.t.Fatalf("no row for %s", domain)
}

// run executes a command the model returned and feeds its message back: the
// decision, open and copy commands return at once.
func (rg *reviewRig) run(cmd tea.Cmd) tea.Cmd {
	rg.t.Helper()
	if cmd == nil {
		rg.t.Fatal("no command")
	}
	return rg.send(cmd())
}

// finishRecompute plays the recompute's stream for u ending in status, and
// its outcome.
func (rg *reviewRig) finishRecompute(u, rung string, st engine.Status, notes string, sum *engine.RunSummary) {
	rg.t.Helper()
	rg.send(eventsMsg{src: rg.events, events: []engine.Event{
		{Kind: engine.EventQueued, Index: 0, Total: 1, URL: u, CID: cidOf(u)},
		finished(u, rung, engine.Citation{Status: st, Notes: notes}),
	}})
	cmd := rg.send(streamClosedMsg{src: rg.events})
	rg.outcome <- Outcome{Summary: sum}
	rg.send(cmd())
}

// summaryWith is sampleSummary with Gate C's status and metrics set.
func summaryWith(status string, validated float64) *engine.RunSummary {
	s := sampleSummary(status)
	s.GateC.Metrics = gate.Metrics{ValidatedURLRate: validated, InvalidURLRate: 1 - validated}
	return s
}

// TestDecideKeyFlow: d opens the prompt, v picks valid, a note is required,
// enter saves through Decide, the row is recomputed through Recompute, and
// the list, the counts, the review line and Gate C follow.
func TestDecideKeyFlow(t *testing.T) {
	rg := newReviewRig(t)
	if v := rg.view(); !strings.Contains(v, "Review  3 decisions left") {
		t.Fatalf("review line:\n%s", v)
	}
	rg.selectRow("blocked.example.com")
	rg.key("d")
	if v := rg.view(); !strings.Contains(v, "v valid · p paywalled · i invalid · x exclude") {
		t.Fatalf("no decision prompt:\n%s", v)
	}
	rg.key("q") // not a choice, and not quit while the prompt is open
	if rg.m.quitting {
		t.Fatal("q in the prompt quit")
	}
	rg.key("v")
	if cmd := rg.send(keyMsg("enter")); cmd != nil || len(rg.decided) != 0 || !strings.Contains(rg.view(), "a note is required") {
		t.Fatalf("empty note accepted (%d calls):\n%s", len(rg.decided), rg.view())
	}
	rg.typeText("read through the library")
	cmd := rg.send(keyMsg("enter"))
	rg.run(cmd)
	if len(rg.decided) != 1 || rg.decided[0] != (engine.DecideArgs{URL: uBlocked, Status: "valid", Note: "read through the library", Via: "tui"}) {
		t.Fatalf("Decide got %+v", rg.decided)
	}
	if len(rg.recompute) != 1 || !slices.Equal(rg.recompute[0], []string{uBlocked}) {
		t.Fatalf("Recompute got %v", rg.recompute)
	}
	if ln := rg.rowLine("blocked.example.com"); !strings.Contains(ln, "· queued") || !strings.Contains(rg.view(), "decided valid · recomputing") {
		t.Errorf("row not being recomputed: %q\n%s", ln, rg.view())
	}
	rg.finishRecompute(uBlocked, operatorRung, engine.StatusValid, "operator: read through the library", summaryWith("fail", 0.667))
	if ln := rg.rowLine("blocked.example.com"); !strings.Contains(ln, "✓ valid") || !strings.Contains(ln, "operator") {
		t.Errorf("decided row: %q", ln)
	}
	v := rg.view()
	for _, want := range []string{"Review  2 decisions left", "1 decided", "validated 0.667", "decided valid"} {
		if !strings.Contains(v, want) {
			t.Errorf("screen lacks %q:\n%s", want, v)
		}
	}
	if rg.m.counts[stateBlocked] != 0 || rg.m.counts[stateValid] != 3 {
		t.Errorf("counts = %v", rg.m.counts)
	}

	// Filters 7 (needs a decision) and 8 (decided).
	rg.key("7")
	if got := domains(rg.m.list.view); !slices.Equal(got, []string{"mismatch.test", "gone.example.net"}) || !strings.Contains(rg.view(), "filter needs a decision") {
		t.Errorf("filter 7: %v", got)
	}
	rg.key("8")
	if got := domains(rg.m.list.view); !slices.Equal(got, []string{"blocked.example.com"}) {
		t.Errorf("filter 8: %v", got)
	}

	// u undoes: Decide with Undo, then a recompute back to blocked.
	rg.selectRow("blocked.example.com")
	rg.run(rg.send(keyMsg("u")))
	if n := len(rg.decided); n != 2 || !rg.decided[1].Undo || rg.decided[1].URL != uBlocked {
		t.Fatalf("undo: %+v", rg.decided)
	}
	rg.finishRecompute(uBlocked, "bright_data", engine.StatusBlocked, "blocked", summaryWith("fail", 0.5))
	rg.key("0")
	if ln := rg.rowLine("blocked.example.com"); !strings.Contains(ln, "⊘ blocked") || !strings.Contains(rg.view(), "Review  3 decisions left") {
		t.Errorf("after undo: %q\n%s", ln, rg.view())
	}
	// u on a row with no decision says so and calls nothing.
	if cmd := rg.send(keyMsg("u")); cmd != nil || len(rg.decided) != 2 || !strings.Contains(rg.view(), "no decision on this citation") {
		t.Errorf("undo without a decision: %d calls\n%s", len(rg.decided), rg.view())
	}
}

func domains(rows []*row) []string {
	var out []string
	for _, r := range rows {
		out = append(out, r.domain)
	}
	return out
}

// TestDecideExcludeAndCancel: x excludes with an optional note, esc cancels
// at either step, and a refused decision is reported, not recomputed.
func TestDecideExcludeAndCancel(t *testing.T) {
	rg := newReviewRig(t)
	rg.selectRow("mismatch.test")
	rg.key("d")
	rg.key("esc")
	rg.key("d")
	rg.key("x")
	rg.key("esc")
	if len(rg.decided) != 0 || rg.m.prompt.stage != promptNone || !strings.Contains(rg.view(), "no decision taken") {
		t.Fatalf("esc did not cancel:\n%s", rg.view())
	}
	rg.key("d")
	rg.key("x")
	rg.run(rg.send(keyMsg("enter")))
	if len(rg.decided) != 1 || !rg.decided[0].Exclude || rg.decided[0].Note != "" || !strings.Contains(rg.view(), "excluded from synthesis") {
		t.Fatalf("exclude: %+v\n%s", rg.decided, rg.view())
	}
	rg.finishRecompute(uMismatch, operatorRung, engine.StatusInvalid, "operator: excluded from synthesis", summaryWith("fail", 0.5))

	rg.decideErr = &engine.Error{Code: engine.CodeRunLocked, Message: "another citegate process is using this run directory"}
	rg.selectRow("gone.example.net")
	rg.key("d")
	rg.key("i")
	rg.typeText("dead link")
	rg.run(rg.send(keyMsg("enter")))
	if len(rg.recompute) != 1 || !strings.Contains(rg.view(), "decision not saved: another citegate process") {
		t.Errorf("refused decision: %d recomputes\n%s", len(rg.recompute), rg.view())
	}
}

// TestDecideNeedsACompletedRun: before completion, and without a Decide
// hook, d explains why it does nothing.
func TestDecideNeedsACompletedRun(t *testing.T) {
	h := newHarness(t, Options{Decide: func(engine.DecideArgs) (*engine.DecideResult, error) {
		t.Error("Decide called before completion")
		return nil, errors.New("no")
	}})
	h.script()
	h.key("d")
	if !strings.Contains(h.view(), "decide once the run has completed") || h.m.prompt.stage != promptNone {
		t.Errorf("d before completion:\n%s", h.view())
	}
	h = newHarness(t, Options{})
	h.script()
	h.key("d")
	if !strings.Contains(h.view(), "decisions are not available here") {
		t.Errorf("d without a hook:\n%s", h.view())
	}
}

// TestSynthesisMayStart: when Gate C passes the review line says so.
func TestSynthesisMayStart(t *testing.T) {
	oc := make(chan Outcome, 1)
	h := newHarness(t, Options{Outcome: oc})
	h.script()
	h.finishSlow(engine.StatusValid)
	h.complete(Outcome{Summary: summaryWith("pass", 0.9)}, oc)
	if v := h.view(); !strings.Contains(v, "Review  synthesis may start") {
		t.Errorf("review line:\n%s", v)
	}
}

// TestOpenAndCopyKeys: o opens http(s) URLs through the injected opener
// (never a real browser) and y copies through the injected clipboard, from
// the list and from the detail view.
func TestOpenAndCopyKeys(t *testing.T) {
	rg := newReviewRig(t)
	rg.selectRow("news.bbc.co.uk")
	rg.run(rg.send(keyMsg("o")))
	rg.run(rg.send(keyMsg("y")))
	if !slices.Equal(rg.opened, []string{uPaywalled}) || !slices.Equal(rg.copied, []string{uPaywalled}) {
		t.Fatalf("opened %v, copied %v", rg.opened, rg.copied)
	}
	if !strings.Contains(rg.view(), "URL copied (OSC 52)") {
		t.Errorf("no copy note:\n%s", rg.view())
	}
	rg.key("enter") // the detail view
	rg.run(rg.send(keyMsg("o")))
	if len(rg.opened) != 2 || !strings.Contains(rg.view(), "opened in the browser") {
		t.Errorf("o in the detail view: %v\n%s", rg.opened, rg.view())
	}
	// Only http and https are opened.
	rg.m.detail.r.url = "file:///etc/passwd"
	rg.run(rg.send(keyMsg("o")))
	if len(rg.opened) != 2 || !strings.Contains(rg.view(), "only http and https URLs are opened") {
		t.Errorf("a file: URL was opened: %v", rg.opened)
	}
}

// TestTeatestDecisionFlow drives the real program loop (teatest): decide,
// recompute, and Gate C turning from FAIL to PASS on the screen.
func TestTeatestDecisionFlow(t *testing.T) {
	clk := newClock()
	events := make(chan engine.Event, 16)
	oc := make(chan Outcome, 1)
	again := make(chan engine.Event, 16)
	againOut := make(chan Outcome, 1)
	var got engine.DecideArgs
	m := NewModel(events, Options{RunID: "run-e2e", Mode: "offline", Tier: "standard", Outcome: oc, Now: clk.Now,
		Decide: func(a engine.DecideArgs) (*engine.DecideResult, error) {
			got = a
			return &engine.DecideResult{OK: true, Action: "decided", Decision: &engine.OperatorDecision{Status: engine.StatusValid}}, nil
		},
		Recompute: func([]string) (<-chan engine.Event, <-chan Outcome) { return again, againOut },
	})
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(80, 24))
	wait := func(s string) {
		t.Helper()
		teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte(s)) },
			teatest.WithDuration(5*time.Second), teatest.WithCheckInterval(10*time.Millisecond))
	}
	events <- engine.Event{Kind: engine.EventStage, Stage: "validate"}
	events <- queued(uBlocked, 1)
	events <- finished(uBlocked, "offline-fixture", engine.Citation{Status: engine.StatusBlocked})
	close(events)
	oc <- Outcome{Summary: summaryWith("fail", 0)}
	wait("1 decision left")
	tm.Send(keyMsg("d"))
	wait("x exclude")
	tm.Send(keyMsg("v"))
	tm.Type("read it")
	tm.Send(keyMsg("enter"))
	wait("recomputing")
	again <- engine.Event{Kind: engine.EventQueued, Index: 0, Total: 1, URL: uBlocked, CID: cidOf(uBlocked)}
	again <- finished(uBlocked, operatorRung, engine.Citation{Status: engine.StatusValid, Notes: "operator: read it"})
	close(again)
	againOut <- Outcome{Summary: summaryWith("pass", 1)}
	wait("synthesis may start")
	tm.Send(keyMsg("q"))
	fm := tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second)).(Model)
	if got.URL != uBlocked || got.Status != "valid" || got.Note != "read it" {
		t.Errorf("Decide got %+v", got)
	}
	if res := fm.Result(); !res.Completed || !res.Summary.Passed() {
		t.Errorf("result = %+v", res)
	}
}
