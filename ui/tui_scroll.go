package ui

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
