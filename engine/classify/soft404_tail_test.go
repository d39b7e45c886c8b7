package classify

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The soft-404 long tail (issue 20): thin not-found pages in further
// languages, a shop's not-found page over a product grid, a deep link
// redirected to a search page, bodies that state their own 404, "broken
// link" titles — and pages about errors that are not errors. The pages
// are hand-written (testdata/soft404/README.md).

// soft404Page reads a page of testdata/soft404.
func soft404Page(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "soft404", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// productGrid is n product cards of a shop's grid, different for every
// seed, the way a not-found page's "bestsellers" or "you may also like"
// block changes with every request.
func productGrid(n int, seed uint64) string {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	pick := func(list ...string) string { return list[r.IntN(len(list))] }
	var b strings.Builder
	for i := range n {
		name := pick("Alpine", "Harbor", "Juniper", "Cedar", "Summit", "Prairie", "Driftwood", "Granite") + " " +
			pick("merino", "teak", "canvas", "down", "waxed cotton", "recycled nylon", "terracotta", "cast iron") + " " +
			pick("jacket", "bench", "planter", "sleeping bag", "lantern", "daypack", "stool", "blanket")
		slug := strings.ReplaceAll(strings.ToLower(name), " ", "-")
		fmt.Fprintf(&b, `<li class="grid__item"><div class="card-wrapper product-card-wrapper"><div class="card__media">`+
			`<img src="//shop.example/cdn/files/p-%08x.jpg?v=%d&width=533" alt="%s" loading="lazy" width="533" height="533"></div>`+
			`<div class="card__content"><h3 class="card__heading h5"><a href="/products/%s-%d">%s</a></h3>`+
			`<p class="card__blurb">%s, %s. %s</p>`+
			`<div class="price"><span class="price-item price-item--sale">$%d.%02d</span> <s class="price-item--regular">$%d.00</s></div>`+
			`<span class="badge">%s</span><form method="post" action="/cart/add"><input type="hidden" name="id" value="%d"><button>Add to cart</button></form></div></div></li>`+"\n",
			r.Uint32(), r.IntN(1<<30), name, slug, i, name,
			pick("Hand-finished in small batches", "Made to last for decades", "Our customers' favourite this season", "Built for wet and windy days"),
			pick("ships in 2 days", "ships from Duluth", "free returns for 60 days", "limited stock"),
			pick("Pairs well with the rest of the range.", "Available in four colours.", "Rated 4.8 by 312 customers.", "Covered by a lifetime warranty."),
			20+r.IntN(300), r.IntN(100), 40+r.IntN(400), pick("Sale", "New", "Bestseller", "Low stock"), r.Uint64()%1e13)
	}
	return b.String()
}

// withGrid fills a page's <!--GRID--> with n product cards.
func withGrid(page []byte, n int, seed uint64) []byte {
	return bytes.Replace(page, []byte("<!--GRID-->"), []byte(productGrid(n, seed)), 1)
}

// wantSoft404 checks an invalid verdict by the named rule.
func wantSoft404(t *testing.T, name string, p Page, rule string) {
	t.Helper()
	for _, tier := range []Tier{Standard, Thorough} {
		v := Classify(p, Citation{}, tier)
		if v.Outcome != Invalid || !strings.HasPrefix(v.Reason, "soft 404 ["+rule+"]: ") {
			t.Errorf("%s/%s = %v %q, want invalid by %s", name, tier, v.Outcome, v.Reason, rule)
		}
	}
}

// wantValid checks a valid verdict at the standard and thorough tiers.
func wantValid(t *testing.T, name string, p Page, c Citation) {
	t.Helper()
	for _, tier := range []Tier{Standard, Thorough} {
		if v := Classify(p, c, tier); v.Outcome != Valid {
			t.Errorf("%s/%s = %v %q, want valid", name, tier, v.Outcome, v.Reason)
		}
	}
}

func TestSoft404ThinWordPress(t *testing.T) {
	// A thin page that says, in its title, that the page was not found is
	// a soft 404, not an app shell (they came out "blocked").
	for _, tc := range []struct{ file, title string }{
		{"wp404_sk.html", "Stránka nenájdená – Blog"},
		{"wp404_et.html", "Lehte ei leitud – Aia päevik"},
		{"wp404_th.html", "ไม่พบหน้า – ครัวบ้านสวน"},
	} {
		p := page200(string(soft404Page(t, tc.file)))
		wantSoft404(t, tc.file, p, "title-phrase")
		if v := Classify(p, Citation{}, Standard); !strings.Contains(v.Reason, `title "`+tc.title+`"`) {
			t.Errorf("%s: reason %q does not quote the title %q", tc.file, v.Reason, tc.title)
		}
	}
}

// wpThin is the body of a WordPress 404 page without its own title words:
// header, heading, one sentence, a search form.
func wpThin(heading, text string) string {
	return `<header class="site-header"><p class="site-title"><a href="/">Blog</a></p><nav><a href="/">Home</a> <a href="/about/">About</a></nav></header>` +
		`<main id="main"><header class="page-header"><h1 class="page-title">` + heading + `</h1></header><div class="page-content"><p>` + text +
		`</p><form role="search" method="get" action="/"><input type="search" name="s" value=""><input type="submit" value="Search"></form></div></main>` +
		`<footer><p>Powered by WordPress</p></footer>`
}

func TestSoft404TitlesMoreLanguages(t *testing.T) {
	for _, title := range []string{
		"Stránka sa nenašla – Blog", "Lehekülge ei leitud – Blogi", "ไม่พบหน้าที่คุณต้องการ – บล็อก",
		"Puslapis nerastas – Tinklaraštis", "Lapa nav atrasta – Blogs", "Stran ni bila najdena – Blog",
		"Stranica nije pronađena – Blog", "Страница није пронађена – Блог", "Страницата не е намерена – Блог",
		"No s'ha trobat la pàgina – Bloc", "पृष्ठ नहीं मिला – ब्लॉग", "পৃষ্ঠা পাওয়া যায়নি – ব্লগ", "صفحه پیدا نشد – وبلاگ",
		"Halaman tidak dijumpai – Blog", "Hindi nahanap ang pahina – Blog", "Ukurasa haupatikani – Blogu", "Síða fannst ekki – Blogg",
	} {
		wantSoft404(t, title, page200(doc(title, wpThin("…", "…"))), "title-phrase")
	}
	// The sentence of a thin page, under a title that names only the site.
	for _, text := range []string{
		"Požadovaná stránka nebola nájdená.", "Otsitud lehte ei leitud.", "Puslapis nerastas.", "Lapa nav atrasta.",
		"Iskana stran ne obstaja.", "Tražena stranica nije pronađena.", "Търсената страница не е намерена.",
		"Тражена страница не постоји.", "Ho sentim, la pàgina no existeix.", "यह पृष्ठ नहीं मिला।", "এই পৃষ্ঠা পাওয়া যায়নি।",
		"صفحه مورد نظر یافت نشد.", "Maaf, halaman tidak ditemui.", "Paumanhin, hindi nahanap ang pahina.", "Samahani, ukurasa haupatikani.",
	} {
		wantSoft404(t, text, page200(doc("Blog", wpThin("Blog", text))), "lead-sentence")
	}
}

func TestSoft404ShopGrid(t *testing.T) {
	// A shop's not-found page is judged by its own title, heading and
	// opening, whatever the size of the product grid under it.
	for _, n := range []int{24, 60} {
		for seed := range uint64(3) {
			dawn := page200(string(withGrid(soft404Page(t, "shop404_dawn.html"), n, seed)))
			wantSoft404(t, fmt.Sprintf("dawn %d cards", n), dawn, "title-phrase")
			grid := page200(string(withGrid(soft404Page(t, "shop404_grid.html"), n, seed)))
			wantSoft404(t, fmt.Sprintf("storefront %d cards", n), grid, "lead-sentence")
		}
	}
	// The long-page path is what the larger grid exercises.
	big := page200(string(withGrid(soft404Page(t, "shop404_grid.html"), 60, 1)))
	if in := analyze(big, sniff(big)); in.mainRunes < leadMaxPage {
		t.Errorf("the 60-card grid page has %d runes of text, want ≥ %d", in.mainRunes, leadMaxPage)
	}
	// A product page over the same grid, whose description mentions a
	// missing page after its own headline, is a product page.
	product := strings.Replace(string(withGrid(soft404Page(t, "shop404_grid.html"), 60, 2)),
		`<p class="empty-state__title">Oops! That page can&rsquo;t be found.</p>
			<p>Nothing was found at this location. Try searching, or check out the links below.</p>`,
		`<h1 class="product_title">Teak garden bench 180 cm</h1><p>The assembly page of the printed manual does not exist any more; download the current one below.</p>`, 1)
	wantValid(t, "product page", page200(product), Citation{})
}

func TestSoft404SearchRedirect(t *testing.T) {
	results := doc("Search results for “teak bench 180” | Greenleaf", `<main><h1>Search results for “teak bench 180”</h1><ul>`+
		strings.Repeat(`<li><a href="/product/teak-bench-120/">Teak bench 120 cm</a> Solid teak, oiled. $349.00</li>`, 30)+`</ul></main>`)
	for _, tc := range []struct{ name, req, fin string }{
		{"catalogsearch", "https://greenleaf.example/garden/teak-bench-180.html", "https://greenleaf.example/catalogsearch/result/?q=teak+bench+180"},
		{"wordpress ?s=", "https://greenleaf.example/2024/05/teak-bench-care-guide/", "https://greenleaf.example/?s=teak+bench+care+guide"},
		{"/search?q=", "https://greenleaf.example/products/teak-bench-180", "https://greenleaf.example/search?q=teak-bench-180&type=product"},
		{"/s?k=", "https://shop.example/dp/B0C7Q2LX9M", "https://shop.example/s?k=B0C7Q2LX9M"},
		{"/suche", "https://greenleaf.example/de/produkte/gartenbank-teak-180", "https://greenleaf.example/de/suche?query=gartenbank+teak+180"},
	} {
		p := redirectTo(page200(results), tc.fin)
		p.RequestedURL = tc.req
		for _, tier := range []Tier{Basic, Standard, Thorough} {
			if v := Classify(p, Citation{}, tier); v.Outcome != Invalid || !strings.HasPrefix(v.Reason, "soft 404 [redirect-search]: deep link redirected to a search page") {
				t.Errorf("%s/%s = %v %q", tc.name, tier, v.Outcome, v.Reason)
			}
		}
	}
	// A cited search page is what was cited.
	p := redirectTo(page200(results), "https://greenleaf.example/search?q=teak+bench+180&page=1")
	p.RequestedURL = "https://greenleaf.example/search?q=teak+bench+180"
	wantValid(t, "cited search page", p, Citation{})
}

func TestSoft404StatusFields(t *testing.T) {
	jsonPage := func(body string) Page {
		return Page{RequestedURL: "https://api.example.org/v2/reports/88412", StatusCode: 200, ContentType: "application/json", Body: []byte(body)}
	}
	for _, tc := range []struct {
		name string
		p    Page
		rule string
	}{
		{"azure static website", page200(string(soft404Page(t, "azure_webcontentnotfound.html"))), "status-field"},
		{"spring boot", jsonPage(`{"timestamp":"2025-11-03T09:41:27.551+00:00","status":404,"error":"Not Found","path":"/v2/reports/88412"}`), "status-field"},
		{"nestjs", jsonPage(`{"statusCode":404,"message":"Report 88412 does not exist","error":"Not Found"}`), "status-field"},
		{"google api", jsonPage(`{"error":{"code":404,"message":"Requested entity was not found.","status":"NOT_FOUND"}}`), "status-field"},
		{"gone", jsonPage(`{"code":410,"message":"This report was withdrawn."}`), "status-field"},
		{"bare status", jsonPage(`{"status":404}`), "status-field"},
		{"django rest framework", jsonPage(`{"detail":"Not found."}`), "error-body"},
		{"azure blob xml", Page{RequestedURL: "https://acct.blob.example.net/reports/q3.pdf", StatusCode: 200, ContentType: "application/xml",
			Body: []byte(`<?xml version="1.0" encoding="utf-8"?><Error><Code>BlobNotFound</Code><Message>The specified blob does not exist.
RequestId:5e2a7c1d-e01e-0071-3b2a-1f0c4e000000
Time:2025-11-03T09:41:27.5512034Z</Message></Error>`)}, "server-template"},
		{"plain text", Page{RequestedURL: "https://files.example.org/a/b/c.txt", StatusCode: 200, ContentType: "text/plain",
			Body: []byte("HttpStatusCode: 404\nErrorCode: WebContentNotFound\n")}, "status-field"},
	} {
		wantSoft404(t, tc.name, tc.p, tc.rule)
	}
	// A record that has a "code" of 404 is data; an order status is not an
	// HTTP status; an article about API errors shows its examples in code.
	if v := Classify(jsonPage(`{"code":404,"airline":"Example Air","origin":"JFK","destination":"LHR","departure":"2025-11-03T18:40:00Z"}`), Citation{}, Standard); v.Outcome == Invalid {
		t.Errorf("flight record = %v %q", v.Outcome, v.Reason)
	}
	wantValid(t, "order page", page200(doc("Order 88412 | Example Shop", `<main><h1>Order 88412</h1><p>Order status: 410 items shipped from the Duluth warehouse on 3 November; the rest follow next week.</p></main>`)), Citation{})
	api := doc("Error responses | Example API Reference", `<main><h1>Error responses</h1><p>Every error is a JSON object with the HTTP status in a field of its own:</p><pre><code>{"status": 404, "error": "Not Found", "path": "/v2/reports/1"}</code></pre>`+articleText+`</main>`)
	wantValid(t, "api reference", page200(api), Citation{})
}

func TestSoft404BrokenLinkTitles(t *testing.T) {
	thin := `<main><h1>Hoppla!</h1><p>Bitte nutzen Sie die Suche oder die Startseite.</p></main>`
	for _, title := range []string{"404 Felaktig länk – Exempelkommun", "404 - Ugyldig lenke"} {
		wantSoft404(t, title, page200(doc(title, thin)), "title-phrase")
		wantSoft404(t, title+" (long)", page200(doc(title, "<h1>Exempel</h1>"+articleText)), "title-phrase")
	}
	for _, title := range []string{"Fehlerhafter Link | Beispiel GmbH", "Ugyldig lenke – Eksempel", "Virheellinen linkki – Esimerkki",
		"Ongeldige link - Voorbeeld", "Felaktig länk"} {
		wantSoft404(t, title, page200(doc(title, thin)), "title-phrase")
	}
	// An encyclopedia entry on broken links is an article.
	wantValid(t, "encyclopedia entry", page200(doc("Broken link – Example Wiki", "<h1>Broken link</h1>"+articleText)), Citation{LinkText: "Source 4"})
}

func TestSoft404NotOnPagesAboutErrors(t *testing.T) {
	// A guide to custom 404 pages shows the message as an example; it is
	// a real page whatever form the example takes.
	wantValid(t, "docs page", page200(string(soft404Page(t, "docs_custom404.html"))), Citation{})
	intro := `<h1>Custom error pages</h1><p>When a visitor requests a path your site does not have, the platform answers with the status code 404 and a default page. Replace it with a page of your own that keeps the status.</p>`
	more := `<p>Deploy the file with the rest of your site; the platform picks it up on the next build and serves it for every unknown path.</p>`
	for _, tc := range []struct{ name, body string }{
		{"pre", intro + `<pre>Sorry, the page you're looking for can't be found.</pre>` + more},
		{"code", intro + `<p>Set <code>message: Page not found</code> in your site configuration.</p>` + more},
		{"blockquote", intro + `<blockquote>We couldn't find that page. Try the search box.</blockquote>` + more},
		{"quotation marks", intro + `<p>Most sites write “the page you're looking for doesn't exist” and link back home.</p>` + more},
		{"a section heading further down", intro + strings.Repeat(more, 3) + `<h2>Options</h2>` + more + `<h2>404 Not Found</h2>` + more},
	} {
		wantValid(t, tc.name, page200(doc("Custom error pages | Example Hosting Docs", tc.body)), Citation{})
	}
	md := "# Custom error pages\n\nWhen a visitor requests a path your site does not have, the platform answers with a 404 and a default page.\n\n" +
		"```html\n<p>Sorry, the page you're looking for can't be found.</p>\n```\n\n> We couldn't find that page.\n\nDeploy the file with the rest of your site.\n"
	wantValid(t, "markdown", Page{RequestedURL: articleURL, StatusCode: 200, ContentType: "text/markdown", Body: []byte(md)}, Citation{})
}

func TestTitleOnlyPagesEscalate(t *testing.T) {
	// A page that is a title and nothing else — a challenge served with
	// 200, an app shell — is not content, whatever its status or headline
	// repeats.
	waf := `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">` +
		`<title>Example Store Online Shopping</title><style>body{font-family:Arial}#challenge-container{margin:10px}</style>` +
		`<script>window.__ch={"t":"` + strings.Repeat("9f3b", 24) + `"};</script></head><body><div id="challenge-container"></div>` +
		`<h1 style="font-size:1px;color:#fff">Example Store Online Shopping</h1></body></html>`
	sameDesc := `<!DOCTYPE html><html><head><title>Acme Online Store – Shop Electronics, Home and Garden</title>` +
		`<meta property="og:title" content="Acme Online Store – Shop Electronics, Home and Garden">` +
		`<meta name="description" content="Acme Online Store: shop electronics, home and garden."></head><body><div id="root"></div></body></html>`
	for _, tc := range []struct{ name, body string }{{"title repeated as a heading", waf}, {"description repeating the title", sameDesc}} {
		for _, st := range []int{200, 0} {
			p := page200(tc.body)
			p.StatusCode = st
			for _, tier := range []Tier{Standard, Thorough} {
				v := Classify(p, Citation{}, tier)
				if v.Outcome != Escalate || !strings.HasPrefix(v.Reason, "no meaningful content [title-only]: ") {
					t.Errorf("%s (http %d, %s) = %v %q, want escalate (title only)", tc.name, st, tier, v.Outcome, v.Reason)
				}
			}
		}
	}
	// Thin pages with something of their own stay valid.
	spa := `<!DOCTYPE html><html><head><title>Ferry timetable changes from December | Harbour Transit</title>` +
		`<meta property="og:description" content="Winter sailings leave every 40 minutes from 6:10; the last ferry back is at 23:30 on weekdays."></head><body><div id="app"></div></body></html>`
	contact := doc("Contact | Example Council", `<h1>Contact</h1><p>Call 555-0100 on weekdays or write to the town hall.</p>`)
	for _, tc := range []struct{ name, body string }{{"script-rendered page with its description", spa}, {"short contact page", contact}} {
		for _, tier := range []Tier{Standard, Thorough} {
			if v := Classify(page200(tc.body), Citation{}, tier); v.Outcome != Valid || v.Reason != "ok: html (thin page)" {
				t.Errorf("%s/%s = %v %q, want valid (thin page)", tc.name, tier, v.Outcome, v.Reason)
			}
		}
	}
}

func TestOtherRulesIgnoreExamples(t *testing.T) {
	// The placeholder, error-page and status-page rules read the page's
	// own words too: a short guide may show a default page, a database
	// error or a status page in code.
	for _, tc := range []struct{ name, title, body string }{
		{"nginx default page in code", "Replacing the default server page | Example Docs",
			`<main><h1>Replacing the default server page</h1><p>A fresh install answers every request with the stock page:</p><pre>Welcome to nginx! If you see this page, the nginx web server is successfully installed and working.</pre><p>Delete /var/www/html/index.nginx-debian.html and reload the server to serve your own site instead.</p></main>`},
		{"database error quoted", "Fixing database connection errors | Example Docs",
			`<main><h1>Fixing database connection errors</h1><p>If every page of your site shows</p><blockquote>Error establishing a database connection</blockquote><p>check the database host, user and password in wp-config.php, then restart the database server.</p></main>`},
	} {
		wantValid(t, tc.name, page200(doc(tc.title, tc.body)), Citation{})
	}
	// A page titled with a status that carries an article is about it.
	wantValid(t, "article on a status", page200(doc("HTTP Status 404 – what it means and how to fix it", "<h1>HTTP Status 404</h1>"+articleText)), Citation{LinkText: "Source 2"})
	// The error page itself still counts, its message in a heading.
	v := Classify(page200(doc("Example Blog", `<h1>Error establishing a database connection</h1>`)), Citation{}, Standard)
	if v.Outcome != Escalate || !strings.HasPrefix(v.Reason, "error page [error-phrase]: ") {
		t.Errorf("database error page = %v %q", v.Outcome, v.Reason)
	}
}

// TestLeadSentenceYieldsToTheCitedHeadline: a docs page about missing
// pages opens with a sentence a not-found page would say; cited by its
// own headline it is that page, not a soft 404.
func TestLeadSentenceYieldsToTheCitedHeadline(t *testing.T) {
	body := `<html><head><title>Error pages | Example Hosting Docs</title></head><body><main><article><h1>Error pages</h1>` +
		`<p>When someone asks for a page that does not exist, Example Hosting answers with its own error screen and status 404. ` +
		`Put a file called 404.html in the root of the site to replace it, then deploy again.</p>` +
		`<p>Keep the status 404: an error page served with 200 is a soft 404, and crawlers report it.</p></article></main></body></html>`
	p := Page{RequestedURL: "https://docs.example/guides/error-pages", StatusCode: 200, ContentType: "text/html", Body: []byte(body)}
	if v := Classify(p, Citation{LinkText: "Error pages"}, Standard); v.Outcome != Valid {
		t.Errorf("cited by its headline: %v %q, want valid", v.Outcome, v.Reason)
	}
}
