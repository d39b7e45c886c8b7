package tui

import "github.com/charmbracelet/bubbles/key"

// keyMap holds every key the TUI answers to. Update matches with
// key.Matches, and the help bar renders the same bindings, so the help can
// never drift from the behaviour.
type keyMap struct {
	Up       key.Binding
	Down     key.Binding
	PageUp   key.Binding
	PageDown key.Binding
	Home     key.Binding
	End      key.Binding
	Open     key.Binding
	Back     key.Binding
	Search   key.Binding
	Filter   key.Binding
	Sort     key.Binding
	Rerun    key.Binding
	// Decide, Undo, Browse and Copy are the review keys (review.go).
	Decide key.Binding
	Undo   key.Binding
	Browse key.Binding
	Copy   key.Binding
	// Claims switches between the URL list and run --verify's claims list;
	// it is disabled (and left out of the help) in a run that verifies
	// nothing. urls is the same key as the claims list's help shows it.
	Claims key.Binding
	urls   key.Binding
	Help   key.Binding
	Quit   key.Binding
	// ForceQuit is ctrl+c: it quits from every state, even while the search
	// box has the focus (where q is just a letter).
	ForceQuit key.Binding
	// move is Up and Down as one entry, to keep the short help on one line.
	move key.Binding
	// rerunNA is shown in the help instead of Rerun when no rerun hook was
	// given: Rerun is then disabled, and a disabled binding is left out of
	// the help, but the operator should see that the key exists and why it
	// does nothing.
	rerunNA key.Binding
}

// newKeyMap returns the bindings; rerun says whether R can work at all,
// claims whether the run verifies a synthesis (v).
func newKeyMap(rerun, claims bool) keyMap {
	k := keyMap{
		Up:        key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "up")),
		Down:      key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "down")),
		PageUp:    key.NewBinding(key.WithKeys("pgup", "ctrl+b"), key.WithHelp("pgup", "page up")),
		PageDown:  key.NewBinding(key.WithKeys("pgdown", "ctrl+f", " "), key.WithHelp("pgdn", "page down")),
		Home:      key.NewBinding(key.WithKeys("home", "g"), key.WithHelp("g/home", "first")),
		End:       key.NewBinding(key.WithKeys("end", "G"), key.WithHelp("G/end", "last")),
		Open:      key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "open")),
		Back:      key.NewBinding(key.WithKeys("esc", "backspace"), key.WithHelp("esc", "back")),
		Search:    key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "search")),
		Filter:    key.NewBinding(key.WithKeys("0", "1", "2", "3", "4", "5", "6", "7", "8"), key.WithHelp("0-8", "filter")),
		Decide:    key.NewBinding(key.WithKeys("d"), key.WithHelp("d", "decide")),
		Undo:      key.NewBinding(key.WithKeys("u"), key.WithHelp("u", "undo decision")),
		Browse:    key.NewBinding(key.WithKeys("o"), key.WithHelp("o", "open in browser")),
		Copy:      key.NewBinding(key.WithKeys("y"), key.WithHelp("y", "copy URL")),
		Sort:      key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "sort")),
		Rerun:     key.NewBinding(key.WithKeys("R"), key.WithHelp("R", "rerun blocked")),
		Claims:    key.NewBinding(key.WithKeys("v"), key.WithHelp("v", "claims")),
		urls:      key.NewBinding(key.WithKeys("v"), key.WithHelp("v", "URLs")),
		Help:      key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "help")),
		Quit:      key.NewBinding(key.WithKeys("q"), key.WithHelp("q", "quit")),
		ForceQuit: key.NewBinding(key.WithKeys("ctrl+c"), key.WithHelp("ctrl+c", "quit")),
		move:      key.NewBinding(key.WithKeys("up", "down"), key.WithHelp("↑/↓", "move")),
		rerunNA:   key.NewBinding(key.WithKeys("R"), key.WithHelp("R", "rerun (unavailable)")),
	}
	k.Rerun.SetEnabled(rerun)
	k.Claims.SetEnabled(claims)
	return k
}

// rerunHelp is the binding the help shows for R.
func (k keyMap) rerunHelp() key.Binding {
	if k.Rerun.Enabled() {
		return k.Rerun
	}
	return k.rerunNA
}

// listKeys is the help for the main (list) view.
type listKeys struct{ k keyMap }

// ShortHelp implements help.KeyMap.
func (h listKeys) ShortHelp() []key.Binding {
	k := h.k
	return []key.Binding{k.move, k.Open, k.Decide, k.rerunHelp(), k.Claims, k.Search, k.Filter, k.Sort, k.Help, k.Quit}
}

// FullHelp implements help.KeyMap.
func (h listKeys) FullHelp() [][]key.Binding {
	k := h.k
	return [][]key.Binding{
		{k.Up, k.Down, k.PageUp, k.PageDown, k.Home, k.End},
		{k.Open, k.Search, k.Back, k.Filter, k.Sort},
		{k.Decide, k.Undo, k.Browse, k.Copy},
		{k.Claims, k.rerunHelp(), k.Help, k.Quit, k.ForceQuit},
	}
}

// claimsKeys is the help for the claims list.
type claimsKeys struct{ k keyMap }

// ShortHelp implements help.KeyMap.
func (h claimsKeys) ShortHelp() []key.Binding {
	k := h.k
	return []key.Binding{k.move, k.Open, k.urls, k.Help, k.Quit}
}

// FullHelp implements help.KeyMap.
func (h claimsKeys) FullHelp() [][]key.Binding {
	k := h.k
	return [][]key.Binding{
		{k.Up, k.Down, k.PageUp, k.PageDown, k.Home, k.End},
		{k.Open, k.Back, k.urls},
		{k.Help, k.Quit, k.ForceQuit},
	}
}

// detailKeys is the help for the detail view.
type detailKeys struct{ k keyMap }

// ShortHelp implements help.KeyMap.
func (h detailKeys) ShortHelp() []key.Binding {
	k := h.k
	return []key.Binding{k.move, k.Back, k.Decide, k.Browse, k.Copy, k.Help, k.Quit}
}

// FullHelp implements help.KeyMap.
func (h detailKeys) FullHelp() [][]key.Binding {
	k := h.k
	return [][]key.Binding{
		{k.Up, k.Down, k.PageUp, k.PageDown, k.Home, k.End},
		{k.Decide, k.Undo, k.Browse, k.Copy},
		{k.Back, k.Help, k.Quit, k.ForceQuit},
	}
}

// searchKeys is the help while the search box has the focus.
type searchKeys struct{}

var (
	searchApply  = key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "keep search"))
	searchCancel = key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "clear search"))
)

// ShortHelp implements help.KeyMap.
func (searchKeys) ShortHelp() []key.Binding {
	return []key.Binding{searchApply, searchCancel}
}

// FullHelp implements help.KeyMap.
func (h searchKeys) FullHelp() [][]key.Binding { return [][]key.Binding{h.ShortHelp()} }
