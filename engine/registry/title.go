package registry

import (
	"regexp"
	"strings"
	"unicode"

	"github.com/citegate/citegate/parse/textkit"
)

// The title rule. A registry's title and the citation's own words are
// reduced to sets of content words (fold below) and compared by coverage:
//
//	covR = |R ∩ C| / |R|  how much of the registry title the citation says
//	covC = |R ∩ C| / |C|  how much of the cited title is in the registry's
//
// covC counts only for a citation that is a title (link text), not for a
// whole reference line with authors and venue. The score is the larger of
// the two, so a cited main title without its subtitle, a truncated title
// and a registry title inside a longer reference line all score 1. Below
// MismatchBelow the titles clearly differ. A citation with fewer than
// MinTitleWords content words gives no title to compare.
//
// Thresholds measured on the development set (engine/internal/regeval,
// SOURCE note there): see the README's classification section.
const (
	MismatchBelow = 0.6
	MinTitleWords = 2
)

// Comparison is the outcome of comparing a registry title with a citation.
type Comparison struct {
	// Compared is false when the citation gives no title to compare.
	Compared bool
	// Agree is the titles agreeing (Score ≥ MismatchBelow).
	Agree bool
	Score float64
}

var (
	markup  = regexp.MustCompile(`<[^>]{0,200}>`)
	urlLike = regexp.MustCompile(`(?i)\b(?:https?://|www\.)\S+|\bdoi:\s*\S+|\barxiv:\s*\S+|\b10\.\d{4,9}/\S+`)
)

// stopwords are what a title's identity never rests on besides textkit's
// stop words: reference-list fillers and the words of link texts.
var stopwords = map[string]bool{
	"a": true, "an": true, "the": true, "of": true, "in": true, "on": true, "for": true, "and": true, "to": true,
	"with": true, "by": true, "from": true, "at": true, "as": true, "is": true, "are": true, "via": true, "its": true,
	"into": true, "or": true, "be": true, "we": true, "do": true, "et": true, "al": true, "pdf": true, "doi": true,
	"arxiv": true, "pubmed": true, "preprint": true, "abs": true, "journal": true, "proceeding": true, "vol": true,
	"pp": true, "no": true, "retracted": true, "article": true, "paper": true,
	// Words of link texts that name no work ("full text", "read more").
	"full": true, "text": true, "link": true, "here": true, "source": true, "read": true, "more": true, "online": true,
	"available": true, "view": true, "download": true, "website": true, "page": true, "abstract": true, "html": true,
}

// greek names Greek letters so "α-synuclein" and "alpha-synuclein" agree.
var greek = map[rune]string{
	'α': "alpha", 'β': "beta", 'γ': "gamma", 'δ': "delta", 'ε': "epsilon", 'ζ': "zeta", 'η': "eta", 'θ': "theta",
	'ι': "iota", 'κ': "kappa", 'λ': "lambda", 'μ': "mu", 'ν': "nu", 'ξ': "xi", 'ο': "omicron", 'π': "pi", 'ρ': "rho",
	'σ': "sigma", 'ς': "sigma", 'τ': "tau", 'υ': "upsilon", 'φ': "phi", 'χ': "chi", 'ψ': "psi", 'ω': "omega",
}

// fold reduces text to its set of content words: markup and URLs removed,
// Greek letters named, words as parse/textkit splits, folds (lower case,
// accents stripped) and stems them; numbers, one-letter words, textkit's
// stop words and the reference-list fillers above dropped.
func fold(s string) map[string]bool {
	s = urlLike.ReplaceAllString(markup.ReplaceAllString(s, " "), " ")
	var b strings.Builder
	for _, r := range s {
		if g := greek[unicode.ToLower(r)]; g != "" {
			b.WriteString(" " + g + " ")
			continue
		}
		b.WriteRune(r)
	}
	out := map[string]bool{}
	textkit.Words(b.String(), func(w string) bool {
		low := textkit.Fold(w)
		if len(low) >= 2 && !stopwords[low] && !textkit.Stop(low) && !isNumber(low) {
			out[textkit.Stem(low)] = true
		}
		return true
	})
	return out
}

func isNumber(w string) bool {
	for _, r := range w {
		if !unicode.IsDigit(r) {
			return false
		}
	}
	return true
}

// NamesVenue reports whether text only names the venue (a link text
// "PLOS ONE" or "Nature Communications"): every content word of it is in
// the registry's journal or publisher name. Such text is no title.
func NamesVenue(text string, venues ...string) bool {
	t := fold(text)
	if len(t) == 0 {
		return false
	}
	v := fold(strings.Join(venues, " "))
	return overlap(t, v) == len(t)
}

// Compare scores the registry title against the citation's title (link
// text) and its reference line; either may be empty.
func Compare(registryTitle, citedTitle, line string) Comparison {
	r := fold(registryTitle)
	if len(r) == 0 {
		return Comparison{}
	}
	var c Comparison
	if t := fold(citedTitle); len(t) >= MinTitleWords {
		common := overlap(r, t)
		c = Comparison{Compared: true, Score: max(ratio(common, len(r)), ratio(common, len(t)))}
	}
	if l := fold(line); len(l) >= MinTitleWords {
		c.Compared = true
		c.Score = max(c.Score, ratio(overlap(r, l), len(r)))
	}
	c.Agree = c.Compared && c.Score >= MismatchBelow
	return c
}

func overlap(a, b map[string]bool) int {
	n := 0
	for w := range a {
		if b[w] {
			n++
		}
	}
	return n
}

func ratio(n, d int) float64 {
	if d == 0 {
		return 0
	}
	return float64(n) / float64(d)
}
