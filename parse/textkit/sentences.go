package textkit

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Span is a byte range of a text.
type Span struct{ Start, End int }

// TerminatorLen is the length of the sentence terminator at src[i] ('.',
// '!', '?' or their CJK forms), or 0.
func TerminatorLen(src []byte, i int) int {
	switch c := src[i]; {
	case c == '.' || c == '!' || c == '?':
		return 1
	case c >= 0x80:
		r, n := utf8.DecodeRune(src[i:])
		if r == '。' || r == '！' || r == '？' {
			return n
		}
	}
	return 0
}

// closers may follow a terminator and still belong to its sentence.
const closers = "\"')]*_”’»"

// SentenceEnd decides whether the terminator at src[i] (of length tl) ends
// a sentence of src[:limit], and where: after any further terminators and
// closing quotes and brackets, when white space (or a mark) follows, the
// next word does not start in lower case, and a '.' does not end an
// abbreviation or an initial. mark, if not nil, reports a span starting at
// j that belongs to the sentence before it (a citation after the full
// stop: "… rose.[1] Next") and where it ends. It is the one rule of every
// sentence splitter in citegate.
func SentenceEnd(src []byte, i, tl, limit int, mark func(j int) (int, bool)) (int, bool) {
	if src[i] == '.' && Abbreviation(src, i) {
		return 0, false
	}
	j := i + tl
	for j < limit {
		if t := TerminatorLen(src, j); t > 0 {
			j += t
			continue
		}
		r, n := utf8.DecodeRune(src[j:])
		if !strings.ContainsRune(closers, r) {
			break
		}
		j += n
	}
	// CJK text puts no space after a full stop.
	cjk := tl > 1
	if j < limit && !isSpace(src[j]) && !cjk {
		if mark == nil {
			return 0, false
		}
		if _, ok := mark(j); !ok {
			return 0, false
		}
	}
	end, k := j, j
	for mark != nil {
		k = skipSpace(src, k, limit)
		if k >= limit {
			break
		}
		m, ok := mark(k)
		if !ok {
			break
		}
		end, k = m, m
	}
	k = skipSpace(src, k, limit)
	if k < limit {
		r, _ := utf8.DecodeRune(src[k:])
		if unicode.IsLower(r) {
			return 0, false
		}
	}
	return end, true
}

// abbreviations do not end a sentence when followed by '.'.
var abbreviations = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`al e.g i.e vs cf fig figs eq eqs no nos vol vols pp ed eds mr mrs ms dr prof
	st jr sr approx ca est dept univ sec ch chap op viz resp ref refs jan feb mar apr jun jul aug sep sept oct
	nov dec inc ltd corp co gov n.d ph.d etc gen sen rep u.s u.k`) {
		m[w] = true
	}
	return m
}()

// Abbreviation reports whether the '.' at src[i] ends an abbreviation or
// an initial ("Dr.", "J.", "U.S.", "e.g.") rather than a sentence.
func Abbreviation(src []byte, i int) bool {
	k := i
	for k > 0 && i-k < 12 {
		r, n := utf8.DecodeLastRune(src[:k])
		if !unicode.IsLetter(r) && r != '.' {
			break
		}
		k -= n
	}
	if k > 0 && i-k >= 12 {
		return false // a long word, not an abbreviation
	}
	tok := strings.ToLower(string(src[k:i]))
	if tok == "" {
		return false
	}
	if abbreviations[tok] {
		return true
	}
	// Initials and dotted initialisms: "J.", "U.S.", "e.g."
	letters := 0
	for _, part := range strings.Split(tok, ".") {
		if utf8.RuneCountInString(part) > 1 {
			return false
		}
		letters++
	}
	return letters >= 1 && (utf8.RuneCountInString(tok) == 1 || strings.Contains(tok, "."))
}

// Sentences splits plain text into sentences: SentenceEnd's rule, plus a
// blank line, and a line break before a line that does not start in lower
// case (headings, list items and table rows of a page's readable text).
// Spans are trimmed of white space; empty ones are left out.
func Sentences(text string) []Span {
	src := []byte(text)
	var out []Span
	start := 0
	emit := func(end int) {
		s, e := start, end
		for s < e && isSpace(src[s]) {
			s++
		}
		for e > s && isSpace(src[e-1]) {
			e--
		}
		if e > s {
			out = append(out, Span{s, e})
		}
		start = end
	}
	for i := 0; i < len(src); {
		if src[i] == '\n' {
			k := skipBlank(src, i+1)
			if k >= len(src) || src[k] == '\n' {
				emit(i + 1)
				i++
				continue
			}
			r, _ := utf8.DecodeRune(src[k:])
			if !unicode.IsLower(r) {
				emit(i + 1)
			}
			i++
			continue
		}
		tl := TerminatorLen(src, i)
		if tl == 0 {
			i++
			continue
		}
		if end, ok := SentenceEnd(src, i, tl, len(src), nil); ok {
			emit(end)
			i = max(end, i+tl)
			continue
		}
		i += tl
	}
	emit(len(src))
	return out
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

func skipSpace(src []byte, i, limit int) int {
	for i < limit && (src[i] == ' ' || src[i] == '\t' || src[i] == '\n' || src[i] == '\r') {
		i++
	}
	return i
}

func skipBlank(src []byte, i int) int {
	for i < len(src) && (src[i] == ' ' || src[i] == '\t' || src[i] == '\r') {
		i++
	}
	return i
}
