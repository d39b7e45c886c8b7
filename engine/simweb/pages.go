package simweb

import (
	"bytes"
	"encoding/json"
	"html/template"
	"net/http"
	"strconv"
	"strings"
)

// article is one page of the simulated web. Rendered as HTML it carries
// what real publishers send and validators read: <title>, meta
// description, Open Graph site name, canonical link, schema.org JSON-LD
// with a publisher, a byline and paragraphs. Locked articles add Google's
// paywall markup (isAccessibleForFree false, a hasPart WebPageElement
// naming the gated .paywall element), a content_tier meta and a subscribe
// wall in place of the gated text.
type article struct {
	SiteName    string
	Title       string // <title>; Headline + " | " + SiteName when empty
	Headline    string // <h1>, og:title and JSON-LD headline; empty for plain pages
	Description string
	Author      string
	Published   string   // YYYY-MM-DD
	Type        string   // schema.org type; NewsArticle when empty, "-" for no JSON-LD
	Paragraphs  []string // visible text (only the free part when Locked)
	Locked      bool
}

func (a *article) title() string {
	if a.Title != "" {
		return a.Title
	}
	return a.Headline + " | " + a.SiteName
}

// pageTmpl renders an article. JSON-LD goes in as template.JS produced by
// encoding/json, which escapes <, > and &, so it cannot close the script.
var pageTmpl = template.Must(template.New("page").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{{.Title}}</title>
{{- if .Description}}
<meta name="description" content="{{.Description}}">{{end}}
<meta property="og:site_name" content="{{.SiteName}}">
{{- if .Headline}}
<meta property="og:type" content="article">
<meta property="og:title" content="{{.Headline}}">
<meta property="og:url" content="{{.Canonical}}">
<link rel="canonical" href="{{.Canonical}}">{{end}}
{{- if .Locked}}
<meta name="content_tier" content="locked">
<script src="https://cdn.tinypass.com/api/tinypass.min.js" async></script>{{end}}
{{- if .LD}}
<script type="application/ld+json">{{.LD}}</script>{{end}}
</head>
<body>
<header class="site-header"><a href="/">{{.SiteName}}</a></header>
<main>
<article>
{{- if .Heading}}
<h1>{{.Heading}}</h1>{{end}}
{{- if .Author}}
<p class="byline">By {{.Author}}{{if .Published}} · <time datetime="{{.Published}}">{{.Published}}</time>{{end}}</p>{{end}}
{{- range .Paragraphs}}
<p>{{.}}</p>{{end}}
{{- if .Locked}}
<div class="paywall" aria-hidden="true"></div>
<section class="subscribe-wall">
<h2>Subscribe to continue reading</h2>
<p>You have reached the end of the free preview. Subscribe to {{.SiteName}} for unlimited access, or sign in if you already have an account.</p>
<a class="button" href="/subscribe">Subscribe now</a> <a href="/login">Sign in</a>
</section>{{end}}
</article>
</main>
<footer><p>&copy; 2026 {{.SiteName}}. All rights reserved.</p></footer>
</body>
</html>
`))

type pageData struct {
	Title, Description, SiteName, Headline, Heading, Canonical string
	Author, Published                                          string
	Paragraphs                                                 []string
	Locked                                                     bool
	LD                                                         template.JS
}

// html renders the article as served at canonical.
func (a *article) html(canonical string) []byte {
	d := pageData{
		Title:       a.title(),
		Description: a.Description,
		SiteName:    a.SiteName,
		Headline:    a.Headline,
		Heading:     a.Headline,
		Canonical:   canonical,
		Author:      a.Author,
		Published:   a.Published,
		Paragraphs:  a.Paragraphs,
		Locked:      a.Locked,
	}
	if d.Heading == "" {
		d.Heading = a.Title
	}
	if a.Headline != "" && a.Type != "-" {
		d.LD = template.JS(a.jsonLD(canonical))
	}
	var b bytes.Buffer
	if err := pageTmpl.Execute(&b, d); err != nil {
		panic("simweb: page template: " + err.Error()) // static template, static data
	}
	return b.Bytes()
}

func (a *article) jsonLD(canonical string) []byte {
	typ := a.Type
	if typ == "" {
		typ = "NewsArticle"
	}
	ld := map[string]any{
		"@context":            "https://schema.org",
		"@type":               typ,
		"headline":            a.Headline,
		"description":         a.Description,
		"mainEntityOfPage":    canonical,
		"isAccessibleForFree": !a.Locked,
		"publisher": map[string]any{
			"@type": "Organization",
			"name":  a.SiteName,
		},
	}
	if a.Published != "" {
		ld["datePublished"] = a.Published
	}
	if a.Author != "" {
		ld["author"] = map[string]any{"@type": "Person", "name": a.Author}
	}
	if a.Locked {
		ld["hasPart"] = map[string]any{
			"@type":               "WebPageElement",
			"isAccessibleForFree": false,
			"cssSelector":         ".paywall",
		}
	}
	b, err := json.Marshal(ld)
	if err != nil {
		panic("simweb: JSON-LD: " + err.Error())
	}
	return b
}

// markdown is the article as a scraping API's markdown conversion.
func (a *article) markdown() string {
	var b strings.Builder
	b.WriteString("# ")
	b.WriteString(a.heading())
	b.WriteString("\n\n")
	if a.Author != "" {
		b.WriteString("By " + a.Author)
		if a.Published != "" {
			b.WriteString(" · " + a.Published)
		}
		b.WriteString("\n\n")
	}
	for _, p := range a.Paragraphs {
		b.WriteString(p)
		b.WriteString("\n\n")
	}
	return b.String()
}

// text is the article as plain text.
func (a *article) text() string {
	parts := append([]string{a.heading()}, a.Paragraphs...)
	return strings.Join(parts, "\n\n")
}

func (a *article) heading() string {
	if a.Headline != "" {
		return a.Headline
	}
	return a.Title
}

// writeHTML sends an HTML body with the given status.
func writeHTML(rw http.ResponseWriter, status int, body []byte) {
	h := rw.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	rw.WriteHeader(status)
	_, _ = rw.Write(body)
}

// notFoundPage is a site's ordinary 404 page.
func notFoundPage(siteName string) *article {
	return &article{
		SiteName: siteName,
		Title:    "404 Not Found | " + siteName,
		Paragraphs: []string{
			"The page you requested could not be found. It may have been moved or deleted.",
		},
	}
}

// Bot-wall pages, written after the markers validators look for
// (anchors.md §D): Cloudflare's managed challenge, DataDome's captcha
// interstitial and Akamai's "Access Denied" with a reference number.
const (
	cloudflareChallenge = `<!DOCTYPE html><html lang="en-US"><head><title>Just a moment...</title>` +
		`<meta http-equiv="Content-Type" content="text/html; charset=UTF-8"><meta name="robots" content="noindex,nofollow">` +
		`<meta name="viewport" content="width=device-width,initial-scale=1"></head><body>` +
		`<div class="main-wrapper" role="main"><div class="main-content"><h1 class="zone-name-title h1">%s</h1>` +
		`<h2 class="h2" id="challenge-body-text">Verifying you are human. This may take a few seconds.</h2>` +
		`<noscript><div class="h2"><span id="challenge-error-text">Enable JavaScript and cookies to continue</span></div></noscript>` +
		`</div></div><script>(function(){window._cf_chl_opt={cvId: '3',cZone: '%s',cType: 'managed',cRay: '8f1c2d3e4a5b6c7d'};}());</script>` +
		`</body></html>`

	dataDomeBlock = `<html lang="en"><head><title>%s</title><meta name="viewport" content="width=device-width, initial-scale=1.0">` +
		`</head><body style="margin:0"><p id="cmsg">Please enable JS and disable any ad blocker</p>` +
		`<script data-cfasync="false">var dd={'rt':'c','cid':'AHrlqAAAAAMAsim0000000000','hsh':'0A1B2C3D4E5F60718293A4B5C6D7E8F9',` +
		`'t':'fe','s':40919,'e':'sim','host':'geo.captcha-delivery.com'}</script>` +
		`<script data-cfasync="false" src="https://ct.captcha-delivery.com/c.js"></script></body></html>`

	akamaiDenied = "<HTML><HEAD>\n<TITLE>Access Denied</TITLE>\n</HEAD><BODY>\n<H1>Access Denied</H1>\n \n" +
		"You don't have permission to access \"http&#58;&#47;&#47;%s&#47;research&#47;annual&#45;outlook&#45;2026\" on this server.<P>\n" +
		"Reference&#32;&#35;18&#46;6f3e1702&#46;1767225600&#46;2b4c9a1\n" +
		"<P>https&#58;&#47;&#47;errors&#46;edgesuite&#46;net&#47;18&#46;6f3e1702&#46;1767225600&#46;2b4c9a1</P>\n" +
		"</BODY>\n</HTML>\n"
)

// Pages of the issue-9 scenarios: soft 404s that only the content or the
// site probe gives away, challenges served with 200 or 401, sign-in pages
// and teasers. Written after the real templates' markers, not copied.
const (
	tomcatNotFound = `<!doctype html><html lang="en"><head><title>HTTP Status 404 – Not Found</title>` +
		`<style type="text/css">body {font-family:Tahoma,Arial,sans-serif;} h1 {font-size:22px;}</style></head>` +
		`<body><h1>HTTP Status 404 – Not Found</h1><hr class="line" /><p><b>Type</b> Status Report</p>` +
		`<p><b>Message</b> /documents/2025/annual-permits-summary</p><p><b>Description</b> The origin server did not find a ` +
		`current representation for the target resource or is not willing to disclose that one exists.</p>` +
		`<hr class="line" /><h3>Apache Tomcat/9.0.82</h3></body></html>`

	czechNotFound = `<!DOCTYPE html><html lang="cs"><head><meta charset="utf-8"><title>Stránka nenalezena | Město Příklad</title></head>` +
		`<body><header><a href="/">Město Příklad</a></header><nav>Úřad Zprávy Kultura Sport Kontakty</nav>` +
		`<main><h1>Chyba 404</h1><p>Požadovaná stránka nebyla nalezena. Mohla být přesunuta nebo odstraněna.</p>` +
		`<p>Pokračujte prosím na <a href="/">úvodní stránku</a> nebo použijte vyhledávání.</p></main>` +
		`<footer>© 2026 Město Příklad</footer></body></html>`

	sucuriChallenge = `<html><title>You are being redirected...</title>` +
		`<noscript>Javascript is required. Please enable javascript before you are allowed to see this page.</noscript>` +
		`<script>var s={},u,c,U,r,i,l=0,a,e=eval,w=String.fromCharCode,sucuri_cloudproxy_js='',S='cz0iNSIuc2xpY2UoMCwxKSArICcnICsgImQiOw==';` +
		`L=S.length;U=0;r='';var A='ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';` +
		`document.cookie='sucuri_cloudproxy_uuid_0a1b2c3d4=' + r + ';path=/;max-age=86400'; location.reload();</script></html>`

	anubisChallenge = `<!doctype html><html lang="en"><head><title>Making sure you&#39;re not a bot!</title>` +
		`<script id="anubis_version" type="application/json">"v1.21.3"</script>` +
		`<script id="anubis_challenge" type="application/json">{"challenge":"0a1b2c3d4e5f","rules":{"difficulty":4}}</script>` +
		`<script async type="module" src="/.within.website/x/cmd/anubis/static/js/main.mjs"></script></head>` +
		`<body><main><h1 id="title">Making sure you&#39;re not a bot!</h1><p id="status">Loading...</p>` +
		`<p>You are seeing this because the administrator of this website has set up Anubis to protect the server against ` +
		`the scourge of AI companies aggressively scraping websites.</p><footer><p>Protected by Anubis From Techaro.</p></footer>` +
		`</main></body></html>`

	bankLogin = `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Sign In | Example Bank Online Banking</title>` +
		`<meta name="robots" content="noindex"></head><body><header><a href="/">Example Bank</a></header>` +
		`<main><h1>Sign in to Online Banking</h1><form action="/auth/login" method="post">` +
		`<label>User ID <input type="text" name="userid" autocomplete="username"></label>` +
		`<label>Password <input type="password" name="password" autocomplete="current-password"></label>` +
		`<label><input type="checkbox" name="remember"> Remember my user ID</label>` +
		`<button type="submit">Sign in</button></form><p><a href="/forgot">Forgot your user ID or password?</a></p>` +
		`<p>Example Bank will never ask for your password by e-mail or text message. Member FDIC. Equal Housing Lender.</p></main>` +
		`<footer>© 2026 Example Bank</footer></body></html>`

	membersTeaser = `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Port congestion eases as freight rates fall | Trade Weekly</title>` +
		`<meta property="og:title" content="Port congestion eases as freight rates fall"></head><body>` +
		`<header><a href="/">Trade Weekly</a> <a href="/login">Sign in</a></header><main><article>` +
		`<h1>Port congestion eases as freight rates fall</h1><p class="byline">By Ana Costa · 2026-02-03</p>` +
		`<p>Container queues outside the largest European ports shrank to their lowest level in two years in January, ` +
		`as spot freight rates on the main Asia–Europe lane fell for a sixth straight week.</p>` +
		`<div class="wall"><h2>Members only</h2><p>Join now or sign in to read the full story. Trade Weekly members get ` +
		`unlimited access to news, data and analysis.</p><a href="/join">Join now</a> <a href="/login">Sign in</a></div>` +
		`</article></main><footer>© 2026 Trade Weekly</footer></body></html>`

	appShell = `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Fleet Dashboards</title>` +
		`<meta name="description" content="Interactive dashboards on fleet electrification, charging and vehicle costs.">` +
		`<script type="module" src="/assets/index-4f2a9c.js"></script></head>` +
		`<body><div id="root"></div><noscript>You need to enable JavaScript to run this app.</noscript></body></html>`
)
