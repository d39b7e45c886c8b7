package tui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/aymanbagabas/go-osc52/v2"
	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/spinner"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/citegate/citegate/engine"
)

// ENTRY POINT

// Options configures the terminal UI.
type Options struct {
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
	// Decide records an operator decision on the run (engine.Decide with
	// the run directory and the operator filled in); nil disables d and u.
	// It is called off the UI loop.
	Decide func(engine.DecideArgs) (*engine.DecideResult, error)
	// Recompute re-runs the given normalized URLs at once, keeping every
	// other record, so a decision shows in the list and Gate C; it starts
	// the work and returns, like Rerun. Nil leaves decisions to the next run.
	Recompute func(urls []string) (<-chan engine.Event, <-chan Outcome)
	// OpenURL opens an http(s) URL in the browser (o); nil disables it.
	// Tests inject it: no test launches a browser.
	OpenURL func(string) error
	// Copy puts text on the clipboard (y); Run defaults it to OSC 52 on
	// the terminal.
	Copy func(string) error
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

// Result is how the operator left the UI.
type Result struct {
	// Completed reports whether the latest stream (the run, or the last
	// rerun) closed and delivered its outcome before the operator quit.
	Completed bool
	// Summary and Err are the latest outcome received. After an
	// interrupted rerun they still describe the earlier completed run,
	// whose artifacts are the ones on disk.
	Summary *engine.RunSummary
	Err     error
}

// Run runs the UI over events until the operator quits. ctx cancellation
// also ends it, and then Run returns ctx's error. Quitting before the run
// completes returns promptly with Completed=false; the caller cancels the
// workers. The UI owns in (nil means stdin) and out, in the alternate
// screen, and prints nothing anywhere else.
func Run(ctx context.Context, events <-chan engine.Event, in io.Reader, out io.Writer, opts Options) (Result, error) {
	if out == nil {
		return Result{}, errors.New("terminal UI: no output")
	}
	// inner also ends when Run returns, which releases the Cmd goroutines
	// still blocked on the event or outcome channels after a quit.
	inner, cancel := context.WithCancel(ctx)
	defer cancel()
	// A renderer on out decides the colour profile from that terminal and
	// the environment, so NO_COLOR turns every style into plain text.
	if opts.Copy == nil {
		opts.Copy = func(s string) error { _, err := osc52.New(s).WriteTo(out); return err }
	}
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
	res := Result{}
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
	opts        Options
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
	// prompt is the decision prompt (review.go), open while deciding.
	prompt decisionPrompt
	// warnings are the engine's EventWarning details, shown above the
	// table for the whole run; warned is their set.
	warnings []string
	warned   map[string]bool
}

// NewModel returns the root model over events. Styles use lipgloss's
// default renderer; Run replaces them with one bound to its output.
func NewModel(events <-chan engine.Event, opts Options) Model {
	return newModel(events, opts, newStyles(lipgloss.DefaultRenderer()))
}

func newModel(events <-chan engine.Event, opts Options, st *styles) Model {
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
	m.prompt = newDecisionPrompt(c)
	m.relayout()
	return m
}

// Init starts reading events and the spinner.
func (m Model) Init() tea.Cmd {
	return tea.Batch(waitForEvents(m.events, m.stop), m.spin.Tick)
}

// Result reports how the session ended (see Result).
func (m Model) Result() Result {
	return Result{Completed: m.completed, Summary: m.summary, Err: m.runErr}
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

	case decidedMsg:
		var cmd tea.Cmd
		m, cmd = m.onDecided(msg)
		cmds = append(cmds, cmd)

	case actionMsg:
		m.note = msg.note

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
	if m.prompt.stage != promptNone {
		// The decision prompt owns the keyboard until enter or esc.
		return m.updatePrompt(msg)
	}
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
	case m.help.ShowAll && key.Matches(msg, k.Back):
		m.help.ShowAll = false // esc closes the help first
		return m, nil
	}
	if (m.state == viewDetail || m.state == viewList && m.pane == paneURLs) && !m.help.ShowAll {
		if mm, cmd, ok := m.handleReviewKey(msg); ok {
			return mm, cmd
		}
	}
	switch m.state {
	case viewDetail, viewClaimDetail:
		if key.Matches(msg, k.Back) {
			m.state = viewList
			return m, nil
		}
		var cmd tea.Cmd
		if m.state == viewDetail {
			m.detail, cmd = m.detail.update(msg)
		} else {
			m.claimDetail, cmd = m.claimDetail.update(msg)
		}
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
	m.note = fmt.Sprintf("rerunning %d blocked URL(s)", n)
	return m, m.follow(events, outcome)
}

// follow switches to a new run's stream (a rerun or a recompute) whose
// rows are marked recheck.
func (m *Model) follow(events <-chan engine.Event, outcome <-chan Outcome) tea.Cmd {
	m.events, m.outcome = events, outcome
	m.streamDone, m.completed, m.rerunning = false, false, true
	m.recount()
	m.list.rebuild(m.c.now())
	return tea.Batch(waitForEvents(m.events, m.stop), m.ensureTicking())
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
	if m.rerunning {
		// The rerun is over: its label goes, and the rows it did not
		// recheck may take a later rerun's events again.
		// A recompute's note keeps what was decided.
		m.note = strings.TrimSuffix(m.note, recomputing)
		if strings.HasPrefix(m.note, "rerunning") || o.Err != nil {
			m.note = ""
		}
		m.list.rechecking = false
		for _, r := range m.list.rows {
			r.recheck = false
		}
	}
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
	extra := 0
	if m.detailStatus() != "" {
		extra = 1
	}
	m.detail.setSize(m.c.height - len(m.bannerLines()) - foot - extra)
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
	case m.help.ShowAll && (m.state == viewDetail || m.pane == paneURLs):
		// The keys and the legend take the whole screen, so they fit at
		// 80×24; ? or esc gives the screen back.
		parts = append(parts, m.bannerLines()...)
		parts = append(parts, m.headerLine(), m.c.st.section.Render("Keys and symbols")+m.c.st.dim.Render(" · ? or esc closes"), "")
		return clipLines(strings.Join(append(parts, m.helpView()), "\n")+strings.Repeat("\n", max(0, m.c.height-len(parts)-lipgloss.Height(m.helpView()))), m.c.width, m.c.height)
	case m.state == viewDetail:
		parts = append(parts, m.bannerLines()...)
		parts = append(parts, m.detail.view())
		if s := m.detailStatus(); s != "" {
			parts = append(parts, s)
		}
	case m.state == viewClaimDetail:
		parts = append(parts, m.bannerLines()...)
		parts = append(parts, m.claimDetail.view())
	case m.pane == paneClaims:
		parts = append(parts, m.topLines()...)
		parts = append(parts, m.claims.viewBody())
	case m.completed && m.runErr != nil && len(m.list.rows) == 0:
		parts = append(parts, m.topLines()...)
		parts = append(parts, m.failurePanel(m.list.height+1))
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
	if m.help.ShowAll {
		full := m.help.View(km)
		if _, ok := km.(listKeys); ok || m.state == viewDetail {
			full += "\n" + strings.Join(m.legendLines(), "\n")
		}
		return full
	}
	return m.shortHelp(km.ShortHelp())
}

// shortHelp is the one-line key help. Its last two bindings (? help, q quit)
// are essential: they always show, at the right, and the others take the
// room left, cut with "…" when it runs out (bubbles' help would cut the
// essential ones first, being last).
func (m Model) shortHelp(bindings []key.Binding) string {
	k := m.c.keys
	n := len(bindings)
	if n < 2 || bindings[n-1].Help() != k.Quit.Help() || bindings[n-2].Help() != k.Help.Help() {
		return m.help.ShortHelpView(bindings) // the search box's help has no essentials
	}
	essential := bindings[n-2:]
	h := m.help
	h.Width = 0
	right := h.ShortHelpView(essential)
	sep := h.ShortSeparator
	room := m.c.width - lipgloss.Width(right) - lipgloss.Width(sep)
	if room < 8 {
		return right
	}
	// bubbles' help does not always keep to its Width, so the other keys
	// are laid out here, whole, until the room runs out.
	left := ""
	for i, b := range bindings[:n-2] {
		item := h.ShortHelpView([]key.Binding{b})
		if item == "" {
			continue // disabled
		}
		next := item
		if left != "" {
			next = left + sep + item
		}
		if lipgloss.Width(next) > room-2 && i < n-2 {
			if left != "" {
				left += " …"
			}
			break
		}
		left = next
	}
	if left == "" {
		return right
	}
	return left + sep + right
}
