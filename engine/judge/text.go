package judge

import (
	"github.com/citegate/citegate/parse/textkit"
	"math"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// tokKind classifies a token for the lexical judge.
type tokKind uint8

const (
	tokStop   tokKind = iota // carries no content
	tokWord                  // content word
	tokLight                 // reporting/hedging word, low weight
	tokNumber                // a figure; key is "#<value>"
	tokNeg                   // negation cue
)

type token struct {
	text   string // as written
	low    string
	kind   tokKind
	key    string // match key: "#95", "=INCREASE" (a concept) or the stem
	opp    string // the opposite concept's key, if any
	capped bool   // starts with an upper-case letter
	strong bool   // acronym, mixed case or letters+digits: a name by its shape
	first  bool   // first word of its sentence
}

// tokenize splits s into tokens. Words are runs of letters and digits,
// with an apostrophe inside a word, and "." or "," inside a figure
// ("3.5", "1,200"), kept; anything else separates.
func tokenize(s string) []token {
	var toks []token
	first := true
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if !isWordRune(r) {
			if (r == '.' || r == '?' || r == '\n') || (r == '!' && !(i > 0 && len(toks) > 0 && toks[len(toks)-1].capped && !toks[len(toks)-1].first)) {
				first = true
			}
			i += n
			continue
		}
		j := i + n
		for j < len(s) {
			r2, n2 := utf8.DecodeRuneInString(s[j:])
			if isWordRune(r2) {
				j += n2
				continue
			}
			if j+n2 < len(s) {
				next, _ := utf8.DecodeRuneInString(s[j+n2:])
				prev, _ := utf8.DecodeLastRuneInString(s[:j])
				switch {
				case (r2 == '\'' || r2 == '’') && unicode.IsLetter(prev) && unicode.IsLetter(next):
					j += n2
					continue
				case r2 == '.' && isDigit(s[j-1]) && isDigitRune(next):
					j += n2
					continue
				case r2 == ',' && isDigit(s[j-1]) && thousandsGroup(s[j+1:]):
					j += n2
					continue
				case r2 == '-' && isWordRune(prev) && isWordRune(next) && hyphenName(s[i:j], s[j+1:]):
					// "COVID-19", "SARS-CoV-2", "B-52": one name, not a
					// word and a figure.
					j += n2
					continue
				}
			}
			break
		}
		if k := gluedUnit(s[i:j]); k > 0 {
			// "2.3kg": the figure, then its unit as a word of its own.
			toks = append(toks, makeToken(s[i:i+k], first), makeToken(s[i+k:j], false))
		} else {
			toks = append(toks, makeToken(s[i:j], first))
		}
		first = false
		i = j
	}
	return combineNumbers(toks)
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// hyphenName reports whether a hyphen between word (so far) and rest joins
// the parts of one name: the word has a capital letter and the part after
// the hyphen is a number or has a capital letter too.
func hyphenName(word, rest string) bool {
	if strings.IndexFunc(word, unicode.IsUpper) < 0 {
		return false
	}
	k := 0
	digits, upper := true, false
	for _, r := range rest {
		if !isWordRune(r) {
			break
		}
		k++
		if !unicode.IsDigit(r) {
			digits = false
		}
		if unicode.IsUpper(r) {
			upper = true
		}
	}
	return k > 0 && (digits || upper)
}
func isDigit(c byte) bool { return c >= '0' && c <= '9' }
func isDigitRune(r rune) bool {
	return r >= '0' && r <= '9'
}

// thousandsGroup reports whether s starts with exactly three digits.
func thousandsGroup(s string) bool {
	if len(s) < 3 || !isDigit(s[0]) || !isDigit(s[1]) || !isDigit(s[2]) {
		return false
	}
	return len(s) == 3 || !isDigit(s[3])
}

func makeToken(w string, first bool) token {
	t := token{text: w, first: first}
	r, _ := utf8.DecodeRuneInString(w)
	t.capped = unicode.IsUpper(r)
	low := textkit.Fold(strings.ReplaceAll(w, "’", "'")) // "Jürgen" and "Jurgen" are one name
	if isDigit(w[0]) {
		if key, ok := numberKey(low); ok {
			t.low, t.kind, t.key = low, tokNumber, key
			return t
		}
		// "3d", "5g": a name by its shape.
		t.low, t.kind, t.key, t.strong = low, tokWord, low, true
		return t
	}
	if strings.HasSuffix(low, "n't") {
		t.low, t.kind, t.key = low, tokNeg, "!"
		return t
	}
	low = strings.TrimSuffix(low, "'s")
	low = strings.TrimSuffix(low, "'")
	t.low = low
	switch {
	case negationCues[low]:
		t.kind, t.key = tokNeg, "!"
		return t
	case numberWords[low] != 0:
		t.kind, t.key = tokNumber, "#"+formatNumber(numberWords[low])
		return t
	}
	if k := degreeWords[low]; k != "" {
		t.kind, t.key = tokWord, k // "PhD" is a degree, whatever its shape
		return t
	}
	upper, lower, digits := 0, 0, 0
	for _, c := range w {
		switch {
		case unicode.IsUpper(c):
			upper++
		case unicode.IsLower(c):
			lower++
		case unicode.IsDigit(c):
			digits++
		}
	}
	// Acronyms (WHO, NASA), mixed case (mRNA, iPhone), letters with
	// digits (H5N1, COVID19).
	t.strong = (upper >= 2 && lower == 0) || (upper >= 1 && lower > 0 && !t.capped) ||
		(upper >= 2 && lower > 0 && hasInnerUpper(w)) || digits > 0
	if t.strong {
		t.kind, t.key = tokWord, low
		return t
	}
	stem := stemWord(low)
	switch {
	case textkit.Stop(low) || len(low) < 2:
		t.kind = tokStop
		return t
	case multipliers[low] != 0:
		t.kind = tokStop // consumed by combineNumbers when after a figure
		return t
	case lightWords[low]:
		t.kind, t.key = tokLight, stem
		return t
	}
	// A capitalised word inside a sentence is a name ("Rose", "Best"), not
	// a concept.
	if c, ok := lookupConcept(low, stem); ok && !(t.capped && !first) {
		t.kind, t.key = tokWord, "="+c.key
		if c.opposite != "" {
			t.opp = "=" + c.opposite
		}
		return t
	}
	t.kind, t.key = tokWord, stem
	return t
}

// hasInnerUpper reports an upper-case letter after the first rune
// ("McDonald", "OpenAI").
func hasInnerUpper(w string) bool {
	_, n := utf8.DecodeRuneInString(w)
	for _, c := range w[n:] {
		if unicode.IsUpper(c) {
			return true
		}
	}
	return false
}

// stemWord is the shared stemmer (textkit.Stem).
func stemWord(low string) string { return textkit.Stem(low) }

// numberKey reads a figure token ("1,200", "3.50", "1990s", "5th", "10k")
// as its match key.
func numberKey(low string) (string, bool) {
	end := 0
	for end < len(low) && (isDigit(low[end]) || low[end] == '.' || low[end] == ',') {
		end++
	}
	v, err := strconv.ParseFloat(strings.ReplaceAll(low[:end], ",", ""), 64)
	if err != nil || math.IsInf(v, 0) {
		return "", false
	}
	switch suffix := low[end:]; suffix {
	case "":
		return "#" + formatNumber(v), true
	case "st", "nd", "rd", "th":
		return "#" + formatNumber(v) + "th", true
	case "s":
		return "#" + formatNumber(v) + "s", true
	case "k":
		return "#" + formatNumber(v*1e3), true
	case "bn":
		return "#" + formatNumber(v*1e9), true
	}
	if unitSuffix[low[end:]] {
		// "2.3kg", "40km": the figure with its unit glued on is the figure.
		return "#" + formatNumber(v), true
	}
	return "", false
}

// gluedUnit returns where the unit starts in a figure written with its
// unit glued on ("2.3kg"), or 0.
func gluedUnit(w string) int {
	if !isDigit(w[0]) {
		return 0
	}
	end := 0
	for end < len(w) && (isDigit(w[end]) || w[end] == '.' || w[end] == ',') {
		end++
	}
	if end < len(w) && unitSuffix[strings.ToLower(w[end:])] {
		return end
	}
	return 0
}

// unitSuffix are units written glued to a figure ("2.3kg", "5ft", "60mph").
// "m" is left out (metres or millions), and "s" ("1990s").
var unitSuffix = setOf(`kg g mg µg mcg t lb lbs oz km cm mm nm µm mi ft in yd ml l cl kw mw gw kwh mwh
	gwh w v kv hz khz mhz ghz gb mb tb kb mph kmh kph km2 m2 ha ac sqft yo yr yrs hr hrs h min mins
	sec secs ms bp kbp mbp pc`)

func formatNumber(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// combineNumbers applies multipliers ("1.2 million" is 1200000, "three
// hundred" 300) and joins tens and units ("twenty-five" is 25).
func combineNumbers(toks []token) []token {
	out := toks[:0]
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if t.kind == tokNumber && i+1 < len(toks) {
			v, plain := plainNumber(t.key)
			next := toks[i+1]
			if m := multipliers[next.low]; plain && m != 0 {
				t.key = "#" + formatNumber(v*m)
				t.text += " " + next.text
				i++
			} else if plain && v >= 20 && v <= 90 && math.Mod(v, 10) == 0 && next.kind == tokNumber {
				if u, ok := plainNumber(next.key); ok && u >= 1 && u <= 9 && numberWords[next.low] != 0 {
					t.key = "#" + formatNumber(v+u)
					t.text += "-" + next.text
					i++
				}
			} else if plain && next.low == "hundred" {
				t.key = "#" + formatNumber(v*100)
				t.text += " " + next.text
				i++
			}
		}
		out = append(out, t)
	}
	return out
}

// plainNumber returns the value of a "#<number>" key without a suffix.
func plainNumber(key string) (float64, bool) {
	if !strings.HasPrefix(key, "#") {
		return 0, false
	}
	v, err := strconv.ParseFloat(key[1:], 64)
	return v, err == nil
}

// ---- sentences and passages ----

// span is a byte range of the source text.
type span struct{ start, end int }

const (
	// maxUnit is the longest sentence kept whole; longer ones are cut into
	// chunks of about unitChunk bytes at spaces.
	maxUnit   = 400
	unitChunk = 300
)

// splitUnits splits text into sentences (textkit.Sentences, the one
// sentence splitter), then splits each at clause breaks and cuts long ones
// into chunks.
func splitUnits(text string) []span {
	var units []span
	for _, sp := range joinNameBangs(text, textkit.Sentences(text)) {
		for _, c := range splitClauses(text, span{sp.Start, sp.End}) {
			units = append(units, chunk(text, c)...)
		}
	}
	return units
}

func isSpaceByte(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// chunk cuts a unit longer than maxUnit into pieces of about unitChunk
// bytes, at spaces.
func chunk(text string, u span) []span {
	if u.end-u.start <= maxUnit {
		return []span{u}
	}
	var out []span
	s := u.start
	for u.end-s > maxUnit {
		cut := s + unitChunk
		for cut < u.end && cut < s+maxUnit && text[cut] != ' ' {
			cut++
		}
		for cut > s+1 && !utf8.RuneStart(text[cut]) {
			cut--
		}
		out = append(out, span{s, cut})
		s = cut
		for s < u.end && isSpaceByte(text[s]) {
			s++
		}
	}
	if s < u.end {
		out = append(out, span{s, u.end})
	}
	return out
}

// clauseBreaks separate clauses that state different things ("exports
// fell, while imports rose"); each clause is its own unit, and adjacent
// units are still judged together.
var clauseBreaks = regexp.MustCompile(`,\s+(?:while|whereas|but|although|though)\s+|;\s+|\s+but\s+`)

// splitClauses cuts a sentence at clauseBreaks.
func splitClauses(text string, u span) []span {
	var out []span
	s := u.start
	for _, m := range clauseBreaks.FindAllStringIndex(text[u.start:u.end], -1) {
		if m[0] == 0 {
			continue
		}
		out = append(out, span{s, u.start + m[0]})
		s = u.start + m[1]
	}
	if s < u.end {
		out = append(out, span{s, u.end})
	}
	return out
}

// joinNameBangs rejoins sentences split at a "!" that is part of a name
// ("Panic! At the Disco", "Yahoo! Inc", "Jeopardy!"): a "!" glued to a
// capitalised word that does not start its sentence, followed by a
// capitalised word. An exclamation in running prose follows a lower-case
// word ("we won!") and stays a sentence end.
func joinNameBangs(text string, sents []textkit.Span) []textkit.Span {
	out := make([]textkit.Span, 0, len(sents))
	for _, sp := range sents {
		if n := len(out); n > 0 && nameBang(text[out[n-1].Start:out[n-1].End]) && startsCapital(text[sp.Start:sp.End]) {
			out[n-1].End = sp.End
			continue
		}
		out = append(out, sp)
	}
	return out
}

// nameBang reports a sentence that ends in "!" right after a capitalised
// word that is not its first word.
func nameBang(s string) bool {
	s = strings.TrimRight(s, " \t\n\r\"'”’)")
	if !strings.HasSuffix(s, "!") {
		return false
	}
	s = strings.TrimRight(s, "!")
	i := strings.LastIndexFunc(s, func(r rune) bool { return !isWordRune(r) })
	word := s[i+1:]
	if word == "" || i < 0 {
		return false // the "!" word is the sentence's first: an exclamation
	}
	r, _ := utf8.DecodeRuneInString(word)
	return unicode.IsUpper(r)
}

func startsCapital(s string) bool {
	s = strings.TrimLeft(s, " \t\n\r\"'“‘(")
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsUpper(r) || unicode.IsDigit(r)
}
