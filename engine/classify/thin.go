package classify

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Thin pages: less than minMeaningful runes of readable text. A thin page
// is content only when it says something beyond its own name — a bot
// challenge, an app shell or a placeholder is often a <title> and nothing
// else (an AWS WAF challenge served with 200, say), and a title proves
// only that some server answered. So a thin page escalates (and becomes
// "blocked" when no rung sees more) unless it has
//
//   - at least titleOnlyText runes of text that do not repeat its title or
//     headline (a short contact page, a definition), or
//   - a description (meta or og:description) of minDescription runes that
//     is not its title again — what a page rendered by script still
//     carries server-side for link previews, written for that page.
//
// A page redirecting by script or meta refresh with almost no text is a
// redirect shell, and a thin page without any title has nothing to show.

// thinPage decides a page with less than minMeaningful runes of text, or
// returns the zero finding when it has content of its own.
func thinPage(p Page, in *pageInfo) finding {
	title := in.bestTitle()
	words := titleWords(in)
	desc := ownDescription(in, words)
	switch {
	case (in.refresh || in.jsRedirect) && in.mainRunes < shellText && desc == "":
		return finding{"redirect-shell", "a redirect by script or meta refresh, title " + evidence(title)}
	case title == "":
		return noContent(p, in, in.mainRunes)
	case ownRunes(in.text, words) < titleOnlyText && desc == "":
		return finding{"title-only", "title " + evidence(title) + ", " + strconv.Itoa(in.mainRunes) + " chars of text"}
	}
	return finding{}
}

// titleWords are the folded words of every name the page gives itself.
func titleWords(in *pageInfo) wordSet {
	set := wordSet{}
	for _, s := range []string{in.title, in.ogTitle, in.pTitle, in.h1, in.twTitle, in.ldHeadline, in.siteName, in.appName} {
		for _, w := range strings.Fields(fold(s)) {
			set[w] = true
		}
	}
	return set
}

// ownRunes counts the runes of the words of text that are not in names
// (with a separator after each): the text a page has besides its title.
func ownRunes(text string, names wordSet) int {
	n := 0
	for _, w := range strings.Fields(fold(text)) {
		if !names[w] {
			n += utf8.RuneCountInString(w) + 1
		}
	}
	return n
}

// ownDescription is the page's description when it is long enough and says
// more than the page's names, else "".
func ownDescription(in *pageInfo, names wordSet) string {
	for _, d := range []string{in.metaDesc, in.ogDesc} {
		if utf8.RuneCountInString(d) >= minDescription && ownRunes(d, names) >= titleOnlyText {
			return d
		}
	}
	return ""
}
