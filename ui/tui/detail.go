package tui

import (
	"fmt"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
)

// detailModel shows one citation in a scrolling pager. It holds the row
// pointer, so events that reach the list while the operator reads update
// what refresh renders.
type detailModel struct {
	pager
	r     *row
	total int
}

func newDetailModel(c *common) detailModel {
	return detailModel{pager: newPager(c)}
}

// setSize gives the view its height (title and rule included) and
// re-renders, since wrapping depends on the width.
func (d *detailModel) setSize(height int) {
	if d.resize(height) && d.r != nil {
		d.refresh(d.c.now())
	}
}

// open shows r from the top.
func (d *detailModel) open(r *row, total int, now time.Time) {
	d.r, d.total = r, total
	d.show(d.render(now))
}

// refresh re-renders the same row (new events or a resize) and keeps the
// scroll position.
func (d *detailModel) refresh(now time.Time) {
	d.replace(d.render(now))
}

// update scrolls (see pager.scroll).
func (d detailModel) update(msg tea.Msg) (detailModel, tea.Cmd) {
	var cmd tea.Cmd
	d.pager, cmd = d.scroll(msg)
	return d, cmd
}

// view is the title, a rule and the viewport.
func (d detailModel) view() string {
	r := d.r
	if r == nil {
		return ""
	}
	return d.frame(fmt.Sprintf("Citation%s · %s %s · %s", ofTotal(r.index, d.total), r.state.symbol(), r.state.word(), r.domain))
}

// render builds the whole detail text for the current width.
func (d *detailModel) render(now time.Time) string {
	r := d.r
	st := d.c.st
	out := newDoc(d.c)
	field, section, block := out.field, out.section, out.block
	c := r.cit

	out.urlField("Normalized URL", r.url)
	field("CID", r.cid)
	if c != nil {
		out.urlField("Final URL", clean(c.URL))
		if c.URLOriginal != "" && c.URLOriginal != c.URL {
			out.urlField("Original URL", clean(c.URLOriginal))
		}
	}
	if len(r.redirects) > 0 {
		chain := make([]string, 0, len(r.redirects)+1)
		for i, u := range r.redirects {
			chain = append(chain, fmt.Sprintf("%d. %s", i+1, clean(u)))
		}
		if c != nil && c.URL != "" {
			chain = append(chain, fmt.Sprintf("%d. %s (final)", len(r.redirects)+1, clean(c.URL)))
		}
		for i, ln := range chain {
			lab := ""
			if i == 0 {
				lab = fmt.Sprintf("Redirects (%d)", len(r.redirects))
			}
			field(lab, ln)
		}
	} else if r.state.finished() {
		field("Redirects", "none")
	}
	status := r.state.symbol() + " " + r.state.word()
	switch {
	case r.state == stateRunning:
		status += fmt.Sprintf(" · %s attempt %d", r.rung, r.attempt)
	case r.state == stateWaiting:
		status += fmt.Sprintf(" · %s retry in %s", r.rung, fmtDur(r.wait))
	case r.state.finished() && r.decidedBy != "":
		status += " · decided by " + r.decidedBy
	}
	field("Status", st.status[r.state].Render(status))
	if h := r.httpStatus(); h != 0 {
		field("HTTP status", fmt.Sprint(h))
	}
	if el, ok := r.elapsed(now); ok {
		field("Elapsed", fmtDur(el))
	}
	if c != nil {
		field("Checked at", c.CheckedAt)
	}
	if r.reruns > 0 {
		field("Reruns", fmt.Sprint(r.reruns))
	}
	field("Title", r.title)
	if c != nil {
		field("Publisher", clean(c.Publisher))
		field("Notes", clean(c.Notes))
		if c.EvidenceSnippet != "" {
			section("Evidence")
			block("“"+clean(c.EvidenceSnippet)+"”", "  ")
		}
	}

	section(fmt.Sprintf("Attempts (%d)", len(r.attempts)))
	if len(r.attempts) == 0 {
		how := "none yet"
		if r.state.finished() {
			how = "none: decided by " + orDash(r.decidedBy) + " without fetching"
		}
		out.line("  " + st.dim.Render(how))
	}
	for _, a := range r.attempts {
		took, outcome := "…", "in progress"
		if a.done {
			took, outcome = fmtDur(a.elapsed), orDash(a.outcome)
			if a.httpStatus != 0 && !strings.Contains(outcome, fmt.Sprint(a.httpStatus)) {
				outcome += fmt.Sprintf(" (HTTP %d)", a.httpStatus)
			}
		} else if r.state.finished() {
			outcome = "no result"
		}
		line := fmt.Sprintf("%s  at +%s  took %s  %s", fit(fmt.Sprintf("%s #%d", a.rung, a.attempt), 16),
			fitRight(fmtDur(a.at), 6), fitRight(took, 6), outcome)
		block(line, "  ")
		if a.wait > 0 {
			block(fmt.Sprintf("↻ waited %s before retrying: %s", fmtDur(a.wait), orDash(a.waitWhy)), "      ")
		}
	}

	if c != nil {
		section(fmt.Sprintf("Found by (%d)", len(c.FoundBy)))
		for _, f := range c.FoundBy {
			who := fmt.Sprintf("wave %d · perspective %s", f.Wave, clean(f.PerspectiveID))
			if f.AgentType != "" {
				who += " (" + clean(f.AgentType) + ")"
			}
			block("• "+who, "  ")
			block("file "+clean(f.ArtifactPath), "    ")
			if f.SourceLine != "" {
				block("line "+clean(f.SourceLine), "    ")
			}
		}
	}
	return out.String()
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}
