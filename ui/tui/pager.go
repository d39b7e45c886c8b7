package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
)

// pager is the frame both detail views share: a title line, a rule and a
// scrolling viewport, with the same keys and the same resize rules.
type pager struct {
	c      *common
	vp     viewport.Model
	width  int
	height int
}

// detailChrome is the detail views' own lines above the viewport: the
// title and a rule.
const detailChrome = 2

func newPager(c *common) pager {
	vp := viewport.New(c.width, 1)
	vp.MouseWheelEnabled = true
	return pager{c: c, vp: vp}
}

// resize gives the view its height (title and rule included) and reports
// whether the size changed, in which case the content must be re-rendered:
// wrapping depends on the width.
func (p *pager) resize(height int) bool {
	height = max(detailChrome+1, height)
	if height == p.height && p.c.width == p.width {
		return false
	}
	p.height, p.width = height, p.c.width
	p.vp.Width = p.c.width
	p.vp.Height = p.height - detailChrome
	return true
}

// show replaces the content from the top.
func (p *pager) show(content string) {
	p.vp.SetContent(content)
	p.vp.GotoTop()
}

// replace swaps the content and keeps the scroll position, so a live
// update does not yank the operator to the top.
func (p *pager) replace(content string) {
	y := p.vp.YOffset
	p.vp.SetContent(content)
	p.vp.SetYOffset(y)
}

// scroll handles the keyMap's paging keys and g/G, then the viewport's own
// keys (u/d half pages) and the mouse wheel.
func (p pager) scroll(msg tea.Msg) (pager, tea.Cmd) {
	if k, ok := msg.(tea.KeyMsg); ok {
		// PageUp also answers ctrl+b, which the viewport's own keymap lacks.
		for _, b := range []struct {
			keys key.Binding
			move func()
		}{
			{p.c.keys.Home, func() { p.vp.GotoTop() }}, {p.c.keys.End, func() { p.vp.GotoBottom() }},
			{p.c.keys.PageUp, func() { p.vp.PageUp() }}, {p.c.keys.PageDown, func() { p.vp.PageDown() }},
		} {
			if key.Matches(k, b.keys) {
				b.move()
				return p, nil
			}
		}
	}
	var cmd tea.Cmd
	p.vp, cmd = p.vp.Update(msg)
	return p, cmd
}

// frame is the title, a rule and the viewport.
func (p pager) frame(title string) string {
	st := p.c.st
	scroll := fmt.Sprintf("%3.0f%%", p.vp.ScrollPercent()*100)
	w := p.c.width
	head := st.bold.Render(fit(title, max(0, w-lipgloss.Width(scroll)-1))) + " " + st.dim.Render(scroll)
	rule := st.dim.Render(strings.Repeat("─", max(0, w)))
	return head + "\n" + rule + "\n" + p.vp.View()
}

// labelWidth is the width of the left column of label/value lines.
const labelWidth = 15

// doc builds a detail view's text at one width: label/value fields,
// underlined sections and indented blocks, all wrapped to the width.
type doc struct {
	st *styles
	w  int
	b  strings.Builder
}

func newDoc(c *common) *doc { return &doc{st: c.st, w: max(20, c.width)} }

// field writes a label and its value, wrapped under itself; an empty value
// writes nothing.
func (d *doc) field(label, value string) {
	if value == "" {
		return
	}
	vw := max(10, d.w-labelWidth-1)
	lines := strings.Split(ansi.Wrap(value, vw, ""), "\n")
	for i, ln := range lines {
		lab := ""
		if i == 0 {
			lab = label
		}
		d.b.WriteString(d.st.label.Render(fit(lab, labelWidth)) + " " + ln + "\n")
	}
}

// urlField writes a URL: broken only at the screen's edge, never at a
// hyphen (ansi.Wrap breaks at every "-"), with no character added and its
// continuation lines unindented, so that selecting it copies the URL's own
// characters.
func (d *doc) urlField(label, value string) {
	if value == "" {
		return
	}
	first := max(10, d.w-labelWidth-1)
	head := ansi.Truncate(value, first, "")
	d.b.WriteString(d.st.label.Render(fit(label, labelWidth)) + " " + head + "\n")
	if rest := value[len(head):]; rest != "" {
		d.b.WriteString(ansi.Hardwrap(rest, d.w, true) + "\n")
	}
}

func (d *doc) section(name string) {
	d.b.WriteString("\n" + d.st.section.Render(name) + "\n")
}

// block writes text wrapped to the width after indent.
func (d *doc) block(text, indent string) {
	for _, ln := range strings.Split(ansi.Wrap(text, max(10, d.w-lipgloss.Width(indent)), ""), "\n") {
		d.b.WriteString(indent + ln + "\n")
	}
}

// line writes one line as is.
func (d *doc) line(s string) { d.b.WriteString(s + "\n") }

func (d *doc) String() string { return strings.TrimRight(d.b.String(), "\n") }

// ofTotal is a detail title's " i of n" (empty when n is unknown).
func ofTotal(index, total int) string {
	if total <= 0 {
		return ""
	}
	return fmt.Sprintf(" %d of %d", index+1, total)
}
