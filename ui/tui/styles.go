package tui

import (
	"strings"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/citegate/citegate/engine"
)

// PALETTE
//
// Plain ANSI colour numbers rather than lipgloss.AdaptiveColor: an adaptive
// colour makes lipgloss ask the terminal for its background (an OSC query)
// while Bubble Tea is reading the same input, and the 16 base colours read
// well on light and dark backgrounds alike.
var (
	colGreen   = lipgloss.Color("2")
	colRed     = lipgloss.Color("1")
	colYellow  = lipgloss.Color("3")
	colBlue    = lipgloss.Color("4")
	colMagenta = lipgloss.Color("5")
	colCyan    = lipgloss.Color("6")
	colGrey    = lipgloss.Color("8")
	colBlack   = lipgloss.Color("0")
)

// STYLES

// styles are every style the TUI uses, built from one renderer so the colour
// profile (and with it NO_COLOR) is decided once for the whole screen.
type styles struct {
	banner    lipgloss.Style
	appName   lipgloss.Style
	dim       lipgloss.Style
	bold      lipgloss.Style
	colHeader lipgloss.Style
	selected  lipgloss.Style
	pass      lipgloss.Style
	fail      lipgloss.Style
	undecided lipgloss.Style
	errText   lipgloss.Style
	label     lipgloss.Style
	section   lipgloss.Style
	note      lipgloss.Style
	spinner   lipgloss.Style
	prompt    lipgloss.Style
	status    map[rowState]lipgloss.Style
	help      help.Styles
}

// newStyles builds the styles on r. With NO_COLOR set (or a non-colour
// terminal) r's profile is Ascii and every style renders as plain text, which
// is why each status also carries a symbol and a word.
func newStyles(r *lipgloss.Renderer) *styles {
	ns := r.NewStyle
	s := &styles{
		banner:    ns().Bold(true).Foreground(colBlack).Background(colYellow),
		appName:   ns().Bold(true).Foreground(colCyan),
		dim:       ns().Foreground(colGrey),
		bold:      ns().Bold(true),
		colHeader: ns().Bold(true).Foreground(colGrey),
		selected:  ns().Reverse(true),
		pass:      ns().Bold(true).Foreground(colGreen),
		fail:      ns().Bold(true).Foreground(colRed),
		undecided: ns().Bold(true).Foreground(colYellow),
		errText:   ns().Foreground(colRed),
		label:     ns().Foreground(colBlue),
		section:   ns().Bold(true).Underline(true),
		note:      ns().Foreground(colMagenta),
		spinner:   ns().Foreground(colCyan),
		prompt:    ns().Foreground(colCyan),
		status: map[rowState]lipgloss.Style{
			stateQueued:    ns().Foreground(colGrey),
			stateRunning:   ns().Foreground(colCyan),
			stateWaiting:   ns().Foreground(colYellow),
			stateValid:     ns().Foreground(colGreen),
			statePaywalled: ns().Foreground(colBlue),
			stateBlocked:   ns().Foreground(colYellow),
			stateMismatch:  ns().Foreground(colMagenta),
			stateInvalid:   ns().Foreground(colRed),
			stateUnknown:   ns().Foreground(colRed),
		},
	}
	s.help = help.Styles{
		Ellipsis:       ns().Foreground(colGrey),
		ShortKey:       ns().Bold(true),
		ShortDesc:      ns().Foreground(colGrey),
		ShortSeparator: ns().Foreground(colGrey),
		FullKey:        ns().Bold(true),
		FullDesc:       ns().Foreground(colGrey),
		FullSeparator:  ns().Foreground(colGrey),
	}
	return s
}

// ROW STATES

// rowState is what the status column shows: the two in-flight states, queued,
// or one of the engine's five verdicts.
type rowState int

const (
	stateQueued rowState = iota
	stateRunning
	stateWaiting
	stateValid
	statePaywalled
	stateBlocked
	stateMismatch
	stateInvalid
	// stateUnknown is a finished citation whose status is none of the five;
	// Gate C counts it as uncategorized.
	stateUnknown
)

// stateOf maps an engine verdict to its row state.
func stateOf(s engine.Status) rowState {
	switch s {
	case engine.StatusValid:
		return stateValid
	case engine.StatusPaywalled:
		return statePaywalled
	case engine.StatusBlocked:
		return stateBlocked
	case engine.StatusMismatch:
		return stateMismatch
	case engine.StatusInvalid:
		return stateInvalid
	}
	return stateUnknown
}

// finished reports whether the row has its verdict.
func (s rowState) finished() bool { return s >= stateValid }

// inFlight reports whether a ladder is working on the row.
func (s rowState) inFlight() bool { return s == stateRunning || s == stateWaiting }

// symbol is the one-cell marker that keeps the status readable without
// colour. In-flight rows show the spinner instead (see statusCell).
func (s rowState) symbol() string {
	switch s {
	case stateQueued:
		return "·"
	case stateRunning, stateWaiting:
		return "↻"
	case stateValid:
		return "✓"
	case statePaywalled:
		return "$"
	case stateBlocked:
		return "⊘"
	case stateMismatch:
		return "≠"
	case stateInvalid:
		return "✗"
	case stateUnknown:
		// Below.
	}
	return "?"
}

// word names the state in the status column.
func (s rowState) word() string {
	switch s {
	case stateQueued:
		return "queued"
	case stateRunning:
		return "checking"
	case stateWaiting:
		return "waiting"
	case stateValid:
		return "valid"
	case statePaywalled:
		return "paywalled"
	case stateBlocked:
		return "blocked"
	case stateMismatch:
		return "mismatch"
	case stateInvalid:
		return "invalid"
	case stateUnknown:
		// Below.
	}
	return "unknown"
}

// LAYOUT HELPERS

// fit truncates s to w terminal cells (ending in "…") and pads it with
// spaces to exactly w cells. Widths are measured in cells, never bytes, so
// CJK titles and symbols such as ✓ line up.
func fit(s string, w int) string {
	if w <= 0 {
		return ""
	}
	sw := lipgloss.Width(s)
	if sw > w {
		s = truncate(s, w)
		sw = lipgloss.Width(s)
	}
	if sw < w {
		s += strings.Repeat(" ", w-sw)
	}
	return s
}

// fitTail is fit keeping the end of s: a cut shows as a leading "…".
func fitTail(s string, w int) string {
	if w <= 0 {
		return ""
	}
	if lipgloss.Width(s) <= w {
		return fit(s, w)
	}
	rs := []rune(s)
	for len(rs) > 0 && lipgloss.Width(string(rs))+1 > w {
		rs = rs[1:]
	}
	return fit("…"+string(rs), w)
}

// fitRight is fit with the text flush right (numbers and durations).
func fitRight(s string, w int) string {
	if w <= 0 {
		return ""
	}
	sw := lipgloss.Width(s)
	if sw > w {
		return truncate(s, w)
	}
	return strings.Repeat(" ", w-sw) + s
}

// clean replaces control characters with spaces. Titles, snippets and notes
// come from fetched pages; an escape sequence in a page title must not be
// able to move the cursor or recolour the screen.
func clean(s string) string {
	if strings.IndexFunc(s, isControl) < 0 {
		return s
	}
	return strings.Map(func(r rune) rune {
		if isControl(r) {
			return ' '
		}
		return r
	}, s)
}

// truncate cuts s to at most w cells, marking the cut with an ellipsis.
func truncate(s string, w int) string { return ansi.Truncate(s, w, "…") }

func isControl(r rune) bool { return r < 0x20 || (r >= 0x7f && r < 0xa0) }
