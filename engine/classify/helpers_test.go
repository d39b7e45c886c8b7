package classify

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestURLRules(t *testing.T) {
	for _, tc := range []struct {
		url        string
		deep, home bool
		notFound   bool
	}{
		{"https://x.example/", false, true, false},
		{"https://x.example", false, true, false},
		{"https://x.example/en-us/", false, true, false},
		{"https://x.example/index.html", false, true, false},
		{"https://x.example/about", false, false, false},
		{"https://x.example/news/story", true, false, false},
		{"https://x.example/p/12345", true, false, false},
		{"https://x.example/12345", true, false, false},
		{"https://x.example/my-first-blog-post", true, false, false},
		{"https://x.example/report.pdf", true, false, false},
		{"https://x.example/?p=812", true, true, false},
		{"https://x.example/404", false, false, true},
		{"https://x.example/errors/page-not-found.html", true, false, true},
		{"https://x.example/Error.aspx?aspxerrorpath=/a/b", true, false, true},
		{"https://x.example/search?error=404", false, false, true},
		{"https://x.example/products/4040-widget", true, false, false},
	} {
		u := parseURL(tc.url)
		if got := deepLink(u); got != tc.deep {
			t.Errorf("deepLink(%s) = %v", tc.url, got)
		}
		if got := homePath(u); got != tc.home {
			t.Errorf("homePath(%s) = %v", tc.url, got)
		}
		if got := notFoundPath(u); got != tc.notFound {
			t.Errorf("notFoundPath(%s) = %v", tc.url, got)
		}
	}
}

func TestRedirectRules(t *testing.T) {
	deep := "https://news.example/world/2025/03/story-about-things"
	for _, tc := range []struct {
		name, req, final string
		soft404, login   string
		home             bool
	}{
		{"no redirect", deep, "", "", "", false},
		{"scheme and www only", "http://news.example/world/a", "https://www.news.example/world/a/", "", "", false},
		{"to home", deep, "https://news.example/", "", "", true},
		{"shallow to home", "https://news.example/about", "https://news.example/", "", "", false},
		{"to 404", deep, "https://news.example/404", `redirect-404-path: redirected to "/404"`, "", false},
		{"cited 404 page itself", "https://news.example/404", "https://news.example/404.html", "", "", false},
		{"to login", deep, "https://news.example/account/login?next=%2Fworld", "", "login wall (redirected to a sign-in page)", false},
		{"to login host", deep, "https://login.news.example/", "", "login wall (redirected to a sign-in page)", true},
		{"to subscribe", deep, "https://news.example/subscribe?ref=wall", "", "subscription wall (redirected to a subscription page)", false},
		{"cited login page", "https://news.example/login", "https://news.example/login?x=1", "", "", false},
		// A deep link that lands on a search results page (shops, CMS
		// search plugins): the site has no such page.
		{"to /search?q=", deep, "https://news.example/search?q=story+about+things",
			`redirect-search: deep link redirected to a search page "/search?q=story+about+things"`, "", false},
		{"to /?s= (WordPress)", deep, "https://news.example/?s=story-about-things",
			`redirect-search: deep link redirected to a search page "/?s=story-about-things"`, "", true},
		{"to /catalogsearch/result/ (Magento)", "https://shop.example/garden/teak-bench-180.html", "https://shop.example/catalogsearch/result/?q=teak+bench+180",
			`redirect-search: deep link redirected to a search page "/catalogsearch/result/?q=teak+bench+180"`, "", false},
		{"to /s?k= (Amazon)", "https://shop.example/dp/B0C1234567", "https://shop.example/s?k=B0C1234567",
			`redirect-search: deep link redirected to a search page "/s?k=B0C1234567"`, "", false},
		{"to /de/suche", "https://shop.example/de/produkte/gartenbank-teak", "https://shop.example/de/suche?query=gartenbank",
			`redirect-search: deep link redirected to a search page "/de/suche?query=gartenbank"`, "", false},
		{"cited search page", "https://shop.example/search?q=bench", "https://shop.example/search?q=bench&page=1", "", "", false},
		{"cited WordPress search", "https://news.example/?s=council", "https://www.news.example/?s=council&lang=en", "", "", false},
		{"shallow link to search", "https://news.example/archive", "https://news.example/search?q=archive", "", "", false},
		{"deep link to a query page that is not a search", deep, "https://news.example/world/?page=2", "", "", false},
		{"deep link to a Drupal route", deep, "https://news.example/?q=node/4512", "", "", true},
	} {
		p := Page{RequestedURL: tc.req, FinalURL: tc.final}
		f := redirectSoft404(p)
		if got := f.rule + ": " + f.detail; (f.ok() || tc.soft404 != "") && got != tc.soft404 {
			t.Errorf("%s: redirectSoft404 = %q, want %q", tc.name, got, tc.soft404)
		}
		if got, _ := loginRedirect(p); got != tc.login {
			t.Errorf("%s: loginRedirect = %q, want %q", tc.name, got, tc.login)
		}
		if _, _, got := deepLinkToHome(p); got != tc.home {
			t.Errorf("%s: deepLinkToHome = %v, want %v", tc.name, got, tc.home)
		}
	}
}

func TestNotFoundTitle(t *testing.T) {
	yes := []string{
		"Page not found | Example", "404", "404 Not Found", "Error 404 - Example News", "Oops! Page not found.",
		"This page doesn’t exist – Example", "Seite nicht gefunden", "We can't find that page",
		"Sorry, we couldn't find that page", "Example: Not Found",
		"Sorry, the page you requested could not be found on this server | Example",
	}
	no := []string{
		"Example News", "Not found: the search for the missing Malaysia Airlines flight 370 continues after ten years",
		"How we cut 404s on our docs site", "The Page", "Founders and friends",
		"Error 404: the story of the web's most famous status code",
	}
	for _, s := range yes {
		if !notFoundTitle(s) {
			t.Errorf("notFoundTitle(%q) = false", s)
		}
	}
	for _, s := range no {
		if notFoundTitle(s) {
			t.Errorf("notFoundTitle(%q) = true", s)
		}
	}
}

func TestMarkdownExtraction(t *testing.T) {
	in := &pageInfo{}
	in.main.max = keepText
	scanLines([]byte("Intro line\n===\n\n"+
		"Text with a [link](https://a.example/x_(y)) and ![img](https://i.example/p.png) and <span>tag</span> and **bold** and snake_case and https://bare.example/url\nand a second line that is long enough.\n\n"+
		"```\ncode <b>not a tag</b>\n```\n| a | b |\n|---|---|\n| 1 | 2 |\n"), in, true)
	if in.h1 != "Intro line" {
		t.Errorf("setext h1 = %q", in.h1)
	}
	want := "Text with a link and and tag and bold and snake_case and and a second line that is long enough."
	if in.firstPara != want {
		t.Errorf("firstPara = %q, want %q", in.firstPara, want)
	}
	if got := mdInline("[a](b) [c][ref] \\*lit\\* _em_"); got != "a c *lit* em" {
		t.Errorf("mdInline = %q", got)
	}
}

func TestPDFTitle(t *testing.T) {
	for _, tc := range []struct{ pdf, want string }{
		{"%PDF-1.4\n3 0 obj << /Title (Outline entry) >> endobj\n7 0 obj\n<< /Title (Annual \\(2024\\) report) /Author (X) >>\nendobj\ntrailer << /Info 7 0 R >>", "Annual (2024) report"},
		{"%PDF-1.7\n5 0 obj << /Title <FEFF004200E9006C00E9> >> endobj trailer << /Root 1 0 R /Info 5 0 R >>", "Bélé"},
		{"%PDF-1.7\n<x:xmpmeta><dc:title><rdf:Alt><rdf:li xml:lang=\"x-default\">Tom &amp; Jerry</rdf:li></rdf:Alt></dc:title>", "Tom & Jerry"},
		{"%PDF-1.7\n15 0 obj << /Title (Wrong) >> endobj 5 0 obj << /Title (Right) >> endobj trailer << /Info 5 0 R >>", "Right"},
		{"%PDF-1.7 no metadata", ""},
	} {
		if got := pdfTitle([]byte(tc.pdf)); got != tc.want {
			t.Errorf("pdfTitle = %q, want %q", got, tc.want)
		}
	}
}

func TestTextHelpers(t *testing.T) {
	if got := collapse("  a\u00a0\tb\n\u200bc\u202e  "); got != "a b c" {
		t.Errorf("collapse = %q", got)
	}
	if got := collapse("bad \xff utf8"); got != "bad utf8" {
		t.Errorf("collapse = %q", got)
	}
	s := strings.Repeat("word ", 100)
	got := cutRunes(s, 50)
	if utf8.RuneCountInString(got) > 50 || !strings.HasSuffix(got, "word…") {
		t.Errorf("cutRunes = %q", got)
	}
	if got := cutRunes(strings.Repeat("é", 300), 240); utf8.RuneCountInString(got) != 240 {
		t.Errorf("cutRunes without spaces has %d runes", utf8.RuneCountInString(got))
	}
	var a textAcc
	a.max = 8
	a.add([]byte("  héllo   wörld  "))
	if a.runes != 11 || a.String() != "héllo w" {
		t.Errorf("textAcc = %d %q", a.runes, a.String())
	}
}

func TestSniff(t *testing.T) {
	for _, tc := range []struct {
		ct, body string
		want     kind
	}{
		{"text/html; charset=utf-8", "<p>x", kindHTML},
		{"text/plain", "<!DOCTYPE html><html>", kindHTML},
		{"", "%PDF-1.5", kindPDF},
		{"text/html", "%PDF-1.5", kindPDF},
		{"application/pdf", "", kindPDF},
		{"text/markdown; charset=utf-8", "# T", kindMarkdown},
		{"application/vnd.api+json", "{}", kindJSON},
		{"", `{"a":1}`, kindJSON},
		{"application/atom+xml", "<feed>", kindXML},
		{"", "plain words", kindMarkdown},
		{"", "\x00\x01\x02", kindBinary},
		{"image/png", "\x89PNG", kindBinary},
		{"text/csv", "a,b", kindText},
		{"bogus;;", "text", kindBinary},
	} {
		if got := sniff(Page{ContentType: tc.ct, Body: []byte(tc.body)}); got != tc.want {
			t.Errorf("sniff(%q, %q) = %v, want %v", tc.ct, tc.body, got, tc.want)
		}
	}
}

func TestScanHTML(t *testing.T) {
	body := []byte(`<html><head><META NAME="Description" CONTENT="A &amp; B"><Script type="application/ld+json">{"publisher":"P"}</SCRIPT>` +
		`<!-- <title>commented</title> --><title>Real</title><style>p{}</style></head>` +
		`<body><svg><title>icon</title><text>svg text</text></svg><template><p>hidden</p></template>` +
		`<p title="a>b">visible <b>text</b></p><textarea>typed</textarea><input type=password>` +
		`<script src="https://cdn.tinypass.com/api/tinypass.min.js"></script><script>if (a</b) {}</script></body></html>`)
	in := &pageInfo{}
	in.main.max = keepText
	scanHTML(body, in)
	in.readLD()
	if in.metaDesc != "A & B" || in.title != "Real" || in.ldPublisher != "P" || !in.password || in.vendor != "piano/tinypass" {
		t.Errorf("got desc=%q title=%q pub=%q password=%v vendor=%q", in.metaDesc, in.title, in.ldPublisher, in.password, in.vendor)
	}
	if got := in.main.String(); got != "visible text" {
		t.Errorf("main text = %q", got)
	}
}
