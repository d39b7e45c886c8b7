package tui

import (
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/citegate/citegate/engine"
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
