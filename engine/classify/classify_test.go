package classify

import (
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func fixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

const (
	articleURL = "https://www.dailyplanet.example/business/2025/03/14/eu-battery-recycling-rates-lithium"
	homeURL    = "https://www.dailyplanet.example/"
)

// batteryCitation is how a wave cited the battery-recycling article.
var batteryCitation = Citation{
	LinkText:   "EU battery recycling rates climb as lithium targets loom",
	SourceLine: "- [EU battery recycling rates climb as lithium targets loom](" + articleURL + ") — Daily Planet on lithium recovery targets",
}

// want is one expected verdict per tier; a zero want means "same as the
// previous tier".
type want struct {
	outcome Outcome
	reason  string
}

type tierWants struct{ basic, standard, thorough want }

func (w tierWants) at(t Tier) want {
	switch t {
	case Basic:
		return w.basic
	case Standard:
		return w.standard
	}
	return w.thorough
}

// all is the same verdict at every tier.
func all(o Outcome, reason string) tierWants {
	w := want{o, reason}
	return tierWants{w, w, w}
}

func hdr(kv ...string) http.Header {
	h := http.Header{}
	for i := 0; i+1 < len(kv); i += 2 {
		h.Add(kv[i], kv[i+1])
	}
	return h
}

type tcase struct {
	name string
	page Page
	cite Citation
	want tierWants
	// Optional metadata checks (at the standard tier).
	title, publisher, snippet string
}

func html200(body []byte) Page {
	return Page{RequestedURL: articleURL, StatusCode: 200, Body: body, ContentType: "text/html; charset=utf-8",
		Header: hdr("Content-Type", "text/html; charset=utf-8")}
}

func withStatus(p Page, st int, h http.Header) Page {
	p.StatusCode = st
	if h != nil {
		p.Header = h
	}
	return p
}

func redirectTo(p Page, final string, hops ...string) Page {
	p.FinalURL = final
	p.Redirects = hops
	return p
}

func cases(t testing.TB) []tcase {
	news := fixture(t, "news_article.html")
	md := fixture(t, "apify_article.md")
	pdf := fixture(t, "report.pdf")
	return []tcase{
		// ------------------------------------------------------------ valid
		{
			name: "news article with JSON-LD and og tags",
			page: html200(news), cite: batteryCitation,
			want: tierWants{
				basic:    want{Valid, "reachable: http 200"},
				standard: want{Valid, "ok: html"},
				thorough: want{Valid, "ok: html"},
			},
			title:     "EU battery recycling rates climb as lithium targets loom",
			publisher: "The Daily Planet",
			snippet:   "Europe recovered more lithium from spent batteries in 2024 than ever before, but recyclers warn that the 2027 recovery targets in the EU Battery Regulation remain out of reach without new plants.",
		},
		{
			name: "vendor headers on an ordinary 200 page are not a wall",
			page: withStatus(html200(fixture(t, "vendor_header_article.html")), 200, hdr(
				"Server", "cloudflare", "Cf-Ray", "8c1f2e3d4a5b6c7d-FRA", "Cf-Cache-Status", "DYNAMIC",
				"X-Datadome", "protected", "X-Iinfo", "12-3456789-0 0NNN RT(1700000000 0) q(0 -1 -1 -1) r(0 -1)",
				"Set-Cookie", "datadome=abc123; Path=/", "Set-Cookie", "_abck=def456; Path=/")),
			want:      tierWants{want{Valid, "reachable: http 200"}, want{Valid, "ok: html"}, want{Valid, "ok: html"}},
			title:     "How municipal composting programs cut landfill methane",
			publisher: "Green Cities Journal",
			snippet:   "Food scraps and yard waste make up close to a third of what American households throw away, and when that material is buried in a landfill it decomposes without oxygen and produces methane, a greenhouse gas far more potent than carbon…",
		},
		{
			name:      "a paywall vendor script alone on a full free article is not a paywall",
			page:      html200(fixture(t, "piano_free_article.html")),
			want:      tierWants{want{Valid, "reachable: http 200"}, want{Valid, "ok: html"}, want{Valid, "ok: html"}},
			publisher: "The Metro Courier",
			snippet:   "The council voted 7-2 on Tuesday to add protected bike lanes along a two-mile stretch of Main Street, starting next spring.",
		},
		{
			name: "a thin how-to page that says \"press & hold\" is not a PerimeterX wall",
			page: html200([]byte(`<html><head><title>Reset your router</title></head><body><p>Press &amp; hold the reset button for ten seconds, until the light blinks.</p></body></html>`)),
			want: tierWants{want{Valid, "reachable: http 200"}, want{Valid, `ok: html (thin page)`}, want{Valid, `ok: html (thin page)`}},
		},
		{
			name: "markdown from Apify",
			page: Page{RequestedURL: "https://www.techreview.example/energy/2025/03/battery-recycling-black-mass",
				StatusCode: 200, Body: md, ContentType: "text/markdown"},
			cite:      Citation{LinkText: "How black mass becomes new cathodes (lithium-ion battery recycling)"},
			want:      tierWants{want{Valid, "reachable: http 200"}, want{Valid, "ok: markdown"}, want{Valid, "ok: markdown"}},
			title:     "Lithium-ion battery recycling: how black mass becomes new cathodes",
			publisher: "techreview.example",
			snippet:   "When an electric-vehicle battery reaches the end of its life, it is discharged, dismantled and shredded into a dark powder that recyclers call black mass, a mixture of lithium, nickel, cobalt, manganese and graphite.",
		},
		{
			name: "markdown without status or type, with the rung's title",
			page: Page{RequestedURL: "https://www.techreview.example/energy/x", Body: md,
				Title: "Battery recycling explained | Tech Review"},
			want:  tierWants{want{Valid, "reachable: content without status"}, want{Valid, "ok: markdown"}, want{Valid, "ok: markdown"}},
			title: "Battery recycling explained | Tech Review",
		},
		{
			name: "PDF: title from the Info dictionary",
			page: Page{RequestedURL: "https://www.iea.example/reports/battery-recycling-outlook-2025.pdf",
				StatusCode: 200, Body: pdf, ContentType: "application/pdf"},
			want:      tierWants{want{Valid, "reachable: http 200"}, want{Valid, "ok: pdf"}, want{Valid, "ok: pdf"}},
			title:     "Battery Recycling Outlook 2025",
			publisher: "iea.example",
		},
		{
			name: "PDF without metadata: title from the last path segment",
			page: Page{RequestedURL: "https://www.iea.example/reports/battery%20outlook.pdf",
				StatusCode: 200, Body: []byte("%PDF-1.7\n1 0 obj\n<< /Type /Catalog >>\nendobj\n"), ContentType: "application/octet-stream"},
			want:  tierWants{want{Valid, "reachable: http 200"}, want{Valid, "ok: pdf"}, want{Valid, "ok: pdf"}},
			title: "battery outlook.pdf",
		},
		{
			name:  "other binary document (an image)",
			page:  Page{RequestedURL: "https://cdn.example.org/charts/lithium-2024.png", StatusCode: 200, ContentType: "image/png", Body: []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")},
			want:  tierWants{want{Valid, "reachable: http 200"}, want{Valid, "ok: document (image/png)"}, want{Valid, "ok: document (image/png)"}},
			title: "lithium-2024.png",
		},
		{
			name: "no content mismatch on a script-rendered app shell",
			page: html200([]byte(`<html><head><title>Example Portal</title></head><body><noscript>You need to enable JavaScript to run this app.</noscript><main><p>` +
				strings.Repeat("Welcome to the portal. Please enable JavaScript and reload the page to continue to your dashboard. ", 6) + `</p></main></body></html>`)),
			cite: batteryCitation,
			want: tierWants{want{Valid, "reachable: http 200"}, want{Valid, "ok: html"}, want{Valid, "ok: html"}},
		},
		{
			name: "JSON API response with readable text",
			page: Page{RequestedURL: "https://api.example.org/v1/records/12345", StatusCode: 200, ContentType: "application/json",
				Body: []byte(`{"title":"Global lithium supply 2024","summary":"Lithium supply grew by a quarter in 2024, driven by Australian spodumene and Chilean brine operations, while prices fell to a three-year low as new capacity outpaced demand from electric vehicles and stationary storage.","year":2024,"tags":["lithium","mining"]}`)},
			want:    tierWants{want{Valid, "reachable: http 200"}, want{Valid, "ok: json"}, want{Valid, "ok: json"}},
			title:   "Global lithium supply 2024",
			snippet: "Lithium supply grew by a quarter in 2024, driven by Australian spodumene and Chilean brine operations, while prices fell to a three-year low as new capacity outpaced demand from electric vehicles and stationary storage.",
		},
		{
			name: "XML feed",
			page: Page{RequestedURL: "https://blog.example.org/feed.xml", StatusCode: 200, ContentType: "application/rss+xml",
				Body: []byte(`<?xml version="1.0"?><rss version="2.0"><channel><title>Example Engineering Blog</title><link>https://blog.example.org/</link><description>Notes on storage engines.</description><item><title>Compaction strategies compared</title><description>We benchmarked leveled and tiered compaction on three workloads and found that write amplification, not read latency, decided which strategy won in practice for our services.</description></item></channel></rss>`)},
			want:  tierWants{want{Valid, "reachable: http 200"}, want{Valid, "ok: xml"}, want{Valid, "ok: xml"}},
			title: "Example Engineering Blog",
		},
		{
			name: "a title and no text is not meaningful content (SPA shell, JS challenge)",
			page: html200([]byte(`<!doctype html><html><head><title>Dashboard – Example Analytics</title></head><body><div id="root"></div><script src="/app.js"></script></body></html>`)),
			want: tierWants{want{Valid, "reachable: http 200"}, want{Escalate, `no meaningful content [title-only]: title "Dashboard – Example Analytics", 0 chars of text`}, want{Escalate, `no meaningful content [title-only]: title "Dashboard – Example Analytics", 0 chars of text`}},
		},
		{
			name:  "a title and a description stand in for a script-rendered page",
			page:  html200([]byte(`<!doctype html><html><head><title>Dashboard – Example Analytics</title><meta name="description" content="Weekly active users, retention and funnels for every product team in one place."></head><body><div id="root"></div></body></html>`)),
			want:  tierWants{want{Valid, "reachable: http 200"}, want{Valid, `ok: html (thin page)`}, want{Valid, `ok: html (thin page)`}},
			title: "Dashboard – Example Analytics",
		},
		{
			name: "a meta-refresh redirect shell is not meaningful content",
			page: html200([]byte(`<html><head><title>Example News</title><meta http-equiv="refresh" content="0; url=https://news.example/a"></head><body>Redirecting…</body></html>`)),
			want: tierWants{want{Valid, "reachable: http 200"}, want{Escalate, `no meaningful content [redirect-shell]: a redirect by script or meta refresh, title "Example News"`}, want{Escalate, `no meaningful content [redirect-shell]: a redirect by script or meta refresh, title "Example News"`}},
		},
		{
			name: "a long article about HTTP 404 is not a soft 404",
			page: html200([]byte(`<html><head><title>Error 404: the story of the web's most famous status code</title></head><body><article><h1>Error 404</h1>` +
				strings.Repeat(`<p>The 404 status code was defined in the early HTTP specifications, and its history says a lot about how the web was built by people who expected links to break and wanted a polite way to say so to readers.</p>`, 30) +
				`</article></body></html>`)),
			cite: Citation{LinkText: "History of the HTTP 404 status code"},
			want: tierWants{want{Valid, "reachable: http 200"}, want{Valid, "ok: html"}, want{Valid, "ok: html"}},
		},
		{
			name: "a page in another language is never a content mismatch",
			page: html200([]byte(`<html lang="de"><head><title>Batterierecycling in der EU: Quoten steigen</title></head><body><article><p>` +
				strings.Repeat("Die Rückgewinnung von Lithium aus Altbatterien hat im vergangenen Jahr deutlich zugenommen, doch die Recyclingunternehmen warnen vor zu knappen Kapazitäten. ", 8) +
				`</p></article></body></html>`)),
			cite: Citation{LinkText: "EU battery recycling rates climb as lithium targets loom"},
			want: tierWants{want{Valid, "reachable: http 200"}, want{Valid, "ok: html"}, want{Valid, "ok: html"}},
		},

		// ------------------------------------------------------------ paywalled
		{
			name: "paywall: JSON-LD isAccessibleForFree false",
			page: html200(fixture(t, "paywall_jsonld.html")),
			want: tierWants{
				basic:    want{Valid, "reachable: http 200"},
				standard: want{Paywalled, `paywall [json-ld-free-false]: JSON-LD "isAccessibleForFree=false"`},
				thorough: want{Paywalled, `paywall [json-ld-free-false]: JSON-LD "isAccessibleForFree=false"`},
			},
			title:     "Inside the race to mine lithium from geothermal brine",
			publisher: "The Financial Ledger",
			snippet:   "Three companies in California's Salton Sea are betting that the brine already pumped for geothermal power can supply a fifth of America's lithium.",
		},
		{
			name:      "paywall: Piano/Tinypass over a teaser",
			page:      html200(fixture(t, "paywall_piano.html")),
			want:      tierWants{want{Valid, "reachable: http 200"}, want{Paywalled, `paywall [vendor-script]: piano/tinypass, script "piano/tinypass", page says "subscribe to continue reading"`}, want{Paywalled, `paywall [vendor-script]: piano/tinypass, script "piano/tinypass", page says "subscribe to continue reading"`}},
			title:     "The hidden cost of fast fashion's returns",
			publisher: "The Metro Courier",
		},
		{
			name: "paywall: metered subscribe-to-continue wall",
			page: html200(fixture(t, "paywall_metered.html")),
			want: tierWants{want{Valid, "reachable: http 200"},
				want{Paywalled, `paywall [subscription-phrase]: subscription wall, page says "subscribe to continue reading"`},
				want{Paywalled, `paywall [subscription-phrase]: subscription wall, page says "subscribe to continue reading"`}},
			publisher: "The Weekly Economist",
		},
		{
			name: "paywall: login wall",
			page: html200(fixture(t, "login_wall.html")),
			want: tierWants{want{Valid, "reachable: http 200"},
				want{Paywalled, `paywall [login-page]: login wall (sign-in page), title "Quarterly outlook: semiconductor supply chains | Analyst Portal"`},
				want{Paywalled, `paywall [login-page]: login wall (sign-in page), title "Quarterly outlook: semiconductor supply chains | Analyst Portal"`}},
		},
		{
			name: "paywall: sign-in page with a password form",
			page: html200([]byte(`<html><head><title>Sign in | Example Research</title></head><body><h1>Welcome back</h1><form><input type="email" name="u"><input type="password" name="p"><button>Continue</button></form></body></html>`)),
			want: tierWants{want{Valid, "reachable: http 200"}, want{Paywalled, `paywall [login-page]: login wall (sign-in page), title "Sign in | Example Research"`}, want{Paywalled, `paywall [login-page]: login wall (sign-in page), title "Sign in | Example Research"`}},
		},
		{
			name: "paywall: content_tier meta",
			page: html200([]byte(`<html><head><title>Rates outlook</title><meta property="article:content_tier" content="locked"></head><body><p>` + strings.Repeat("Bond markets priced in two cuts for the year as inflation cooled. ", 60) + `</p></body></html>`)),
			want: tierWants{want{Valid, "reachable: http 200"}, want{Paywalled, `paywall [content-tier]: meta "content_tier=locked"`}, want{Paywalled, `paywall [content-tier]: meta "content_tier=locked"`}},
		},
		{
			name: "paywall: microdata isAccessibleForFree",
			page: html200([]byte(`<html><head><title>Deep dive</title></head><body><article itemscope itemtype="https://schema.org/NewsArticle"><meta itemprop="isAccessibleForFree" content="False"><p>` + strings.Repeat("Long analysis text. ", 100) + `</p></article></body></html>`)),
			want: tierWants{want{Valid, "reachable: http 200"}, want{Paywalled, `paywall [microdata-free-false]: microdata "isAccessibleForFree=false"`}, want{Paywalled, `paywall [microdata-free-false]: microdata "isAccessibleForFree=false"`}},
		},
		{
			name: "paywall: deep link redirected to a login page",
			page: redirectTo(html200([]byte(`<html><head><title>Example Portal</title></head><body><p>Welcome.</p></body></html>`)),
				"https://accounts.example.com/signin?continue=%2Freports%2F2025%2Fq1"),
			want: tierWants{want{Valid, "reachable: http 200"}, want{Paywalled, `paywall [login-redirect]: login wall (redirected to a sign-in page), redirected to "accounts.example.com/signin?…"`}, want{Paywalled, `paywall [login-redirect]: login wall (redirected to a sign-in page), redirected to "accounts.example.com/signin?…"`}},
		},
		{
			name:      "paywall: http 401",
			page:      withStatus(html200([]byte(`<html><head><title>Sign in</title><meta property="og:site_name" content="Example Journals"></head></html>`)), 401, nil),
			want:      all(Paywalled, `paywall [http-401]: status "401 Unauthorized"`),
			publisher: "Example Journals",
		},
		{
			name: "paywall: http 402",
			page: withStatus(Page{RequestedURL: articleURL}, 402, nil),
			want: all(Paywalled, `paywall [http-402]: status "402 Payment Required"`),
		},
		{
			name: "paywall: Cloudflare pay-per-crawl 402",
			page: withStatus(Page{RequestedURL: articleURL}, 402, hdr("Crawler-Price", "USD 0.01")),
			want: all(Paywalled, `paywall [pay-per-crawl]: status "402 Payment Required", header "crawler-price: USD 0.01"`),
		},

		// ------------------------------------------------------------ bot walls (escalate)
		{
			name: "Cloudflare challenge: 403 with cf-mitigated",
			page: withStatus(html200(fixture(t, "cf_challenge.html")), 403, hdr("Cf-Mitigated", "challenge", "Server", "cloudflare")),
			want: all(Escalate, `bot wall [challenge-header]: cloudflare challenge, header "cf-mitigated: challenge"`),
		},
		{
			name: "Cloudflare managed challenge sent as 429, lower-case header key",
			page: withStatus(Page{RequestedURL: articleURL}, 429, http.Header{"cf-mitigated": {"challenge"}}),
			want: all(Escalate, `bot wall [challenge-header]: cloudflare challenge, header "cf-mitigated: challenge"`),
		},
		{
			name: "Cloudflare 'Just a moment...' interstitial with status 200",
			page: withStatus(html200(fixture(t, "cf_interstitial.html")), 200, hdr("Server", "cloudflare")),
			want: all(Escalate, `bot wall [challenge-marker]: cloudflare challenge, marker "_cf_chl_opt"`),
		},
		{
			name: "DataDome block: 403 with x-datadome",
			page: withStatus(html200(fixture(t, "datadome_block.html")), 403, hdr("X-Datadome", "protected", "Set-Cookie", "datadome=abc; Path=/")),
			want: all(Escalate, `bot wall [vendor-header]: datadome (http 403), header "x-datadome: protected"`),
		},
		{
			name: "DataDome captcha page without headers",
			page: withStatus(html200(fixture(t, "datadome_block.html")), 403, http.Header{}),
			want: all(Escalate, `bot wall [challenge-marker]: datadome, marker "captcha-delivery.com"`),
		},
		{
			name: "PerimeterX Press & Hold",
			page: withStatus(html200(fixture(t, "perimeterx_block.html")), 403, nil),
			want: all(Escalate, `bot wall [challenge-marker]: perimeterx, marker "px-captcha"`),
		},
		{
			name: "Akamai Access Denied reference page",
			page: withStatus(html200(fixture(t, "akamai_denied.html")), 403, hdr("Server", "AkamaiGHost")),
			want: all(Escalate, `bot wall [vendor-header]: akamai (http 403), header "server: AkamaiGHost"`),
		},
		{
			name: "Akamai Access Denied reference page, body only",
			page: withStatus(html200(fixture(t, "akamai_denied.html")), 403, http.Header{}),
			want: all(Escalate, `bot wall [challenge-marker]: akamai, marker "errors&#46;edgesuite&#46;net"`),
		},
		{
			name: "LinkedIn 999",
			page: withStatus(Page{RequestedURL: "https://www.linkedin.com/in/someone"}, 999, nil),
			want: all(Escalate, `bot wall [http-999]: linkedin 999, status "999"`),
		},
		{
			name: "AWS WAF captcha action",
			page: withStatus(Page{RequestedURL: articleURL}, 405, hdr("X-Amzn-Waf-Action", "captcha")),
			want: all(Escalate, `bot wall [challenge-header]: aws waf captcha, header "x-amzn-waf-action: captcha"`),
		},
		{
			name: "vendor headers with a blocking status are a wall",
			page: withStatus(html200(fixture(t, "news_article.html")), 403, hdr("X-Iinfo", "12-345", "Server", "nginx")),
			want: all(Escalate, `bot wall [vendor-header]: imperva (http 403), header "x-iinfo: 12-345"`),
		},
		{
			name: "Cloudflare-injected challenge-platform script on a 403 page",
			page: withStatus(html200(fixture(t, "vendor_header_article.html")), 403, http.Header{}),
			want: all(Escalate, `bot wall [vendor-script]: cloudflare challenge (http 403), marker "/cdn-cgi/challenge-platform"`),
		},
		{
			name: "Apify markdown of a challenge page",
			page: Page{RequestedURL: articleURL, StatusCode: 200, ContentType: "text/markdown", Title: "Just a moment...",
				Body: []byte("# www.dailyplanet.example\n\nVerifying you are human. This may take a few seconds.\n\nwww.dailyplanet.example needs to review the security of your connection before proceeding.\n")},
			want: all(Escalate, `bot wall [challenge-title]: cloudflare challenge, title "Just a moment..."`),
		},

		// ------------------------------------------------------------ other escalations
		{name: "an error page served with 200", page: html200([]byte(`<html><head><title>503 Service Unavailable</title></head><body><h1>Service Unavailable</h1><p>Try again later.</p></body></html>`)),
			want: tierWants{want{Valid, "reachable: http 200"}, want{Escalate, `error page [title-status]: title "503 Service Unavailable"`}, want{Escalate, `error page [title-status]: title "503 Service Unavailable"`}}},
		{name: "plain 403", page: withStatus(html200([]byte("<html><body>Forbidden</body></html>")), 403, nil), want: all(Escalate, `http 403 [http-status]: status "403 Forbidden"`)},
		{name: "429 without a wall", page: withStatus(Page{RequestedURL: articleURL}, 429, hdr("Retry-After", "60")), want: all(Escalate, `http 429 [http-status]: status "429 Too Many Requests"`)},
		{name: "503", page: withStatus(Page{RequestedURL: articleURL}, 503, nil), want: all(Escalate, `http 503 [http-status]: status "503 Service Unavailable"`)},
		{name: "500", page: withStatus(Page{RequestedURL: articleURL}, 500, nil), want: all(Escalate, `http 500 [http-status]: status "500 Internal Server Error"`)},
		{name: "451", page: withStatus(Page{RequestedURL: articleURL}, 451, nil), want: all(Escalate, `http 451 [http-status]: status "451 Unavailable For Legal Reasons"`)},
		{
			name: "3xx final: reachable at basic, escalate otherwise",
			page: withStatus(Page{RequestedURL: articleURL, HEAD: true}, 301, hdr("Location", "https://elsewhere.example/")),
			want: tierWants{want{Valid, "reachable: http 301"}, want{Escalate, `http 301 [redirect-not-followed]: status "301 Moved Permanently"`}, want{Escalate, `http 301 [redirect-not-followed]: status "301 Moved Permanently"`}},
		},
		{
			name: "empty 200 body",
			page: html200(nil),
			want: tierWants{want{Valid, "reachable: http 200"}, want{Escalate, `no meaningful content [thin-page]: 0 chars, text ""`}, want{Escalate, `no meaningful content [thin-page]: 0 chars, text ""`}},
		},
		{
			name: "tiny 200 body",
			page: html200(fixture(t, "tiny.html")),
			want: tierWants{want{Valid, "reachable: http 200"}, want{Escalate, `no meaningful content [thin-page]: 2 chars, text "OK"`}, want{Escalate, `no meaningful content [thin-page]: 2 chars, text "OK"`}},
		},
		{
			name: "HEAD response",
			page: Page{RequestedURL: articleURL, StatusCode: 200, HEAD: true, ContentType: "text/html"},
			want: tierWants{want{Valid, "reachable: http 200 (HEAD)"}, want{Escalate, `no meaningful content [head-response]: HEAD response, body ""`}, want{Escalate, `no meaningful content [head-response]: HEAD response, body ""`}},
		},
		{
			name: "no status and no content",
			page: Page{RequestedURL: articleURL},
			want: tierWants{want{Escalate, `no response [empty]: no status, body ""`}, want{Escalate, `no meaningful content [thin-page]: 0 chars, text ""`}, want{Escalate, `no meaningful content [thin-page]: 0 chars, text ""`}},
		},
		{
			name: "tiny JSON error with status 200 says its own 404",
			page: Page{RequestedURL: "https://api.example.org/v1/records/12345", StatusCode: 200, ContentType: "application/json", Body: []byte(`{"error":"not_found","status":404}`)},
			want: all(Invalid, `soft 404 [status-field]: body says "\"status\":404"`),
		},

		// ------------------------------------------------------------ invalid
		{name: "404", page: withStatus(html200(fixture(t, "soft404.html")), 404, nil), want: all(Invalid, `http 404 [http-status]: status "404 Not Found"`)},
		{name: "410", page: withStatus(Page{RequestedURL: articleURL}, 410, nil), want: all(Invalid, `http 410 [http-status]: status "410 Gone"`)},
		{
			name: "404 page served through Cloudflare stays a 404",
			page: withStatus(html200([]byte(`<html><head><title>Not found</title></head><body><h1>404</h1><script src="/cdn-cgi/challenge-platform/scripts/jsd/main.js"></script></body></html>`)), 404, hdr("Server", "cloudflare", "Cf-Ray", "abc")),
			want: all(Invalid, `http 404 [http-status]: status "404 Not Found"`),
		},
		{
			name: "404 status carrying a real challenge is a wall",
			page: withStatus(html200(fixture(t, "cf_interstitial.html")), 404, nil),
			want: all(Escalate, `bot wall [challenge-marker]: cloudflare challenge, marker "_cf_chl_opt"`),
		},
		{
			name: "soft 404: 200 with a 'Page not found' title",
			page: html200(fixture(t, "soft404.html")),
			want: all(Invalid, `soft 404 [title-phrase]: title "Page not found | The Daily Planet"`),
		},
		{
			name: "soft 404: generic title, h1 says 404",
			page: html200([]byte(`<html><head><title>Example Store</title></head><body><nav>Shop Men Women Kids Sale</nav><main><h1>404</h1><p>Sorry!</p></main></body></html>`)),
			want: all(Invalid, `soft 404 [heading-phrase]: heading "404"`),
		},
		{
			name: "soft 404: thin body phrase",
			page: Page{RequestedURL: articleURL, StatusCode: 200, ContentType: "text/plain", Body: []byte("Oops. The page you are looking for has moved or never existed. Go back to the home page and try the search box, or contact support if you followed a link from another site.")},
			want: all(Invalid, `soft 404 [lead-sentence]: page says "page you are looking for has moved or"`),
		},
		{
			name: "soft 404: deep link redirected to /404",
			page: redirectTo(html200(fixture(t, "home.html")), "https://www.dailyplanet.example/404.html", "https://www.dailyplanet.example/business/2025/03/14/eu-battery-recycling-rates-lithium/"),
			cite: batteryCitation,
			want: all(Invalid, `soft 404 [redirect-404-path]: redirected to "/404.html"`),
		},
		{
			name: "soft 404: a hop through /not-found",
			page: redirectTo(html200(fixture(t, "home.html")), "https://www.dailyplanet.example/search?q=battery", "https://www.dailyplanet.example/not-found?from=x"),
			want: all(Invalid, `soft 404 [redirect-404-path]: redirected to "/not-found?…"`),
		},
		{
			name: "soft 404: deep link redirected to a home page with an error title",
			page: redirectTo(html200(fixture(t, "home_oops.html")), "https://riverside-gazette.example/"),
			want: tierWants{want{Valid, "reachable: http 200"}, want{Valid, "ok: html"},
				want{Invalid, `soft 404 [deep-link-home]: deep link redirected to home page "/business/2025/03/14/eu-battery-recycling-rates-lithium → riverside-gazette.example/", title "Oops! This story is no longer available | Riverside Gazette"`}},
		},

		// ------------------------------------------------------------ mismatch
		{
			name: "mismatch: deep link redirected to the home page",
			page: redirectTo(html200(fixture(t, "home.html")), homeURL),
			cite: batteryCitation,
			want: tierWants{want{Valid, "reachable: http 200"}, want{Valid, "ok: html"},
				want{Mismatch, `mismatch [deep-link-home]: deep link redirected to home page "/business/2025/03/14/eu-battery-recycling-rates-lithium → /"`}},
			title:     "The Daily Planet",
			publisher: "The Daily Planet",
		},
		{
			name: "mismatch: deep link redirected to another site's home page",
			page: redirectTo(html200(fixture(t, "home.html")), "https://parked.example/"),
			want: tierWants{want{Valid, "reachable: http 200"}, want{Valid, "ok: html"},
				want{Mismatch, `mismatch [deep-link-home]: deep link redirected to home page "/business/2025/03/14/eu-battery-recycling-rates-lithium → parked.example/"`}},
		},
		{
			name: "mismatch: citation about battery recycling, page about cooking",
			page: Page{RequestedURL: "https://www.homekitchen.example/recipes/2025/weeknight-pasta", StatusCode: 200, ContentType: "text/html", Body: fixture(t, "cooking.html")},
			cite: batteryCitation,
			want: tierWants{want{Valid, "reachable: http 200"}, want{Valid, "ok: html"},
				want{Mismatch, `mismatch [cited-terms]: 0 of 10 cited terms on page (battery, recycling, rates, climb, lithium, …), title "Easy weeknight pasta with garlic and spinach | Home Kitchen"`}},
			title:     "Easy weeknight pasta with garlic and spinach | Home Kitchen",
			publisher: "Home Kitchen",
		},
		{
			name: "no mismatch with a generic or URL-only citation",
			page: Page{RequestedURL: "https://www.homekitchen.example/recipes/2025/weeknight-pasta", StatusCode: 200, ContentType: "text/html", Body: fixture(t, "cooking.html")},
			cite: Citation{LinkText: "source", SourceLine: "- https://www.homekitchen.example/recipes/2025/weeknight-pasta (accessed 2025)"},
			want: tierWants{want{Valid, "reachable: http 200"}, want{Valid, "ok: html"}, want{Valid, "ok: html"}},
		},
	}
}

func TestClassify(t *testing.T) {
	for _, tc := range cases(t) {
		for _, tier := range []Tier{Basic, Standard, Thorough} {
			t.Run(tc.name+"/"+string(tier), func(t *testing.T) {
				v := Classify(tc.page, tc.cite, tier)
				w := tc.want.at(tier)
				if v.Outcome != w.outcome || v.Reason != w.reason {
					t.Errorf("got %v %q\nwant %v %q", v.Outcome, v.Reason, w.outcome, w.reason)
				}
				if v.HTTPStatus != tc.page.StatusCode {
					t.Errorf("HTTPStatus = %d, want %d", v.HTTPStatus, tc.page.StatusCode)
				}
				checkInvariants(t, v)
				if tier != Standard {
					return
				}
				if tc.title != "" && v.Title != tc.title {
					t.Errorf("Title = %q, want %q", v.Title, tc.title)
				}
				if tc.publisher != "" && v.Publisher != tc.publisher {
					t.Errorf("Publisher = %q, want %q", v.Publisher, tc.publisher)
				}
				if tc.snippet != "" && v.Snippet != tc.snippet {
					t.Errorf("Snippet = %q\nwant      %q", v.Snippet, tc.snippet)
				}
			})
		}
	}
}

// checkInvariants holds for every verdict.
func checkInvariants(t testing.TB, v Verdict) {
	t.Helper()
	if v.Outcome < Valid || v.Outcome > Escalate {
		t.Errorf("outcome %d out of range", v.Outcome)
	}
	if v.Reason == "" {
		t.Error("empty reason")
	}
	if n := utf8.RuneCountInString(v.Snippet); n > snippetMax {
		t.Errorf("snippet has %d runes", n)
	}
	if strings.ContainsRune(v.Snippet, '<') {
		t.Errorf("snippet contains '<': %q", v.Snippet)
	}
	for _, s := range []string{v.Reason, v.Title, v.Publisher, v.Snippet} {
		if !utf8.ValidString(s) {
			t.Errorf("invalid UTF-8: %q", s)
		}
		if s != strings.TrimSpace(s) || strings.Contains(s, "  ") || strings.ContainsAny(s, "\n\r\t\x00") {
			t.Errorf("not collapsed: %q", s)
		}
	}
	if v.Outcome == Escalate || v.Outcome == Invalid {
		if v.Title != "" || v.Snippet != "" {
			t.Errorf("%v verdict carries metadata: %q %q", v.Outcome, v.Title, v.Snippet)
		}
	}
}

// TestReasonFamilies pins the reason prefix of each outcome.
func TestReasonFamilies(t *testing.T) {
	families := map[Outcome][]string{
		Valid:     {"ok: ", "reachable: "},
		Paywalled: {"paywall ["},
		Invalid:   {"http 404 [", "http 410 [", "soft 404 ["},
		Mismatch:  {"mismatch ["},
		Escalate:  {"bot wall [", "http ", "error page [", "no meaningful content [", "no response ["},
	}
	seen := map[Outcome]bool{}
	for _, tc := range cases(t) {
		for _, tier := range []Tier{Basic, Standard, Thorough} {
			v := Classify(tc.page, tc.cite, tier)
			seen[v.Outcome] = true
			ok := false
			for _, f := range families[v.Outcome] {
				ok = ok || strings.HasPrefix(v.Reason, f)
			}
			if !ok {
				t.Errorf("%s/%s: %v reason %q outside its families", tc.name, tier, v.Outcome, v.Reason)
			}
		}
	}
	for o := Valid; o <= Escalate; o++ {
		if !seen[o] {
			t.Errorf("no case produces %v", o)
		}
	}
}

func TestTierDifferences(t *testing.T) {
	// A soft 404 is invalid at every tier that reads the body (issue 9:
	// soft 404s are the phantom citations Gate C must stop).
	p := html200(fixture(t, "soft404.html"))
	got := []Outcome{Classify(p, Citation{}, Basic).Outcome, Classify(p, Citation{}, Standard).Outcome, Classify(p, Citation{}, Thorough).Outcome}
	if got[0] != Invalid || got[1] != Invalid || got[2] != Invalid {
		t.Errorf("soft 404 across tiers = %v", got)
	}
	// A content mismatch is judged at the thorough tier only.
	cook := Page{RequestedURL: "https://www.homekitchen.example/recipes/2025/weeknight-pasta", StatusCode: 200, ContentType: "text/html", Body: fixture(t, "cooking.html")}
	if a, b := Classify(cook, batteryCitation, Standard).Outcome, Classify(cook, batteryCitation, Thorough).Outcome; a != Valid || b != Mismatch {
		t.Errorf("mismatch across tiers = %v %v", a, b)
	}
	// An unknown tier is standard.
	for _, tier := range []Tier{"", "paranoid"} {
		if a, b := Classify(p, Citation{}, tier), Classify(p, Citation{}, Standard); a != b {
			t.Errorf("tier %q = %+v, want standard %+v", tier, a, b)
		}
	}
	// Basic never reads content rules: a paywalled page is merely reachable.
	if v := Classify(html200(fixture(t, "paywall_jsonld.html")), Citation{}, Basic); v.Outcome != Valid || v.Title == "" {
		t.Errorf("basic paywall page = %+v", v)
	}
}

func TestSnippet(t *testing.T) {
	long := strings.Repeat("Recyclers recovered lithium carbonate at battery grade from black mass. ", 12)
	v := Classify(html200([]byte(`<html><head><title>T</title><meta name="description" content="`+long+`"></head><body></body></html>`)), Citation{}, Standard)
	if n := utf8.RuneCountInString(v.Snippet); n > snippetMax || n < snippetMax-40 {
		t.Errorf("snippet length %d: %q", n, v.Snippet)
	}
	if !strings.HasSuffix(v.Snippet, "…") || strings.HasSuffix(v.Snippet, " …") {
		t.Errorf("snippet not cut on a word boundary with an ellipsis: %q", v.Snippet)
	}
	if cut := strings.TrimSuffix(v.Snippet, "…"); !strings.HasPrefix(long, cut) || (long[len(cut)] != ' ' && long[len(cut)] != '.') {
		t.Errorf("snippet cut mid-word: %q", v.Snippet)
	}

	// No description: the first paragraph of at least 80 runes, never nav,
	// footer, scripts or markup.
	body := `<html><head><title>T</title><script>var x = "<p>not this</p>";</script><style>p{}</style></head><body>
<nav><p>Home News Sport Weather and a very long navigation paragraph that exceeds eighty characters easily.</p></nav>
<p>Short intro.</p>
<p>The <b>second</b> paragraph &amp; its <a href="/x">link</a> are long enough to be the evidence snippet for this page, surely.</p>
<footer><p>Copyright and a long footer paragraph that is also more than eighty characters long, for sure.</p></footer></body></html>`
	v = Classify(html200([]byte(body)), Citation{}, Standard)
	if want := "The second paragraph & its link are long enough to be the evidence snippet for this page, surely."; v.Snippet != want {
		t.Errorf("snippet = %q, want %q", v.Snippet, want)
	}

	// Secrets in page text are redacted, markup-looking text is defused.
	v = Classify(html200([]byte(`<html><head><title>T</title><meta name="description" content="Call https://api.example.com/v1?api_key=sk_live_abcdef1234567890 with password=hunter2 &lt;script&gt;alert(1)&lt;/script&gt;"></head><body></body></html>`)), Citation{}, Standard)
	for _, bad := range []string{"sk_live_abcdef1234567890", "hunter2", "<"} {
		if strings.Contains(v.Snippet, bad) {
			t.Errorf("snippet leaks %q: %q", bad, v.Snippet)
		}
	}
}

func TestTitleFallbacks(t *testing.T) {
	for _, tc := range []struct{ body, want string }{
		{`<html><head><meta property="og:title" content="OG title"><title>Doc title</title></head><body><h1>H1</h1></body></html>`, "OG title"},
		{`<html><head><title>
  Doc
   title  </title></head><body><h1>H1</h1></body></html>`, "Doc title"},
		{`<html><body><svg><title>icon</title></svg><h1>The <em>heading</em></h1></body></html>`, "The heading"},
	} {
		v := Classify(html200([]byte(tc.body)), Citation{}, Basic)
		if v.Title != tc.want {
			t.Errorf("title of %q = %q, want %q", tc.body, v.Title, tc.want)
		}
	}
}

func TestOutcomeString(t *testing.T) {
	want := map[Outcome]string{Valid: "valid", Paywalled: "paywalled", Invalid: "invalid", Mismatch: "mismatch", Escalate: "escalate", 9: "outcome(9)"}
	for o, s := range want {
		if o.String() != s {
			t.Errorf("%d.String() = %q, want %q", int(o), o.String(), s)
		}
	}
}

func TestLargePageStaysCorrect(t *testing.T) {
	// A big page is tokenized only until enough text is in hand; the
	// page-wide signals at its very end must still be seen.
	big := bigPage(t)
	tail := []byte(`<script type="application/ld+json">{"@type":"NewsArticle","isAccessibleForFree":false}</script></body></html>`)
	body := slices.Concat(big[:len(big)-len("</body>\n</html>\n")], tail)
	v := Classify(html200(body), batteryCitation, Thorough)
	if v.Outcome != Paywalled || v.Reason != `paywall [json-ld-free-false]: JSON-LD "isAccessibleForFree=false"` {
		t.Errorf("got %v %q", v.Outcome, v.Reason)
	}
}
