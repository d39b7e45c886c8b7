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
//     path in its title). Words of either URL's path are left out, for the
//     same reason.

// ProbeName starts the last path segment of every probe URL, so that a log
// (or a test server) can tell probes from citations.
const ProbeName = "citegate-probe-"

// Similarity thresholds (Jaccard index of the folded word sets).
const (
	probeSameTitle = 0.85
	probeSameText  = 0.95
	probeMinWords  = 5 // texts shorter than this are compared only by title and redirect
)

// Fingerprint is what a page looks like, for the comparison with a site's
// answer to a URL that cannot exist.
type Fingerprint struct {
	final      string // the URL the page ended on, fragment dropped
	redirected bool   // the request went through redirects
	title      string // folded
	words      map[string]bool
	runes      int
	hash       [32]byte
}

// FingerprintOf summarises a page for Like. It never panics and does no I/O.
func FingerprintOf(p Page) *Fingerprint {
	in := analyze(p, sniff(p))
	fp := &Fingerprint{final: stripFragment(finalURL(p)),
		title: fold(in.bestTitle()), runes: in.mainRunes, hash: sha256.Sum256(p.Body)}
	fp.redirected = len(p.Redirects) > 0
	skip := map[string]bool{}
	for _, s := range []string{p.RequestedURL, p.FinalURL} {
		if u := parseURL(s); u != nil {
			for _, w := range strings.Fields(fold(u.Path + " " + u.RawQuery)) {
				skip[w] = true
			}
		}
	}
	fp.words = map[string]bool{}
	for _, w := range strings.Fields(fold(in.text)) {
		if !skip[w] {
			fp.words[w] = true
		}
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
	case j >= probeSameText:
		return fmt.Sprintf("%.0f%% of the words a URL that does not exist gets", j*100)
	}
	return ""
}

// Meaningful reports whether the fingerprinted page had readable text of
// its own (a page rendered by script has almost none: every path of such a
// site answers with the same shell, which proves nothing).
func (f *Fingerprint) Meaningful() bool { return f != nil && f.runes >= minMeaningful }

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
