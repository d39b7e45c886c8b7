package ui

import (
	"fmt"
	"io"
	"time"

	"github.com/citegate/citegate/engine"
)

// perURLLimit is the largest work list for which headless mode prints one
// line per URL; above it, CI logs get a line per 10% instead.
const perURLLimit = 1000

// Progress is the headless consumer of the engine's event stream: stage
// lines and per-URL verdicts on stderr. On a terminal it redraws one line.
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
	}
}

func width(n int) int { return len(fmt.Sprint(n)) }
