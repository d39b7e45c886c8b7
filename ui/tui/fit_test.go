package tui

import (
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/citegate/citegate/engine"
	"github.com/muesli/termenv"
)

// completedAt renders the completed golden run at a terminal size.
func completedAt(t *testing.T, w, h int) *harness {
	t.Helper()
	oc := make(chan Outcome, 1)
	hs := goldenHarness(t, oc)
	hs.finishSlow(engine.StatusValid)
	hs.complete(Outcome{Summary: sampleSummary("fail")}, oc)
	hs.send(tea.WindowSizeMsg{Width: w, Height: h})
	return hs
}

// Issue 14: golden screens of the completed run at 80×24 and 120×40
// (`go test ./ui/tui -run Golden -update` rewrites them).
func TestGoldenCompleted80x24(t *testing.T) {
	golden.RequireEqual(t, []byte(completedAt(t, 80, 24).view()))
}

func TestGoldenCompleted120x40(t *testing.T) {
	golden.RequireEqual(t, []byte(completedAt(t, 120, 40).view()))
}

// TestNarrowScreensKeepTheEssentials: at any width from 60 a cut line ends
// with "…" (never mid-word without a mark), the footer keeps "? help" and
// "q quit", and the header keeps the run's state.
func TestNarrowScreensKeepTheEssentials(t *testing.T) {
	for _, size := range [][2]int{{60, 20}, {64, 20}, {72, 22}, {80, 24}} {
		hs := completedAt(t, size[0], size[1])
		for _, state := range []string{"list", "detail"} {
			if state == "detail" {
				hs.key("enter")
			}
			v := hs.view()
			lines := strings.Split(v, "\n")
			if len(lines) > size[1] {
				t.Errorf("%dx%d %s: %d lines", size[0], size[1], state, len(lines))
			}
			for _, ln := range lines {
				if w := lipgloss.Width(ln); w > size[0] {
					t.Errorf("%dx%d %s: line of %d cells: %q", size[0], size[1], state, w, ln)
				}
			}
			foot := lines[len(lines)-1]
			if !strings.Contains(foot, "? help") || !strings.Contains(foot, "q quit") {
				t.Errorf("%dx%d %s: footer lost the essential keys: %q", size[0], size[1], state, foot)
			}
			if state == "list" {
				if !strings.Contains(lines[1], "done") {
					t.Errorf("%dx%d: header lost the run's state: %q", size[0], size[1], lines[1])
				}
				if !strings.Contains(v, "…") {
					t.Errorf("%dx%d: no cut line is marked:\n%s", size[0], size[1], v)
				}
			}
		}
		hs.key("esc")
	}
}

// TestEscClosesHelp: esc closes the full help (it used to stay open).
func TestEscClosesHelp(t *testing.T) {
	hs := completedAt(t, 100, 30)
	hs.key("?")
	if !hs.m.help.ShowAll {
		t.Fatal("? did not open the help")
	}
	hs.key("esc")
	if hs.m.help.ShowAll {
		t.Error("esc did not close the help")
	}
}

// TestRerunKeepsRowsItDoesNotRecheck: a rerun's stream reports every URL —
// queued, and finished as "previous" for the kept ones — but only the
// blocked rows are rechecked: the others keep their rung, timing and
// attempts and show no rerun, and the "rerunning" note goes when it ends.
func TestRerunKeepsRowsItDoesNotRecheck(t *testing.T) {
	oc := make(chan Outcome, 1)
	rerunEvents := make(chan engine.Event)
	rerunOutcome := make(chan Outcome, 1)
	h := newHarness(t, Options{Outcome: oc, Rerun: func() (<-chan engine.Event, <-chan Outcome) { return rerunEvents, rerunOutcome }})
	h.script()
	h.finishSlow(engine.StatusValid)
	h.complete(Outcome{Summary: sampleSummary("fail")}, oc)
	before := *h.m.list.byKey[rowKey(queued(uMismatch, 6))]
	h.send(keyMsg("R"))
	if !strings.Contains(h.view(), "rerunning 1 blocked URL(s)") {
		t.Fatalf("no rerunning note:\n%s", h.view())
	}
	var evs []engine.Event
	for i, u := range scriptURLs {
		evs = append(evs, engine.Event{Kind: engine.EventQueued, Index: i, Total: len(scriptURLs), URL: u, CID: cidOf(u)})
	}
	evs = append(evs, finished(uMismatch, "previous", engine.Citation{Status: engine.StatusMismatch, HTTPStatus: intp(200)}),
		attempt(uBlocked, "direct_fetch", 1), attemptDone(uBlocked, "direct_fetch", 1, time.Second, "ok: html", 200),
		finished(uBlocked, "direct_fetch", engine.Citation{Status: engine.StatusValid, HTTPStatus: intp(200), Title: "Now reachable"}))
	h.send(eventsMsg{src: rerunEvents, events: evs})
	after := h.m.list.byKey[rowKey(queued(uMismatch, 6))]
	if after.reruns != 0 || after.decidedBy != before.decidedBy || len(after.attempts) != len(before.attempts) || after.finished != before.finished {
		t.Errorf("a row the rerun kept changed: reruns %d, decided by %q (was %q), %d attempts (was %d)",
			after.reruns, after.decidedBy, before.decidedBy, len(after.attempts), len(before.attempts))
	}
	if b := h.m.list.byKey[rowKey(queued(uBlocked, 6))]; b.reruns != 1 || b.state != stateValid {
		t.Errorf("the rechecked row: reruns %d, state %v", b.reruns, b.state)
	}
	h.send(streamClosedMsg{src: rerunEvents})
	rerunOutcome <- Outcome{Summary: sampleSummary("fail")}
	h.send(waitForOutcome(rerunOutcome, nil)())
	if strings.Contains(h.view(), "rerunning") {
		t.Errorf("the rerunning note outlived the rerun:\n%s", h.view())
	}
}

// TestDetailURLsAreNotBrokenAtHyphens: a long URL with hyphens is broken
// only at the screen's edge, and its lines put together give the URL.
func TestDetailURLsAreNotBrokenAtHyphens(t *testing.T) {
	const long = "https://app.fleet-dashboards.example/reports/2026/fleet-electrification-and-charging-infrastructure-survey"
	hs := newHarness(t, Options{})
	hs.send(tea.WindowSizeMsg{Width: 60, Height: 30})
	hs.events(0, engine.Event{Kind: engine.EventStage, Stage: "validate"}, queued(long, 1))
	hs.events(time.Millisecond, finished(long, "direct_fetch", engine.Citation{Status: engine.StatusValid, URL: long}))
	hs.key("enter")
	content := hs.m.detail.render(hs.clk.Now())
	lines := strings.Split(content, "\n")
	var got string
	for i, ln := range lines {
		if strings.HasPrefix(ln, "Normalized URL") {
			got = strings.TrimSpace(strings.TrimPrefix(ln, "Normalized URL"))
			for _, next := range lines[i+1:] {
				if next == "" || strings.HasPrefix(next, " ") || strings.HasPrefix(next, "CID") {
					break
				}
				got += next
			}
		}
	}
	if got != long {
		t.Errorf("URL lines put together give %q, want %q:\n%s", got, long, content)
	}
}

// sizes are the two terminal sizes every golden screen is kept at.
var sizes = [][2]int{{80, 24}, {120, 40}}

// goldenAt checks a screen against testdata/<test>_<w>x<h>.golden.
func goldenAt(t *testing.T, render func(w, h int) string) {
	for _, s := range sizes {
		t.Run(fmt.Sprintf("%dx%d", s[0], s[1]), func(t *testing.T) {
			golden.RequireEqual(t, []byte(render(s[0], s[1])))
		})
	}
}

// Issue 27: the detail view, the help legend and a failed run, at 80×24 and
// 120×40 (`go test ./ui/tui -run Golden -update` rewrites them).
func TestGoldenDetailAtSizes(t *testing.T) {
	goldenAt(t, func(w, h int) string {
		hs := completedAt(t, w, h)
		hs.key("enter")
		return hs.view()
	})
}

func TestGoldenHelpLegend(t *testing.T) {
	goldenAt(t, func(w, h int) string {
		hs := completedAt(t, w, h)
		hs.key("?")
		return hs.view()
	})
}

func TestGoldenFailedRun(t *testing.T) {
	goldenAt(t, func(w, h int) string {
		hs := failedAt(t, w, h)
		return hs.view()
	})
}

// failedAt is a run that failed before listing a URL, as an offline run
// without fixtures does.
func failedAt(t *testing.T, w, h int) *harness {
	t.Helper()
	oc := make(chan Outcome, 1)
	hs := newHarness(t, Options{RunID: "run-0001", Mode: "offline", Tier: "standard", Outcome: oc})
	hs.send(tea.WindowSizeMsg{Width: w, Height: h})
	hs.events(0, engine.Event{Kind: engine.EventStage, Stage: "validate"})
	hs.complete(Outcome{Err: &engine.Error{Code: "INVALID_ARGS", Message: "offline_fixtures_path required in OFFLINE mode",
		Details: map[string]any{"mode": "offline", "hint": "offline mode fetches nothing: each URL's status comes from a fixtures file. Write /runs/r1/offline-fixtures.json (`citegate init DIR --waves FILES --fixtures-template` lists every cited URL as valid, to correct), pass --offline-fixtures-path, or set effective.citations.mode to online in run-config.json"}}}, oc)
	return hs
}

// TestFailedRunShowsErrorAndFix (issue 27): a failed run says so in the
// header, and shows its error and the fix where the list would be, not
// "waiting for URLs…".
func TestFailedRunShowsErrorAndFix(t *testing.T) {
	for _, s := range sizes {
		v := failedAt(t, s[0], s[1]).view()
		lines := strings.Split(v, "\n")
		if !strings.Contains(lines[0], "failed") || strings.Contains(lines[0], "done") {
			t.Errorf("%v: header %q", s, lines[0])
		}
		for _, want := range []string{"✗ Run failed", "INVALID_ARGS: offline_fixtures_path required", "Fix: offline mode fetches nothing", "--fixtures-template"} {
			if !strings.Contains(v, want) {
				t.Errorf("%v: screen lacks %q:\n%s", s, want, v)
			}
		}
		if strings.Contains(v, "waiting for URLs") || len(lines) != s[1] {
			t.Errorf("%v: %d lines, or still waiting:\n%s", s, len(lines), v)
		}
	}
}

// TestGateMetricsLabelled (issue 27): at every width Gate C's three rates
// carry their names.
func TestGateMetricsLabelled(t *testing.T) {
	for _, w := range []int{60, 72, 80, 100, 120} {
		line := completedAt(t, w, 24).m.gateLine()
		if !strings.Contains(line, "valid") || !strings.Contains(line, "invalid") || !strings.Contains(line, "uncat") || strings.Contains(line, "/0.") {
			t.Errorf("width %d: %q", w, line)
		}
	}
}

// TestHelpLegend (issue 27): ? explains every status symbol and every
// filter key, the review keys included.
func TestHelpLegend(t *testing.T) {
	hs := completedAt(t, 80, 24)
	hs.key("?")
	v := hs.view()
	for _, want := range []string{"✓ valid", "$ paywalled", "⊘ blocked", "≠ mismatch", "✗ invalid", "↻ checking", "· queued",
		"0 all", "6 pending", "7 needs a decision", "8 decided", "d decide", "u undo decision", "o open in browser", "y copy URL"} {
		if !strings.Contains(v, want) {
			t.Errorf("help lacks %q:\n%s", want, v)
		}
	}
	if n := len(strings.Split(v, "\n")); n != 24 {
		t.Errorf("help screen is %d lines", n)
	}
}

// TestRepeatedHostShowsPath (issue 27): two citations of one host differ by
// their path on the screen, even at 80 columns with titles cut.
func TestRepeatedHostShowsPath(t *testing.T) {
	h := newHarness(t, Options{})
	h.send(tea.WindowSizeMsg{Width: 80, Height: 24})
	a, b := "https://www.nature.com/articles/s41586-019-1682-5", "https://www.nature.com/articles/s41586-020-2649-2"
	title := "A very long title that an eighty column terminal cuts well before its end"
	h.events(0, engine.Event{Kind: engine.EventStage, Stage: "validate"},
		engine.Event{Kind: engine.EventQueued, Index: 0, Total: 3, URL: a, CID: "c1"},
		engine.Event{Kind: engine.EventQueued, Index: 1, Total: 3, URL: b, CID: "c2"},
		engine.Event{Kind: engine.EventQueued, Index: 2, Total: 3, URL: uValid, CID: "c3"})
	for i, u := range []string{a, b} {
		h.events(0, engine.Event{Kind: engine.EventFinished, Index: i, URL: u, CID: fmt.Sprintf("c%d", i+1), Rung: "offline-fixture",
			Citation: &engine.Citation{Status: engine.StatusValid, NormalizedURL: u, Title: title}})
	}
	var rows []string
	for _, ln := range strings.Split(h.view(), "\n") {
		if strings.Contains(ln, "nature.com") {
			rows = append(rows, ln)
		}
	}
	if len(rows) != 2 || rows[0] == rows[1] || !strings.Contains(rows[0], "019-1682-5") || !strings.Contains(rows[1], "020-2649-2") {
		t.Errorf("rows of one host:\n%s", strings.Join(rows, "\n"))
	}
	if strings.Contains(h.rowLine("example.org"), "/a") {
		t.Errorf("a host seen once shows its path: %q", h.rowLine("example.org"))
	}
}

// TestNoColorAndResizeAtSizes: with NO_COLOR no escape sequence is written,
// and every screen fits exactly after a resize, at both golden sizes.
func TestNoColorAndResizeAtSizes(t *testing.T) {
	env := mapEnv{"TERM": "xterm-256color", "NO_COLOR": "1"}
	r := lipgloss.NewRenderer(io.Discard, termenv.WithEnvironment(env), termenv.WithTTY(true))
	clk := newClock()
	ch := make(chan engine.Event)
	oc := make(chan Outcome, 1)
	h := &harness{t: t, m: newModel(ch, Options{Outcome: oc, Now: clk.Now, Decide: func(engine.DecideArgs) (*engine.DecideResult, error) { return nil, nil }}, newStyles(r)), ch: ch, clk: clk}
	h.script()
	h.finishSlow(engine.StatusValid)
	h.complete(Outcome{Summary: sampleSummary("fail")}, oc)
	for _, s := range append(sizes, [2]int{60, 20}) {
		h.send(tea.WindowSizeMsg{Width: s[0], Height: s[1]})
		for _, keys := range [][]string{nil, {"enter"}, {"esc", "?"}, {"?", "d"}, {"esc"}} {
			for _, k := range keys {
				h.key(k)
			}
			v := h.view()
			if strings.Contains(v, "\x1b[") {
				t.Errorf("%v after %v: escape sequences under NO_COLOR", s, keys)
			}
			lines := strings.Split(v, "\n")
			if len(lines) != s[1] {
				t.Errorf("%v after %v: %d lines", s, keys, len(lines))
			}
			for _, ln := range lines {
				if lipgloss.Width(ln) > s[0] {
					t.Errorf("%v after %v: line too wide: %q", s, keys, ln)
				}
			}
		}
	}
}
