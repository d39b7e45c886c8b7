package ui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/spinner"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/citegate/citegate/engine"
)

// ENTRY POINT

// TUIOptions configures the terminal UI.
type TUIOptions struct {
	// RunID, Mode and Tier are shown in the header.
	RunID, Mode, Tier string
	// Simulated shows the "SIMULATED WEB" banner: the run talks to the
	// built-in simulated web, not to real sites.
	Simulated bool
	// Outcome delivers the run's result once the event channel is closed.
	// Nil means there is none to wait for.
	Outcome <-chan Outcome
	// Rerun, if non-nil, re-runs the blocked URLs and returns the new event
	// stream and outcome. It is called from the UI loop, so it must start
	// the work and return at once. Nil disables the R key.
	Rerun func() (<-chan engine.Event, <-chan Outcome)
	// Now is the clock behind elapsed times; nil means time.Now. Tests fix
	// it so screens are reproducible.
	Now func() time.Time
	// Verify says the run verifies a synthesis (run --verify): the claims
	// list (v) is then available from the start. It also becomes available
	// when the first claim arrives.
	Verify bool
}

// Outcome is what a run ended with: its summary, or the error that stopped it.
type Outcome struct {
	Summary *engine.RunSummary
	Err     error
}

// TUIResult is how the operator left the UI.
type TUIResult struct {
	// Completed reports whether the latest stream (the run, or the last
	// rerun) closed and delivered its outcome before the operator quit.
	Completed bool
	// Summary and Err are the latest outcome received. After an
	// interrupted rerun they still describe the earlier completed run,
	// whose artifacts are the ones on disk.
	Summary *engine.RunSummary
	Err     error
}

// RunTUI runs the UI over events until the operator quits. ctx cancellation
// also ends it, and then RunTUI returns ctx's error. Quitting before the run
// completes returns promptly with Completed=false; the caller cancels the
// workers. The UI owns in (nil means stdin) and out, in the alternate
// screen, and prints nothing anywhere else.
func RunTUI(ctx context.Context, events <-chan engine.Event, in io.Reader, out io.Writer, opts TUIOptions) (TUIResult, error) {
	if out == nil {
		return TUIResult{}, errors.New("terminal UI: no output")
	}
	// inner also ends when RunTUI returns, which releases the Cmd goroutines
	// still blocked on the event or outcome channels after a quit.
	inner, cancel := context.WithCancel(ctx)
	defer cancel()
	// A renderer on out decides the colour profile from that terminal and
	// the environment, so NO_COLOR turns every style into plain text.
	m := newModel(events, opts, newStyles(lipgloss.NewRenderer(out)))
	m.stop = inner.Done()
	popts := []tea.ProgramOption{
		tea.WithContext(inner), tea.WithOutput(out),
		tea.WithAltScreen(), tea.WithMouseCellMotion(),
	}
	if in != nil {
		popts = append(popts, tea.WithInput(in))
	}
	final, err := tea.NewProgram(m, popts...).Run()
	res := TUIResult{}
	if fm, ok := final.(Model); ok {
		res = fm.Result()
	}
	switch {
	case ctx.Err() != nil:
		return res, ctx.Err()
	case errors.Is(err, tea.ErrInterrupted):
		// SIGINT from outside the terminal: the same as ctrl+c.
		return res, nil
	case err != nil:
		return res, fmt.Errorf("terminal UI: %w", err)
	}
	return res, nil
}

// MESSAGES

// maxBatch caps how many events one Update applies, so a burst becomes a
// few renders rather than one per event, yet the screen still moves.
const maxBatch = 256

// eventsMsg is a batch of events read from src. closed says src was closed
// right after the batch.
type eventsMsg struct {
	src    <-chan engine.Event
	events []engine.Event
	closed bool
}

// streamClosedMsg says src was closed with nothing left in it.
type streamClosedMsg struct{ src <-chan engine.Event }

// outcomeMsg is the run's outcome; ok is false when src was closed empty.
type outcomeMsg struct {
	src <-chan Outcome
	o   Outcome
	ok  bool
}

// COMMANDS

// waitForEvents blocks for one event, then drains what is already waiting,
// without blocking, up to maxBatch. stop releases it when the UI is gone.
func waitForEvents(src <-chan engine.Event, stop <-chan struct{}) tea.Cmd {
	return func() tea.Msg {
		var first engine.Event
		var ok bool
		select {
		case first, ok = <-src:
		case <-stop:
			return nil
		}
		if !ok {
			return streamClosedMsg{src: src}
		}
		batch := make([]engine.Event, 1, 32)
		batch[0] = first
		for len(batch) < maxBatch {
			select {
			case ev, ok := <-src:
				if !ok {
					return eventsMsg{src: src, events: batch, closed: true}
				}
				batch = append(batch, ev)
			default:
				return eventsMsg{src: src, events: batch}
			}
		}
		return eventsMsg{src: src, events: batch}
	}
}

// waitForOutcome blocks for the run's outcome.
func waitForOutcome(src <-chan Outcome, stop <-chan struct{}) tea.Cmd {
	return func() tea.Msg {
		select {
		case o, ok := <-src:
			return outcomeMsg{src: src, o: o, ok: ok}
		case <-stop:
			return nil
		}
	}
}

// MODEL

// common is what the root model shares with its children.
type common struct {
	width, height int
	st            *styles
	keys          keyMap
	now           func() time.Time
}

type viewState int

const (
	// viewList is one of the two lists; pane says which.
	viewList viewState = iota
	viewDetail
	viewClaimDetail
)

// pane is the list the list view shows.
type pane int

const (
	paneURLs pane = iota
	// paneClaims lists run --verify's claims.
	paneClaims
)

// Model is the TUI's root Bubble Tea model: a list of citation URLs fed by
// the engine's event stream, a detail view, a list of the claims run
// --verify checks with its own detail view, and the run's outcome. Events
// always go to the lists, even while a detail view is open.
type Model struct {
	c           *common
	opts        TUIOptions
	state       viewState
	pane        pane
	list        listModel
	detail      detailModel
	claims      claimListModel
	claimDetail claimDetailModel
	help        help.Model
	spin        spinner.Model

	events  <-chan engine.Event
	outcome <-chan Outcome
	stop    <-chan struct{}
	ticking bool

	streamDone bool
	completed  bool
	quitting   bool
	rerunning  bool
	stage      string
	total      int
	counts     [stateUnknown + 1]int
	summary    *engine.RunSummary
	runErr     error
	note       string
	// warnings are the engine's EventWarning details, shown above the
	// table for the whole run; warned is their set.
	warnings []string
	warned   map[string]bool
}

// NewModel returns the root model over events. Styles use lipgloss's
// default renderer; RunTUI replaces them with one bound to its output.
func NewModel(events <-chan engine.Event, opts TUIOptions) Model {
	return newModel(events, opts, newStyles(lipgloss.DefaultRenderer()))
}

func newModel(events <-chan engine.Event, opts TUIOptions, st *styles) Model {
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	// 80×24 until the first WindowSizeMsg, so the model renders sensibly
	// when driven directly (tests) as well.
	c := &common{width: 80, height: 24, st: st, keys: newKeyMap(opts.Rerun != nil, opts.Verify), now: now}
	m := Model{
		c: c, opts: opts, events: events, outcome: opts.Outcome, ticking: true, help: help.New(),
		// The spinner is unstyled: rows colour it with their status style.
		spin: spinner.New(spinner.WithSpinner(spinner.MiniDot), spinner.WithStyle(lipgloss.NewStyle())),
	}
	m.help.Styles = st.help
	m.list = newListModel(c)
	m.detail = newDetailModel(c)
	m.claims = newClaimListModel(c)
	m.claimDetail = newClaimDetailModel(c)
	m.relayout()
	return m
}

// Init starts reading events and the spinner.
func (m Model) Init() tea.Cmd {
	return tea.Batch(waitForEvents(m.events, m.stop), m.spin.Tick)
}

// Result reports how the session ended (see TUIResult).
func (m Model) Result() TUIResult {
	return TUIResult{Completed: m.completed, Summary: m.summary, Err: m.runErr}
}

// Update handles one message. Engine events are applied in batches; keys
// go to the focused child after the global ones.
func (m Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	var cmds []tea.Cmd
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		// Sent at start-up and on every resize: reflow both children.
		m.c.width, m.c.height = msg.Width, msg.Height
		m.relayout()
		return m, nil

	case eventsMsg:
		if msg.src != m.events {
			return m, nil // a stream we no longer follow
		}
		m.applyEvents(msg.events)
		if msg.closed {
			cmds = append(cmds, m.onStreamClosed())
		} else {
			cmds = append(cmds, waitForEvents(m.events, m.stop))
		}
		cmds = append(cmds, m.ensureTicking())

	case streamClosedMsg:
		if msg.src == m.events {
			cmds = append(cmds, m.onStreamClosed())
		}

	case outcomeMsg:
		if msg.src == m.outcome {
			m.complete(msg.o, msg.ok)
		}

	case spinner.TickMsg:
		if !m.needsTick() {
			// Let the tick chain end once nothing moves; ensureTicking
			// restarts it for a rerun.
			m.ticking = false
			return m, nil
		}
		var cmd tea.Cmd
		m.spin, cmd = m.spin.Update(msg)
		return m, cmd

	case tea.KeyMsg:
		var cmd tea.Cmd
		m, cmd = m.handleKey(msg)
		cmds = append(cmds, cmd)

	case tea.MouseMsg:
		var cmd tea.Cmd
		switch {
		case m.state == viewDetail:
			m.detail, cmd = m.detail.update(msg)
		case m.state == viewClaimDetail:
			m.claimDetail, cmd = m.claimDetail.update(msg)
		case m.pane == paneClaims:
			m.claims, cmd = m.claims.update(msg)
		default:
			m.list, cmd = m.list.update(msg, m.c.now())
		}
		cmds = append(cmds, cmd)
	}
	m.relayout()
	return m, tea.Batch(cmds...)
}

func (m Model) handleKey(msg tea.KeyMsg) (Model, tea.Cmd) {
	k := m.c.keys
	m.note = ""
	if key.Matches(msg, k.ForceQuit) {
		m.quitting = true
		return m, tea.Quit
	}
	now := m.c.now()
	if m.state == viewList && m.pane == paneURLs && m.list.searching {
		// The search box owns the keyboard: q and ? are letters here.
		var cmd tea.Cmd
		m.list, cmd = m.list.update(msg, now)
		return m, cmd
	}
	switch {
	case key.Matches(msg, k.Quit):
		m.quitting = true
		return m, tea.Quit
	case key.Matches(msg, k.Help):
		m.help.ShowAll = !m.help.ShowAll
		return m, nil
	}
	switch m.state {
	case viewDetail:
		if key.Matches(msg, k.Back) {
			m.state = viewList
			return m, nil
		}
		var cmd tea.Cmd
		m.detail, cmd = m.detail.update(msg)
		return m, cmd
	case viewClaimDetail:
		if key.Matches(msg, k.Back) {
			m.state = viewList
			return m, nil
		}
		var cmd tea.Cmd
		m.claimDetail, cmd = m.claimDetail.update(msg)
		return m, cmd
	case viewList:
	}
	if m.pane == paneClaims {
		return m.handleClaimsKey(msg)
	}
	switch {
	case key.Matches(msg, k.Claims):
		m.pane = paneClaims
		return m, nil
	case key.Matches(msg, k.Open):
		if r := m.list.selected(); r != nil {
			m.state = viewDetail
			m.detail.open(r, m.gateTotal(), now)
		}
		return m, nil
	case key.Matches(msg, k.Rerun):
		return m.rerun()
	}
	var cmd tea.Cmd
	m.list, cmd = m.list.update(msg, now)
	return m, cmd
}

// handleClaimsKey is the claims list's keys: v (or esc) back to the URLs,
// enter opens the claim, the rest moves the cursor.
func (m Model) handleClaimsKey(msg tea.KeyMsg) (Model, tea.Cmd) {
	k := m.c.keys
	switch {
	case key.Matches(msg, k.urls), key.Matches(msg, k.Back):
		m.pane = paneURLs
		return m, nil
	case key.Matches(msg, k.Open):
		if r := m.claims.selected(); r != nil {
			m.state = viewClaimDetail
			m.claimDetail.open(r, max(m.claims.total, len(m.claims.rows)))
		}
		return m, nil
	}
	var cmd tea.Cmd
	m.claims, cmd = m.claims.update(msg)
	return m, cmd
}

// rerun re-checks the blocked rows through Options.Rerun.
func (m Model) rerun() (Model, tea.Cmd) {
	switch {
	case !m.completed:
		m.note = "rerun is available once the run has completed"
		return m, nil
	case m.counts[stateBlocked] == 0:
		m.note = "no blocked URLs to rerun"
		return m, nil
	}
	events, outcome := m.opts.Rerun()
	n := m.list.resetBlocked()
	m.events, m.outcome = events, outcome
	m.streamDone, m.completed, m.rerunning = false, false, true
	m.note = fmt.Sprintf("rerunning %d blocked URL(s)", n)
	m.recount()
	m.list.rebuild(m.c.now())
	return m, tea.Batch(waitForEvents(m.events, m.stop), m.ensureTicking())
}

// applyEvents folds a batch in, then recounts and rebuilds once.
func (m *Model) applyEvents(evs []engine.Event) {
	now := m.c.now()
	touched := false
	for _, ev := range evs {
		switch ev.Kind {
		case engine.EventStage:
			m.stage = ev.Stage
			if ev.Stage == verifyStage {
				// A rerun verifies the synthesis again, from its first claim.
				m.claims.reset()
				m.c.keys.Claims.SetEnabled(true)
			}
		case engine.EventVerified:
			m.claims.apply(ev)
			m.c.keys.Claims.SetEnabled(true)
		case engine.EventWarning:
			// A rerun reports the same configuration and fixtures again.
			if m.warned == nil {
				m.warned = map[string]bool{}
			}
			if !m.warned[ev.Detail] {
				m.warned[ev.Detail] = true
				m.warnings = append(m.warnings, ev.Detail)
			}
		case engine.EventQueued, engine.EventAttempt, engine.EventRetryWait, engine.EventAttemptDone, engine.EventFinished:
			if ev.Kind == engine.EventQueued {
				// A rerun announces a smaller Total; Gate C is still
				// over the whole run.
				m.total = max(m.total, ev.Total)
			}
			r := m.list.applyEvent(ev, now)
			if r != nil && r == m.detail.r {
				touched = true
			}
		}
	}
	m.recount()
	m.list.rebuild(now)
	if touched && m.state == viewDetail {
		m.detail.refresh(now)
	}
}

// verifyStage is the stage name the engine reports before run --verify's
// claims.
const verifyStage = "verify"

// onStreamClosed moves on to waiting for the outcome.
func (m *Model) onStreamClosed() tea.Cmd {
	m.streamDone = true
	if m.outcome == nil {
		m.complete(Outcome{}, false)
		return nil
	}
	return waitForOutcome(m.outcome, m.stop)
}

func (m *Model) complete(o Outcome, ok bool) {
	m.completed = true
	m.rerunning = false
	if ok {
		m.summary, m.runErr = o.Summary, o.Err
	}
}

// recount tallies rows per state; one pass per batch is cheap next to
// rendering, and cannot drift the way incremental counters can.
func (m *Model) recount() {
	m.counts = [stateUnknown + 1]int{}
	for _, r := range m.list.rows {
		m.counts[r.state]++
	}
}

func (m *Model) needsTick() bool {
	return !m.streamDone || m.counts[stateRunning]+m.counts[stateWaiting] > 0
}

func (m *Model) ensureTicking() tea.Cmd {
	if m.ticking || !m.needsTick() {
		return nil
	}
	m.ticking = true
	return m.spin.Tick
}

// gateTotal is Gate C's denominator: every URL of the run.
func (m *Model) gateTotal() int { return max(m.total, len(m.list.rows)) }

// LAYOUT

// relayout sizes the children to what the chrome leaves. It runs at the end
// of every Update, because the chrome grows and shrinks (completion panel,
// full help, notes).
func (m *Model) relayout() {
	w := m.c.width
	m.help.Width = w
	foot := lipgloss.Height(m.helpView())
	m.detail.setSize(m.c.height - len(m.bannerLines()) - foot)
	m.claimDetail.setSize(m.c.height - len(m.bannerLines()) - foot)
	// -1 for the table's column header.
	body := m.c.height - len(m.topLines()) - foot - 1
	m.list.setSize(body)
	m.claims.setSize(body)
}

// View renders the screen; it only reads state.
func (m Model) View() string {
	if m.quitting {
		// The caller cancels the run; leave nothing behind on the screen.
		return ""
	}
	var parts []string
	switch {
	case m.state == viewDetail:
		parts = append(parts, m.bannerLines()...)
		parts = append(parts, m.detail.view())
	case m.state == viewClaimDetail:
		parts = append(parts, m.bannerLines()...)
		parts = append(parts, m.claimDetail.view())
	case m.pane == paneClaims:
		parts = append(parts, m.topLines()...)
		parts = append(parts, m.claims.viewBody())
	default:
		parts = append(parts, m.topLines()...)
		parts = append(parts, m.list.viewBody(m.c.now(), m.spin.View()))
	}
	parts = append(parts, m.helpView())
	return clipLines(strings.Join(parts, "\n"), m.c.width, m.c.height)
}

func (m Model) helpView() string {
	var km help.KeyMap = listKeys{m.c.keys}
	switch {
	case m.state == viewDetail, m.state == viewClaimDetail:
		km = detailKeys{m.c.keys}
	case m.pane == paneClaims:
		km = claimsKeys{m.c.keys}
	case m.list.searching:
		km = searchKeys{}
	}
	return m.help.View(km)
}

func (m Model) bannerLines() []string {
	if !m.opts.Simulated {
		return nil
	}
	return []string{m.c.st.banner.Render(fit(" SIMULATED WEB — no real site is contacted", m.c.width))}
}

// topLines is everything above the table: banner, header, counts, Gate C,
// filter/search line and, once the run is over, the completion panel.
func (m Model) topLines() []string {
	lines := m.bannerLines()
	counts := m.countsLine()
	if m.pane == paneClaims {
		counts = m.claims.countsLine()
	}
	lines = append(lines, m.headerLine(), counts, m.gateLine())
	for i, w := range m.warnings {
		if i == maxWarningLines && len(m.warnings) > maxWarningLines+1 {
			more := fmt.Sprintf("⚠ … and %d more warnings (all of them are printed on exit, and in --log-file)", len(m.warnings)-i)
			lines = append(lines, m.c.st.note.Render(fit(more, m.c.width)))
			break
		}
		lines = append(lines, m.c.st.note.Render(fit("⚠ "+clean(w), m.c.width)))
	}
	lines = append(lines, m.completionLines()...)
	return append(lines, m.statusLine())
}

func (m Model) headerLine() string {
	st := m.c.st
	stage := m.stage
	switch {
	case m.completed:
		stage = "done"
	case m.streamDone:
		stage = m.spin.View() + " writing artifacts"
	case stage != "":
		stage = m.spin.View() + " " + stage
	default:
		stage = m.spin.View() + " starting"
	}
	left := st.appName.Render("citegate") + fmt.Sprintf("  run %s · mode %s · tier %s · %s",
		orDash(m.opts.RunID), orDash(m.opts.Mode), orDash(m.opts.Tier), stage)
	done := 0
	for s := stateValid; s <= stateUnknown; s++ {
		done += m.counts[s]
	}
	right := st.dim.Render(fmt.Sprintf("%d/%d checked", done, m.gateTotal()))
	gap := m.c.width - lipgloss.Width(left) - lipgloss.Width(right)
	if gap < 2 {
		return left
	}
	return left + strings.Repeat(" ", gap) + right
}

// countsLine shows every state with its symbol; on narrow terminals the
// words go and the symbols stay.
func (m Model) countsLine() string {
	st := m.c.st
	order := []rowState{stateValid, statePaywalled, stateBlocked, stateMismatch, stateInvalid, stateRunning, stateQueued}
	build := func(words bool) string {
		parts := make([]string, 0, len(order)+1)
		for _, s := range order {
			n := m.counts[s]
			if s == stateRunning {
				n += m.counts[stateWaiting]
			}
			p := fmt.Sprintf("%s %d", s.symbol(), n)
			if words {
				p += " " + s.word()
			}
			parts = append(parts, st.status[s].Render(p))
		}
		if n := m.counts[stateUnknown]; n > 0 {
			parts = append(parts, st.status[stateUnknown].Render(fmt.Sprintf("? %d unknown", n)))
		}
		return strings.Join(parts, "  ")
	}
	if full := build(true); lipgloss.Width(full) <= m.c.width {
		return full
	}
	return build(false)
}

// gateStatus is the engine status a finished row state stands for: Gate C's
// classes are the engine's to decide (engine.GateClassOf).
var gateStatus = map[rowState]engine.Status{
	stateValid: engine.StatusValid, statePaywalled: engine.StatusPaywalled, stateBlocked: engine.StatusBlocked,
	stateMismatch: engine.StatusMismatch, stateInvalid: engine.StatusInvalid, stateUnknown: "",
}

// gateCounts counts the finished rows by Gate C class; the rest are pending.
func (m *Model) gateCounts() engine.GateCounts {
	c := engine.GateCounts{Total: m.gateTotal()}
	for s, status := range gateStatus {
		c.Add(status, m.counts[s])
	}
	return c
}

func (m Model) gateLine() string {
	st := m.c.st
	var vr, ir, ur float64
	var verdict string
	if m.completed && m.summary != nil {
		g := m.summary.GateC
		vr, ir, ur = g.Metrics.ValidatedURLRate, g.Metrics.InvalidURLRate, g.Metrics.UncategorizedURLRate
		if g.Status == "pass" {
			verdict = st.pass.Render("PASS") + " (final)"
		} else {
			verdict = st.fail.Render(strings.ToUpper(orDash(g.Status))) + " (final)"
		}
	} else {
		c := m.gateCounts()
		if c.Total > 0 {
			vr, ir = float64(c.Validated)/float64(c.Total), float64(c.Invalid)/float64(c.Total)
			ur = float64(c.Total-c.Validated-c.Invalid) / float64(c.Total)
		}
		switch c.Decide() {
		case engine.GatePass:
			verdict = st.pass.Render("PASS") + " (decided)"
		case engine.GateFail:
			verdict = st.fail.Render("FAIL") + " (decided)"
		case engine.GateUndecided:
			verdict = st.undecided.Render("undecided") + fmt.Sprintf(" (%d pending)", c.Pending())
		}
	}
	// The verdict comes first so a narrow terminal truncates the numbers,
	// never the answer.
	head := st.bold.Render("Gate C") + "  " + verdict
	full := fmt.Sprintf("%s  validated %.3f ≥%.2f  invalid %.3f ≤%.2f  uncategorized %.3f =%.0f", head,
		vr, engine.GateMinValidatedRate, ir, engine.GateMaxInvalidRate, ur, engine.GateMaxUncategorizedRate)
	if lipgloss.Width(full) <= m.c.width {
		return full
	}
	return fmt.Sprintf("%s  %.3f/%.3f/%.3f", head, vr, ir, ur)
}

// statusLine is the search box while typing, else the filter, sort, search
// and a transient note.
func (m Model) statusLine() string {
	st := m.c.st
	if m.pane == paneClaims {
		s := st.dim.Render(fmt.Sprintf("claims of the --verify synthesis · %d shown · v back to the URLs", len(m.claims.rows)))
		if m.note != "" {
			s += "  " + st.note.Render(m.note)
		}
		return s
	}
	if m.list.searching {
		return m.list.search.View()
	}
	s := fmt.Sprintf("filter %s · sort %s · %d of %d shown", m.list.filter, m.list.sort, len(m.list.view), len(m.list.rows))
	if m.list.query != "" {
		s += fmt.Sprintf(" · search %q", m.list.query)
	}
	if m.c.keys.Claims.Enabled() {
		s += fmt.Sprintf(" · v: %d claim(s)", len(m.claims.rows))
	}
	s = st.dim.Render(s)
	if m.note != "" {
		s += "  " + st.note.Render(m.note)
	}
	return s
}

// maxArtifactLines caps the completion panel's artifact list so the table
// keeps most of a small terminal.
const maxArtifactLines = 3

// maxWarningLines bounds the warnings shown above the table, which a
// hand-edited fixtures file can make numerous.
const maxWarningLines = 3

// completionLines is the outcome panel: the final verdict or the error,
// where the artifacts are, and the rerun hint.
func (m Model) completionLines() []string {
	if !m.completed {
		return nil
	}
	st := m.c.st
	w := m.c.width
	var lines []string
	switch {
	case m.runErr != nil:
		lines = append(lines, st.fail.Render("✗ Run failed: ")+st.errText.Render(clean(m.runErr.Error())))
	case m.summary == nil:
		lines = append(lines, st.bold.Render("✓ Run finished")+st.dim.Render(" (no summary reported)"))
	default:
		g := m.summary.GateC
		verdict := st.pass.Render("✓ Run complete · Gate C PASS")
		if g.Status != "pass" {
			verdict = st.fail.Render("✗ Run complete · Gate C " + strings.ToUpper(orDash(g.Status)))
		}
		lines = append(lines, verdict+" · "+clean(g.Notes))
		dir, names := artifactList(m.summary.Artifacts)
		if len(names) > 0 {
			for _, ln := range packLine("Artifacts in "+dir+":", names, max(10, w-2), maxArtifactLines) {
				lines = append(lines, "  "+ln)
			}
		}
		if v := m.summary.Verify; v != nil {
			lines = append(lines, "  "+fit(verifyLine(v), max(10, w-2)))
		}
	}
	if n := len(m.claims.rows); n > 0 && m.pane == paneURLs {
		lines = append(lines, st.note.Render(fmt.Sprintf("  v lists the %d claim(s) verified and what the judge read", n)))
	}
	if n := m.counts[stateBlocked]; n > 0 && m.c.keys.Rerun.Enabled() {
		lines = append(lines, st.note.Render(fmt.Sprintf("  R re-runs the %d blocked URL(s)", n)))
	}
	return lines
}

// packLine lays out head and items on at most maxLines lines of w cells,
// breaking only between items so no path is split, and ends with "…" when
// items are left over.
func packLine(head string, items []string, w, maxLines int) []string {
	lines := []string{head}
	for _, it := range items {
		cur := lines[len(lines)-1]
		sep := " "
		if cur != head {
			sep = " · "
		}
		if lipgloss.Width(cur)+len(sep)+lipgloss.Width(it) <= w || lipgloss.Width(cur) == 0 {
			lines[len(lines)-1] = cur + sep + it
			continue
		}
		if len(lines) == maxLines {
			lines[len(lines)-1] = truncate(cur+" · …", w)
			break
		}
		lines = append(lines, truncate(it, w))
	}
	return lines
}

// artifactList returns the artifacts' common directory and their paths
// relative to it, in the summary's field order.
func artifactList(a engine.RunArtifacts) (string, []string) {
	var paths []string
	for _, p := range []string{a.Citations, a.Report, a.Gates, a.Audit, a.ExtractedURLs, a.FoundBy, a.NormalizedURLs, a.URLMap} {
		if p != "" {
			paths = append(paths, p)
		}
	}
	for _, p := range []*string{a.OnlineFixtures, a.OnlineFixturesLatest, a.BlockedURLs, a.BlockedURLsQueue} {
		if p != nil && *p != "" {
			paths = append(paths, *p)
		}
	}
	if len(paths) == 0 {
		return "", nil
	}
	dir := filepath.Dir(paths[0])
	for _, p := range paths[1:] {
		for !within(p, dir) {
			parent := filepath.Dir(dir)
			if parent == dir {
				break
			}
			dir = parent
		}
	}
	names := make([]string, len(paths))
	for i, p := range paths {
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			rel = p
		}
		names[i] = clean(filepath.ToSlash(rel))
	}
	return clean(dir), names
}

func within(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// clipLines makes the screen exactly fit: at most h lines, none wider than
// w cells. Bubble Tea would otherwise scroll the alt screen.
func clipLines(s string, w, h int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > h {
		lines = lines[:h]
	}
	for i, ln := range lines {
		if lipgloss.Width(ln) > w {
			lines[i] = ansi.Truncate(ln, w, "")
		}
	}
	return strings.Join(lines, "\n")
}
