package classify

import (
	"net/url"
	"path"
	"strings"
)

// parseURL parses an absolute URL; nil when it is not one.
func parseURL(s string) *url.URL {
	if s == "" {
		return nil
	}
	u, err := url.Parse(s)
	if err != nil || u.Host == "" {
		return nil
	}
	return u
}

// segments returns the non-empty, lowercased path segments of u.
func segments(u *url.URL) []string {
	var out []string
	for _, s := range strings.Split(strings.ToLower(u.Path), "/") {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// redirected reports whether the rung ended somewhere other than the cited
// URL (ignoring a change of scheme alone), and returns both parsed.
func redirected(p Page) (req, fin *url.URL, ok bool) {
	if p.FinalURL == "" || p.FinalURL == p.RequestedURL {
		return nil, nil, false
	}
	req, fin = parseURL(p.RequestedURL), parseURL(p.FinalURL)
	if req == nil || fin == nil {
		return nil, nil, false
	}
	same := strings.EqualFold(strings.TrimPrefix(req.Host, "www."), strings.TrimPrefix(fin.Host, "www.")) &&
		strings.TrimSuffix(req.Path, "/") == strings.TrimSuffix(fin.Path, "/") && req.RawQuery == fin.RawQuery
	return req, fin, !same
}

// notFoundSegments are path segments (extension dropped) of error pages.
var notFoundSegments = map[string]bool{
	"404": true, "error404": true, "error-404": true, "error_404": true, "404-error": true,
	"404error": true, "404-page": true, "page-404": true, "notfound": true, "not-found": true,
	"not_found": true, "page-not-found": true, "pagenotfound": true, "page_not_found": true,
	"filenotfound": true,
}

// notFoundPath reports a path or query that names a not-found page.
func notFoundPath(u *url.URL) bool {
	for _, s := range segments(u) {
		if i := strings.LastIndexByte(s, '.'); i > 0 {
			s = s[:i]
		}
		if notFoundSegments[s] {
			return true
		}
	}
	for k, vs := range u.Query() {
		k = strings.ToLower(k)
		if k == "aspxerrorpath" || notFoundSegments[k] {
			return true
		}
		for _, v := range vs {
			if v == "404" || notFoundSegments[strings.ToLower(v)] {
				return true
			}
		}
	}
	return false
}

// redirectSoft404: the cited URL was redirected to a /404 or /not-found
// page (anchors.md §D "A redirect to the home page or to a /404 path"), or
// a deep link was redirected to a search results page — what shops and
// CMSs answer for a product or article they do not have (Magento's
// "redirect to search" on a missing product, WordPress's redirect_guess
// and search plugins, Amazon's /s?k=).
func redirectSoft404(p Page) finding {
	req, fin, ok := redirected(p)
	if !ok || notFoundPath(req) {
		return finding{}
	}
	if notFoundPath(fin) {
		return finding{"redirect-404-path", "redirected to " + evidence(shortPath(fin))}
	}
	for _, h := range p.Redirects {
		if u := parseURL(h); u != nil && notFoundPath(u) {
			return finding{"redirect-404-path", "redirected to " + evidence(shortPath(u))}
		}
	}
	if deepLink(req) && !searchURL(req) && searchURL(fin) {
		return finding{"redirect-search", "deep link redirected to a search page " + evidence(searchShown(fin))}
	}
	return finding{}
}

// searchSegments are the last path segments of search results pages, in
// the languages of the phrase tables.
var searchSegments = map[string]bool{
	"search": true, "searches": true, "search-results": true, "searchresults": true, "search_results": true,
	"suche": true, "suchergebnisse": true, "recherche": true, "rechercher": true, "buscar": true, "busca": true,
	"busqueda": true, "ricerca": true, "cerca": true, "zoeken": true, "zoekresultaten": true, "szukaj": true,
	"wyszukiwanie": true, "hledat": true, "hledani": true, "hladat": true, "sok": true, "sog": true, "soeg": true,
	"haku": true, "kereses": true, "cautare": true, "arama": true, "poisk": true, "otsing": true, "paieska": true,
	"meklet": true, "iskanje": true, "pretraga": true, "cerca-risultati": true, "kensaku": true,
}

// searchKeys are query parameters that carry a search.
var searchKeys = []string{"q", "s", "k", "query", "search", "keyword", "keywords", "term", "searchterm", "search_query", "text", "qs"}

// searchURL reports a search results page: a path that ends in a search
// segment (/search, /suche, /catalogsearch/result/), or the home page or
// Amazon's /s with a search query (/?s=…, /s?k=…).
func searchURL(u *url.URL) bool {
	segs := segments(u)
	if n := len(segs); n > 0 {
		last := strings.TrimSuffix(strings.TrimSuffix(segs[n-1], ".php"), ".html")
		if searchSegments[last] || (n >= 2 && segs[n-2] == "catalogsearch") {
			return true
		}
	}
	if !homePath(u) && !(len(segs) == 1 && segs[0] == "s") {
		return false
	}
	q := u.Query()
	for _, k := range searchKeys {
		// Drupal without clean URLs routes by ?q=node/123: a path is a
		// route, not a search.
		if q.Has(k) && !strings.Contains(q.Get(k), "/") {
			return true
		}
	}
	return false
}

// searchShown is a search URL's path and query, for a reason.
func searchShown(u *url.URL) string {
	s := u.EscapedPath()
	if s == "" {
		s = "/"
	}
	if u.RawQuery != "" {
		s += "?" + u.RawQuery
	}
	return cutRunes(s, 120)
}

// deepLinkToHome: a deep link (≥ 2 path segments, or an id, or an article
// slug) that landed on a site's home page. It returns the two paths for
// the reason.
func deepLinkToHome(p Page) (from, to string, ok bool) {
	req, fin, moved := redirected(p)
	if !moved || !deepLink(req) || !homePath(fin) {
		return "", "", false
	}
	to = shortPath(fin)
	if !strings.EqualFold(strings.TrimPrefix(req.Hostname(), "www."), strings.TrimPrefix(fin.Hostname(), "www.")) {
		to = strings.ToLower(fin.Hostname()) + to
	}
	return shortPath(req), to, true
}

// deepLink reports a URL that names one document rather than a site.
func deepLink(u *url.URL) bool {
	segs := segments(u)
	switch {
	case len(segs) >= 2:
		return !homePath(u)
	case len(segs) == 1 && idLike(segs[0]):
		return !homePath(u)
	}
	q := u.Query()
	for _, k := range []string{"id", "p", "article", "story", "post", "doc", "page_id", "articleid", "storyid"} {
		if q.Get(k) != "" {
			return true
		}
	}
	return false
}

// idLike: a segment carrying an identifier — 4+ digits in a row, a long
// token of letters and digits, a document extension, or an article slug of
// three words or more.
func idLike(s string) bool {
	run, digits, letters := 0, 0, 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= '0' && c <= '9' {
			run++
			digits++
			if run >= 4 {
				return true
			}
			continue
		}
		run = 0
		if isLetter(c) {
			letters++
		}
	}
	if len(s) >= 12 && digits > 0 && letters > 0 && !strings.ContainsAny(s, "-_") {
		return true
	}
	switch path.Ext(s) {
	case ".html", ".htm", ".php", ".asp", ".aspx", ".jsp", ".pdf", ".shtml":
		return true
	}
	return len(strings.FieldsFunc(s, func(r rune) bool { return r == '-' || r == '_' })) >= 3
}

// homePath reports a site's home page: "/", an index file, "/home", or a
// bare locale ("/en", "/en-us/").
func homePath(u *url.URL) bool {
	segs := segments(u)
	switch len(segs) {
	case 0:
		return true
	case 1:
		s := segs[0]
		switch s {
		case "index.html", "index.htm", "index.php", "index.asp", "index.aspx", "default.aspx", "index", "home", "start":
			return true
		}
		return locale(s)
	case 2:
		return locale(segs[0]) && (segs[1] == "index.html" || segs[1] == "home")
	}
	return false
}

// locale: "en", "de", "en-us", "pt_br".
func locale(s string) bool {
	if len(s) == 2 {
		return isLetter(s[0]) && isLetter(s[1])
	}
	return len(s) == 5 && (s[2] == '-' || s[2] == '_') && isLetter(s[0]) && isLetter(s[1]) && isLetter(s[3]) && isLetter(s[4])
}

// loginSegments and subscribeSegments are path segments of sign-in and
// subscription pages.
var loginSegments = map[string]bool{
	"login": true, "log-in": true, "signin": true, "sign-in": true, "sign_in": true, "logon": true, "wp-login": true,
	"signon": true, "adfs": true, "logowanie": true, "anmelden": true, "connexion": true, "inloggen": true,
	"sso": true, "oauth": true, "oauth2": true, "authorize": true, "authenticate": true, "auth": true,
	"servicelogin": true, "session": true, "sessions": true, "account-login": true,
}

var subscribeSegments = map[string]bool{
	"subscribe": true, "subscription": true, "subscriptions": true, "paywall": true, "register": true,
	"registration": true, "offers": true, "regwall": true,
}

// loginRedirect: the cited URL was redirected to a sign-in or subscription
// page — a login wall as a browser would meet it. It returns the wall and
// the path it was redirected to.
func loginRedirect(p Page) (wall, to string) {
	req, fin, ok := redirected(p)
	if !ok {
		return "", ""
	}
	kind := func(u *url.URL) string {
		host := strings.ToLower(u.Hostname())
		for _, pre := range []string{"login.", "signin.", "auth.", "sso.", "accounts.", "account."} {
			if strings.HasPrefix(host, pre) {
				return "login"
			}
		}
		for _, s := range segments(u) {
			if i := strings.LastIndexByte(s, '.'); i > 0 {
				s = s[:i]
			}
			switch {
			case loginSegments[s]:
				return "login"
			case subscribeSegments[s]:
				return "subscription"
			}
		}
		return ""
	}
	if kind(req) != "" {
		return "", ""
	}
	to = strings.ToLower(fin.Hostname()) + shortPath(fin)
	switch kind(fin) {
	case "login":
		return "login wall (redirected to a sign-in page)", to
	case "subscription":
		return "subscription wall (redirected to a subscription page)", to
	}
	return "", ""
}

// shortPath is u's path (and query marker) for a reason, capped.
func shortPath(u *url.URL) string {
	s := u.EscapedPath()
	if s == "" {
		s = "/"
	}
	if u.RawQuery != "" {
		s += "?…"
	}
	return cutRunes(s, 60)
}

// lastSegment is the URL's last path segment, unescaped (a PDF's title of
// last resort), else its host.
func lastSegment(s string) string {
	u := parseURL(s)
	if u == nil {
		return ""
	}
	segs := strings.Split(strings.TrimRight(u.Path, "/"), "/")
	if last := segs[len(segs)-1]; last != "" {
		return last
	}
	return u.Hostname()
}
