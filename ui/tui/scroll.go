package tui

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// scroller is a list's cursor and the first row shown, shared by the URL
// list and the claims list.
type scroller struct {
	cursor int
	offset int
	height int // body lines available for rows
}

// moveIn moves the cursor by n among count rows and scrolls to keep it
// visible.
func (s *scroller) moveIn(n, count int) {
	s.cursor = max(0, min(s.cursor+n, count-1))
	s.clampIn(count)
}

// clampIn keeps the cursor's row on screen and the window inside the rows.
func (s *scroller) clampIn(count int) {
	if s.cursor < s.offset {
		s.offset = s.cursor
	}
	if s.cursor >= s.offset+s.height {
		s.offset = s.cursor - s.height + 1
	}
	s.offset = max(0, min(s.offset, count-s.height))
}

// navigate moves the cursor for the list keys (up, down, page up and down,
// home, end) among count rows, and reports whether msg was one of them.
func (s *scroller) navigate(msg tea.KeyMsg, k keyMap, count int) bool {
	switch {
	case key.Matches(msg, k.Up):
		s.moveIn(-1, count)
	case key.Matches(msg, k.Down):
		s.moveIn(1, count)
	case key.Matches(msg, k.PageUp):
		s.moveIn(-s.height, count)
	case key.Matches(msg, k.PageDown):
		s.moveIn(s.height, count)
	case key.Matches(msg, k.Home):
		s.moveIn(-count, count)
	case key.Matches(msg, k.End):
		s.moveIn(count, count)
	default:
		return false
	}
	return true
}
