package textkit

// Porter's stemming algorithm (M.F. Porter, "An algorithm for suffix
// stripping", Program 14(3), 1980), for lower-case ASCII words. Words of
// one or two letters and words with other bytes are returned unchanged.
// The stems are not words ("approv", "effect", "vaccin"); they only need to
// be equal for the forms of one word.

func porterStem(w string) string {
	if len(w) <= 2 {
		return w
	}
	for i := 0; i < len(w); i++ {
		if w[i] < 'a' || w[i] > 'z' {
			return w
		}
	}
	b := []byte(w)
	b = step1a(b)
	b = step1b(b)
	b = step1c(b)
	b = step2(b)
	b = step3(b)
	b = step4(b)
	b = step5(b)
	return string(b)
}

// isCons reports whether b[i] is a consonant: not a vowel, and y only after
// a vowel (or at the start).
func isCons(b []byte, i int) bool {
	switch b[i] {
	case 'a', 'e', 'i', 'o', 'u':
		return false
	case 'y':
		return i == 0 || !isCons(b, i-1)
	}
	return true
}

// measure is m in [C](VC){m}[V] for b.
func measure(b []byte) int {
	n, i := 0, 0
	for i < len(b) && isCons(b, i) {
		i++
	}
	for i < len(b) {
		for i < len(b) && !isCons(b, i) {
			i++
		}
		if i >= len(b) {
			break
		}
		for i < len(b) && isCons(b, i) {
			i++
		}
		n++
	}
	return n
}

func hasVowel(b []byte) bool {
	for i := range b {
		if !isCons(b, i) {
			return true
		}
	}
	return false
}

// doubleCons is *d: b ends with a double consonant.
func doubleCons(b []byte) bool {
	n := len(b)
	return n >= 2 && b[n-1] == b[n-2] && isCons(b, n-1)
}

// cvc is *o: b ends consonant-vowel-consonant, the last not w, x or y.
func cvc(b []byte) bool {
	n := len(b)
	if n < 3 || !isCons(b, n-1) || isCons(b, n-2) || !isCons(b, n-3) {
		return false
	}
	c := b[n-1]
	return c != 'w' && c != 'x' && c != 'y'
}

func hasSuffix(b []byte, s string) bool {
	return len(b) >= len(s) && string(b[len(b)-len(s):]) == s
}

// replaceIf replaces suffix s by r when the stem before s has measure > m.
// It reports whether s matched (whatever the measure), so rule lists stop
// at the first matching suffix as Porter specifies.
func replaceIf(b []byte, s, r string, m int) ([]byte, bool) {
	if !hasSuffix(b, s) {
		return b, false
	}
	stem := b[:len(b)-len(s)]
	if measure(stem) > m {
		return append(stem, r...), true
	}
	return b, true
}

func step1a(b []byte) []byte {
	switch {
	case hasSuffix(b, "sses"):
		return b[:len(b)-2]
	case hasSuffix(b, "ies"):
		return b[:len(b)-2]
	case hasSuffix(b, "ss"):
		return b
	case hasSuffix(b, "s"):
		return b[:len(b)-1]
	}
	return b
}

func step1b(b []byte) []byte {
	if hasSuffix(b, "eed") {
		if measure(b[:len(b)-3]) > 0 {
			return b[:len(b)-1]
		}
		return b
	}
	var stem []byte
	switch {
	case hasSuffix(b, "ed") && hasVowel(b[:len(b)-2]):
		stem = b[:len(b)-2]
	case hasSuffix(b, "ing") && hasVowel(b[:len(b)-3]):
		stem = b[:len(b)-3]
	default:
		return b
	}
	switch {
	case hasSuffix(stem, "at"), hasSuffix(stem, "bl"), hasSuffix(stem, "iz"):
		return append(stem, 'e')
	case doubleCons(stem):
		if c := stem[len(stem)-1]; c != 'l' && c != 's' && c != 'z' {
			return stem[:len(stem)-1]
		}
	case measure(stem) == 1 && cvc(stem):
		return append(stem, 'e')
	}
	return stem
}

func step1c(b []byte) []byte {
	if hasSuffix(b, "y") && hasVowel(b[:len(b)-1]) {
		b[len(b)-1] = 'i'
	}
	return b
}

// Rule lists: a suffix ending another one in the same list comes first.
var step2Rules = [][2]string{
	{"ational", "ate"}, {"tional", "tion"}, {"enci", "ence"}, {"anci", "ance"},
	{"izer", "ize"}, {"bli", "ble"}, {"alli", "al"}, {"entli", "ent"}, {"eli", "e"},
	{"ousli", "ous"}, {"ization", "ize"}, {"ation", "ate"}, {"ator", "ate"},
	{"alism", "al"}, {"iveness", "ive"}, {"fulness", "ful"}, {"ousness", "ous"},
	{"aliti", "al"}, {"iviti", "ive"}, {"biliti", "ble"}, {"logi", "log"},
}

var step3Rules = [][2]string{
	{"icate", "ic"}, {"ative", ""}, {"alize", "al"}, {"iciti", "ic"},
	{"ical", "ic"}, {"ful", ""}, {"ness", ""},
}

var step4Suffixes = []string{
	"al", "ance", "ence", "er", "ic", "able", "ible", "ant", "ement", "ment", "ent",
	"ion", "ou", "ism", "ate", "iti", "ous", "ive", "ize",
}

func step2(b []byte) []byte {
	for _, r := range step2Rules {
		if out, ok := replaceIf(b, r[0], r[1], 0); ok {
			return out
		}
	}
	return b
}

func step3(b []byte) []byte {
	for _, r := range step3Rules {
		if out, ok := replaceIf(b, r[0], r[1], 0); ok {
			return out
		}
	}
	return b
}

func step4(b []byte) []byte {
	// Longest match first: "ement" before "ment" before "ent".
	best := ""
	for _, s := range step4Suffixes {
		if hasSuffix(b, s) && len(s) > len(best) {
			best = s
		}
	}
	if best == "" {
		return b
	}
	stem := b[:len(b)-len(best)]
	if measure(stem) <= 1 {
		return b
	}
	if best == "ion" {
		if n := len(stem); n == 0 || (stem[n-1] != 's' && stem[n-1] != 't') {
			return b
		}
	}
	return stem
}

func step5(b []byte) []byte {
	if hasSuffix(b, "e") {
		stem := b[:len(b)-1]
		if m := measure(stem); m > 1 || (m == 1 && !cvc(stem)) {
			b = stem
		}
	}
	if measure(b) > 1 && doubleCons(b) && b[len(b)-1] == 'l' {
		b = b[:len(b)-1]
	}
	return b
}
