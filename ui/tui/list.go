package tui

import (
	"cmp"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/citegate/citegate/engine"
)

// ROW

// attemptRec is one ladder attempt as the detail view shows it.
type attemptRec struct {
	rung    string
	attempt int
	// at is when the attempt started, relative to the row's first attempt
	// (UI clock), so the operator sees the gaps retries and queues add.
	at         time.Duration
	done       bool
	elapsed    time.Duration // the engine's own measure (EventAttemptDone)
	outcome    string
	httpStatus int
	// wait and waitWhy are the retry pause that followed this attempt.
	wait    time.Duration
	waitWhy string
}

// row is everything the UI knows about one citation URL. Rows are keyed by
// cid (else the URL) rather than Event.Index, because a rerun stream numbers
// its smaller work list from zero again.
type row struct {
	key   string
	index int
	// recheck marks a row a rerun is checking again (listModel.rechecking).
	recheck bool
	url     string
	cid     string
	domain  string
	state   rowState
	// rung and attempt are the current (or deciding) rung and attempt.
	rung      string
	attempt   int
	wait      time.Duration
	lastHTTP  int
	started   time.Time // first EventAttempt, UI clock
	finished  time.Time
	attempts  []attemptRec
	redirects []string
	cit       *engine.Citation
	decidedBy string
	reruns    int
	title     string // cleaned Citation.Title
	// path is what follows the host (urlPath): the list shows it when the
	// host repeats, so two rows of one site never look the same.
	path string
	// file is the wave file the URL was first found in ("" until known).
	file string
	// natHost, natTitle and natFile are the natural sort keys (natKey).
	natHost, natTitle, natFile string
	// hay is the lower-cased text search matches against, cached so a
	// keystroke over 10,000 rows is a scan of ready strings.
	hay string
}

func newRow(ev engine.Event) *row {
	r := &row{key: rowKey(ev), index: ev.Index, url: clean(ev.URL), cid: ev.CID}
	r.domain = domainOf(ev.URL)
	r.path = clean(urlPath(ev.URL))
	r.natHost = natKey(r.domain + " " + r.path)
	r.reindex()
	return r
}

func rowKey(ev engine.Event) string {
	if ev.CID != "" {
		return ev.CID
	}
	return ev.URL
}

// reindex refreshes the cached search text.
func (r *row) reindex() {
	parts := []string{r.url, r.domain, r.cid, r.title}
	if c := r.cit; c != nil {
		parts = append(parts, c.URL, c.Publisher, string(c.Status))
	}
	r.hay = strings.ToLower(strings.Join(parts, "\x00"))
}

// elapsed is the wall time since the first attempt: live while in flight,
// frozen once finished. ok is false for rows no ladder touched (fixtures,
// cache hits, queued rows).
func (r *row) elapsed(now time.Time) (time.Duration, bool) {
	if r.started.IsZero() {
		return 0, false
	}
	if r.state.finished() {
		return r.finished.Sub(r.started), true
	}
	return now.Sub(r.started), true
}

// httpStatus is the final HTTP status, else the last one an attempt saw.
func (r *row) httpStatus() int {
	if r.cit != nil && r.cit.HTTPStatus != nil {
		return *r.cit.HTTPStatus
	}
	return r.lastHTTP
}

// reset puts a row back to queued for a rerun; its identity stays.
func (r *row) reset() {
	*r = row{key: r.key, index: r.index, url: r.url, cid: r.cid, domain: r.domain, path: r.path, natHost: r.natHost,
		reruns: r.reruns + 1, recheck: r.recheck}
	r.reindex()
}

// apply folds one per-URL event into the row.
func (r *row) apply(ev engine.Event, now time.Time) {
	switch ev.Kind {
	case engine.EventQueued:
		if r.state != stateQueued {
			// The engine is checking the URL again (a rerun stream).
			r.reset()
		}
	case engine.EventAttempt:
		if r.started.IsZero() {
			r.started = now
		}
		r.state, r.rung, r.attempt, r.wait = stateRunning, ev.Rung, ev.Attempt, 0
		r.attempts = append(r.attempts, attemptRec{rung: ev.Rung, attempt: ev.Attempt, at: now.Sub(r.started)})
	case engine.EventAttemptDone:
		a := r.findAttempt(ev.Rung, ev.Attempt)
		if a == nil {
			// The start was not seen (a stream joined late); record it anyway.
			r.attempts = append(r.attempts, attemptRec{rung: ev.Rung, attempt: ev.Attempt})
			a = &r.attempts[len(r.attempts)-1]
		}
		a.done, a.elapsed, a.outcome, a.httpStatus = true, ev.Elapsed, clean(ev.Detail), ev.HTTPStatus
		if ev.HTTPStatus != 0 {
			r.lastHTTP = ev.HTTPStatus
		}
	case engine.EventRetryWait:
		r.state, r.rung, r.attempt, r.wait = stateWaiting, ev.Rung, ev.Attempt, ev.Wait
		if a := r.findAttempt(ev.Rung, ev.Attempt); a != nil {
			a.wait, a.waitWhy = ev.Wait, clean(ev.Detail)
		}
	case engine.EventFinished:
		r.finished = now
		r.decidedBy = ev.Rung
		r.redirects = ev.Redirects
		if c := ev.Citation; c != nil {
			r.cit = c
			r.state = stateOf(c.Status)
			r.title = clean(c.Title)
			r.natTitle = natKey(cmp.Or(r.title, r.url))
			if len(c.FoundBy) > 0 {
				r.file = clean(c.FoundBy[0].ArtifactPath)
				r.natFile = natKey(r.file)
			}
		} else {
			r.state = stateUnknown
		}
		r.reindex()
	case engine.EventStage, engine.EventWarning, engine.EventVerified:
		// Not about one URL: Model.applyEvents handles these and never
		// routes them to a row.
	}
}

// findAttempt returns the latest record of rung's attempt n.
func (r *row) findAttempt(rung string, n int) *attemptRec {
	for i := len(r.attempts) - 1; i >= 0; i-- {
		if a := &r.attempts[i]; a.rung == rung && a.attempt == n {
			return a
		}
	}
	return nil
}

// domainOf is seed 004's extractDomain: the host name, lower-cased, without
// a leading "www." but with every other subdomain kept.
func domainOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Hostname() == "" {
		return ""
	}
	return strings.TrimPrefix(strings.ToLower(u.Hostname()), "www.")
}

// FILTER AND SORT

// filterKind narrows the list to one status (keys 0–6).
type filterKind int

const (
	filterAll filterKind = iota
	filterValid
	filterPaywalled
	filterBlocked
	filterMismatch
	filterInvalid
	// filterPending is everything without a verdict yet (queued or in flight).
	filterPending
	// filterNeedsDecision is every must-not-cite citation no decision
	// covers: what review still has to look at.
	filterNeedsDecision
	// filterDecided is every citation an operator's decision settled.
	filterDecided
)

func (f filterKind) String() string {
	switch f {
	case filterValid:
		return "valid"
	case filterPaywalled:
		return "paywalled"
	case filterBlocked:
		return "blocked"
	case filterMismatch:
		return "mismatch"
	case filterInvalid:
		return "invalid"
	case filterPending:
		return "pending"
	case filterNeedsDecision:
		return "needs a decision"
	case filterDecided:
		return "decided"
	case filterAll:
		// Below.
	}
	return "all"
}

func (f filterKind) match(r *row) bool {
	s := r.state
	switch f {
	case filterNeedsDecision:
		return r.needsDecision()
	case filterDecided:
		return r.decided()
	case filterValid:
		return s == stateValid
	case filterPaywalled:
		return s == statePaywalled
	case filterBlocked:
		return s == stateBlocked
	case filterMismatch:
		return s == stateMismatch
	case filterInvalid:
		return s == stateInvalid
	case filterPending:
		return !s.finished()
	case filterAll:
		// Below: every row.
	}
	return true
}

// sortMode orders the list; s cycles through them.
type sortMode int

const (
	// sortOrder is the engine's order (normalized URL text order), except
	// that URLs differing only in a number follow its value (byURL).
	sortOrder sortMode = iota
	// sortStatus puts in-flight rows first, then problems before successes,
	// so what needs attention is at the top.
	sortStatus
	// sortHost is by host, then path, naturally (page 2 before page 10).
	sortHost
	// sortTime is slowest first; rows never fetched go last.
	sortTime
	// sortTitle is by title (the URL when there is none), naturally.
	sortTitle
	// sortFile is by the wave file the URL was first found in, naturally,
	// then in the engine's order.
	sortFile
	numSortModes
)

func (s sortMode) String() string {
	switch s {
	case sortStatus:
		return "status"
	case sortHost:
		return "host"
	case sortTime:
		return "time"
	case sortTitle:
		return "title"
	case sortFile:
		return "wave file"
	case sortOrder, numSortModes:
		// Below; numSortModes counts the modes and is never the current one.
	}
	return "order"
}

// byURL is the list's own order: the engine's (its index), except that
// two URLs that first differ inside a number are ordered by the number's
// value, so …/report-2 comes before …/report-10 (text order put it after
// …/report-11).
func byURL(a, b *row) int {
	return cmp.Or(numberFirst(a.url, b.url), cmp.Compare(a.index, b.index))
}

// statusRank is sortStatus's order, indexed by rowState (an array, not a
// map: the comparator runs ~130,000 times to sort 10,000 rows).
var statusRank = [stateUnknown + 1]int{
	stateRunning: 0, stateWaiting: 1, stateInvalid: 2, stateUnknown: 3, stateMismatch: 4,
	stateBlocked: 5, statePaywalled: 6, stateValid: 7, stateQueued: 8,
}

// LIST MODEL

// listModel is the table of URLs. It keeps every row, plus view: the rows
// the current filter, search and sort select, rebuilt in Update only when
// something they depend on changed, so View only slices it.
type listModel struct {
	c    *common
	rows []*row // the engine's order, numbers by value (byURL)
	// unsorted says a row arrived out of order; rebuild sorts rows.
	unsorted bool
	byKey    map[string]*row
	view     []*row
	dirty    bool

	scroller

	filter    filterKind
	sort      sortMode
	search    textinput.Model
	searching bool
	query     string // applied search, lower-cased
	// hosts counts the rows of each host, so a row whose host repeats
	// shows its path.
	hosts map[string]int
	// rechecking is set while a rerun checks the blocked rows again: the
	// engine then reports every URL (queued, and finished as "previous"
	// for the ones it keeps), and only the rows being rechecked may take
	// those events, so the others keep their rung, timing and attempts.
	rechecking bool
}

func newListModel(c *common) listModel {
	ti := textinput.New()
	ti.Prompt = "/"
	ti.Placeholder = "search url, domain, title, cid"
	ti.PromptStyle = c.st.prompt
	ti.PlaceholderStyle = c.st.dim
	// A static cursor: a blinking one would send a tick message every half
	// second and make screens (and goldens) depend on timing.
	ti.Cursor.SetMode(cursor.CursorStatic)
	ti.CharLimit = 200
	return listModel{c: c, byKey: map[string]*row{}, hosts: map[string]int{}, scroller: scroller{height: 1}, search: ti}
}

// setSize gives the table its body height.
func (l *listModel) setSize(height int) {
	l.height = max(1, height)
	l.search.Width = max(10, l.c.width-4)
	l.clampOffset()
}

// fastPath reports whether view is simply rows: no filter, no search,
// work-list order. Then a status change never moves a row, which keeps event
// batches over 10,000 rows free of any rebuild.
func (l *listModel) fastPath() bool {
	return l.filter == filterAll && l.query == "" && l.sort == sortOrder
}

// applyEvent folds a per-URL event in and returns the touched row.
func (l *listModel) applyEvent(ev engine.Event, now time.Time) *row {
	k := rowKey(ev)
	if k == "" {
		return nil
	}
	r := l.byKey[k]
	if r != nil && l.rechecking && !r.recheck {
		return nil
	}
	if r == nil {
		r = newRow(ev)
		l.byKey[k] = r
		l.hosts[r.domain]++
		if n := len(l.rows); n > 0 && byURL(l.rows[n-1], r) > 0 {
			// Sorted once per batch, in rebuild, not once per row.
			l.unsorted = true
		}
		l.rows = append(l.rows, r)
		l.dirty = true
	}
	r.apply(ev, now)
	if !l.fastPath() {
		l.dirty = true
	}
	return r
}

// resetBlocked puts every blocked row back to queued and returns how many.
func (l *listModel) resetBlocked() int {
	n := 0
	for _, r := range l.rows {
		if r.state == stateBlocked {
			r.reset()
			r.recheck = true
			n++
		}
	}
	if n > 0 {
		l.dirty = true
		l.rechecking = true
	}
	return n
}

// selected is the row under the cursor, if any.
func (l *listModel) selected() *row {
	if l.cursor >= 0 && l.cursor < len(l.view) {
		return l.view[l.cursor]
	}
	return nil
}

// rebuild recomputes view when dirty, keeping the cursor on the same row.
func (l *listModel) rebuild(now time.Time) {
	if !l.dirty {
		return
	}
	l.dirty = false
	sel := l.selected()
	if l.unsorted {
		slices.SortStableFunc(l.rows, byURL)
		l.unsorted = false
	}
	if l.fastPath() {
		l.view = l.rows
	} else {
		v := make([]*row, 0, len(l.rows))
		for _, r := range l.rows {
			if l.filter.match(r) && (l.query == "" || strings.Contains(r.hay, l.query)) {
				v = append(v, r)
			}
		}
		l.sortRows(v, now)
		l.view = v
	}
	if sel != nil {
		if i := slices.Index(l.view, sel); i >= 0 {
			l.cursor = i
		}
	}
	l.cursor = min(l.cursor, max(0, len(l.view)-1))
	l.clampOffset()
}

func (l *listModel) sortRows(v []*row, now time.Time) {
	byIndex := func(a, b *row) int { return cmp.Compare(a.index, b.index) }
	switch l.sort {
	case sortOrder:
		// rows is already in this order.
	case sortStatus:
		slices.SortStableFunc(v, func(a, b *row) int {
			return cmp.Or(cmp.Compare(statusRank[a.state], statusRank[b.state]), byIndex(a, b))
		})
	case sortHost:
		slices.SortStableFunc(v, func(a, b *row) int { return cmp.Or(strings.Compare(a.natHost, b.natHost), byIndex(a, b)) })
	case sortTitle:
		slices.SortStableFunc(v, func(a, b *row) int {
			return cmp.Or(strings.Compare(cmp.Or(a.natTitle, natKey(a.url)), cmp.Or(b.natTitle, natKey(b.url))), byIndex(a, b))
		})
	case sortFile:
		slices.SortStableFunc(v, func(a, b *row) int {
			if (a.file == "") != (b.file == "") {
				// Rows whose file is not known yet go last.
				if a.file == "" {
					return 1
				}
				return -1
			}
			return cmp.Or(strings.Compare(a.natFile, b.natFile), byIndex(a, b))
		})
	case sortTime:
		// Elapsed is read once per row: it changes with now, and a
		// comparator that sees two different values for a row breaks sort.
		type keyed struct {
			r  *row
			d  time.Duration
			ok bool
		}
		ks := make([]keyed, len(v))
		for i, r := range v {
			d, ok := r.elapsed(now)
			ks[i] = keyed{r, d, ok}
		}
		slices.SortStableFunc(ks, func(a, b keyed) int {
			switch {
			case a.ok != b.ok:
				if a.ok {
					return -1
				}
				return 1
			case a.d != b.d:
				return cmp.Compare(b.d, a.d)
			}
			return byIndex(a.r, b.r)
		})
		for i := range ks {
			v[i] = ks[i].r
		}
	case numSortModes:
	}
}

// move moves the cursor by n rows and scrolls to keep it visible.
func (l *listModel) move(n int) { l.moveIn(n, len(l.view)) }

func (l *listModel) clampOffset() { l.clampIn(len(l.view)) }

// update handles keys and the mouse wheel for the list.
func (l listModel) update(msg tea.Msg, now time.Time) (listModel, tea.Cmd) {
	k := l.c.keys
	switch msg := msg.(type) {
	case tea.MouseMsg:
		if msg.Action != tea.MouseActionPress {
			return l, nil
		}
		switch msg.Button { // only the wheel scrolls the list
		case tea.MouseButtonWheelUp:
			l.move(-3)
			return l, nil
		case tea.MouseButtonWheelDown:
			l.move(3)
			return l, nil
		}
		return l, nil
	case tea.KeyMsg:
		if l.searching {
			return l.updateSearch(msg, now)
		}
		if l.navigate(msg, k, len(l.view)) {
			return l, nil
		}
		switch {
		case key.Matches(msg, k.Search):
			l.searching = true
			l.search.SetValue(l.query)
			l.search.CursorEnd()
			return l, l.search.Focus()
		case key.Matches(msg, k.Filter):
			l.filter = filterKind(msg.Runes[0] - '0')
			l.dirty = true
			l.rebuild(now)
		case key.Matches(msg, k.Sort):
			l.sort = (l.sort + 1) % numSortModes
			l.dirty = true
			l.rebuild(now)
		case key.Matches(msg, k.Back) && (l.query != "" || l.filter != filterAll):
			// esc in the list undoes the narrowing, search first.
			if l.query != "" {
				l.query = ""
			} else {
				l.filter = filterAll
			}
			l.dirty = true
			l.rebuild(now)
		default:
			return l, nil
		}
		return l, nil
	}
	return l, nil
}

// updateSearch edits the query live: every keystroke narrows the list.
func (l listModel) updateSearch(msg tea.KeyMsg, now time.Time) (listModel, tea.Cmd) {
	switch {
	case key.Matches(msg, searchApply):
		l.searching = false
		l.search.Blur()
		return l, nil
	case key.Matches(msg, searchCancel):
		l.searching = false
		l.search.Blur()
		l.search.SetValue("")
		l.query = ""
		l.dirty = true
		l.rebuild(now)
		return l, nil
	case key.Matches(msg, l.c.keys.ForceQuit):
		return l, nil
	case msg.Type == tea.KeyUp:
		l.move(-1)
		return l, nil
	case msg.Type == tea.KeyDown:
		l.move(1)
		return l, nil
	}
	var cmd tea.Cmd
	l.search, cmd = l.search.Update(msg)
	if q := strings.ToLower(strings.TrimSpace(l.search.Value())); q != l.query {
		l.query = q
		l.dirty = true
		l.rebuild(now)
	}
	return l, cmd
}

// columns are the table's cell widths for one terminal width. Narrow
// terminals drop the rung, then HTTP and time, before the status or domain.
type columns struct {
	status, rung, http, time, domain, title int
}

const gutter = 2 // the cursor marker column

func layoutColumns(width int) columns {
	c := columns{status: 11, rung: 18, http: 4, time: 6}
	rest := func() int {
		w := width - gutter - c.status - 1
		for _, n := range []int{c.rung, c.http, c.time} {
			if n > 0 {
				w -= n + 1
			}
		}
		return w
	}
	if rest() < 30 {
		c.rung = 0
	}
	if rest() < 24 {
		c.http, c.time = 0, 0
	}
	w := rest()
	c.domain = min(24, max(8, w*2/5))
	c.title = w - c.domain - 1
	if c.title < 8 {
		c.domain, c.title = max(0, w), 0
	}
	return c
}

// rowCells renders one row's cells. styled=false leaves them plain, for the
// selected row, which is drawn in one style.
func (l *listModel) rowCells(r *row, cols columns, now time.Time, frame string, styled bool) string {
	var b strings.Builder
	status := fmt.Sprintf("%s %s", r.state.symbol(), r.state.word())
	if r.state.inFlight() {
		status = frame + " " + r.state.word()
	}
	status = fit(status, cols.status)
	if styled {
		status = l.c.st.status[r.state].Render(status)
	}
	b.WriteString(status)
	if cols.rung > 0 {
		b.WriteByte(' ')
		b.WriteString(fit(rungCell(r), cols.rung))
	}
	if cols.http > 0 {
		h := "—"
		if s := r.httpStatus(); s != 0 {
			h = fmt.Sprint(s)
		} else if !r.state.finished() {
			h = ""
		}
		b.WriteByte(' ')
		b.WriteString(fitRight(h, cols.http))
		t := ""
		if d, ok := r.elapsed(now); ok {
			t = fmtDur(d)
		} else if r.state.finished() {
			t = "—"
		}
		b.WriteByte(' ')
		b.WriteString(fitRight(t, cols.time))
	}
	b.WriteByte(' ')
	b.WriteString(fit(r.domain, cols.domain))
	if cols.title > 0 {
		b.WriteByte(' ')
		switch {
		case l.hosts[r.domain] > 1:
			// The host repeats: its path is what tells the rows apart, and
			// a path's end more than its start (/articles/s41586-0…).
			p := fitTail(r.path, cols.title)
			if r.title != "" && lipgloss.Width(r.path)+3 < cols.title {
				p = fit(r.path+" · "+r.title, cols.title)
			}
			b.WriteString(p)
		case r.title != "":
			b.WriteString(fit(r.title, cols.title))
		default:
			u := fit(r.url, cols.title)
			if styled {
				u = l.c.st.dim.Render(u)
			}
			b.WriteString(u)
		}
	}
	return b.String()
}

// rungCell is the rung column: the rung and attempt in flight, the retry
// pause, or what decided the verdict.
func rungCell(r *row) string {
	switch r.state {
	case stateQueued:
		return ""
	case stateRunning:
		return fmt.Sprintf("%s #%d", r.rung, r.attempt)
	case stateWaiting:
		return fmt.Sprintf("%s ↻%s", r.rung, fmtDur(r.wait))
	case stateValid, statePaywalled, stateBlocked, stateMismatch, stateInvalid, stateUnknown:
	}
	if len(r.attempts) > 0 && r.decidedBy == r.rung {
		return fmt.Sprintf("%s #%d", r.decidedBy, r.attempt)
	}
	return r.decidedBy
}

// headerLine is the table's column titles.
func (l *listModel) headerLine(cols columns) string {
	var b strings.Builder
	b.WriteString(strings.Repeat(" ", gutter))
	b.WriteString(fit("STATUS", cols.status))
	if cols.rung > 0 {
		b.WriteString(" " + fit("RUNG", cols.rung))
	}
	if cols.http > 0 {
		b.WriteString(" " + fitRight("HTTP", cols.http) + " " + fitRight("TIME", cols.time))
	}
	b.WriteString(" " + fit("DOMAIN", cols.domain))
	if cols.title > 0 {
		b.WriteString(" " + fit("TITLE / URL", cols.title))
	}
	return l.c.st.colHeader.Render(b.String())
}

// viewBody renders the column header and the visible window of rows, and
// nothing else: with 10,000 rows only height rows are ever formatted.
func (l *listModel) viewBody(now time.Time, frame string) string {
	cols := layoutColumns(l.c.width)
	lines := make([]string, 0, l.height+1)
	lines = append(lines, l.headerLine(cols))
	end := min(len(l.view), l.offset+l.height)
	for i := l.offset; i < end; i++ {
		r := l.view[i]
		if i == l.cursor {
			// The selected row is drawn in one style (per-cell colours
			// would reset its background midway) with a marker that still
			// shows without colour.
			lines = append(lines, l.c.st.selected.Render("▸ "+l.rowCells(r, cols, now, frame, false)))
		} else {
			lines = append(lines, "  "+l.rowCells(r, cols, now, frame, true))
		}
	}
	if len(l.view) == 0 {
		msg := "waiting for URLs…"
		if len(l.rows) > 0 {
			msg = "no rows match the filter/search (esc clears)"
		}
		lines = append(lines, "  "+l.c.st.dim.Render(msg))
	}
	for len(lines) < l.height+1 {
		lines = append(lines, "")
	}
	return strings.Join(lines, "\n")
}

// fmtDur is a compact duration for a 6-cell column.
func fmtDur(d time.Duration) string {
	switch {
	case d < 0:
		d = 0
		fallthrough
	case d < time.Second:
		return fmt.Sprintf("%dms", d.Milliseconds())
	case d < 10*time.Second:
		return fmt.Sprintf("%.1fs", d.Seconds())
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	}
	return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
}
