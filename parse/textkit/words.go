package textkit

import (
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// Words calls f with each word of s — a run of letters and digits — in
// order, as written, stopping when f returns false.
func Words(s string, f func(w string) bool) {
	start := -1
	for i, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			if !f(s[start:i]) {
				return
			}
			start = -1
		}
	}
	if start >= 0 {
		f(s[start:])
	}
}

// WordList returns the words of s, lower-cased and accent-folded (Fold).
func WordList(s string) []string {
	var out []string
	Words(s, func(w string) bool {
		out = append(out, Fold(w))
		return true
	})
	return out
}

// Fold lower-cases w and strips its accents ("Müller" → "muller").
func Fold(w string) string {
	ascii := true
	for i := 0; i < len(w); i++ {
		if w[i] >= 0x80 {
			ascii = false
			break
		}
	}
	if ascii {
		return strings.ToLower(w)
	}
	var b strings.Builder
	for _, r := range norm.NFD.String(w) {
		if !unicode.Is(unicode.Mn, r) {
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}

// Stem is the stem of a lower-case word: British -ise spellings folded into
// -ize and -ly adverbs into their adjective (the same on both sides of a
// comparison, so a wrong fold costs nothing), then Porter's algorithm.
func Stem(low string) string {
	// Porter keeps most -ly adverbs ("regularly" → "regularli"); fold them
	// into their adjective first.
	if strings.HasSuffix(low, "ly") && len(low) > 5 {
		low = low[:len(low)-2]
	}
	for _, s := range [...][2]string{{"isation", "ization"}, {"ising", "izing"}, {"ised", "ized"}, {"ises", "izes"}, {"ise", "ize"}} {
		if strings.HasSuffix(low, s[0]) && len(low) > len(s[0])+2 {
			low = low[:len(low)-len(s[0])] + s[1]
			break
		}
	}
	return porterStem(low)
}

// Stop reports a lower-case English word that carries no content. Negation
// cues, "before"/"after" and comparison words are not stop words: they
// change what a sentence says.
func Stop(low string) bool { return stopWords[low] }

var stopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a about again against all also am an and any are as at be because been
	being between both but by can could did do does doing down during each few for from further had has
	have having he her here hers herself him himself his how i if in into is it its itself just me most
	my myself now of off on once only or other our ours ourselves out over own same she should so some
	such than that the their theirs them themselves then there these they this those through to too
	under until up very was we were what when where which while who whom why will with would you your
	yours yourself yourselves via per us may might must shall within upon yet however although though
	whether ever one ones percent per cent approximately about around roughly nearly almost some
	several many much well still its it's that's there's also etc including include includes included
	like such among amid across along whose whom unto toward towards onto`) {
		m[w] = true
	}
	return m
}()
