package ui

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/citegate/citegate/engine"
	"github.com/citegate/citegate/ui/tui"
)

// perURLLimit is the largest work list for which headless mode prints one
// line per URL; above it, CI logs get a line per 10% instead.
const perURLLimit = 1000

// Progress is the headless consumer of the engine's event stream: stage
// lines, per-URL verdicts and, with run --verify, per-claim verdicts on
// stderr. On a terminal it redraws one line.
type Progress struct {
	w    io.Writer
	tty  bool
	step int
	// done counts the URLs finished in this stage. Verdict lines show it,
	// not the URL's list position: the ladder finishes URLs in any order
	// (settled ones first, then live ones as their rungs return), so the
	// position says nothing about progress.
	done int
	last int
	open bool // a redrawn line is on screen and needs a newline
}

// NewProgress returns a printer writing to w.
func NewProgress(w io.Writer, tty bool) *Progress { return &Progress{w: w, tty: tty} }

// Consume prints events until the channel is closed.
func (p *Progress) Consume(events <-chan engine.Event) {
	for ev := range events {
		p.handle(ev)
	}
	p.endLine()
}

func (p *Progress) endLine() {
	if p.open {
		fmt.Fprintln(p.w)
		p.open = false
	}
}

func (p *Progress) handle(ev engine.Event) {
	switch ev.Kind {
	case engine.EventStage:
		p.endLine()
		p.done, p.last = 0, 0
		fmt.Fprintf(p.w, "citegate: %s\n", ev.Stage)
	case engine.EventQueued:
		p.step = max(1, ev.Total/10)
	case engine.EventWarning:
		p.endLine()
		fmt.Fprintf(p.w, "citegate: warning: %s\n", ev.Detail)
	case engine.EventAttempt:
		if p.tty {
			// The one redrawn line is a progress line: finished so far.
			fmt.Fprintf(p.w, "\r\x1b[K[%d/%d] %s (attempt %d) %s", p.done, ev.Total, ev.Rung, ev.Attempt, ev.URL)
			p.open = true
		}
	case engine.EventAttemptDone:
		// An attempt's outcome shows in the retry or verdict line that
		// follows it; headless output has no per-attempt detail view.
	case engine.EventRetryWait:
		// A retry line names one URL between verdicts; its [i/N] is that
		// URL's position in the sorted work list.
		if !p.tty && ev.Total <= perURLLimit {
			fmt.Fprintf(p.w, "[%*d/%d] retry     %s in %v (%s) %s\n", width(ev.Total), ev.Index+1, ev.Total, ev.Rung,
				ev.Wait.Round(time.Millisecond), ev.Detail, ev.URL)
		}
	case engine.EventFinished:
		p.done++
		n := p.done
		c := ev.Citation
		switch {
		case p.tty:
			fmt.Fprintf(p.w, "\r\x1b[K[%d/%d] %-9s %s", n, ev.Total, c.Status, ev.URL)
			p.open = true
		case ev.Total <= perURLLimit:
			fmt.Fprintf(p.w, "[%*d/%d] %-9s %s (%s)\n", width(ev.Total), n, ev.Total, c.Status, ev.URL, ev.Rung)
		case n-p.last >= p.step || n == ev.Total:
			p.last = n
			fmt.Fprintf(p.w, "[%d/%d] validated\n", n, ev.Total)
		}
	case engine.EventVerified:
		if ev.Verified == nil {
			return
		}
		line := claimLine(ev)
		if p.tty {
			fmt.Fprintf(p.w, "\r\x1b[K%s", line)
			p.open = true
			return
		}
		// At most verify.HardMaxCitations lines: always one per claim.
		fmt.Fprintln(p.w, line)
	}
}

// claimLineWidth bounds the claim quoted on a progress line.
const claimLineWidth = 60

// claimLine is one verified claim on a progress line: its position, the
// verdict, the citation marker, the claim (shortened), and why no judge
// read the source, if none did, and the source's Gate C status:
//
//	[1/4] not judged  [1] "Solid-state cells suppress dendrites." (not citable; Gate C ⊘ blocked)
func claimLine(ev engine.Event) string {
	v := ev.Verified
	vc := v.Citation
	var notes []string
	if why := tui.NotJudged(vc); why != "" {
		notes = append(notes, why)
	}
	if g := tui.GateCell(v.GateC, ev.URL); g != "—" {
		notes = append(notes, "Gate C "+g)
	}
	line := fmt.Sprintf("[%*d/%d] %-11s %s \"%s\"", width(ev.Total), ev.Index+1, ev.Total, tui.VerdictWord(vc),
		tui.OneLine(vc.Citation.Raw), tui.Truncate(tui.OneLine(v.Claim), claimLineWidth))
	if len(notes) > 0 {
		line += " (" + strings.Join(notes, "; ") + ")"
	}
	return line
}

func width(n int) int { return len(fmt.Sprint(n)) }
