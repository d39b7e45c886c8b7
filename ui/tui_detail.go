package ui

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
)

// detailModel shows one citation in a scrolling viewport. It holds the row
// pointer, so events that reach the list while the operator reads update
// what refresh renders.
type detailModel struct {
	c      *common
	vp     viewport.Model
	r      *row
	total  int
	width  int
	height int
}

// detailChrome is the detail view's own lines above the viewport: the
// title and a rule.
const detailChrome = 2

func newDetailModel(c *common) detailModel {
	vp := viewport.New(c.width, 1)
	vp.MouseWheelEnabled = true
	return detailModel{c: c, vp: vp}
}

// setSize gives the view its height (title and rule included) and
// re-renders, since wrapping depends on the width.
func (d *detailModel) setSize(height int) {
	height = max(detailChrome+1, height)
	if height == d.height && d.c.width == d.width {
		return
	}
	d.height, d.width = height, d.c.width
	d.vp.Width = d.c.width
	d.vp.Height = d.height - detailChrome
	if d.r != nil {
		d.refresh(d.c.now())
	}
}

// open shows r from the top.
func (d *detailModel) open(r *row, total int, now time.Time) {
	d.r, d.total = r, total
	d.vp.SetContent(d.render(now))
	d.vp.GotoTop()
}

// refresh re-renders the same row (new events or a resize) and keeps the
// scroll position, so a live update does not yank the operator to the top.
func (d *detailModel) refresh(now time.Time) {
	y := d.vp.YOffset
	d.vp.SetContent(d.render(now))
	d.vp.SetYOffset(y)
}

// update scrolls: the keyMap's paging keys and g/G, then the viewport's
// own keys (u/d half pages) and the mouse wheel.
func (d detailModel) update(msg tea.Msg) (detailModel, tea.Cmd) {
	if k, ok := msg.(tea.KeyMsg); ok {
		switch {
		case key.Matches(k, d.c.keys.Home):
			d.vp.GotoTop()
			return d, nil
		case key.Matches(k, d.c.keys.End):
			d.vp.GotoBottom()
			return d, nil
		case key.Matches(k, d.c.keys.PageUp):
			// Also ctrl+b, which the viewport's own keymap lacks.
			d.vp.PageUp()
			return d, nil
		case key.Matches(k, d.c.keys.PageDown):
			d.vp.PageDown()
			return d, nil
		}
	}
	var cmd tea.Cmd
	d.vp, cmd = d.vp.Update(msg)
	return d, cmd
}

// view is the title, a rule and the viewport.
func (d detailModel) view() string {
	st := d.c.st
	r := d.r
	if r == nil {
		return ""
	}
	pos := ""
	if d.total > 0 {
		pos = fmt.Sprintf(" %d of %d", r.index+1, d.total)
	}
	title := fmt.Sprintf("Citation%s · %s %s · %s", pos, r.state.symbol(), r.state.word(), r.domain)
	scroll := fmt.Sprintf("%3.0f%%", d.vp.ScrollPercent()*100)
	w := d.c.width
	head := st.bold.Render(fit(title, max(0, w-lipgloss.Width(scroll)-1))) + " " + st.dim.Render(scroll)
	rule := st.dim.Render(strings.Repeat("─", max(0, w)))
	return head + "\n" + rule + "\n" + d.vp.View()
}

// labelWidth is the width of the left column of label/value lines.
const labelWidth = 15

// render builds the whole detail text for the current width.
func (d *detailModel) render(now time.Time) string {
	r := d.r
	st := d.c.st
	w := max(20, d.c.width)
	var b strings.Builder
	field := func(label, value string) {
		if value == "" {
			return
		}
		vw := max(10, w-labelWidth-1)
		lines := strings.Split(ansi.Wrap(value, vw, ""), "\n")
		for i, ln := range lines {
			lab := ""
			if i == 0 {
				lab = label
			}
			b.WriteString(st.label.Render(fit(lab, labelWidth)) + " " + ln + "\n")
		}
	}
	section := func(name string) {
		b.WriteString("\n" + st.section.Render(name) + "\n")
	}
	block := func(text, indent string) {
		for _, ln := range strings.Split(ansi.Wrap(text, max(10, w-lipgloss.Width(indent)), ""), "\n") {
			b.WriteString(indent + ln + "\n")
		}
	}
	c := r.cit

	field("Normalized URL", r.url)
	field("CID", r.cid)
	if c != nil {
		field("Final URL", clean(c.URL))
		if c.URLOriginal != "" && c.URLOriginal != c.URL {
			field("Original URL", clean(c.URLOriginal))
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
		b.WriteString("  " + st.dim.Render(how) + "\n")
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
	return strings.TrimRight(b.String(), "\n")
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}
