package tui

import (
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/citegate/citegate/engine"
)

// claimRow is one citation of the `run --verify` synthesis, as the verify
// step settled it (engine.EventVerified). Rows arrive finished: the engine
// reports a citation once it has its verify.json entry.
type claimRow struct {
	index   int
	url     string // the cited source's normalized URL, cleaned
	v       *engine.VerifiedClaim
	verdict claimVerdict
	claim   string // one line, cleaned
	raw     string // the citation marker, cleaned
}

func newClaimRow(ev engine.Event) *claimRow {
	v := ev.Verified
	return &claimRow{index: ev.Index, url: clean(ev.URL), v: v, verdict: verdictOf(v.Citation),
		claim: oneLine(v.Claim), raw: oneLine(v.Citation.Citation.Raw)}
}

// claimListModel is the table of claims, the second list beside the URLs
// (v switches). It has no filter or sort: a synthesis cites at most
// verify.HardMaxCitations sources, listed in the synthesis's order.
type claimListModel struct {
	c     *common
	rows  []*claimRow
	total int // how many claims the verify step will list

	scroller
}

func newClaimListModel(c *common) claimListModel {
	return claimListModel{c: c, scroller: scroller{height: 1}}
}

// reset empties the list: a new verify step (a rerun's) is starting.
func (l *claimListModel) reset() {
	l.rows, l.total, l.cursor, l.offset = nil, 0, 0, 0
}

// apply adds (or, for a repeated index, replaces) the claim ev reports.
func (l *claimListModel) apply(ev engine.Event) {
	if ev.Verified == nil {
		return
	}
	r := newClaimRow(ev)
	l.total = max(l.total, ev.Total)
	if ev.Index >= 0 && ev.Index < len(l.rows) {
		l.rows[ev.Index] = r
		return
	}
	l.rows = append(l.rows, r)
}

// counts tallies the rows per verdict.
func (l *claimListModel) counts() (n [verdictJudgeError + 1]int) {
	for _, r := range l.rows {
		n[r.verdict]++
	}
	return n
}

func (l *claimListModel) selected() *claimRow {
	if l.cursor >= 0 && l.cursor < len(l.rows) {
		return l.rows[l.cursor]
	}
	return nil
}

func (l *claimListModel) setSize(height int) {
	l.height = max(1, height)
	l.clampOffset()
}

func (l *claimListModel) move(n int) { l.moveIn(n, len(l.rows)) }

func (l *claimListModel) clampOffset() { l.clampIn(len(l.rows)) }

// update moves the cursor with the list's keys and the mouse wheel.
func (l claimListModel) update(msg tea.Msg) (claimListModel, tea.Cmd) {
	k := l.c.keys
	switch msg := msg.(type) {
	case tea.MouseMsg:
		if msg.Action == tea.MouseActionPress {
			switch msg.Button {
			case tea.MouseButtonWheelUp:
				l.move(-3)
			case tea.MouseButtonWheelDown:
				l.move(3)
			}
		}
	case tea.KeyMsg:
		l.navigate(msg, k, len(l.rows))
	}
	return l, nil
}

// claimColumns are the claims table's cell widths for one terminal width.
// Narrow terminals drop the marker, then shrink the verdict and Gate C
// columns to their symbols, before the claim goes.
type claimColumns struct {
	verdict, gate, cite, claim int
}

func layoutClaimColumns(width int) claimColumns {
	c := claimColumns{verdict: 16, gate: 11, cite: 6}
	rest := func() int {
		w := width - gutter - c.verdict - 1 - c.gate - 1
		if c.cite > 0 {
			w -= c.cite + 1
		}
		return w
	}
	if rest() < 30 {
		c.cite = 0
	}
	if rest() < 16 {
		c.verdict, c.gate = 1, 1
	}
	c.claim = max(0, rest())
	return c
}

// verdictStyle colours a verdict; not judged stays dim. A judge error is a
// failure someone should look at, so it takes a colour none of the three
// verdicts uses rather than not judged's dim grey.
func verdictStyle(st *styles, v claimVerdict) lipgloss.Style {
	switch v {
	case verdictSupported:
		return st.status[stateValid]
	case verdictUnsupported:
		return st.status[stateInvalid]
	case verdictUncertain:
		return st.status[stateWaiting]
	case verdictJudgeError:
		return st.note
	case verdictNotJudged:
		// Below.
	}
	return st.dim
}

// gateStyle colours a Gate C status like the URL list does.
func gateStyle(st *styles, s engine.Status) lipgloss.Style {
	if s == "" {
		return st.dim
	}
	return st.status[stateOf(s)]
}

// rowCells renders one row; styled=false leaves it plain for the selected
// row, which is drawn in one style.
func (l *claimListModel) rowCells(r *claimRow, cols claimColumns, styled bool) string {
	verdict, gate := verdictCell(r.v.Citation), gateCell(r.v.GateC, r.url)
	if cols.verdict == 1 {
		verdict, gate = r.verdict.symbol(), strings.SplitN(gate, " ", 2)[0]
	}
	verdict, gate = fit(verdict, cols.verdict), fit(gate, cols.gate)
	if styled {
		verdict, gate = verdictStyle(l.c.st, r.verdict).Render(verdict), gateStyle(l.c.st, r.v.GateC).Render(gate)
	}
	var b strings.Builder
	b.WriteString(verdict + " " + gate)
	if cols.cite > 0 {
		b.WriteString(" " + fit(r.raw, cols.cite))
	}
	if cols.claim > 0 {
		b.WriteString(" " + fit(r.claim, cols.claim))
	}
	return b.String()
}

func (l *claimListModel) headerLine(cols claimColumns) string {
	var b strings.Builder
	b.WriteString(strings.Repeat(" ", gutter))
	b.WriteString(fit("VERDICT", cols.verdict) + " " + fit("GATE C", cols.gate))
	if cols.cite > 0 {
		b.WriteString(" " + fit("CITE", cols.cite))
	}
	if cols.claim > 0 {
		b.WriteString(" " + fit("CLAIM", cols.claim))
	}
	return l.c.st.colHeader.Render(b.String())
}

// viewBody renders the column header and the visible window of rows.
func (l *claimListModel) viewBody() string {
	cols := layoutClaimColumns(l.c.width)
	lines := make([]string, 0, l.height+1)
	lines = append(lines, l.headerLine(cols))
	end := min(len(l.rows), l.offset+l.height)
	for i := l.offset; i < end; i++ {
		r := l.rows[i]
		if i == l.cursor {
			lines = append(lines, l.c.st.selected.Render("▸ "+l.rowCells(r, cols, false)))
		} else {
			lines = append(lines, "  "+l.rowCells(r, cols, true))
		}
	}
	if len(l.rows) == 0 {
		lines = append(lines, "  "+l.c.st.dim.Render("waiting for the verify step, which runs once Gate C is computed…"))
	}
	for len(lines) < l.height+1 {
		lines = append(lines, "")
	}
	return strings.Join(lines, "\n")
}

// countsLine is the claims pane's tally, in place of the URL states':
// every verdict with its symbol, and how far the verify step has come. On
// narrow terminals the words go and the symbols stay.
func (l *claimListModel) countsLine() string {
	st := l.c.st
	n := l.counts()
	build := func(words bool) string {
		var parts []string
		for _, v := range []claimVerdict{verdictSupported, verdictUnsupported, verdictUncertain, verdictJudgeError, verdictNotJudged} {
			if v == verdictJudgeError && n[v] == 0 {
				continue // shown only when a judge call failed
			}
			p := fmt.Sprintf("%s %d", v.symbol(), n[v])
			if words {
				p += " " + v.word()
			}
			parts = append(parts, verdictStyle(st, v).Render(p))
		}
		return strings.Join(parts, "  ")
	}
	done, total := len(l.rows), max(l.total, len(l.rows))
	long, short := fmt.Sprintf("%d/%d claims verified", done, total), fmt.Sprintf("%d/%d", done, total)
	// Words before the long progress: the verdicts are the point.
	for _, try := range []struct {
		words bool
		right string
	}{{true, long}, {true, short}, {false, long}, {false, short}} {
		left := st.bold.Render("Verify") + "  " + build(try.words)
		if gap := l.c.width - lipgloss.Width(left) - lipgloss.Width(try.right); gap >= 2 {
			return left + strings.Repeat(" ", gap) + st.dim.Render(try.right)
		}
	}
	return st.bold.Render("Verify") + "  " + build(false)
}
