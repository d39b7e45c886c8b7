package classify

import (
	"strings"
	"testing"
)

// page200 is an HTML page served with 200 at a deep link.
func page200(body string) Page {
	return html200([]byte(body))
}

// doc builds a small HTML document.
func doc(title, body string) string {
	return "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>" + title + "</title></head><body>" + body + "</body></html>"
}

// filler is ordinary site chrome and text that names no error.
var filler = strings.Repeat("<p>Our office is open Monday to Friday. Read the latest council minutes, apply for permits online, or contact the front desk for help with local services.</p>", 3)

// articleText is a long ordinary article body.
var articleText = strings.Repeat("<p>The council voted to fund a light-rail line and twelve rapid bus routes linking the district to the city centre by 2031, after two years of consultation with residents and businesses.</p>", 30)

func TestSoft404Titles(t *testing.T) {
	// Every major language, at the default tier, whatever the page's length.
	for _, title := range []string{
		"Page not found | Example", "404 Not Found", "Error 404 - Example News", "Oops! Page not found.",
		"The page you're looking for could not be found (404)", "Page Not Found (404)", "Not Found (404) – Example",
		"econsumer.gov: NotFound", "404 Oops! Page not Found. - Peach County", "HTTP/1.1 404 Not Found",
		"404 Page Not Found ss", "Site does not exist or you have no access to it!", "Example Store - 404",
		"Seite nicht gefunden | Beispiel GmbH", "Fehler 404 – Seite nicht gefunden",
		"Page introuvable - Exemple", "Erreur 404 : page non trouvée",
		"Página no encontrada - Ejemplo", "Error 404 | Página no encontrada",
		"Página não encontrada – Exemplo", "Erro 404",
		"Pagina non trovata | Esempio", "Errore 404",
		"Pagina niet gevonden - Voorbeeld", "Fout 404",
		"Nie znaleziono strony - Przykład", "Błąd 404 - strona nie istnieje",
		"Stránka nenalezena | Příklad", "Chyba 404 - Stranka nenalezena | Olomoucky kraj",
		"Sidan kunde inte hittas – Exempel", "Sidan hittades inte",
		"Страница не найдена — Пример", "Ошибка 404",
		"页面不存在 - 示例", "404 页面未找到",
		"ページが見つかりません | 例", "お探しのページは見つかりませんでした",
	} {
		for _, long := range []bool{false, true} {
			body := "<h1>Example</h1>" + filler
			if long {
				body += articleText
			}
			v := Classify(page200(doc(title, body)), Citation{}, Standard)
			if v.Outcome != Invalid || !strings.HasPrefix(v.Reason, "soft 404 [") {
				t.Errorf("title %q (long %v) = %v %q, want a soft 404", title, long, v.Outcome, v.Reason)
			}
		}
	}
}

func TestSoft404TitleParenthesis(t *testing.T) {
	// The old title splitter dropped the closing parenthesis, so "(404)" and
	// "not found (404)" could never match.
	for _, title := range []string{"Example (404)", "Not found (404)"} {
		if !notFoundTitle(title) {
			t.Errorf("notFoundTitle(%q) = false", title)
		}
	}
}

func TestNotSoft404Titles(t *testing.T) {
	// Headlines that contain a not-found phrase, a number, or a language's
	// word for "error", on ordinary article pages.
	for _, title := range []string{
		"Not found: the search for flight 370 continues", "Route 404 reopens after landslide", "Flight 404 lands safely",
		"Why some pages are never found by search engines", "The missing page of the Voynich manuscript",
		"How to fix Facebook login problems", "Error budgets: a practical guide", "Lost and found: a memoir",
		"Die Suche nach dem verlorenen Schatz", "La página más visitada del año",
	} {
		v := Classify(page200(doc(title, "<article><h1>"+title+"</h1>"+articleText+"</article>")), Citation{LinkText: title}, Standard)
		if v.Outcome != Valid {
			t.Errorf("article %q = %v %q, want valid", title, v.Outcome, v.Reason)
		}
	}
}

func TestSoft404Templates(t *testing.T) {
	for _, tc := range []struct{ name, body, reason string }{
		{"tomcat", `<html><head><title>Apache Tomcat/7.0.76 - Error report</title></head><body><h1>HTTP Status 404 - /robots.txt</h1><p><b>type</b> Status report</p><p><b>description</b> The requested resource is not available.</p></body></html>`,
			`soft 404 [server-template]: Java server error report 404, title "Apache Tomcat/7.0.76 - Error report"`},
		{"tomcat 9", `<html><head><title>HTTP Status 404 – Not Found</title></head><body><h1>HTTP Status 404 – Not Found</h1><p>The origin server did not find a current representation for the target resource.</p><h3>Apache Tomcat/9.0.82</h3></body></html>`,
			`soft 404 [server-template]: HTTP status page 404, title "HTTP Status 404 – Not Found"`},
		{"jboss", `<html><head><title>JBoss Web/7.0.13.Final - JBWEB000064: Error report</title></head><body><h1>JBWEB000065: HTTP Status 404 - /x</h1><p>JBWEB000124: The requested resource is not available.</p></body></html>`,
			`soft 404 [server-template]: Java server error report 404, title "JBoss Web/7.0.13.Final - JBWEB000064: Error report"`},
		{"iis detailed", `<html><head><title>IIS 10.0 Detailed Error - 404.0 - Not Found</title></head><body><div id="content"><div class="content-container"><h3>HTTP Error 404.0 - Not Found</h3><h4>The resource you are looking for has been removed, had its name changed, or is temporarily unavailable.</h4></div>` + filler + `</div></body></html>`,
			`soft 404 [server-template]: IIS detailed error 404, title "IIS 10.0 Detailed Error - 404.0 - Not Found"`},
		{"iis simple", `<html><head><title>404 - File or directory not found.</title></head><body><div id="header"><h1>Server Error</h1></div><div id="content"><h2>404 - File or directory not found.</h2><h3>The resource you are looking for might have been removed, had its name changed, or is temporarily unavailable.</h3></div></body></html>`,
			`soft 404 [title-phrase]: title "404 - File or directory not found."`},
		{"asp.net", `<html><head><title>The resource cannot be found.</title></head><body><span><h1>Server Error in '/' Application.<hr width=100% size=1 color=silver></h1><h2> <i>The resource cannot be found.</i> </h2></span><b> Description: </b>HTTP 404. The resource you are looking for (or one of its dependencies) could have been removed.</body></html>`,
			`soft 404 [server-template]: ASP.NET error 404, title "The resource cannot be found."`},
		{"whitelabel", `<html><body><h1>Whitelabel Error Page</h1><p>This application has no explicit mapping for /error, so you are seeing this as a fallback.</p><div>There was an unexpected error (type=Not Found, status=404).</div></body></html>`,
			`soft 404 [server-template]: Spring Whitelabel error 404, heading "Whitelabel Error Page"`},
		{"express", `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Error</title></head><body><pre>Cannot GET /reports/2025/annual</pre></body></html>`,
			`soft 404 [server-template]: Express "Cannot GET" 404, title "Error"`},
		{"nginx", `<html><head><title>404 Not Found</title></head><body><center><h1>404 Not Found</h1></center><hr><center>nginx</center></body></html>`,
			`soft 404 [title-phrase]: title "404 Not Found"`},
		{"parked domain", doc("example-widgets.com", `<h1>This domain is for sale!</h1><p>Buy this domain today. Fast and secure transfer.</p>`),
			`soft 404 [placeholder]: heading "This domain is for sale!"`},
	} {
		v := Classify(page200(tc.body), Citation{}, Standard)
		if v.Outcome != Invalid || v.Reason != tc.reason {
			t.Errorf("%s: %v %q, want invalid %q", tc.name, v.Outcome, v.Reason, tc.reason)
		}
	}
	// A server template for another status is an error page: it escalates.
	v := Classify(page200(`<html><head><title>Apache Tomcat/9.0 - Error report</title></head><body><h1>HTTP Status 500 – Internal Server Error</h1></body></html>`), Citation{}, Standard)
	if v.Outcome != Escalate || !strings.HasPrefix(v.Reason, "error page [") {
		t.Errorf("tomcat 500 = %v %q", v.Outcome, v.Reason)
	}
}

func TestSoft404MainText(t *testing.T) {
	// The page's main text is an error message, whatever its length: the
	// title and headings name only the site.
	for _, tc := range []struct{ name, body string }{
		{"sentence after a search box", `<header>Search Example.gov More Search Options</header><p>We are sorry, the page you're looking for can't be found on the Example.gov website. Please try the following:</p>` + filler + filler},
		{"oops gone", `<p>Oops the page you are looking for is gone! Please return to the homepage.</p>`},
		{"we couldn't find", `<main><p>Hmm, we couldn't find that page. It may have moved.</p></main>` + filler},
		{"link broken", `<p>Sorry, this page isn't available. The link you followed may be broken, or the page may have been removed.</p>`},
		{"nothing here", `<h2>Nothing here</h2><p>It looks like nothing was found at this location. Maybe try a search?</p>` + filler},
		{"german", `<p>Die angeforderte Seite wurde leider nicht gefunden.</p>` + filler},
		{"french", `<p>Désolé, la page que vous recherchez n'existe pas ou a été déplacée.</p>` + filler},
		{"spanish", `<p>Lo sentimos, no se encontró la página que buscas.</p>` + filler},
		{"polish", `<p>Przepraszamy, strona, której szukasz, nie istnieje.</p>` + filler},
		{"czech", `<p>Požadovaná stránka nebyla nalezena.</p>` + filler},
		{"swedish", `<p>Tyvärr, sidan du söker finns inte.</p>` + filler},
		{"russian", `<p>К сожалению, запрашиваемая страница не найдена.</p>` + filler},
		{"chinese", `<p>抱歉，您访问的页面不存在。</p>` + filler},
		{"japanese", `<p>申し訳ありません。お探しのページは見つかりませんでした。</p>` + filler},
	} {
		v := Classify(page200(doc("Example Council", tc.body)), Citation{}, Standard)
		if v.Outcome != Invalid || !strings.HasPrefix(v.Reason, "soft 404 [") {
			t.Errorf("%s: %v %q, want a soft 404", tc.name, v.Outcome, v.Reason)
		}
	}
}

func TestSoft404Guards(t *testing.T) {
	// A long article whose lead mentions a missing page is an article.
	body := `<article><h1>Council archives move online</h1><p>Residents who found that a page of the old archive does not exist any more can now search the new catalogue.</p>` + articleText + `</article>`
	if v := Classify(page200(doc("Council archives move online | Example News", body)), Citation{}, Standard); v.Outcome != Valid {
		t.Errorf("article = %v %q", v.Outcome, v.Reason)
	}
	// A reference page about HTTP 404, cited as such (its URL or link text
	// names it), is what was cited.
	mdn := Page{RequestedURL: "https://developer.example.org/en-US/docs/Web/HTTP/Status/404", StatusCode: 200, ContentType: "text/html",
		Body: []byte(doc("404 Not Found - HTTP | Example Docs", "<h1>404 Not Found</h1>"+articleText))}
	if v := Classify(mdn, Citation{LinkText: "404 Not Found - HTTP | Example Docs"}, Standard); v.Outcome != Valid {
		t.Errorf("404 reference page = %v %q", v.Outcome, v.Reason)
	}
	// An encyclopedia entry about a status code declares itself an article
	// and carries one: its title does not make it an error page, whatever
	// link text the wave used.
	ld := `<script type="application/ld+json">{"@context":"https://schema.org","@type":"Article","name":"%s"}</script>`
	for _, title := range []string{"HTTP 404 - Wikipedia", "Internal server error - Wikipedia"} {
		body := strings.Replace(doc(title, "<h1>"+strings.TrimSuffix(title, " - Wikipedia")+"</h1>"+articleText), "</head>",
			strings.Replace(ld, "%s", title, 1)+"</head>", 1)
		if v := Classify(page200(body), Citation{LinkText: "Source 3"}, Standard); v.Outcome != Valid {
			t.Errorf("encyclopedia entry %q = %v %q", title, v.Outcome, v.Reason)
		}
	}
	// Basic reads soft 404s too when it has a body; a HEAD response has none.
	p := page200(doc("Page not found", "<p>x</p>"))
	if v := Classify(p, Citation{}, Basic); v.Outcome != Invalid {
		t.Errorf("basic with a body = %v %q", v.Outcome, v.Reason)
	}
	p.Body, p.HEAD = nil, true
	if v := Classify(p, Citation{}, Basic); v.Outcome != Valid || v.Reason != "reachable: http 200 (HEAD)" {
		t.Errorf("basic HEAD = %v %q", v.Outcome, v.Reason)
	}
}

func TestFold(t *testing.T) {
	for in, want := range map[string]string{
		"Stránka  nenalezena!":   "stranka nenalezena",
		"Błąd 404 – Strona":      "blad 404 strona",
		"Doesn’t exist (404)":    "doesn't exist 404",
		"Straße":                 "strasse",
		"'quoted' word":          "quoted word",
		"ページが見つかりません":            "ページが見つかりません",
		"HTTP/1.1 404 Not Found": "http 1 1 404 not found",
		// A spacing vowel sign (Mc) is part of its word, not a separator.
		"पृष्ठ नहीं मिला।": "पृष्ठ नहीं मिला",
	} {
		if got := fold(in); got != want {
			t.Errorf("fold(%q) = %q, want %q", in, got, want)
		}
	}
	p := phrases("not found")[0]
	if !p.in("page not found here") || p.in("notfound") || p.in("page not foundry") {
		t.Error("phrase.in does not match whole words")
	}
}
