package classify

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/citegate/citegate/netguard"
)

// snippetMax is the evidence_snippet limit in runes, "…" included.
const snippetMax = 240

// dropRune reports runes removed from every output string: control
// characters, bidi overrides/isolates and zero-width characters, which can
// spoof a terminal or a report.
func dropRune(r rune) bool {
	switch {
	case r < 0x20 && r != '\t' && r != '\n' && r != '\r' && r != '\f' && r != '\v':
		return true
	case r == 0x7f || (r >= 0x80 && r < 0xa0):
		return true
	case r >= 0x200b && r <= 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x2060 && r <= 0x2069, r == 0xfeff:
		return true
	case r == utf8.RuneError:
		return true
	}
	return false
}

// isSpace is unicode white space (NBSP and friends included).
func isSpace(r rune) bool {
	if r < utf8.RuneSelf {
		return asciiSpace[r]
	}
	return unicode.IsSpace(r)
}

var asciiSpace = [256]bool{'\t': true, '\n': true, '\v': true, '\f': true, '\r': true, ' ': true}

// collapse turns every run of white space into one space, drops control and
// invisible characters and invalid UTF-8, and trims.
func collapse(s string) string {
	clean := true
	prevSpace := true
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf || c < 0x20 || c == 0x7f || (c == ' ' && prevSpace) {
			clean = false
			break
		}
		prevSpace = c == ' '
	}
	if clean && !prevSpace {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range s {
		switch {
		case isSpace(r):
			space = b.Len() > 0
		case dropRune(r):
		default:
			if space {
				b.WriteByte(' ')
				space = false
			}
			b.WriteRune(r)
		}
	}
	return b.String()
}

// cleanLine is collapse plus redaction, then a rune cap with "…".
func cleanLine(s string, max int) string {
	s = collapse(window(s, 16*max))
	if s == "" {
		return ""
	}
	s = collapse(netguard.RedactText(s))
	return cutRunes(s, max)
}

// window cuts s to at most n bytes, at white space when there is some in
// the second half, so that redaction sees whole words (a token, a URL).
func window(s string, n int) string {
	if len(s) <= n {
		return s
	}
	w := s[:n]
	if sp := strings.LastIndexFunc(w, unicode.IsSpace); sp > n/2 {
		w = w[:sp]
	}
	return w
}

// cutRunes cuts s to at most max runes, "…" included, preferring a word
// boundary.
func cutRunes(s string, max int) string {
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	// Byte offset of the (max-1)th rune.
	end, n := 0, 0
	for i := range s {
		if n == max-1 {
			end = i
			break
		}
		n++
	}
	cut := s[:end]
	if sp := strings.LastIndexByte(cut, ' '); sp > end*2/3 {
		cut = cut[:sp]
	}
	cut = strings.TrimRightFunc(cut, func(r rune) bool {
		return r == ' ' || r == ',' || r == ';' || r == ':' || r == '-' || r == '(' || r == '–' || r == '—'
	})
	return cut + "…"
}

// makeSnippet builds the evidence_snippet from readable text: collapsed,
// redacted, without anything that could read as markup, at most snippetMax
// runes cut on a word boundary.
func makeSnippet(s string) string {
	if s == "" {
		return ""
	}
	// Redact a window a little larger than the snippet.
	s = collapse(netguard.RedactText(collapse(window(s, 4096))))
	s = strings.Map(func(r rune) rune {
		switch r {
		case '<':
			return '‹'
		case '>':
			return '›'
		}
		return r
	}, s)
	s = cutRunes(s, snippetMax)
	// A cut can leave the start of a secret-shaped word that only the whole
	// word matched; redact the result once more and re-cut if it grew.
	if r := netguard.RedactText(s); r != s {
		s = cutRunes(collapse(r), snippetMax)
	}
	return s
}

// quote renders a page string for a reason: collapsed, capped, Go-quoted.
func quote(s string) string {
	return strconv.Quote(cutRunes(collapse(s), 80))
}

// lowerText lowercases s for phrase matching and folds typographic quotes
// to ASCII, so "doesn’t" matches "doesn't".
func lowerText(s string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case '’', '‘', 'ʼ', '′':
			return '\''
		case '“', '”':
			return '"'
		case '\u00a0':
			return ' '
		}
		return unicode.ToLower(r)
	}, s)
}

// textAcc accumulates readable text: it counts the runes of the collapsed
// text and keeps its first max bytes.
type textAcc struct {
	buf   []byte
	max   int
	runes int
	space bool // a separator is pending
	full  bool // buf reached max
}

// sep marks a boundary between blocks (a pending single space).
func (a *textAcc) sep() { a.space = true }

// add appends a chunk of text, collapsing white space as it goes.
func (a *textAcc) add(b []byte) {
	for i := 0; i < len(b); {
		c := b[i]
		if c < utf8.RuneSelf {
			i++
			if asciiSpace[c] || c < 0x20 || c == 0x7f {
				a.space = true
				continue
			}
			a.emitSpace()
			a.runes++
			a.keep(c)
			continue
		}
		r, n := utf8.DecodeRune(b[i:])
		i += n
		if unicode.IsSpace(r) {
			a.space = true
			continue
		}
		if dropRune(r) {
			continue
		}
		a.emitSpace()
		a.runes++
		if !a.full && len(a.buf)+n <= a.max {
			a.buf = utf8.AppendRune(a.buf, r)
		} else {
			a.full = true
		}
	}
}

func (a *textAcc) keep(c byte) {
	if !a.full && len(a.buf) < a.max {
		a.buf = append(a.buf, c)
	} else {
		a.full = true
	}
}

func (a *textAcc) emitSpace() {
	if a.space {
		a.space = false
		if a.runes > 0 {
			a.runes++
			a.keep(' ')
		}
	}
}

// String is the kept collapsed text.
func (a *textAcc) String() string { return string(a.buf) }
