package classify

import (
	"crypto/sha256"
	"fmt"
	"net/url"
	"strings"
)

// The site probe (the classic soft-404 test, after Bar-Yossef et al.,
// "Sic transit gloria telae", WWW 2004): the ladder asks each host, once,
// for a URL that cannot exist there and keeps a Fingerprint of the answer.
// A cited page that looks like that answer is what the site says for
// pages it does not have. Comparing needs no phrase list, so it catches
// soft 404s in any language and template.
//
// "Looks like" is decided on three signals, any of which suffices:
//   - both requests were redirected and ended on the same URL (a catch-all
//     redirect to the home page or a search page);
//   - the bodies are byte-identical;
//   - the texts are near-identical: the Jaccard similarity of their word
//     sets is at least probeSameTitle when the titles are equal, or
//     probeSameText when they differ (the answer may echo the requested
//     path in its title), or at least probeSameHeadline when the titles
//     and the first headings are both equal. Words of either URL's path
//     are left out, for the same reason, and so are words with digits
//     (nonces, ids, dates and counts change on every request); or equal
//     titles, equal first headings and the same first probeLeadWords
//     words (a not-found message over a random product grid).

// ProbeName starts the last path segment of every probe URL, so that a log
// (or a test server) can tell probes from citations.
const ProbeName = "citegate-probe-"

// Similarity thresholds (Jaccard index of the folded word sets).
const (
	probeSameTitle = 0.85
	probeSameText  = 0.95
	// probeSameHeadline: equal titles and equal first headings leave only
	// the body to tell, and a random sidebar or product grid can be much
	// of a short page's words.
	probeSameHeadline = 0.6
	// probeLeadWords: equal titles, equal first headings and the same
	// opening words are the same template with the same message, however
	// different a random grid below them makes the rest.
	probeLeadWords = 20
	probeMinWords  = 5 // texts shorter than this are compared only by title and redirect
)

// Fingerprint is what a page looks like, for the comparison with a site's
// answer to a URL that cannot exist.
type Fingerprint struct {
	final      string // the URL the page ended on, fragment dropped
	redirected bool   // the request went through redirects
	title      string // folded
	headline   string // folded: the first h1, else the best title
	// places are the URLs that name this page, as urlKey: where it ended
	// (after a redirect), the URL it declares (rel=canonical, og:url), and
	// the URL requested. Home and search pages are left out: they name
	// every page a catch-all answers with.
	places []string
	// search is the host and path of the search page the request was
	// redirected to, if it was.
	search string
	// lead is the page's first probeLeadWords words (as in words), "" on
	// a shorter page: a not-found message opens the page, whatever grid
	// of products or stories follows it.
	lead string
	// shell: the page has almost no text, or text that only asks for
	// script or says it is loading (see Shell).
	shell bool
	words map[string]bool
	runes int
	hash  [32]byte
}

// FingerprintOf summarises a page for Like. It never panics and does no I/O.
func FingerprintOf(p Page) *Fingerprint {
	in := analyze(p, sniff(p))
	fp := &Fingerprint{final: stripFragment(finalURL(p)),
		title: fold(in.bestTitle()), runes: in.mainRunes, hash: sha256.Sum256(p.Body)}
	fp.redirected = len(p.Redirects) > 0
	fp.headline = fold(cmpOr(in.h1, in.bestTitle()))
	fp.places = placesOf(p, in)
	fp.shell = in.mainRunes < titleOnlyText || in.mainRunes < shellText && (shellPage(in) || loadingText(in))
	if f := parseURL(finalURL(p)); fp.redirected && f != nil && searchURL(f) {
		fp.search = strings.ToLower(f.Host) + f.EscapedPath()
	}
	skip := map[string]bool{}
	for _, s := range []string{p.RequestedURL, p.FinalURL} {
		if u := parseURL(s); u != nil {
			for _, w := range strings.Fields(fold(u.Path + " " + u.RawQuery)) {
				skip[w] = true
			}
		}
	}
	fp.words = map[string]bool{}
	var lead []string
	for _, w := range strings.Fields(fold(in.text)) {
		// Words with digits are ids, nonces, dates and counts: they change
		// from one request to the next and say nothing about the template.
		if !skip[w] && !strings.ContainsAny(w, "0123456789") {
			fp.words[w] = true
			if len(lead) < probeLeadWords {
				lead = append(lead, w)
			}
		}
	}
	if len(lead) == probeLeadWords {
		fp.lead = strings.Join(lead, " ")
	}
	return fp
}

func stripFragment(s string) string {
	if i := strings.IndexByte(s, '#'); i >= 0 {
		return s[:i]
	}
	return s
}

// Like compares the cited page's fingerprint c with the probe's answer p.
// It returns "" when they differ, else why they are the same.
func Like(c, p *Fingerprint) string {
	if c == nil || p == nil {
		return ""
	}
	if c.redirected && p.redirected && c.final == p.final {
		return "redirects where a page that does not exist redirects (" + shortURL(c.final) + ")"
	}
	if c.search != "" && c.search == p.search {
		return "redirects to the site's search where a page that does not exist does (" + cutRunes(c.search, 80) + ")"
	}
	if c.hash == p.hash && c.runes > 0 {
		return "the same page a URL that does not exist gets"
	}
	if len(c.words) < probeMinWords || len(p.words) < probeMinWords {
		if c.title != "" && c.title == p.title && len(c.words) == len(p.words) && jaccard(c.words, p.words) == 1 {
			return "the same page a URL that does not exist gets (title " + quote(c.title) + ")"
		}
		return ""
	}
	j := jaccard(c.words, p.words)
	switch {
	case c.title != "" && c.title == p.title && j >= probeSameTitle:
		return fmt.Sprintf("the same title and %.0f%% of the words a URL that does not exist gets", j*100)
	case c.title != "" && c.title == p.title && c.headline != "" && c.headline == p.headline && c.lead != "" && c.lead == p.lead:
		return fmt.Sprintf("the same title, headline %s and opening words a URL that does not exist gets", quote(c.headline))
	case c.title != "" && c.title == p.title && c.headline != "" && c.headline == p.headline && j >= probeSameHeadline:
		return fmt.Sprintf("the same title, headline %s and %.0f%% of the words a URL that does not exist gets", quote(c.headline), j*100)
	case j >= probeSameText:
		return fmt.Sprintf("%.0f%% of the words a URL that does not exist gets", j*100)
	}
	return ""
}

// Shell reports a page rendered by script, not redirected: almost no text
// (under titleOnlyText runes), or under shellText runes that only ask for
// script or say the page is loading. Every path of such a site answers
// with the same shell, so that it looks like a missing page proves nothing
// about the cited page. A thin page that says something of its own ("This
// video isn't available anymore"), or a redirect, does prove it.
func (f *Fingerprint) Shell() bool { return f != nil && f.shell && !f.redirected }

// loadingText reports a page whose text says it is still loading.
func loadingText(in *pageInfo) bool {
	low := fold(in.text)
	return strings.Contains(low, "loading") || strings.Contains(low, "please wait")
}

func jaccard(a, b map[string]bool) float64 {
	if len(a) == 0 && len(b) == 0 {
		return 1
	}
	inter := 0
	small, large := a, b
	if len(small) > len(large) {
		small, large = large, small
	}
	for w := range small {
		if large[w] {
			inter++
		}
	}
	return float64(inter) / float64(len(a)+len(b)-inter)
}

// shortURL is a URL's path (or host and path when hosts may differ) for a
// reason.
func shortURL(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.Host == "" {
		return cutRunes(s, 60)
	}
	p := u.EscapedPath()
	if p == "" {
		p = "/"
	}
	return cutRunes(strings.ToLower(u.Host)+p, 80)
}

// ProbeWorthy reports whether a cited URL is worth comparing with the
// site's answer to a URL that cannot exist: a deep link (a home page is
// what a catch-all site answers with, and is itself a fine citation).
func ProbeWorthy(requested string) bool {
	u := parseURL(requested)
	return u != nil && !homePath(u)
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// placesOf lists the URLs that name page p (see Fingerprint.places). A
// URL shallower than the one requested names a section or a landing page
// that many pages share, not this one.
func placesOf(p Page, in *pageInfo) []string {
	req := parseURL(p.RequestedURL)
	if req == nil {
		return nil
	}
	base, depth := parseURL(finalURL(p)), len(segments(req))
	var out []string
	for _, s := range []string{p.RequestedURL, finalURL(p), in.canonical, in.ogURL} {
		u := parseURL(s)
		if u == nil && base != nil && s != "" {
			if r, err := base.Parse(s); err == nil && r.Host != "" {
				u = r
			}
		}
		if u == nil || homePath(u) || searchURL(u) || len(segments(u)) < depth {
			continue
		}
		if k := urlKey(u); !containsString(out, k) {
			out = append(out, k)
		}
	}
	return out
}

// urlKey reduces a URL for identity: host without "www." in lower case,
// path without a trailing slash, query; scheme and fragment dropped.
func urlKey(u *url.URL) string {
	host := strings.TrimPrefix(strings.ToLower(u.Hostname()), "www.")
	k := host + strings.TrimSuffix(u.EscapedPath(), "/")
	if u.RawQuery != "" {
		k += "?" + u.RawQuery
	}
	return k
}

// SamePage reports whether the probe's answer p is the page c itself, by
// URL: the probe was redirected to a URL that names c, or p declares
// (rel=canonical, og:url) a URL that names c. Sites that route by an id
// and ignore or canonicalise the words after it answer a probe that kept
// the id with the cited page, which proves nothing about it. It returns
// "" when nothing shows that, else how it shows.
func SamePage(c, p *Fingerprint) string {
	if c == nil || p == nil {
		return ""
	}
	for _, k := range p.places {
		if containsString(c.places, k) {
			return "the probe's answer names the cited page (" + cutRunes(k, 80) + ")"
		}
	}
	return ""
}

// Suspect reports whether the probe's answer p may be the cited page c
// itself rather than what the site says for a page it does not have: the
// same page by URL (SamePage), by text (Like), or carrying c's own
// headline. A suspect answer is confirmed with a probe the cited URL's id
// cannot survive before it is held against anything.
func Suspect(c, p *Fingerprint) string {
	if why := SamePage(c, p); why != "" {
		return why
	}
	if why := Like(c, p); why != "" {
		return why
	}
	if c != nil && p != nil && c.headline != "" && c.headline == p.headline {
		return "the probe's answer carries the cited page's headline " + quote(c.headline)
	}
	return ""
}

// NamesCitation reports whether the page's headline is what the citation
// calls it (its link text, or the words of its Sources line): a page the
// wave names correctly is not a soft 404 by resemblance alone. Short or
// generic link texts ("source", "link") prove nothing.
func NamesCitation(fp *Fingerprint, c Citation) bool {
	if fp == nil || fp.search != "" {
		// A search page echoes the words it was asked for.
		return false
	}
	return headlineNames(fp.headline, c)
}

// headlineNames reports whether a page's folded headline is what the
// citation calls it (see NamesCitation).
func headlineNames(headline string, c Citation) bool {
	head := sigWords(headline)
	if len(head) < 2 {
		return false
	}
	for _, text := range []string{c.LinkText, stripURLs(c.SourceLine)} {
		cite := sigWords(fold(text))
		if len(cite) < 2 {
			continue
		}
		// The link text's words all in the headline (a site suffix does
		// not matter), or the headline's in the citation when they are
		// most of it: a site name alone ("Daily Courier") is in many
		// citations of a catch-all site and names none of its pages.
		n := overlap(head, cite)
		if text == c.LinkText && n == len(cite) ||
			n == len(head) && len(head) >= 3 && 2*len(head) >= len(cite) ||
			float64(n) >= 0.6*float64(len(head)+len(cite)-n) {
			return true
		}
	}
	return false
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

func sigWords(folded string) map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.Fields(folded) {
		if significant(w) {
			out[w] = true
		}
	}
	return out
}

// homeRedirectReason starts the thorough tier's mismatch for a deep link
// redirected to a home page.
const homeRedirectReason = "mismatch [deep-link-home]: "

// HomeRedirect reports a mismatch verdict for a deep link redirected to a
// home page: the site probe may show it to be the site's answer for pages
// it does not have.
func HomeRedirect(v Verdict) bool {
	return v.Outcome == Mismatch && strings.HasPrefix(v.Reason, homeRedirectReason)
}
