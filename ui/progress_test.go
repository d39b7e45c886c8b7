package ui

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/citegate/citegate/engine"
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
