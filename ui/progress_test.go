package ui

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/citegate/citegate/engine"
	"github.com/citegate/citegate/ui/internal/uitest"
)

func feed(p *Progress, total int) {
	ch := make(chan engine.Event, total*2+2)
	ch <- engine.Event{Kind: engine.EventStage, Stage: "validate"}
	for i := range total {
		ch <- engine.Event{Kind: engine.EventQueued, Index: i, Total: total}
	}
	for i := range total {
		st := engine.StatusValid
		if i == 1 {
			st = engine.StatusBlocked
		}
		ch <- engine.Event{Kind: engine.EventFinished, Index: i, Total: total, URL: "https://x.org/" + string(rune('a'+i%26)),
			Rung: "offline-fixture", Citation: &engine.Citation{Status: st}}
	}
	close(ch)
	p.Consume(ch)
}

func TestProgressPlainLinesPerURL(t *testing.T) {
	var b bytes.Buffer
	feed(NewProgress(&b, false), 3)
	want := "citegate: validate\n[1/3] valid     https://x.org/a (offline-fixture)\n[2/3] blocked   https://x.org/b (offline-fixture)\n[3/3] valid     https://x.org/c (offline-fixture)\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

func TestProgressLargeRunsPrintTenths(t *testing.T) {
	var b bytes.Buffer
	feed(NewProgress(&b, false), 2000)
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 11 || lines[10] != "[2000/2000] validated" {
		t.Errorf("got %d lines, last %q", len(lines), lines[len(lines)-1])
	}
}

func TestProgressTerminalRedrawsOneLine(t *testing.T) {
	var b bytes.Buffer
	feed(NewProgress(&b, true), 3)
	out := b.String()
	if strings.Count(out, "\r\x1b[K") != 3 || !strings.HasSuffix(out, "https://x.org/c\n") {
		t.Errorf("terminal output %q", out)
	}
}

func TestProgressShowsRetries(t *testing.T) {
	var b bytes.Buffer
	ch := make(chan engine.Event, 3)
	ch <- engine.Event{Kind: engine.EventAttempt, Index: 0, Total: 2, Rung: "direct_fetch", Attempt: 1, URL: "https://x.org/a"}
	ch <- engine.Event{Kind: engine.EventRetryWait, Index: 0, Total: 2, Rung: "direct_fetch", Wait: 1500 * time.Millisecond, Detail: "http 429", URL: "https://x.org/a"}
	close(ch)
	NewProgress(&b, false).Consume(ch)
	if want := "[1/2] retry     direct_fetch in 1.5s (http 429) https://x.org/a\n"; b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
}

// TestProgressWarnings: a configuration warning is printed on its own line,
// once, even on a terminal where progress redraws one line.
func TestProgressWarnings(t *testing.T) {
	for _, tty := range []bool{false, true} {
		var b bytes.Buffer
		ch := make(chan engine.Event, 3)
		ch <- engine.Event{Kind: engine.EventAttempt, Index: 0, Total: 1, Rung: "direct_fetch", Attempt: 1, URL: "https://x.org/a"}
		ch <- engine.Event{Kind: engine.EventWarning, Total: 1, Detail: "bright_data is never used: provider failed (refusing to send credentials over plain http to http://api.example)"}
		close(ch)
		NewProgress(&b, tty).Consume(ch)
		want := "citegate: warning: bright_data is never used: provider failed (refusing to send credentials over plain http to http://api.example)\n"
		if strings.Count(b.String(), "citegate: warning:") != 1 || !strings.Contains(b.String(), want) {
			t.Errorf("tty %v: output %q", tty, b.String())
		}
	}
}

// feedOrder feeds a validate stage whose URLs finish in the given order of
// list positions, as the ladder finishes them.
func feedOrder(p *Progress, order []int) {
	total := len(order)
	ch := make(chan engine.Event, total*2+1)
	ch <- engine.Event{Kind: engine.EventStage, Stage: "validate"}
	for i := range total {
		ch <- engine.Event{Kind: engine.EventQueued, Index: i, Total: total}
	}
	for _, i := range order {
		ch <- engine.Event{Kind: engine.EventFinished, Index: i, Total: total, URL: "https://x.org/" + string(rune('a'+i%26)),
			Rung: "direct_fetch", Citation: &engine.Citation{Status: engine.StatusValid}}
	}
	close(ch)
	p.Consume(ch)
}

// TestProgressCountsCompletions: the counter is the number of URLs finished,
// whatever order they finish in. Above 1,000 URLs a run whose last URL
// finished first once printed [2000/2000] at once and nothing after.
func TestProgressCountsCompletions(t *testing.T) {
	reversed := make([]int, 2000)
	for i := range reversed {
		reversed[i] = len(reversed) - 1 - i
	}
	interleaved := make([]int, 0, 2000) // settled URLs at the end of the list finish first
	for i := 1000; i < 2000; i++ {
		interleaved = append(interleaved, i)
	}
	for i := range 1000 {
		interleaved = append(interleaved, i)
	}
	for name, order := range map[string][]int{"reversed": reversed, "interleaved": interleaved} {
		var b bytes.Buffer
		feedOrder(NewProgress(&b, false), order)
		var want strings.Builder
		want.WriteString("citegate: validate\n")
		for n := 200; n <= 2000; n += 200 {
			fmt.Fprintf(&want, "[%d/2000] validated\n", n)
		}
		if b.String() != want.String() {
			t.Errorf("%s: got\n%s\nwant\n%s", name, b.String(), want.String())
		}
	}

	var b bytes.Buffer
	feedOrder(NewProgress(&b, false), []int{2, 0, 1})
	want := "citegate: validate\n[1/3] valid     https://x.org/c (direct_fetch)\n[2/3] valid     https://x.org/a (direct_fetch)\n[3/3] valid     https://x.org/b (direct_fetch)\n"
	if b.String() != want {
		t.Errorf("per-URL lines: got\n%s\nwant\n%s", b.String(), want)
	}

	b.Reset()
	feedOrder(NewProgress(&b, true), []int{2, 0, 1})
	if got := b.String(); !strings.Contains(got, "[1/3] valid     https://x.org/c") || !strings.HasSuffix(got, "[3/3] valid     https://x.org/b\n") {
		t.Errorf("terminal line: %q", got)
	}
}

// TestProgressPrintsVerifiedClaims (issue 11 item 5): with run --verify,
// headless progress prints one terse line per verified claim — verdict,
// marker, the claim shortened, why no judge read it and the source's Gate C
// status — and on a terminal redraws its one line with them.
func TestProgressPrintsVerifiedClaims(t *testing.T) {
	var b bytes.Buffer
	evs := append([]engine.Event{{Kind: engine.EventStage, Stage: "verify"}}, uitest.ClaimScript()...)
	ch := make(chan engine.Event, len(evs))
	for _, ev := range evs {
		ch <- ev
	}
	close(ch)
	NewProgress(&b, false).Consume(ch)
	want := `citegate: verify
[1/5] supported   [1] "Cold-climate heat pumps now keep a seasonal coefficient of …" (Gate C ✓ valid)
[2/5] unsupported [2] "Field trials in Norway reported that installed heat pumps c…" (Gate C ✓ valid)
[3/5] uncertain   [3] "Installation costs fell by a third between 2019 and 2024." (Gate C — unchecked)
[4/5] not judged  [4] "Solid-state cells suppress dendrites." (not citable; Gate C ⊘ blocked)
[5/5] not judged  [5] "Costs fell by a third." (no source)
`
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}

	b.Reset()
	ch = make(chan engine.Event, len(evs))
	for _, ev := range evs {
		ch <- ev
	}
	close(ch)
	NewProgress(&b, true).Consume(ch)
	if got := b.String(); strings.Count(got, "\r\x1b[K") != 5 || !strings.HasSuffix(got, `[5/5] not judged  [5] "Costs fell by a third." (no source)`+"\n") {
		t.Errorf("terminal output %q", got)
	}
}
