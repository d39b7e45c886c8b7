package tui

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/citegate/citegate/engine"
)

// Review: the researcher decides on citations in place (d, then a status and
// a note; u undoes), opens one in the browser (o) or copies its URL (y). A
// decision is written by Options.Decide (the engine's, under the run lock)
// and the decided row is recomputed at once through Options.Recompute, so
// Gate C's panel and the counts move as the researcher works.

// operatorRung is the rung the engine reports for a URL an operator's
// decision settled: it is how a row knows it is decided.
const operatorRung = "operator"

// decided reports whether an operator's decision settled the row.
func (r *row) decided() bool { return r.decidedBy == operatorRung }

// needsDecision reports a must-not-cite row no decision covers.
func (r *row) needsDecision() bool {
	return r.state.finished() && !r.decided() && r.state != stateValid && r.state != statePaywalled
}

// promptStage is where the decision prompt is.
type promptStage int

const (
	promptNone promptStage = iota
	// promptChoose waits for the status key (v, p, i, x).
	promptChoose
	// promptNote edits the note.
	promptNote
)

// decisionChoice is one answer of the prompt's first step.
type decisionChoice struct {
	key, word string
	status    engine.Status
	exclude   bool
}

var decisionChoices = []decisionChoice{
	{"v", "valid", engine.StatusValid, false},
	{"p", "paywalled", engine.StatusPaywalled, false},
	{"i", "invalid", engine.StatusInvalid, false},
	{"x", "exclude", engine.StatusInvalid, true},
}

// decisionPrompt is the two-step prompt in the status line: a status, then
// a note (required except to exclude).
type decisionPrompt struct {
	stage  promptStage
	r      *row
	choice decisionChoice
	input  textinput.Model
}

func newDecisionPrompt(c *common) decisionPrompt {
	ti := textinput.New()
	ti.Prompt = "note: "
	ti.PromptStyle = c.st.prompt
	ti.PlaceholderStyle = c.st.dim
	ti.Cursor.SetMode(cursor.CursorStatic)
	ti.CharLimit = 500
	return decisionPrompt{input: ti}
}

// decidedMsg is a decision's result from Options.Decide.
type decidedMsg struct {
	r   *row
	res *engine.DecideResult
	err error
}

// actionMsg reports an open or copy: what to say in the status line.
type actionMsg struct{ note string }

// reviewRow is the row the review keys act on: the detail view's, else the
// list's cursor.
func (m *Model) reviewRow() *row {
	if m.state == viewDetail {
		return m.detail.r
	}
	return m.list.selected()
}

// handleReviewKey answers d, u, o and y; ok is false for any other key.
func (m Model) handleReviewKey(msg tea.KeyMsg) (Model, tea.Cmd, bool) {
	k := m.c.keys
	switch {
	case key.Matches(msg, k.Decide):
		return m.startDecision(), nil, true
	case key.Matches(msg, k.Undo):
		mm, cmd := m.undoDecision()
		return mm, cmd, true
	case key.Matches(msg, k.Browse):
		return m, m.browse(), true
	case key.Matches(msg, k.Copy):
		return m, m.copyURL(), true
	}
	return m, nil, false
}

// canDecide says why a decision cannot be taken now ("" when it can).
func (m *Model) canDecide(r *row) string {
	switch {
	case m.opts.Decide == nil:
		return "decisions are not available here"
	case r == nil:
		return "no citation selected"
	case !m.completed:
		return "decide once the run has completed"
	case !r.state.finished():
		return "this citation has no status yet"
	}
	return ""
}

func (m Model) startDecision() Model {
	r := m.reviewRow()
	if why := m.canDecide(r); why != "" {
		m.note = why
		return m
	}
	m.prompt.stage, m.prompt.r = promptChoose, r
	return m
}

// updatePrompt owns the keyboard while the prompt is open.
func (m Model) updatePrompt(msg tea.KeyMsg) (Model, tea.Cmd) {
	p := &m.prompt
	if msg.Type == tea.KeyEsc {
		p.stage = promptNone
		p.input.Blur()
		m.note = "no decision taken"
		return m, nil
	}
	if p.stage == promptChoose {
		for _, c := range decisionChoices {
			if msg.String() == c.key {
				p.choice, p.stage = c, promptNote
				p.input.SetValue("")
				p.input.Placeholder = "why (required)"
				if c.exclude {
					p.input.Placeholder = "why (optional)"
				}
				return m, p.input.Focus()
			}
		}
		return m, nil
	}
	if msg.Type == tea.KeyEnter {
		note := p.input.Value()
		if !p.choice.exclude && strings.TrimSpace(note) == "" {
			m.note = "a note is required: say in a sentence why"
			return m, nil
		}
		a := engine.DecideArgs{URL: p.r.url, Note: note, Via: "tui"}
		if p.choice.exclude {
			a.Exclude = true
		} else {
			a.Status = string(p.choice.status)
		}
		r := p.r
		p.stage = promptNone
		p.input.Blur()
		m.note = "saving the decision…"
		return m, m.decideCmd(r, a)
	}
	var cmd tea.Cmd
	p.input, cmd = p.input.Update(msg)
	return m, cmd
}

// decideCmd writes the decision off the UI loop.
func (m Model) decideCmd(r *row, a engine.DecideArgs) tea.Cmd {
	decide := m.opts.Decide
	return func() tea.Msg {
		res, err := decide(a)
		return decidedMsg{r: r, res: res, err: err}
	}
}

func (m Model) undoDecision() (Model, tea.Cmd) {
	r := m.reviewRow()
	if why := m.canDecide(r); why != "" {
		m.note = why
		return m, nil
	}
	if !r.decided() {
		m.note = "no decision on this citation to undo"
		return m, nil
	}
	m.note = "removing the decision…"
	return m, m.decideCmd(r, engine.DecideArgs{URL: r.url, Undo: true, Via: "tui"})
}

// recomputing ends the note while a decision is recomputed.
const recomputing = " · recomputing"

// onDecided recomputes the decided row, so its status and Gate C follow.
func (m Model) onDecided(msg decidedMsg) (Model, tea.Cmd) {
	if msg.err != nil {
		m.note = "decision not saved: " + clean(engine.AsError(msg.err).Message)
		return m, nil
	}
	what := "decided"
	if d := msg.res.Decision; d != nil {
		switch msg.res.Action {
		case "undone":
			what = "decision removed"
		case "excluded":
			what = "excluded from synthesis"
		default:
			what = "decided " + string(d.Status)
		}
	}
	if m.opts.Recompute == nil {
		m.note = what + "; the next run applies it"
		return m, nil
	}
	events, outcome := m.opts.Recompute([]string{msg.r.url})
	if events == nil {
		m.note = what + "; the next run applies it"
		return m, nil
	}
	msg.r.reset()
	msg.r.recheck = true
	m.list.dirty, m.list.rechecking = true, true
	m.note = what + recomputing
	return m, m.follow(events, outcome)
}

// browse opens the row's URL through Options.OpenURL: http and https only,
// so a page's odd scheme never reaches a desktop handler.
func (m Model) browse() tea.Cmd {
	r := m.reviewRow()
	if r == nil {
		return nil
	}
	u, err := url.Parse(r.url)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return noteCmd("only http and https URLs are opened")
	}
	open := m.opts.OpenURL
	if open == nil {
		return noteCmd("no browser: set $BROWSER")
	}
	target := r.url
	return func() tea.Msg {
		if err := open(target); err != nil {
			return actionMsg{"cannot open the browser: " + clean(err.Error())}
		}
		return actionMsg{"opened in the browser"}
	}
}

// copyURL puts the row's URL on the clipboard through Options.Copy (OSC 52).
func (m Model) copyURL() tea.Cmd {
	r := m.reviewRow()
	if r == nil {
		return nil
	}
	cp := m.opts.Copy
	if cp == nil {
		return noteCmd("copying is not available here")
	}
	target := r.url
	return func() tea.Msg {
		if err := cp(target); err != nil {
			return actionMsg{"cannot copy: " + clean(err.Error())}
		}
		return actionMsg{"URL copied (OSC 52)"}
	}
}

func noteCmd(s string) tea.Cmd { return func() tea.Msg { return actionMsg{s} } }

// reviewCounts are the review panel's numbers.
func (m *Model) reviewCounts() (left, decided int) {
	for _, r := range m.list.rows {
		switch {
		case r.decided():
			decided++
		case r.needsDecision():
			left++
		}
	}
	return left, decided
}

// reviewLine is the one-line review status: whether synthesis may start, or
// how many must-not-cite citations still wait for a decision.
func (m Model) reviewLine() string {
	st := m.c.st
	left, decided := m.reviewCounts()
	var verdict string
	passed := m.summary != nil && m.summary.Passed()
	switch {
	case passed:
		verdict = st.pass.Render("synthesis may start")
	case left == 1:
		verdict = st.fail.Render("1 decision left")
	case left > 0:
		verdict = st.fail.Render(fmt.Sprintf("%d decisions left", left))
	default:
		verdict = st.fail.Render("all decided; Gate C still fails")
	}
	s := st.bold.Render("Review") + "  " + verdict + st.dim.Render(fmt.Sprintf(" · %d must-not-cite undecided · %d decided", left, decided))
	if !passed && left > 0 {
		s += st.dim.Render(" · 7 lists them, d decides")
	}
	return fit(s, m.c.width)
}

// promptLine renders the prompt in the status line.
func (m Model) promptLine() string {
	p := m.prompt
	st := m.c.st
	lead := ""
	if m.note != "" {
		// The answer to the last key (a note is required) stays in view.
		lead = st.note.Render(m.note) + "  "
	}
	switch p.stage {
	case promptChoose:
		const choices = ": v valid · p paywalled · i invalid · x exclude · esc cancel"
		url := truncate(p.r.url, max(10, m.c.width-len("decide ")-lipgloss.Width(choices)))
		return lead + st.prompt.Render("decide ") + url + st.dim.Render(choices)
	case promptNote:
		return lead + st.prompt.Render(p.choice.word+" ") + p.input.View()
	case promptNone:
	}
	return ""
}

// detailStatus is the detail view's status line: the prompt while deciding,
// else the answer to the last key ("" when there is none).
func (m Model) detailStatus() string {
	if m.prompt.stage != promptNone {
		return m.promptLine()
	}
	if m.note != "" {
		return m.c.st.note.Render(fit(m.note, m.c.width))
	}
	return ""
}
