package classify

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Phrase matching across languages. Page strings (titles, headings, the
// lead of the text) are folded before they are compared with the phrase
// tables: lower case, diacritics removed ("Stránka nenalezena" and the
// transliterated "Stranka nenalezena" meet), typographic apostrophes made
// ASCII, and every other punctuation mark turned into a space, so that a
// phrase matches whole words whatever punctuation surrounds it ("Not found
// (404)" folds to "not found 404"). The phrase tables are folded with the
// same function when the package loads, so they can be written naturally.

// foldMax bounds the bytes of one string that are folded; callers fold
// titles, headings and text windows, never whole bodies.
const foldMax = 64 << 10

// letterMap folds letters that Unicode does not decompose into a base
// letter plus a mark.
var letterMap = map[rune]string{
	'ł': "l", 'Ł': "l", 'ß': "ss", 'ø': "o", 'Ø': "o", 'đ': "d", 'Đ': "d", 'æ': "ae", 'Æ': "ae",
	'œ': "oe", 'Œ': "oe", 'ı': "i", 'þ': "th", 'ð': "d", 'ħ': "h",
}

// fold returns s folded for phrase matching: words separated by single
// spaces, no leading or trailing space. Apostrophes inside a word are kept
// ("doesn't"); CJK text keeps its characters (it has no spaces to match on).
func fold(s string) string {
	if len(s) > foldMax {
		s = s[:foldMax]
	}
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if !ascii {
		s = norm.NFKD.String(s)
	}
	var b strings.Builder
	b.Grow(len(s))
	space := false
	emit := func(r rune) {
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		b.WriteRune(r)
	}
	rs := []rune(s)
	for i, r := range rs {
		switch {
		case r < utf8.RuneSelf:
			switch {
			case 'A' <= r && r <= 'Z':
				emit(r + 'a' - 'A')
			case 'a' <= r && r <= 'z', '0' <= r && r <= '9':
				emit(r)
			case r == '\'':
				if i > 0 && i+1 < len(rs) && isWordRune(rs[i-1]) && isWordRune(rs[i+1]) {
					emit('\'')
				} else {
					space = true
				}
			default:
				space = true
			}
		case unicode.Is(unicode.Mc, r):
			// A spacing vowel sign (Devanagari, Bengali, Tamil, …) is part
			// of its word, not a separator.
			if b.Len() > 0 && !space {
				b.WriteRune(r)
			}
		case unicode.Is(unicode.Mn, r):
			// A combining mark left by NFKD: dropped after a Latin, Greek
			// or Cyrillic letter (an accent), kept elsewhere (kana voicing
			// marks change the letter).
			if i > 0 && !unicode.In(rs[i-1], unicode.Latin, unicode.Greek, unicode.Cyrillic) && b.Len() > 0 && !space {
				b.WriteRune(r)
			}
		case r == '’' || r == 'ʼ' || r == '‘' || r == '′':
			if i > 0 && i+1 < len(rs) && isWordRune(rs[i-1]) && isWordRune(rs[i+1]) {
				emit('\'')
			} else {
				space = true
			}
		case letterMap[r] != "":
			for _, c := range letterMap[r] {
				emit(c)
			}
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			emit(unicode.ToLower(r))
		default:
			space = true
		}
	}
	if ascii {
		return b.String()
	}
	return norm.NFC.String(b.String())
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// cjk reports a rune of a script written without spaces between words.
func cjk(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul, unicode.Thai)
}

// phrase is a folded phrase ready for matching.
type phrase struct {
	text  string // folded
	loose bool   // contains CJK: matched as a plain substring
}

// phrases folds a list of phrases written naturally.
func phrases(list ...string) []phrase {
	out := make([]phrase, 0, len(list))
	for _, s := range list {
		f := fold(s)
		if f == "" {
			continue
		}
		p := phrase{text: f}
		for _, r := range f {
			if cjk(r) {
				p.loose = true
				break
			}
		}
		out = append(out, p)
	}
	return out
}

// in reports whether the phrase occurs in folded text f as whole words.
func (p phrase) in(f string) bool {
	if p.loose {
		return strings.Contains(f, p.text)
	}
	for i := 0; ; {
		j := strings.Index(f[i:], p.text)
		if j < 0 {
			return false
		}
		at := i + j
		end := at + len(p.text)
		if (at == 0 || f[at-1] == ' ') && (end == len(f) || f[end] == ' ') {
			return true
		}
		i = at + 1
	}
}

// firstPhrase returns the first phrase of list found in folded text f.
func firstPhrase(f string, list []phrase) (string, bool) {
	if f == "" {
		return "", false
	}
	var words map[string]bool // built on first need: long texts, long lists
	for _, p := range list {
		if !p.loose && len(list) > 8 && len(f) > 2048 {
			if words == nil {
				words = make(map[string]bool, len(f)/6)
				for _, w := range strings.Fields(f) {
					words[w] = true
				}
			}
			if !words[p.first()] {
				continue
			}
		}
		if p.in(f) {
			return p.text, true
		}
	}
	return "", false
}

// first is the phrase's first word.
func (p phrase) first() string {
	if i := strings.IndexByte(p.text, ' '); i >= 0 {
		return p.text[:i]
	}
	return p.text
}

// removePhrase removes the first whole-word occurrence of p from f.
func removePhrase(f string, p phrase) string {
	if p.loose {
		return strings.TrimSpace(strings.Replace(f, p.text, " ", 1))
	}
	padded := " " + f + " "
	return strings.TrimSpace(strings.Replace(padded, " "+p.text+" ", " ", 1))
}

// wordSet is a set of folded words.
type wordSet map[string]bool

func words2set(list string) wordSet {
	m := wordSet{}
	for _, w := range strings.Fields(fold(list)) {
		m[w] = true
	}
	return m
}

// onlyWords reports whether every word of folded text f is in one of the
// sets or is a number.
func onlyWords(f string, sets ...wordSet) bool {
	for _, w := range strings.Fields(f) {
		if allDigits(w) {
			continue
		}
		ok := false
		for _, s := range sets {
			if s[w] {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

func allDigits(w string) bool {
	for i := 0; i < len(w); i++ {
		if w[i] < '0' || w[i] > '9' {
			return false
		}
	}
	return w != ""
}

// titleSeparators split a title into segments: site names, sections and
// the page's own title.
var titleSeparators = []string{" | ", " - ", " – ", " — ", " · ", " • ", " » ", " « ", " › ", " ‹ ", " :: ", ": ", " / ", " ~ ", " :"}

// titleParts splits a title at the usual separators and folds each part.
func titleParts(t string) []string {
	if t == "" {
		return nil
	}
	s := collapse(t)
	for _, sep := range titleSeparators {
		s = strings.ReplaceAll(s, sep, "\x00")
	}
	var out []string
	for _, part := range strings.Split(s, "\x00") {
		if f := fold(part); f != "" {
			out = append(out, f)
		}
	}
	return out
}
