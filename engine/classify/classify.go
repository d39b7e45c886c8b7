package classify

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
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
	// Reason is short, stable and secret-free. A valid verdict's reason is
	// "ok: <kind>" or "reachable: …"; every other names its rule family,
	// the rule and the evidence it matched (reasons.go):
	// `soft 404 [title-phrase]: title "Page not found"`,
	// `bot wall [challenge-marker]: cloudflare challenge, marker "_cf_chl_opt"`,
	// `http 404 [http-status]: status "404 Not Found"`,
	// `no meaningful content [title-only]: title "…", 0 chars of text`.
	// The families: "http N", "bot wall", "paywall", "soft 404",
	// "error page", "mismatch", "no meaningful content", "no response".
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
	// titleOnlyText: below this much text of its own (besides its title
	// and headline), with no description either, a page is a title alone,
	// not meaningful content — JS challenges and app shells are a title
	// and nothing else (thin.go).
	titleOnlyText = 20
	// shellText: a page that redirects by script or meta refresh and has
	// less text than this is a redirect shell.
	shellText = 100
	// minDescription: a description this long stands in for the text of a
	// page rendered by script.
	minDescription = 50
	// reasonMax caps a reason, in runes: a rule, a detail and up to two
	// pieces of evidence of evidenceMax runes.
	reasonMax = 400
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

	if w := detectWall(p, st, in); w.ok() {
		return v.tag(Escalate, "bot wall", w)
	}
	switch {
	case st == http.StatusNotFound || st == http.StatusGone:
		return v.tag(Invalid, "http "+strconv.Itoa(st), finding{"http-status", statusLine(st)})
	case st == http.StatusUnauthorized:
		v.Publisher = publisher(p, in)
		return v.tag(Paywalled, "paywall", finding{"http-401", statusLine(st)})
	case st == http.StatusPaymentRequired:
		v.Publisher = publisher(p, in)
		if h := header(p.Header, "Crawler-Price"); h != "" {
			return v.tag(Paywalled, "paywall", finding{"pay-per-crawl", statusLine(st) + ", header " + evidence("crawler-price: "+h)})
		}
		return v.tag(Paywalled, "paywall", finding{"http-402", statusLine(st)})
	case st >= 300 && st < 400:
		if tier == Basic {
			fillMeta(&v, p, in, k)
			return v.with(Valid, "reachable: http "+strconv.Itoa(st))
		}
		return v.tag(Escalate, "http "+strconv.Itoa(st), finding{"redirect-not-followed", statusLine(st)})
	case st != 0 && (st < 200 || st >= 300):
		return v.tag(Escalate, "http "+strconv.Itoa(st), finding{"http-status", statusLine(st)})
	}

	if f := redirectSoft404(p); f.ok() {
		return v.tag(Invalid, "soft 404", f)
	}
	empty := len(p.Body) == 0
	if !empty {
		if f := contentSoft404(p, c, in); f.ok() {
			return v.tag(Invalid, "soft 404", f)
		}
	}
	if tier == Basic {
		if st == 0 && empty && p.Title == "" {
			return v.tag(Escalate, "no response", finding{"empty", `no status, body ""`})
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

	if code, f := errorPage(in); f.ok() {
		if code == http.StatusUnauthorized {
			v.Publisher = publisher(p, in)
			return v.tag(Paywalled, "paywall", finding{"login-wall-401-page", f.detail})
		}
		return v.tag(Escalate, "error page", f)
	}

	if tier == Thorough {
		if from, to, ok := deepLinkToHome(p); ok {
			if t := errorishTitle(in); t != "" {
				return v.tag(Invalid, "soft 404", finding{"deep-link-home",
					fmt.Sprintf("deep link redirected to home page %s, title %s", evidence(from+" → "+to), evidence(t))})
			}
			fillMeta(&v, p, in, k)
			return v.tag(Mismatch, "mismatch", finding{"deep-link-home",
				"deep link redirected to home page " + evidence(from+" → "+to)})
		}
	}

	if f := detectPaywall(p, in); f.ok() {
		fillMeta(&v, p, in, k)
		return v.tag(Paywalled, "paywall", f)
	}

	if k == kindPDF || k == kindBinary {
		if empty {
			return v.tag(Escalate, "no meaningful content", noContent(p, in, 0))
		}
		fillMeta(&v, p, in, k)
		if k == kindPDF {
			return v.with(Valid, "ok: pdf")
		}
		return v.with(Valid, "ok: document ("+mediaType(p.ContentType, "unknown type")+")")
	}

	if in.mainRunes < minMeaningful {
		if f := thinPage(p, in); f.ok() {
			return v.tag(Escalate, "no meaningful content", f)
		}
	}

	if tier == Thorough {
		if f := contentMismatch(c, p, in); f.ok() {
			fillMeta(&v, p, in, k)
			return v.tag(Mismatch, "mismatch", f)
		}
	}

	fillMeta(&v, p, in, k)
	if in.mainRunes < minMeaningful {
		return v.with(Valid, "ok: "+k.String()+" (thin page)")
	}
	return v.with(Valid, "ok: "+k.String())
}

// tag sets a negative outcome with its rule and evidence (reasons.go).
func (v Verdict) tag(o Outcome, family string, f finding) Verdict {
	return v.with(o, tagged(family, f))
}

// with sets the outcome and the (redacted, sanitized) reason.
func (v Verdict) with(o Outcome, reason string) Verdict {
	v.Outcome = o
	v.Reason = cleanLine(reason, reasonMax)
	return v
}

// noContent is the finding for a page without text enough to judge: n
// runes of readable text, quoted from its start.
func noContent(p Page, in *pageInfo, n int) finding {
	if p.HEAD && len(p.Body) == 0 {
		return finding{"head-response", `HEAD response, body ""`}
	}
	return finding{"thin-page", strconv.Itoa(n) + " chars, text " + evidence(runePrefix(in.text, 80))}
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
