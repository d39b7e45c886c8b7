package classify

import (
	"bytes"
	"net/http"
	"strconv"
	"strings"
)

// header is a case-insensitive header lookup that also copes with maps a
// rung built without canonical keys.
func header(h http.Header, name string) string {
	if h == nil {
		return ""
	}
	if v := h.Get(name); v != "" {
		return strings.TrimSpace(v)
	}
	for k, vs := range h {
		if strings.EqualFold(k, name) && len(vs) > 0 {
			return strings.TrimSpace(vs[0])
		}
	}
	return ""
}

// hasHeaderPrefix reports a header whose name starts with prefix (any case).
func hasHeaderPrefix(h http.Header, prefix string) bool {
	for k := range h {
		if hasPrefixFold(k, prefix) {
			return true
		}
	}
	return false
}

// cookieNamed reports a Set-Cookie whose name has one of the prefixes.
func cookieNamed(h http.Header, prefixes ...string) bool {
	for k, vs := range h {
		if !strings.EqualFold(k, "Set-Cookie") {
			continue
		}
		for _, v := range vs {
			name, _, _ := strings.Cut(strings.TrimSpace(v), "=")
			for _, p := range prefixes {
				if hasPrefixFold(name, p) {
					return true
				}
			}
		}
	}
	return false
}

// blockingStatus: statuses that bot walls answer with (anchors.md §D: 403
// everywhere, 429 for Cloudflare managed challenges and Kasada, 503 for
// "under attack" pages, 405 for AWS WAF CAPTCHA, 418 IEEE Xplore, 999
// LinkedIn).
func blockingStatus(st int) bool {
	switch st {
	case 403, 405, 418, 429, 503, 999:
		return true
	}
	return false
}

// ---------------------------------------------------------------- bot walls

// strength of a body marker.
const (
	weakPresence = iota // vendor presence: counts only with a blocking status
	weakCaptcha         // generic captcha text: also counts on an almost empty 2xx page
	strong              // a challenge or block page: counts on any thin page
)

type marker struct {
	pat      string // lower case
	vendor   string
	strength int
}

// wallMarkers are searched in the lowercased body prefix and in the
// readable text (anchors.md §D "Body markers"; vendor names follow wafw00f).
var wallMarkers = []marker{
	// Cloudflare.
	{"_cf_chl_opt", "cloudflare challenge", strong},
	{"cf-browser-verification", "cloudflare challenge", strong},
	{"cf_chl_prog", "cloudflare challenge", strong},
	{"checking your browser before accessing", "cloudflare challenge", strong},
	{"checking if the site connection is secure", "cloudflare challenge", strong},
	{"needs to review the security of your connection before proceeding", "cloudflare challenge", strong},
	{"sorry, you have been blocked", "cloudflare block", strong},
	{"used cloudflare to restrict access", "cloudflare block", strong},
	// DataDome: the captcha is served from captcha-delivery.com.
	{"captcha-delivery.com", "datadome", strong},
	{"please enable js and disable any ad blocker", "datadome", strong},
	// PerimeterX / HUMAN.
	{"px-captcha", "perimeterx", strong},
	{"press & hold to confirm", "perimeterx", strong}, // not "press & hold" alone: device manuals say it
	{"press &amp; hold to confirm", "perimeterx", strong},
	{"whywasiblocked", "perimeterx", strong},
	{"access to this page has been denied", "perimeterx", strong},
	// Akamai: the reference page links errors.edgesuite.net (also
	// entity-encoded in the raw HTML).
	{"errors.edgesuite.net", "akamai", strong},
	{"errors&#46;edgesuite&#46;net", "akamai", strong},
	// Imperva / Incapsula.
	{"incapsula incident id", "imperva", strong},
	// Vercel, DDoS-Guard.
	{"vercel security checkpoint", "vercel checkpoint", strong},
	{"check.ddos-guard.net", "ddos-guard", strong},
	// Generic challenges.
	{"cf-turnstile", "cloudflare challenge", weakCaptcha},
	{"challenges.cloudflare.com/turnstile", "cloudflare challenge", weakCaptcha},
	{"enable javascript and cookies to continue", "cloudflare challenge", weakCaptcha},
	{"verify you are human", "captcha", weakCaptcha},
	{"verifying you are human", "captcha", weakCaptcha},
	{"are you a robot", "captcha", weakCaptcha},
	{"not a robot", "captcha", weakCaptcha},
	{"unusual traffic", "captcha", weakCaptcha},
	{"g-recaptcha", "captcha", weakCaptcha},
	{"h-captcha", "captcha", weakCaptcha},
	{"hcaptcha.com", "captcha", weakCaptcha},
	// Vendor presence only: injected into ordinary pages too (anchors.md §D
	// warns about /cdn-cgi/challenge-platform in particular).
	{"/cdn-cgi/challenge-platform", "cloudflare challenge", weakPresence},
	{"_incapsula_resource", "imperva", weakPresence},
	{"awswaf", "aws waf", weakPresence},
	{"_pxappid", "perimeterx", weakPresence},
	{"js.datadome.co", "datadome", weakPresence},
	{"kpsdk", "kasada", weakPresence},
	{"recaptcha", "captcha", weakPresence},
}

// wallTitles are title segments (as titleSegments returns them: lower case,
// edge punctuation trimmed) of challenge and block pages.
var wallTitles = map[string]string{
	"just a moment":                       "cloudflare challenge",
	"attention required":                  "cloudflare block",
	"access denied":                       "access denied page",
	"403 forbidden":                       "access denied page",
	"forbidden":                           "access denied page",
	"error 403":                           "access denied page",
	"403 error":                           "access denied page",
	"request blocked":                     "access denied page",
	"request rejected":                    "access denied page",
	"access to this page has been denied": "perimeterx",
	"vercel security checkpoint":          "vercel checkpoint",
	"ddos-guard":                          "ddos-guard",
	"security check":                      "captcha",
	"human verification":                  "captcha",
	"bot verification":                    "captcha",
	"are you a robot":                     "captcha",
	"are you a human":                     "captcha",
	"captcha":                             "captcha",
	"verify you are human":                "captcha",
	"one more step":                       "captcha",
	"pardon our interruption":             "captcha",
}

// detectWall names the bot wall behind a response, or returns "". It needs
// a blocking status, a challenge body, or a header that only challenge
// responses carry — never a vendor header alone (anchors.md §D "Caution").
func detectWall(p Page, st int, in *pageInfo) string {
	h := p.Header
	// Cloudflare documents cf-mitigated: challenge on every challenge page
	// ("challenge" is the only value); AWS WAF names its action.
	if strings.EqualFold(header(h, "Cf-Mitigated"), "challenge") {
		return "cloudflare challenge"
	}
	switch strings.ToLower(header(h, "X-Amzn-Waf-Action")) {
	case "captcha", "challenge", "block":
		return "aws waf " + strings.ToLower(header(h, "X-Amzn-Waf-Action"))
	}
	if st == 999 {
		return "linkedin 999"
	}
	if blockingStatus(st) {
		if v := headerVendor(h); v != "" {
			return v + " (http " + strconv.Itoa(st) + ")"
		}
	}
	if in == nil || (len(in.raw) == 0 && in.text == "" && in.pTitle == "") {
		return ""
	}
	switch {
	case st == 401 || st == 402 || st == 404 || st == 410:
		// A real login page, payment page or 404 page: only an actual
		// challenge overrides the status.
		if vendor, level := bodyMarker(in); level == strong {
			return vendor
		}
	case st >= 400 || blockingStatus(st):
		if vendor, level := bodyMarker(in); level >= weakPresence {
			return vendor
		}
		return wallTitle(in)
	case in.mainRunes < wallThin: // 2xx, 3xx or no status: a thin page that looks like a wall
		vendor, level := bodyMarker(in)
		if level == strong {
			return vendor
		}
		if tv := wallTitle(in); tv != "" {
			return tv
		}
		if level == weakCaptcha && in.mainRunes < wallTiny {
			return vendor
		}
	}
	return ""
}

// headerVendor names a WAF from headers or cookies; callers only use it
// together with a blocking status.
func headerVendor(h http.Header) string {
	if h == nil {
		return ""
	}
	srv := strings.ToLower(header(h, "Server"))
	switch {
	case header(h, "X-Datadome") != "" || header(h, "X-Datadome-Cid") != "" || cookieNamed(h, "datadome"):
		return "datadome"
	case header(h, "X-Iinfo") != "" || strings.EqualFold(header(h, "X-Cdn"), "Incapsula") || cookieNamed(h, "visid_incap_", "incap_ses_"):
		return "imperva"
	case hasHeaderPrefix(h, "X-Kpsdk-"):
		return "kasada"
	case header(h, "X-Amzn-Waf-Action") != "":
		return "aws waf"
	case header(h, "Crawler-Error") != "":
		return "cloudflare crawler-error"
	case strings.Contains(srv, "akamaighost") || cookieNamed(h, "_abck", "ak_bmsc"):
		return "akamai"
	case header(h, "X-Sucuri-Id") != "":
		return "sucuri"
	case strings.Contains(srv, "ddos-guard"):
		return "ddos-guard"
	}
	return ""
}

// bodyMarker returns the strongest wall marker in the body, in table
// order within a strength.
func bodyMarker(in *pageInfo) (vendor string, level int) {
	level = -1
	raw := in.rawLower()
	for _, m := range wallMarkers {
		if m.strength <= level {
			continue
		}
		if strings.Contains(raw, m.pat) || strings.Contains(in.lowText(), m.pat) {
			vendor, level = m.vendor, m.strength
			if level == strong {
				break
			}
		}
	}
	// Akamai's reference page: title "Access Denied" plus "Reference #".
	if level < strong && titleSegmentIs(in, "access denied") && strings.Contains(in.lowText(), "reference #") {
		return "akamai", strong
	}
	return vendor, level
}

// wallTitle names the wall a title or first heading belongs to.
func wallTitle(in *pageInfo) string {
	for _, t := range []string{in.title, in.pTitle, in.ogTitle, in.h1} {
		for _, seg := range titleSegments(t) {
			if v, ok := wallTitles[seg]; ok {
				return v
			}
		}
	}
	return ""
}

func titleSegmentIs(in *pageInfo, want string) bool {
	for _, t := range []string{in.title, in.pTitle, in.h1} {
		for _, seg := range titleSegments(t) {
			if seg == want {
				return true
			}
		}
	}
	return false
}

// titleSegments splits a title at the usual separators (" | ", " - ", ": ",
// …) and returns the lowercased, punctuation-trimmed parts.
func titleSegments(t string) []string {
	if t == "" {
		return nil
	}
	low := lowerText(collapse(t))
	for _, sep := range []string{" | ", " - ", " – ", " — ", " · ", " » ", " :: ", ": ", " / "} {
		low = strings.ReplaceAll(low, sep, "\x00")
	}
	parts := strings.Split(low, "\x00")
	out := parts[:0]
	for _, s := range parts {
		s = strings.Trim(s, " .!?¡¿()[]\"'*~|-–—:")
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// ---------------------------------------------------------------- paywalls

// paywallVendors: script sources and inline snippets of paywall and
// membership vendors (anchors.md §D "Paywall vendor scripts"; the issue
// adds Zephr and Laterpay).
var paywallVendors = []struct{ pat, name string }{
	{"tinypass", "piano/tinypass"},
	{"piano.io", "piano/tinypass"},
	{"setaid", "piano/tinypass"},
	{"poool.fr", "poool"},
	{"poool.", "poool"},
	{"zephr", "zephr"},
	{"pelcro", "pelcro"},
	{"laterpay", "laterpay"},
	{"memberful", "memberful"},
	{"steadyhq.com", "steady"},
	{"leaky-paywall", "leaky paywall"},
	{"wallkit", "wallkit"},
}

// paywallVendor names the vendor whose script b (a src URL or an inline
// script) loads, or "". Inline scripts are matched as written, so the
// patterns are tried in lower case and in the vendors' usual spellings.
func paywallVendor(b []byte) string {
	for _, v := range paywallVendors {
		if bytes.Contains(b, []byte(v.pat)) {
			return v.name
		}
	}
	if bytes.Contains(b, []byte("setAid")) || bytes.Contains(b, []byte("Tinypass")) {
		return "piano/tinypass"
	}
	return ""
}

// subscriptionPhrases and loginPhrases mark a wall over a teaser. Short,
// common phrases ("already a subscriber? sign in") are left out on purpose:
// they sit in the header of free articles too.
var subscriptionPhrases = []string{
	"subscribe to continue reading",
	"subscribe to continue",
	"subscribe to read the full",
	"subscribe to read more",
	"subscribe now to continue",
	"to continue reading, subscribe",
	"continue reading with a subscription",
	"this article is for subscribers",
	"this article is only available to subscribers",
	"this content is for subscribers",
	"this story is for subscribers",
	"available to subscribers only",
	"exclusive to subscribers",
	"for subscribers only",
	"subscribers only",
	"you have reached your limit of free articles",
	"you've reached your limit of free articles",
	"you have reached your free article limit",
	"you've reached your free article limit",
	"you've used all of your free articles",
	"you have used all of your free articles",
	"you've read your last free article",
	"become a subscriber to continue",
	"to keep reading, subscribe",
	"unlock this article",
}

var loginPhrases = []string{
	"sign in to continue reading",
	"log in to continue reading",
	"login to continue reading",
	"sign in to read",
	"log in to read",
	"sign in to continue",
	"log in to continue",
	"login to continue",
	"you must be logged in",
	"you must log in",
	"please log in to view",
	"please sign in to view",
	"please log in to access",
	"register to continue reading",
	"register for free to continue",
	"create a free account to continue",
	"sign up to continue reading",
	"this content is for members only",
	"members-only content",
}

// phraseKeys: see findPhrase. TestPhraseKeys checks that every phrase
// contains one of its list's keys.
var phraseKeys = map[*string][]string{
	&subscriptionPhrases[0]: {"subscri", "free article", "unlock"},
	&loginPhrases[0]:        {"sign in", "log in", "login", "logged in", "register", "sign up", "members", "account"},
	&notFoundBody[0]:        {"not found", "looking for", "requested", "trying to reach", "exist", "be found", "error 404"},
}

// loginTitles are title segments of sign-in pages.
var loginTitles = map[string]bool{
	"sign in": true, "log in": true, "login": true, "signin": true, "sign-in": true, "log-in": true,
	"sign in to continue": true, "member login": true, "members login": true, "subscriber login": true,
	"account login": true, "user login": true, "sign in or register": true, "log in or register": true,
}

// detectPaywall names the paywall declared by the page, or returns "".
// Sources: anchors.md §D "Paywall signals" (Google's isAccessibleForFree
// structured data, content_tier meta, vendor scripts, login-wall phrases).
func detectPaywall(p Page, in *pageInfo) string {
	switch {
	case in.freeFalse != "":
		return in.freeFalse + " isAccessibleForFree=false"
	case in.contentTier == "locked" || in.contentTier == "metered":
		return "content_tier=" + in.contentTier
	}
	if r := loginRedirect(p); r != "" {
		return r
	}
	thin := in.mainRunes < paywallThin
	if in.vendor == "" && !thin {
		return "" // the page carries its text and declares nothing
	}
	sub := findPhrase(in.lowText(), subscriptionPhrases)
	login := findPhrase(in.lowText(), loginPhrases)
	if in.vendor != "" && (sub != "" || login != "" || in.mainRunes < vendorThin) {
		return in.vendor
	}
	if thin {
		switch {
		case sub != "":
			return "subscription wall (" + strconv.Quote(sub) + ")"
		case login != "":
			return "login wall (" + strconv.Quote(login) + ")"
		}
	}
	if in.password && in.mainRunes < vendorThin {
		for _, t := range []string{in.title, in.pTitle, in.ogTitle, in.h1} {
			for _, seg := range titleSegments(t) {
				if loginTitles[seg] {
					return "login wall (sign-in page)"
				}
			}
		}
	}
	return ""
}

// findPhrase returns the first of phrases found in low. phraseKeys holds,
// per phrase list, words of which every phrase contains one: when none of
// them occurs the list is skipped with a few vectorized searches.
func findPhrase(low string, phrases []string) string {
	if low == "" {
		return ""
	}
	if keys, ok := phraseKeys[&phrases[0]]; ok {
		hit := false
		for _, k := range keys {
			if strings.Contains(low, k) {
				hit = true
				break
			}
		}
		if !hit {
			return ""
		}
	}
	for _, ph := range phrases {
		if strings.Contains(low, ph) {
			return ph
		}
	}
	return ""
}

// ---------------------------------------------------------------- soft 404

// notFoundExact: whole title segments of not-found pages.
var notFoundExact = map[string]bool{
	"404": true, "not found": true, "page not found": true, "404 not found": true, "not found 404": true,
	"error 404": true, "404 error": true, "error 404 not found": true, "404 page not found": true,
	"404 page": true, "page 404": true, "file not found": true, "document not found": true,
	"article not found": true, "post not found": true, "story not found": true, "content not found": true,
	"resource not found": true, "nothing found": true, "page does not exist": true,
	"page doesn't exist": true, "this page does not exist": true, "this page doesn't exist": true,
	"page not available": true, "page unavailable": true, "page no longer available": true,
	"page not found 404": true, "oops": true, "whoops": true, "404 - not found": true,
	// A few common non-English ones.
	"página no encontrada": true, "page introuvable": true, "seite nicht gefunden": true,
	"pagina non trovata": true, "pagina niet gevonden": true, "página não encontrada": true,
	"strona nie znaleziona": true, "страница не найдена": true, "页面不存在": true,
	"ページが見つかりません": true,
}

// notFoundContains: phrases that mark a short title segment as not-found.
var notFoundContains = []string{
	"page not found", "page cannot be found", "page can't be found", "page could not be found",
	"page couldn't be found", "page does not exist", "page doesn't exist", "page no longer exists",
	"page you requested", "page you are looking for", "page you were looking for",
	"can't find that page", "cannot find that page", "couldn't find that page", "could not find that page",
	"can't find the page", "cannot find the page", "couldn't find the page", "could not find the page",
	"404 not found", "error 404", "404 error", "not found (404)", "(404)", "404 page",
	"doesn't exist", "does not exist", "no longer exists",
}

// notFoundBody: body phrases that mark a thin page as a soft 404.
var notFoundBody = []string{
	"page not found",
	"the page you are looking for",
	"the page you were looking for",
	"the page you requested",
	"page you are trying to reach",
	"this page does not exist",
	"this page doesn't exist",
	"the requested url was not found",
	"page could not be found",
	"page cannot be found",
	"page can't be found",
	"404 not found",
	"error 404",
}

// notFoundTitle reports a title (or heading) that announces a missing page:
// a segment equal to a not-found phrase, or a segment of at most 12 words
// containing one (anchors.md §D "Soft-404 heuristics": "404", "not found",
// "page not found", "does not exist"). The other segments must be short,
// like a site or section name: "Not found: the search for flight 370
// continues" is a headline, not an error page.
func notFoundTitle(t string) bool {
	segs := titleSegments(t)
	hit := -1
	for i, seg := range segs {
		if notFoundExact[seg] {
			hit = i
			break
		}
		if len(strings.Fields(seg)) > 12 {
			continue
		}
		for _, ph := range notFoundContains {
			if strings.Contains(seg, ph) {
				hit = i
				break
			}
		}
		if hit >= 0 {
			break
		}
	}
	if hit < 0 {
		return false
	}
	for i, seg := range segs {
		if i != hit && len(strings.Fields(seg)) > 6 {
			return false
		}
	}
	return true
}

// contentSoft404 finds a soft 404 in a 2xx page's title, heading or (when
// thin) body.
func contentSoft404(in *pageInfo) string {
	bodyPhrase := ""
	if in.mainRunes < soft404Thin {
		bodyPhrase = findPhrase(in.lowText(), notFoundBody)
	}
	// A title match alone is not enough on a long page (an article about
	// HTTP 404s); pitfall from anchors.md §B6.
	titleOK := in.mainRunes < soft404TitleMax || bodyPhrase != ""
	for _, c := range []struct{ what, s string }{
		{"title", in.title}, {"title", in.ogTitle}, {"title", in.pTitle}, {"h1", in.h1},
	} {
		if c.s != "" && titleOK && notFoundTitle(c.s) {
			return c.what + " " + quote(c.s)
		}
	}
	if bodyPhrase != "" {
		return "body " + strconv.Quote(bodyPhrase)
	}
	return ""
}

// errorishTitle returns the page's title when it reads like an error page,
// for a deep link that landed on the home page.
func errorishTitle(in *pageInfo) string {
	for _, t := range []string{in.title, in.ogTitle, in.pTitle, in.h1} {
		if t == "" {
			continue
		}
		if notFoundTitle(t) {
			return t
		}
		for _, seg := range titleSegments(t) {
			for _, w := range []string{"error", "oops", "gone", "unavailable", "not available", "no longer", "removed", "expired", "missing"} {
				if strings.Contains(seg, w) && len(strings.Fields(seg)) <= 8 {
					return t
				}
			}
		}
	}
	if in.mainRunes < soft404Thin {
		if ph := findPhrase(in.lowText(), notFoundBody); ph != "" {
			if t := in.bestTitle(); t != "" {
				return t
			}
			return ph
		}
	}
	return ""
}
