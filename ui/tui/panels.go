// The panels above the table: banner, header and counts, the Gate C line, the status line and the completion panel.

package tui

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/citegate/citegate/engine/gate"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/citegate/citegate/engine"
	"github.com/citegate/citegate/engine/verify"
)

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
	if m.pane == paneURLs && m.summary != nil && (m.completed || m.rerunning) {
		lines = append(lines, m.reviewLine())
	}
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
	case m.completed && m.runErr != nil:
		stage = st.fail.Render("failed")
	case m.completed:
		stage = "done"
	case m.streamDone:
		stage = m.spin.View() + " writing artifacts"
	case stage != "":
		stage = m.spin.View() + " " + stage
	default:
		stage = m.spin.View() + " starting"
	}
	// The stage (and "done") comes first: a narrow terminal cuts the run's
	// description, never its state.
	left := st.appName.Render("citegate") + fmt.Sprintf("  %s · run %s · mode %s · tier %s",
		stage, orDash(m.opts.RunID), orDash(m.opts.Mode), orDash(m.opts.Tier))
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
// classes are the engine's to decide (gate.ClassOf).
var gateStatus = map[rowState]engine.Status{
	stateValid: engine.StatusValid, statePaywalled: engine.StatusPaywalled, stateBlocked: engine.StatusBlocked,
	stateMismatch: engine.StatusMismatch, stateInvalid: engine.StatusInvalid, stateUnknown: "",
}

// gateCounts counts the finished rows by Gate C class; the rest are pending.
func (m *Model) gateCounts() gate.Counts {
	c := gate.Counts{Total: m.gateTotal()}
	for s, status := range gateStatus {
		c.Add(status, m.counts[s])
	}
	return c
}

func (m Model) gateLine() string {
	st := m.c.st
	var vr, ir, ur float64
	var verdict string
	if m.completed && m.runErr != nil && m.summary == nil {
		return st.bold.Render("Gate C") + "  " + st.fail.Render("not computed") + " (the run failed; see below)"
	}
	if m.completed && m.summary != nil {
		g := m.summary.GateC
		vr, ir, ur = g.Metrics.ValidatedURLRate, g.Metrics.InvalidURLRate, g.Metrics.UncategorizedURLRate
		switch {
		case g.Status == "pass" && g.NotChecked != "":
			// A pass covers what was checked; the header says it was not
			// everything (the line below and the warnings say what).
			verdict = st.pass.Render("PASS") + " (final, " + st.fail.Render("partly not checked") + ")"
		case g.Status == "pass":
			verdict = st.pass.Render("PASS") + " (final)"
		case slices.Contains(g.Warnings, gate.WarningNetworkUnreachable):
			// Nothing live was checked: not a verdict on the citations.
			verdict = st.fail.Render("NOT CHECKED") + " (final)"
		default:
			verdict = st.fail.Render(strings.ToUpper(orDash(g.Status))) + " (final)"
		}
	} else {
		c := m.gateCounts()
		if c.Total > 0 {
			vr, ir = float64(c.Validated)/float64(c.Total), float64(c.Invalid)/float64(c.Total)
			ur = float64(c.Total-c.Validated-c.Invalid) / float64(c.Total)
		}
		switch c.Decide() {
		case gate.Pass:
			verdict = st.pass.Render("PASS") + " (decided)"
		case gate.Fail:
			verdict = st.fail.Render("FAIL") + " (decided)"
		case gate.Undecided:
			verdict = st.undecided.Render("undecided") + fmt.Sprintf(" (%d pending)", c.Pending())
		}
	}
	// The verdict comes first so a narrow terminal truncates the numbers,
	// never the answer.
	head := st.bold.Render("Gate C") + "  " + verdict
	full := fmt.Sprintf("%s  validated %.3f ≥%.2f  invalid %.3f ≤%.2f  uncategorized %.3f =%.0f", head,
		vr, gate.MinValidatedRate, ir, gate.MaxInvalidRate, ur, gate.MaxUncategorizedRate)
	if lipgloss.Width(full) <= m.c.width {
		return full
	}
	// Narrower: the thresholds go, the labels stay (bare numbers such as
	// 0.903/0.097/0.000 said nothing), then the labels shorten.
	mid := fmt.Sprintf("%s  validated %.3f  invalid %.3f  uncategorized %.3f", head, vr, ir, ur)
	if lipgloss.Width(mid) <= m.c.width {
		return mid
	}
	return fmt.Sprintf("%s  valid %.3f · invalid %.3f · uncat %.3f", head, vr, ir, ur)
}

// statusLine is the search box while typing, else the filter, sort, search
// and a transient note.
func (m Model) statusLine() string {
	st := m.c.st
	if m.pane == paneClaims {
		s := st.dim.Render(fmt.Sprintf("claims of the --verify synthesis · %d shown · v back to the URLs", len(m.claims.rows)))
		if m.note != "" {
			s = st.note.Render(m.note) + "  " + s
		}
		return s
	}
	if m.prompt.stage != promptNone {
		return m.promptLine()
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
		// The note answers the last key: first, so a narrow terminal
		// keeps it.
		s = st.note.Render(m.note) + "  " + s
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
	case m.runErr != nil && len(m.list.rows) == 0:
		// The list area shows the error and its fix (failurePanel).
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
		lines = append(lines, wrapClauses(verdict+" ·", strings.SplitAfter(clean(g.Line), "; "), max(10, w-2))...)
		dir, names := artifactList(m.summary.Artifacts)
		if len(names) > 0 {
			if m.c.height < 30 {
				// A small terminal keeps its rows for the list: the
				// directory, and how many files (the run's summary lists
				// them).
				lines = append(lines, "  "+truncate(fmt.Sprintf("Artifacts in %s (%d files)", dir, len(names)), max(10, w-2)))
			} else {
				for _, ln := range packLine("Artifacts in "+dir+":", names, max(10, w-2), maxArtifactLines) {
					lines = append(lines, "  "+ln)
				}
			}
		}
		if v := m.summary.Verify; v != nil {
			lines = append(lines, "  "+fit(VerifyLine(v), max(10, w-2)))
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

// wrapClauses lays head and the clauses out on as few lines of width w as
// keep each clause whole (a clause wider than a line is truncated), so a
// narrow terminal still shows every must-not-cite class of Gate C's line;
// continuation lines are indented.
func wrapClauses(head string, clauses []string, w int) []string {
	lines := []string{head}
	for _, c := range clauses {
		c = strings.TrimSpace(c)
		cur := lines[len(lines)-1]
		if lipgloss.Width(cur)+1+lipgloss.Width(c) <= w || cur == head {
			lines[len(lines)-1] = truncate(cur+" "+c, w)
			continue
		}
		lines = append(lines, truncate("  "+c, w))
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
			// A cut line says so: text never just stops mid-word.
			lines[i] = ansi.Truncate(ln, w, "…")
		}
	}
	return strings.Join(lines, "\n")
}

// VerifyLine sums up run --verify's result in one line, for the terminal
// UI's outcome panel and the line package ui leaves on stderr once the UI
// has closed.
func VerifyLine(v *verify.Result) string {
	if v.Passed == nil {
		return fmt.Sprintf("Verify (--verify): %s · citations/verify.json", v.Reason)
	}
	verdict := "passed"
	if !*v.Passed {
		verdict = "NOT passed"
	}
	uncertain := ""
	if v.TotalUncertain > 0 {
		// Left out of overall_score: the judge could not tell.
		uncertain = fmt.Sprintf(" (%d uncertain)", v.TotalUncertain)
	}
	if v.TotalJudgeErrors > 0 {
		// Left out too: the judge gave no answer.
		uncertain += fmt.Sprintf(" (%d judge error(s))", v.TotalJudgeErrors)
	}
	return fmt.Sprintf("Verify (--verify): %s, %d/%d resolved source(s) support their claims%s · citations/verify.json",
		verdict, v.TotalSupported, v.TotalResolved, uncertain)
}

// failurePanel takes the list's place when the run failed before it listed
// a URL: the error, and the fix the engine suggests, where the eye goes —
// not only on stderr after the UI has closed.
func (m Model) failurePanel(height int) string {
	st := m.c.st
	w := max(10, m.c.width-2)
	e := engine.AsError(m.runErr)
	lines := []string{st.fail.Render("✗ Run failed") + st.dim.Render(" · nothing was written; the previous artifacts are untouched")}
	add := func(label, text string) {
		for i, ln := range strings.Split(ansi.Wordwrap(clean(text), w-len(label), " "), "\n") {
			if i == 0 {
				lines = append(lines, "  "+st.label.Render(label)+ln)
			} else {
				lines = append(lines, "  "+strings.Repeat(" ", len(label))+ln)
			}
		}
	}
	add("", e.Code+": "+e.Message)
	for _, k := range []string{"hint", "fix"} {
		if v, ok := e.Details[k].(string); ok && v != "" {
			add("Fix: ", v)
		}
	}
	if v, ok := e.Details["path"].(string); ok && v != "" {
		add("File: ", v)
	}
	lines = append(lines, "", st.dim.Render("  q quits; the error envelope is printed on stdout"))
	for len(lines) < height {
		lines = append(lines, "")
	}
	return strings.Join(lines[:min(len(lines), max(height, 1))], "\n")
}

// legendLines explain the status symbols, the filter keys, the sorts and
// how to decide, below the full help (?). Items are never split across
// lines, so a symbol stays beside its word.
func (m Model) legendLines() []string {
	w := max(10, m.c.width)
	var out []string
	for _, para := range []struct {
		head  string
		items []string
	}{
		{"Symbols:", []string{"✓ valid", "$ paywalled (cite with caution)", "⊘ blocked", "≠ mismatch", "✗ invalid", "(⊘ ≠ ✗ must not be cited)", "↻ checking", "· queued", "? unknown status"}},
		{"Filters:", []string{"0 all", "1 valid", "2 paywalled", "3 blocked", "4 mismatch", "5 invalid", "6 pending", "7 needs a decision", "8 decided"}},
		{"Sort (s):", []string{"order (citations.jsonl's)", "status", "host and path", "time", "title", "wave file", "numbers sort by value: 2 before 10"}},
		{"Decide (d):", []string{"v valid", "p paywalled", "i invalid", "x exclude", "then a note and enter", "u undoes", "o opens in the browser", "y copies the URL"}},
	} {
		out = append(out, packLine(m.c.st.bold.Render(para.head), para.items, w, 8)...)
	}
	return out
}
