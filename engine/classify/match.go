package classify

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/citegate/citegate/parse/textkit"
)

// Mismatch is judged conservatively: only when the citation names enough
// significant terms, the page is readable English-like text of some size,
// no cited term appears in the page's title, headings or description, and
// at most a fifth of them appear anywhere on the page. A link checker
// cannot read meaning; anything short of "clearly unrelated" stays valid
// and is left to the verify mode's judge.
const (
	minCiteTerms    = 3   // significant citation terms needed to judge
	minJudgeText    = 500 // page text (runes) needed to judge
	maxPageTokens   = 20000
	minEnglishRatio = 0.08 // share of English stop words in the page text
)

// shellPhrases mark a page whose content is rendered by script.
var shellPhrases = phrases(
	"enable javascript", "javascript is disabled", "javascript is required", "requires javascript",
	"turn on javascript", "javascript must be enabled", "browser is not supported", "update your browser",
)

// shellPage reports a page whose text asks for script or a newer browser.
func shellPage(in *pageInfo) bool {
	_, ok := firstPhrase(fold(runePrefix(in.text, 4000)), shellPhrases)
	return ok
}

// genericWords carry no topic in a citation line.
var genericWords = map[string]bool{
	"article": true, "news": true, "report": true, "reports": true, "source": true, "sources": true,
	"page": true, "website": true, "site": true, "web": true, "online": true, "official": true,
	"blog": true, "post": true, "retrieved": true, "accessed": true, "available": true, "pdf": true,
	"html": true, "www": true, "http": true, "https": true, "com": true, "org": true, "net": true,
	"link": true, "read": true, "here": true, "says": true, "said": true, "home": true, "homepage": true,
	"index": true, "overview": true, "guide": true, "documentation": true, "docs": true, "see": true,
	"paper": true, "study": true, "data": true, "info": true, "information": true, "update": true,
	"updated": true, "published": true, "edu": true, "gov": true,
}

// stem and words are the shared tools (textkit): a crude stemmer of
// this package's own used to fold "batteries"/"battery"; Porter's does.
func stem(w string) string { return textkit.Stem(w) }

func words(low string, f func(w string) bool) { textkit.Words(low, f) }

// significant: not a stop word, not generic, not a number, 3 to 30 runes
// (longer "words" are identifiers, not topics).
func significant(w string) bool {
	if n := utf8.RuneCountInString(w); n < 3 || n > 30 || textkit.Stop(w) || genericWords[w] {
		return false
	}
	for _, r := range w {
		if !unicode.IsDigit(r) {
			return true
		}
	}
	return false
}

// stripURLs removes http(s) URLs and markdown link targets from a citation
// line, whose words would otherwise be matched against the page.
func stripURLs(s string) string {
	var b strings.Builder
	for _, f := range strings.Fields(s) {
		low := strings.ToLower(f)
		if i := strings.Index(low, "http://"); i >= 0 {
			f = f[:i]
		} else if i := strings.Index(low, "https://"); i >= 0 {
			f = f[:i]
		} else if strings.HasPrefix(low, "www.") {
			continue
		}
		b.WriteString(f)
		b.WriteByte(' ')
	}
	return b.String()
}

// citationTerms are the distinct stems of the citation's significant words,
// without words found in the site's host name (site identity is not topic).
func citationTerms(c Citation, p Page) (stems []string, shown []string) {
	host := ""
	for _, s := range []string{p.RequestedURL, finalURL(p)} {
		if u := parseURL(s); u != nil {
			host += " " + strings.ToLower(u.Hostname())
		}
	}
	seen := map[string]bool{}
	text := lowerText(stripURLs(c.LinkText + " " + c.SourceLine))
	words(text, func(w string) bool {
		// "Daily" and "Planet" name dailyplanet.example, not a topic.
		if !significant(w) || strings.Contains(host, w) {
			return true
		}
		if s := stem(w); !seen[s] {
			seen[s] = true
			stems = append(stems, s)
			shown = append(shown, w)
		}
		return true
	})
	return stems, shown
}

// contentMismatch explains why the page clearly is not what was cited, or
// returns the zero finding.
func contentMismatch(c Citation, p Page, in *pageInfo) finding {
	stems, shown := citationTerms(c, p)
	if len(stems) < minCiteTerms {
		return finding{}
	}
	title := in.bestTitle()
	if title == "" || in.mainRunes < minJudgeText {
		return finding{}
	}
	// An app shell or a generic landing title says nothing about the
	// content behind it.
	if in.mainRunes < 2*wallThin && shellPage(in) {
		return finding{}
	}
	if t := lowerText(title); t == lowerText(in.siteName) || t == lowerText(in.appName) {
		return finding{}
	}
	// The page's head: titles, headings, descriptions, its own URL path.
	head := map[string]bool{}
	addStems := func(set map[string]bool, s string) {
		words(lowerText(s), func(w string) bool {
			set[stem(w)] = true
			return true
		})
	}
	for _, s := range []string{in.title, in.ogTitle, in.pTitle, in.h1, in.twTitle, in.ldHeadline, in.metaDesc, in.ogDesc} {
		addStems(head, s)
	}
	if u := parseURL(finalURL(p)); u != nil {
		addStems(head, strings.NewReplacer("-", " ", "_", " ", "/", " ").Replace(u.Path))
	}
	body := map[string]bool{}
	n, stop := 0, 0
	words(in.lowText(), func(w string) bool {
		n++
		if textkit.Stop(w) {
			stop++
		}
		body[stem(w)] = true
		return n < maxPageTokens
	})
	if n == 0 || float64(stop)/float64(n) < minEnglishRatio {
		return finding{} // not English-like text: overlap says nothing
	}
	headHits, hits := 0, 0
	for _, s := range stems {
		switch {
		case head[s]:
			headHits++
			hits++
		case body[s]:
			hits++
		}
	}
	if headHits > 0 || hits*5 > len(stems) {
		return finding{}
	}
	list := shown
	if len(list) > 5 {
		list = append(list[:5:5], "…")
	}
	return finding{"cited-terms", strconv.Itoa(hits) + " of " + strconv.Itoa(len(stems)) + " cited terms on page (" +
		strings.Join(list, ", ") + "), title " + evidence(title)}
}
