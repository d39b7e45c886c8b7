package classify

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Tier is how thoroughly a citation is validated (run-config
// effective.citations.validation_tier).
type Tier string

// The validation tiers, from cheapest to most thorough.
const (
	// Basic checks reachability: any 2xx or final 3xx is valid, with
	// whatever title is cheap, unless a body that was read is a soft 404;
	// there is no content requirement because the rung may have used HEAD.
	Basic Tier = "basic"
	// Standard classifies content fully: soft 404s, error pages, meaningful
	// content, paywalls and login walls, bot walls.
	Standard Tier = "standard"
	// Thorough adds content mismatch and the deep link redirected to a home
	// page to Standard.
	Thorough Tier = "thorough"
)

// normalize maps an unknown or empty tier to Standard.
func (t Tier) normalize() Tier {
	switch t {
	case Basic, Standard, Thorough:
		return t
	}
	return Standard
}

// Outcome is the classifier's decision for one rung's result.
type Outcome int

// The outcomes. Escalate is not a citation status: it tells the ladder to try
// the next rung, and becomes "blocked" when no rung gets further.
const (
	// Valid: reachable, with meaningful content (or, at the basic tier,
	// merely reachable).
	Valid Outcome = iota
	// Paywalled: a real source behind a paywall, login wall or 401/402.
	Paywalled
	// Invalid: a definitive dead link (404/410, or a soft 404).
	Invalid
	// Mismatch: reachable, but clearly not the page the wave cited
	// (thorough tier only).
	Mismatch
	// Escalate: this rung could not tell (bot wall, 403, 429, 5xx, no
	// meaningful content); try the next rung.
	Escalate
)

// String returns the lower-case name of o ("valid", "paywalled", "invalid",
// "mismatch", "escalate"), or "outcome(N)" for a value out of range.
func (o Outcome) String() string {
	switch o {
	case Valid:
		return "valid"
	case Paywalled:
		return "paywalled"
	case Invalid:
		return "invalid"
	case Mismatch:
		return "mismatch"
	case Escalate:
		return "escalate"
	}
	return "outcome(" + strconv.Itoa(int(o)) + ")"
}

// Page is what a rung obtained for one URL.
type Page struct {
	RequestedURL string      // the cited (normalized) URL
	FinalURL     string      // after redirects ("" = same)
	Redirects    []string    // intermediate hop URLs, in order
	StatusCode   int         // 0 if the rung gives none
	Header       http.Header // may be nil
	Body         []byte      // decoded content, possibly truncated
	Truncated    bool        // Body was cut at the rung's size cap (informational: rules read what is there)
	// ContentType is the media type, parameters allowed: "text/html",
	// "text/markdown", "text/plain", "application/pdf", … (Apify gives
	// markdown; Bright Data raw HTML or markdown). Empty means sniff.
	ContentType string
	Title       string // a title the rung already extracted (Apify metadata), optional
	HEAD        bool   // body absent because HEAD was used (basic tier)
}

// Citation is how the wave cited the URL, for mismatch detection.
type Citation struct {
	LinkText   string // the markdown link text, if the URL was a link
	SourceLine string // the whole "## Sources" line the URL came from
}

// Verdict is the classifier's answer.
type Verdict struct {
	Outcome Outcome
	// Reason is short, stable and secret-free, e.g. "bot wall: cloudflare
	// challenge", "paywall: JSON-LD isAccessibleForFree=false",
	// `soft 404: title "Page not found"`, "http 404",
	// "no meaningful content (83 chars)". Its first words name the rule
	// family: "ok:", "reachable:", "http N", "bot wall:", "paywall:",
	// "soft 404:", "error page:", "mismatch:", "no meaningful content",
	// "no response".
	Reason string
	// Title, Publisher and Snippet (the evidence_snippet, ≤ 240 runes) are
	// set for Valid, Paywalled and Mismatch verdicts when known.
	Title, Publisher, Snippet string
	HTTPStatus                int // Page.StatusCode
}

// Thresholds, in runes of readable (whitespace-collapsed) text.
const (
	// minMeaningful is the readable-text size that makes a page meaningful
	// without a title.
	minMeaningful = 200
	// titleOnlyText: below this much text a title alone (with no
	// description either) is not meaningful content — JS challenges and
	// app shells are a title and nothing else.
	titleOnlyText = 20
	// shellText: a page that redirects by script or meta refresh and has
	// less text than this is a redirect shell.
	shellText = 100
	// minDescription: a description this long stands in for the text of a
	// page rendered by script.
	minDescription = 50
)

// Classify judges one rung's result p for the citation c at the given tier
// (an unknown tier counts as Standard). It never panics and does no I/O.
//
// Order of the rules: bot walls first (at every tier and status, since a
// challenge says nothing about the page), then the status code (404/410
// invalid, 401/402 paywalled, other non-2xx escalate), then — for 2xx or a
// rung without a status — soft 404s (every tier that read a body), error
// pages, the redirect to a home page (thorough), paywalls and login walls,
// meaningful content, and content mismatch (thorough). The basic tier stops
// after soft 404s: it checks reachability.
func Classify(p Page, c Citation, tier Tier) Verdict {
	tier = tier.normalize()
	st := p.StatusCode
	v := Verdict{HTTPStatus: st}
	k := sniff(p)
	in := analyze(p, k)

	if w := detectWall(p, st, in); w != "" {
		return v.with(Escalate, "bot wall: "+w)
	}
	switch {
	case st == http.StatusNotFound || st == http.StatusGone:
		return v.with(Invalid, "http "+strconv.Itoa(st))
	case st == http.StatusUnauthorized:
		v.Publisher = publisher(p, in)
		return v.with(Paywalled, "paywall: http 401")
	case st == http.StatusPaymentRequired:
		v.Publisher = publisher(p, in)
		if header(p.Header, "Crawler-Price") != "" {
			return v.with(Paywalled, "paywall: http 402 (pay-per-crawl)")
		}
		return v.with(Paywalled, "paywall: http 402")
	case st >= 300 && st < 400:
		if tier == Basic {
			fillMeta(&v, p, in, k)
			return v.with(Valid, "reachable: http "+strconv.Itoa(st))
		}
		return v.with(Escalate, "http "+strconv.Itoa(st)+" (redirect not followed)")
	case st != 0 && (st < 200 || st >= 300):
		return v.with(Escalate, "http "+strconv.Itoa(st))
	}

	if r := redirectSoft404(p); r != "" {
		return v.with(Invalid, "soft 404: "+r)
	}
	empty := len(p.Body) == 0
	if !empty {
		if r := contentSoft404(p, c, in); r != "" {
			return v.with(Invalid, "soft 404: "+r)
		}
	}
	if tier == Basic {
		if st == 0 && empty && p.Title == "" {
			return v.with(Escalate, "no response (no status, no content)")
		}
		fillMeta(&v, p, in, k)
		switch {
		case st == 0:
			return v.with(Valid, "reachable: content without status")
		case p.HEAD:
			return v.with(Valid, "reachable: http "+strconv.Itoa(st)+" (HEAD)")
		}
		return v.with(Valid, "reachable: http "+strconv.Itoa(st))
	}

	if code, r := errorPage(in); r != "" {
		if code == http.StatusUnauthorized {
			v.Publisher = publisher(p, in)
			return v.with(Paywalled, "paywall: login wall (401 page: "+r+")")
		}
		return v.with(Escalate, "error page: "+r)
	}

	if tier == Thorough {
		if from, to, ok := deepLinkToHome(p); ok {
			if t := errorishTitle(in); t != "" {
				return v.with(Invalid, fmt.Sprintf("soft 404: deep link redirected to home page (title %s)", quote(t)))
			}
			fillMeta(&v, p, in, k)
			return v.with(Mismatch, fmt.Sprintf(homeRedirectReason+"(%s → %s)", from, to))
		}
	}

	if r := detectPaywall(p, in); r != "" {
		fillMeta(&v, p, in, k)
		return v.with(Paywalled, "paywall: "+r)
	}

	if k == kindPDF || k == kindBinary {
		if empty {
			return v.with(Escalate, noContent(p, 0))
		}
		fillMeta(&v, p, in, k)
		if k == kindPDF {
			return v.with(Valid, "ok: pdf")
		}
		return v.with(Valid, "ok: document ("+mediaType(p.ContentType, "unknown type")+")")
	}

	if in.mainRunes < minMeaningful {
		desc := utf8.RuneCountInString(in.metaDesc+in.ogDesc) >= minDescription
		switch {
		case (in.refresh || in.jsRedirect) && in.mainRunes < shellText && !desc:
			return v.with(Escalate, "no meaningful content (a redirect by script or meta refresh)")
		case in.bestTitle() == "":
			return v.with(Escalate, noContent(p, in.mainRunes))
		case in.mainRunes < titleOnlyText && !desc:
			return v.with(Escalate, "no meaningful content (title only)")
		}
	}

	if tier == Thorough {
		if r := contentMismatch(c, p, in); r != "" {
			fillMeta(&v, p, in, k)
			return v.with(Mismatch, "mismatch: "+r)
		}
	}

	fillMeta(&v, p, in, k)
	if in.mainRunes < minMeaningful {
		return v.with(Valid, "ok: "+k.String()+" (title only)")
	}
	return v.with(Valid, "ok: "+k.String())
}

// with sets the outcome and the (redacted, sanitized) reason.
func (v Verdict) with(o Outcome, reason string) Verdict {
	v.Outcome = o
	v.Reason = cleanLine(reason, 300)
	return v
}

func noContent(p Page, n int) string {
	if p.HEAD && len(p.Body) == 0 {
		return "no meaningful content (HEAD response)"
	}
	return "no meaningful content (" + strconv.Itoa(n) + " chars)"
}

// fillMeta sets Title, Publisher and Snippet from what the page offers.
func fillMeta(v *Verdict, p Page, in *pageInfo, k kind) {
	title := in.bestTitle()
	if title == "" && (k == kindPDF || k == kindBinary) {
		title = lastSegment(finalURL(p))
	}
	v.Title = cleanLine(title, 300)
	v.Publisher = cleanLine(publisher(p, in), 120)
	v.Snippet = makeSnippet(in.snippetSource())
}

// publisher is og:site_name, the JSON-LD publisher, application-name, else
// the site's host name without "www.".
func publisher(p Page, in *pageInfo) string {
	for _, s := range []string{in.siteName, in.ldPublisher, in.appName} {
		if s = collapse(s); s != "" {
			return s
		}
	}
	if u := parseURL(finalURL(p)); u != nil {
		return strings.TrimPrefix(strings.ToLower(u.Hostname()), "www.")
	}
	return ""
}

// finalURL is where the rung ended up.
func finalURL(p Page) string {
	if p.FinalURL != "" {
		return p.FinalURL
	}
	return p.RequestedURL
}
