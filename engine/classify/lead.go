package classify

import (
	"strings"
	"unicode/utf8"
)

// What a page says about itself is in its title, its own headings and the
// start of its own prose — not in an example it shows. A guide to
// configuring custom 404 pages quotes "the page you're looking for can't
// be found" in a code block, a block quote or quotation marks, and has
// headings about 404s further down; a not-found page says it at the top,
// in its own words. The phrase rules read only these places.

// openingRunes: on a long page (a shop's not-found page over a product
// grid, say) a not-found sentence counts only in the page's opening, this
// many runes of prose at most, and before the first heading that is a
// headline of its own.
const openingRunes = 400

// rawLead is the start of the readable text, markup's quoted material
// included: of the main element when the page has one, else of the page.
// Server templates are recognised by it (Express says "Cannot GET /x" in
// a <pre>).
func rawLead(in *pageInfo) string {
	t := in.text
	if m := in.mainElem.String(); m != "" {
		t = m
	}
	return runePrefix(t, leadRunes)
}

// proseLead is the start of the page's prose (of the main element when it
// has one), quoted spans removed.
func proseLead(in *pageInfo) string {
	t := in.prose.String()
	if m := in.mainProse.String(); m != "" {
		t = m
	}
	return unquoted(runePrefix(t, leadRunes))
}

// opening is the part of a long page's prose a not-found sentence may sit
// in: its first openingRunes, cut before the first heading of the main
// element (or of the page) unless that heading is itself only error words
// ("Oops!", "Whoops, our bad…", "404").
func opening(in *pageInfo) string {
	t, head, at := in.prose.String(), in.firstHeading(), -1
	if len(in.headAt) > 0 {
		at = in.headAt[0]
	}
	if m := in.mainProse.String(); m != "" {
		t, head, at = m, in.mainHead, in.mainHeadAt
		if head == "" {
			at = -1
		}
	}
	n := openingRunes
	if at >= 0 && !errorHeading(head) {
		n = min(n, at)
	}
	return unquoted(runePrefix(t, n))
}

// errorHeadingWords are the words of a heading that introduces an error
// message without naming a subject.
var errorHeadingWords = words2set(`our bad hmm huh whoa darn dang aw snap nothing here there is was uh oh well
	well this is embarrassing awkward lost`)

// errorHeading reports a heading made of error words and numbers only.
func errorHeading(h string) bool {
	f := fold(h)
	return f != "" && onlyWords(f, notFoundFiller, errorHeadingWords)
}

// ownHeadings are the headings that speak for the page: the first h1 (or
// first heading), the first heading of the main element, and any of the
// first headings that starts within the page's opening. A heading further
// down a long page is a section of it (a guide's "404 Not Found" section).
func ownHeadings(in *pageInfo) []string {
	out := make([]string, 0, headingsShown+2)
	add := func(h string) {
		if h != "" && !containsString(out, h) {
			out = append(out, h)
		}
	}
	add(in.firstHeading())
	add(in.mainHead)
	for i, h := range in.headings {
		if i == headingsShown {
			break
		}
		if i < len(in.headAt) && in.headAt[i] < openingRunes {
			add(h)
		}
	}
	return out
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// quotePairs are the quotation marks whose content is someone else's
// words: an example, a message quoted in a guide.
var quotePairs = map[rune]rune{'"': '"', '“': '”', '„': '“', '«': '»', '‹': '›', '「': '」', '『': '』', '”': '”'}

// quotedMax: a quotation longer than this (in bytes) is not a quoted
// message; an unmatched mark may open it.
const quotedMax = 600

// unquoted removes quoted spans from s.
func unquoted(s string) string {
	if !strings.ContainsAny(s, "\"“„«‹「『”") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		shut, ok := quotePairs[r]
		if ok {
			rest := s[i+n : min(len(s), i+n+quotedMax)]
			if j := strings.IndexRune(rest, shut); j >= 0 {
				b.WriteByte(' ')
				i += n + j + utf8.RuneLen(shut)
				continue
			}
		}
		b.WriteString(s[i : i+n])
		i += n
	}
	return b.String()
}

// runePrefix returns at most n runes of s.
func runePrefix(s string, n int) string {
	k := 0
	for i := range s {
		if k == n {
			return s[:i]
		}
		k++
	}
	return s
}
