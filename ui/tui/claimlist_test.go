package tui

import (
	"bytes"
	"io"
	"regexp"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/exp/teatest"
	"github.com/citegate/citegate/engine"
	"github.com/citegate/citegate/engine/verify"
	"github.com/citegate/citegate/ui/internal/uitest"
	"github.com/muesli/termenv"
)

// lineWith returns the screen line holding text.
func (h *harness) lineWith(text string) string {
	h.t.Helper()
	for _, ln := range strings.Split(h.view(), "\n") {
		if strings.Contains(ln, text) {
			return ln
		}
	}
	h.t.Fatalf("no line with %q in:\n%s", text, h.view())
	return ""
}

// TestClaimsListFillsLive (issue 11 item 5): the claims list (v) fills as
// the verify step reports each claim, row by row, with its verdict (or why
// no judge read it), the source's Gate C status and the claim, and the
// tally above it follows.
func TestClaimsListFillsLive(t *testing.T) {
	h := newHarness(t, Options{Verify: true})
	h.script()
	h.finishSlow(engine.StatusValid)
	h.key("v")
	if h.m.pane != paneClaims || !strings.Contains(h.view(), "waiting for the verify step") {
		t.Fatalf("v did not open the empty claims list:\n%s", h.view())
	}
	h.events(0, engine.Event{Kind: engine.EventStage, Stage: "verify"})
	script := uitest.ClaimScript()
	for i, ev := range script {
		h.events(10*time.Millisecond, ev)
		if got := len(h.m.claims.rows); got != i+1 {
			t.Fatalf("after claim %d the list has %d rows", i+1, got)
		}
		if !strings.Contains(h.view(), "claims of the --verify synthesis · "+string(rune('0'+i+1))+" shown") {
			t.Errorf("status line after claim %d:\n%s", i+1, h.view())
		}
	}
	for _, tc := range []struct{ text, want string }{
		{"seasonal coefficient", "✓ supported      ✓ valid     [1]"},
		{"Field trials in Norway", "✗ unsupported    ✓ valid     [2]"},
		{"Installation costs", "? uncertain      — unchecked [3]"},
		{"suppress dendrites", "— not citable    ⊘ blocked   [4]"},
		{"Costs fell by a third.", "— no source      —           [5]"},
	} {
		if ln := h.lineWith(tc.text); !strings.Contains(ln, tc.want) {
			t.Errorf("row %q = %q, want it to show %q", tc.text, ln, tc.want)
		}
	}
	if want := "Verify  ✓ 1 supported  ✗ 1 unsupported  ? 1 uncertain  — 2 not judged"; !strings.Contains(h.view(), want) {
		t.Errorf("tally missing %q:\n%s", want, h.view())
	}
	if !strings.Contains(h.view(), "5/5 claims verified") {
		t.Errorf("progress missing:\n%s", h.view())
	}
	// A rerun verifies again: its verify stage starts the list afresh.
	h.events(0, engine.Event{Kind: engine.EventStage, Stage: "verify"}, script[0])
	if len(h.m.claims.rows) != 1 {
		t.Errorf("a new verify stage kept %d old rows", len(h.m.claims.rows))
	}
}

// TestClaimDetailShowsVerdictRationalePassage (issue 11 item 5): enter on
// a claim opens its detail: the claim, marker and offsets, source URL,
// Gate C status, resolve status, verdict, confidence, rationale and the
// passage the judge read, wrapped; esc goes back to the claims list.
func TestClaimDetailShowsVerdictRationalePassage(t *testing.T) {
	h := newHarness(t, Options{Verify: true})
	h.events(0, append([]engine.Event{{Kind: engine.EventStage, Stage: "verify"}}, uitest.ClaimScript()...)...)
	h.key("v")
	h.key("enter")
	if h.m.state != viewClaimDetail {
		t.Fatalf("enter did not open the claim:\n%s", h.view())
	}
	content := h.m.claimDetail.render()
	for _, want := range []string{
		"Claim           Cold-climate heat pumps now keep a seasonal coefficient of performance",
		"Citation        [1] · numbered · bytes 100–103 of the synthesis",
		"Source          http://research.heat.example/cold-climate-study",
		"Gate C status   ✓ valid (citations.jsonl)",
		"Resolve status  ok",
		"Fetched         HTTP 200 · text/html · 657 bytes",
		"Verdict         ✓ supported",
		"Confidence      0.82",
		"Rationale       every fact of the claim is on the page",
		"Passage the judge read",
		"  Over three winters we monitored 412 air-source heat pumps",
		"  The units kept a seasonal coefficient of performance of 2.5 on average",
	} {
		if !strings.Contains(content, want) {
			t.Errorf("claim detail lacks %q:\n%s", want, content)
		}
	}
	for _, ln := range strings.Split(content, "\n") {
		if w := lipgloss.Width(ln); w > 100 {
			t.Errorf("detail line of %d cells (not wrapped): %q", w, ln)
		}
	}
	if !strings.Contains(h.view(), "Claim 1 of 5 · ✓ supported · [1]") {
		t.Errorf("claim detail title:\n%s", h.view())
	}
	h.key("esc")
	if h.m.state != viewList || h.m.pane != paneClaims {
		t.Fatalf("esc did not return to the claims list (state %v pane %v)", h.m.state, h.m.pane)
	}

	// Uncertain: the best guess is shown; not judged: why, and no passage.
	h.key("down")
	h.key("down")
	h.key("enter")
	if c := h.m.claimDetail.render(); !strings.Contains(c, "? uncertain (best guess: unsupported)") ||
		!strings.Contains(c, "— unchecked (this run did not validate the source)") {
		t.Errorf("uncertain claim detail:\n%s", c)
	}
	h.key("esc")
	h.key("down")
	h.key("enter")
	c := h.m.claimDetail.render()
	for _, want := range []string{"Gate C status   ⊘ blocked (citations.jsonl)",
		"Resolve status  error · not_citable: citations.jsonl marks this source blocked",
		"Verdict         — not judged: not citable", "none: no judge read this source"} {
		if !strings.Contains(c, want) {
			t.Errorf("not-judged claim detail lacks %q:\n%s", want, c)
		}
	}
}

// helpNames reports whether a help screen binds key to desc (the full help
// pads the two into columns).
func helpNames(screen, key, desc string) bool {
	return regexp.MustCompile(`(^|\s)` + regexp.QuoteMeta(key) + `\s+` + regexp.QuoteMeta(desc) + `(\s|$)`).MatchString(screen)
}

// TestClaimsKeySwitchesViews (issue 11 item 5): v switches between the
// URLs and the claims, and back; the footer and the full help name it.
// A run that verifies nothing keeps v out of the help and ignores it.
func TestClaimsKeySwitchesViews(t *testing.T) {
	h := newHarness(t, Options{Verify: true})
	h.script()
	if !strings.Contains(h.view(), "v claims") || !strings.Contains(h.view(), "v: 0 claim(s)") {
		t.Errorf("footer or status line does not name v:\n%s", h.view())
	}
	h.key("v")
	if h.m.pane != paneClaims || !strings.Contains(h.view(), "VERDICT") || !strings.Contains(h.view(), "v URLs") {
		t.Fatalf("v did not switch to the claims:\n%s", h.view())
	}
	h.key("?")
	if full := h.view(); !helpNames(full, "v", "URLs") || !strings.Contains(full, "ctrl+c") {
		t.Errorf("full help of the claims list:\n%s", full)
	}
	h.key("?")
	h.key("v")
	if h.m.pane != paneURLs || !strings.Contains(h.view(), "example.org") {
		t.Fatalf("v did not switch back to the URLs:\n%s", h.view())
	}
	h.key("v")
	h.key("esc")
	if h.m.pane != paneURLs {
		t.Error("esc in the claims list did not go back to the URLs")
	}
	h.key("?")
	if !helpNames(h.view(), "v", "claims") {
		t.Errorf("full help of the URL list lacks v:\n%s", h.view())
	}

	// Without --verify: no v in the help, and v does nothing…
	h = newHarness(t, Options{})
	h.script()
	h.key("v")
	if h.m.pane != paneURLs || strings.Contains(h.view(), "v claims") {
		t.Errorf("v without --verify:\n%s", h.view())
	}
	// …until a claim arrives (a stream with claims needs no option).
	h.events(0, uitest.ClaimScript()[0])
	h.key("v")
	if h.m.pane != paneClaims {
		t.Error("a claim on the stream did not make v available")
	}
	// v is a letter in the search box.
	h = newHarness(t, Options{Verify: true})
	h.script()
	h.key("/")
	h.typeText("v")
	if h.m.pane != paneURLs || h.m.list.query != "v" {
		t.Errorf("v in the search box: pane %v, query %q", h.m.pane, h.m.list.query)
	}
}

// TestClaimsPlainAt80Columns (issue 11 item 5): with NO_COLOR on an 80-column
// terminal the claims list and a claim's detail are plain text that fits:
// symbols and words carry the verdicts, long claims end in an ellipsis.
func TestClaimsPlainAt80Columns(t *testing.T) {
	env := mapEnv{"TERM": "xterm-256color", "NO_COLOR": "1"}
	r := lipgloss.NewRenderer(io.Discard, termenv.WithEnvironment(env), termenv.WithTTY(true))
	clk := newClock()
	ch := make(chan engine.Event)
	h := &harness{t: t, m: newModel(ch, Options{Verify: true, Simulated: true, Now: clk.Now}, newStyles(r)), ch: ch, clk: clk}
	h.send(tea.WindowSizeMsg{Width: 80, Height: 24})
	h.script()
	h.events(0, append([]engine.Event{{Kind: engine.EventStage, Stage: "verify"}}, uitest.ClaimScript()...)...)
	h.key("v")
	check := func(state string) {
		t.Helper()
		v := h.view()
		if strings.Contains(v, "\x1b[") {
			t.Errorf("%s: escape sequences under NO_COLOR:\n%q", state, v)
		}
		lines := strings.Split(v, "\n")
		if len(lines) != 24 {
			t.Errorf("%s: %d lines, want 24", state, len(lines))
		}
		for _, ln := range lines {
			if w := lipgloss.Width(ln); w > 80 {
				t.Errorf("%s: line of %d cells: %q", state, w, ln)
			}
		}
	}
	check("claims list")
	if ln := h.lineWith("Cold-climate heat pumps"); !strings.HasSuffix(strings.TrimRight(ln, " "), "…") || !strings.Contains(ln, "✓ supported") {
		t.Errorf("long claim row at 80 columns: %q", ln)
	}
	if !strings.Contains(h.view(), "v URLs") {
		t.Errorf("footer lacks v at 80 columns:\n%s", h.view())
	}
	h.key("enter")
	check("claim detail")
	h.key("G")
	if !strings.Contains(h.view(), "minus 20 degrees") {
		t.Errorf("passage not reachable at 80 columns:\n%s", h.view())
	}
	h.key("esc")
	h.key("v")
	check("URL list")
	for _, w := range []int{60, 40} {
		h.send(tea.WindowSizeMsg{Width: w, Height: 20})
		h.key("v")
		for _, ln := range strings.Split(h.view(), "\n") {
			if lw := lipgloss.Width(ln); lw > w {
				t.Errorf("claims at %d columns: line of %d cells: %q", w, lw, ln)
			}
		}
		h.key("v")
	}
}

// TestTeatestClaimsLive (issue 11 item 5): on an in-memory terminal, the
// claims the engine reports appear while the run goes on, and the detail
// of one shows its verdict, rationale and passage.
func TestTeatestClaimsLive(t *testing.T) {
	clk := newClock()
	events := make(chan engine.Event, 64)
	oc := make(chan Outcome, 1)
	m := NewModel(events, Options{RunID: "run-e2e", Mode: "online", Tier: "standard", Outcome: oc, Now: clk.Now, Verify: true})
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(100, 30))
	wait := func(what string, ok func([]byte) bool) {
		t.Helper()
		teatest.WaitFor(t, tm.Output(), ok, teatest.WithDuration(5*time.Second), teatest.WithCheckInterval(10*time.Millisecond))
	}

	events <- queued(uValid, 1)
	events <- finished(uValid, "direct_fetch", validCitation())
	wait("the URL", func(b []byte) bool { return bytes.Contains(b, []byte("✓ valid")) })
	tm.Send(keyMsg("v"))
	wait("the empty claims list", func(b []byte) bool { return bytes.Contains(b, []byte("waiting for the verify step")) })

	script := uitest.ClaimScript()
	events <- engine.Event{Kind: engine.EventStage, Stage: "verify"}
	events <- script[0]
	wait("the first claim", func(b []byte) bool { return bytes.Contains(b, []byte("✓ supported")) })
	events <- script[1]
	wait("the second claim", func(b []byte) bool { return bytes.Contains(b, []byte("✗ unsupported")) })
	for _, ev := range script[2:] {
		events <- ev
	}
	close(events)
	oc <- Outcome{Summary: sampleSummary("pass")}
	wait("completion", func(b []byte) bool { return bytes.Contains(b, []byte("Run complete")) })

	tm.Send(keyMsg("enter"))
	wait("the claim detail", func(b []byte) bool {
		return bytes.Contains(b, []byte("Rationale")) && bytes.Contains(b, []byte("0.82")) && bytes.Contains(b, []byte("412 air-source"))
	})
	tm.Send(keyMsg("q"))
	fm, ok := tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second)).(Model)
	if !ok {
		t.Fatal("final model is not a Model")
	}
	if fm.state != viewClaimDetail || fm.claimDetail.r == nil || fm.claimDetail.r.index != 0 || len(fm.claims.rows) != 5 {
		t.Errorf("final state %v, %d claims, detail %+v", fm.state, len(fm.claims.rows), fm.claimDetail.r)
	}
}

// TestVerdictCellJudgeError (issue 23): a citation whose judge call failed
// reads as the judge's failure, not as a verdict and not as "not judged".
func TestVerdictCellJudgeError(t *testing.T) {
	vc := verify.Citation{ResolveStatus: "ok", ResolveError: &verify.ResolveError{Kind: "llm_judge_error", Message: "judge: llm_judge_error: HTTP 500"}}
	if got := verdictCell(vc); got != "! judge: llm judge error" {
		t.Errorf("verdict cell %q", got)
	}
	if verdictOf(vc) != verdictJudgeError {
		t.Errorf("verdict %v", verdictOf(vc))
	}
}

// A judge error is a failure to look at: it must not be coloured like a
// claim no judge read (dim), nor like any of the judge's verdicts.
func TestVerdictStyleJudgeErrorStandsApart(t *testing.T) {
	env := mapEnv{"TERM": "xterm-256color", "COLORTERM": "truecolor"}
	st := newStyles(lipgloss.NewRenderer(io.Discard, termenv.WithEnvironment(env), termenv.WithTTY(true)))
	render := func(v claimVerdict) string { return verdictStyle(st, v).Render("x") }
	got := render(verdictJudgeError)
	if !strings.Contains(got, "\x1b[") {
		t.Fatalf("judge error rendered without colour: %q", got)
	}
	for _, v := range []claimVerdict{verdictNotJudged, verdictSupported, verdictUnsupported, verdictUncertain} {
		if render(v) == got {
			t.Errorf("judge error styled like %s: %q", v.word(), got)
		}
	}
}
