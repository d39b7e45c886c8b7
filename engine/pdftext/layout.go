package pdftext

import (
	"math"
	"unicode"
	"unicode/utf8"
)

// writer turns placed strings into running text: words separated by one
// space, the lines of a page joined with a space (a hyphen that breaks a
// word at the end of a line is removed), so that a sentence wrapped over
// several lines reads as one sentence, as on an HTML page.
type writer struct {
	buf     []byte
	runes   int
	max     int // stop after this many runes
	have    bool
	x, y    float64 // where the last string ended
	size    float64
	pending byte // ' ' (word gap) or '\n' (line break) to write before the next text
}

// fullError unwinds a page once the rune budget is spent.
type fullError struct{}

// place decides what separates the glyph about to be written, at (x, y)
// with the given font size and baseline direction (dx, dy), from the
// previous one: distances are measured along and across the baseline, so
// rotated pages (a booklet, a landscape table) read like upright ones.
func (w *writer) place(x, y, size, dx, dy float64) {
	if math.IsNaN(x) || math.IsNaN(y) || math.IsInf(x, 0) || math.IsInf(y, 0) {
		return
	}
	if !w.have {
		w.have = true
		w.x, w.y, w.size = x, y, size
		return
	}
	if n := math.Hypot(dx, dy); n > 0 && !math.IsInf(n, 0) {
		dx, dy = dx/n, dy/n
	} else {
		dx, dy = 1, 0
	}
	s := math.Max(size, 1e-6)
	mx, my := x-w.x, y-w.y
	along, across := mx*dx+my*dy, my*dx-mx*dy
	switch {
	case math.Abs(across) > lineGap*s:
		w.pending = '\n'
	case along > wordGap*s || along < -3*s:
		if w.pending == 0 {
			w.pending = ' '
		}
	}
	w.size = size
}

func (w *writer) moved(x, y float64) {
	if !math.IsNaN(x) && !math.IsNaN(y) && !math.IsInf(x, 0) && !math.IsInf(y, 0) {
		w.x, w.y = x, y
	}
}

// text appends decoded text, cleaned: controls become spaces, ligatures
// are spelled out, soft hyphens, private-use and replacement characters
// (glyphs with no known text) are dropped.
func (w *writer) text(s string) {
	for _, r := range s {
		switch {
		case r == '\u00ad' || r == utf8.RuneError || r == 0 || r >= 0xe000 && r <= 0xf8ff:
			continue
		case r >= 0xfb00 && r <= 0xfb06:
			for _, l := range ligatures[r-0xfb00] {
				w.rune(l)
			}
			continue
		case unicode.IsSpace(r) || unicode.IsControl(r):
			if w.pending == 0 {
				w.pending = ' '
			}
			continue
		}
		w.rune(r)
	}
}

var ligatures = [...]string{"ff", "fi", "fl", "ffi", "ffl", "ft", "st"}

func (w *writer) rune(r rune) {
	if w.pending != 0 && len(w.buf) > 0 {
		n := len(w.buf)
		switch {
		case w.pending == '\n' && n >= 2 && w.buf[n-1] == '-' && isLetterByte(w.buf[n-2]) && unicode.IsLower(r):
			// "exam-" + "ple": a word broken at the end of a line.
			w.buf = w.buf[:n-1]
			w.runes--
		case w.buf[n-1] != ' ':
			w.buf = append(w.buf, ' ')
			w.runes++
		}
	}
	w.pending = 0
	if w.runes >= w.max {
		panic(fullError{})
	}
	w.buf = utf8.AppendRune(w.buf, r)
	w.runes++
}

func isLetterByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}
