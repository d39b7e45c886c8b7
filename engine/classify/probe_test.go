package classify

import (
	"math/rand/v2"
	"strings"
	"testing"
)

func TestProbeLike(t *testing.T) {
	landing := doc("Catchall Review | Home appliance tests", "<main><h1>Catchall Review</h1>"+filler+"<p>Latest reviews: quiet dishwashers and compact dryers.</p></main>")
	echo := func(path string) string {
		return doc("Search results for "+path, "<main><h1>Search</h1><p>No results for "+path+". Try another search or browse our sections below.</p>"+filler+"</main>")
	}
	fp := func(u, body string, hops ...string) *Fingerprint {
		return FingerprintOf(Page{RequestedURL: u, StatusCode: 200, ContentType: "text/html", Body: []byte(body), Redirects: hops,
			FinalURL: u})
	}
	article := doc("Induction hobs tested | Catchall Review", "<article><h1>Induction hobs tested</h1>"+articleText+"</article>")
	for _, tc := range []struct {
		name         string
		cited, probe *Fingerprint
		same         bool
	}{
		{"catch-all landing page", fp("https://c.example/reviews/heat-pumps", landing), fp("https://c.example/reviews/"+ProbeName+"ab", landing), true},
		{"the answer echoes the path", fp("https://c.example/reviews/heat-pumps-compared", echo("reviews/heat-pumps-compared")),
			fp("https://c.example/reviews/"+ProbeName+"ab", echo("reviews/"+ProbeName+"ab")), true},
		{"a real article", fp("https://c.example/reviews/induction-hobs", article), fp("https://c.example/reviews/"+ProbeName+"ab", landing), false},
	} {
		if got := Like(tc.cited, tc.probe) != ""; got != tc.same {
			t.Errorf("%s: Like = %q, want same=%v", tc.name, Like(tc.cited, tc.probe), tc.same)
		}
	}
	// Both redirected to the same place: the same answer.
	c := FingerprintOf(Page{RequestedURL: "https://c.example/news/a-story", FinalURL: "https://c.example/", Redirects: []string{"https://c.example/news/a-story"},
		StatusCode: 200, Body: []byte(landing)})
	p := FingerprintOf(Page{RequestedURL: "https://c.example/news/" + ProbeName + "ab", FinalURL: "https://c.example/", Redirects: []string{"x"},
		StatusCode: 200, Body: []byte(landing + "<!-- rendered 12:00:01 -->")})
	if why := Like(c, p); !strings.HasPrefix(why, "redirects where a page that does not exist redirects") {
		t.Errorf("redirect to the same place: %q", why)
	}
	// An app shell is like the probe, but has no content of its own.
	shell := `<html><head><title>Fleet Dashboards</title><meta name="description" content="Interactive dashboards on fleet electrification and vehicle costs."></head><body><div id="root"></div></body></html>`
	cs, ps := fp("https://app.example/r/1", shell), fp("https://app.example/r/"+ProbeName+"ab", shell)
	if Like(cs, ps) == "" || !cs.Shell() {
		t.Errorf("app shell: Like %q, shell %v", Like(cs, ps), cs.Shell())
	}
	if ProbeWorthy("https://c.example/") || !ProbeWorthy("https://c.example/a/b") {
		t.Error("ProbeWorthy: home pages are not compared, deep links are")
	}
}

func TestNamesCitation(t *testing.T) {
	page := func(title, h1 string) *Fingerprint {
		return FingerprintOf(Page{RequestedURL: "https://n.example/a/b", StatusCode: 200, ContentType: "text/html",
			Body: []byte(doc(title, "<main><h1>"+h1+"</h1>"+filler+"</main>"))})
	}
	for _, tc := range []struct {
		name  string
		fp    *Fingerprint
		c     Citation
		named bool
	}{
		{"link text is the headline", page("Grid batteries store a record amount | Energy Desk", "Grid batteries store a record amount"),
			Citation{LinkText: "Grid batteries store a record amount"}, true},
		{"headline in the Sources line", page("Ocean heat hits a record", "Ocean heat hits a record"),
			Citation{SourceLine: "- Science Desk (2025). Ocean heat hits a record. https://n.example/a/b"}, true},
		{"a site name is no headline", page("Daily Courier - news from the valley", "Daily Courier"),
			Citation{LinkText: "Mayor opens the new bridge - Daily Courier"}, false},
		{"generic link text", page("Grid batteries store a record amount", "Grid batteries store a record amount"),
			Citation{LinkText: "Source"}, false},
		{"another story", page("Ferry timetable changes", "Ferry timetable changes"),
			Citation{LinkText: "Harbour dredging begins in spring"}, false},
	} {
		if got := NamesCitation(tc.fp, tc.c); got != tc.named {
			t.Errorf("%s: NamesCitation = %v, want %v", tc.name, got, tc.named)
		}
	}
}

func TestSamePage(t *testing.T) {
	art := doc("How to read a file", `<main><h1>How to read a file</h1>`+articleText+`</main>`)
	withCanon := func(href string) string {
		return strings.Replace(art, "<head>", `<head><link rel="canonical" href="`+href+`">`, 1)
	}
	cited := FingerprintOf(Page{RequestedURL: "https://q.example/questions/4812/old-title", FinalURL: "https://q.example/questions/4812/how-to-read-a-file",
		Redirects: []string{"https://q.example/questions/4812/old-title"}, StatusCode: 200, Body: []byte(art)})
	for _, tc := range []struct {
		name  string
		probe Page
		same  bool
	}{
		{"redirected to the cited page's final URL", Page{RequestedURL: "https://q.example/questions/4812/" + ProbeName + "ab",
			FinalURL: "https://q.example/questions/4812/how-to-read-a-file", Redirects: []string{"x"}, StatusCode: 200, Body: []byte(art)}, true},
		{"declares the cited page canonical (relative)", Page{RequestedURL: "https://q.example/questions/4812/" + ProbeName + "ab",
			StatusCode: 200, Body: []byte(withCanon("/questions/4812/how-to-read-a-file"))}, true},
		{"a home page names no page", Page{RequestedURL: "https://q.example/questions/" + ProbeName + "ab", FinalURL: "https://q.example/",
			Redirects: []string{"x"}, StatusCode: 200, Body: []byte(withCanon("https://q.example/"))}, false},
		{"a section page names no page", Page{RequestedURL: "https://q.example/questions/4812/" + ProbeName + "ab",
			StatusCode: 200, Body: []byte(withCanon("https://q.example/questions/"))}, false},
		{"another page", Page{RequestedURL: "https://q.example/questions/4812/" + ProbeName + "ab", FinalURL: "https://q.example/questions/99/other",
			Redirects: []string{"x"}, StatusCode: 200, Body: []byte(art)}, false},
	} {
		if got := SamePage(cited, FingerprintOf(tc.probe)) != ""; got != tc.same {
			t.Errorf("%s: SamePage = %q, want same=%v", tc.name, SamePage(cited, FingerprintOf(tc.probe)), tc.same)
		}
	}
}

func TestShell(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		shell      bool
	}{
		{"an empty app root", `<html><head><title>Fleet</title></head><body><div id="root"></div><script src="/app.js"></script></body></html>`, true},
		{"a loading message", `<html><head><title>Fleet</title></head><body><div id="app"><p>Loading dashboard, please wait…</p></div></body></html>`, true},
		{"asks for script", `<html><head><title>Fleet</title></head><body><p>You need to enable JavaScript to run this app.</p></body></html>`, true},
		{"a thin page that says something", `<html><head><title> - TubeHarbor</title></head><body><div class="reason">This video isn't available anymore</div><div>Go to home</div></body></html>`, false},
	} {
		fp := FingerprintOf(Page{RequestedURL: "https://a.example/x/y", StatusCode: 200, ContentType: "text/html", Body: []byte(tc.body)})
		if fp.Shell() != tc.shell {
			t.Errorf("%s: Shell = %v, want %v", tc.name, fp.Shell(), tc.shell)
		}
	}
}

// TestProbeLikeOverARandomGrid: a shop's not-found message over a random
// product grid is the same template whatever the grid; a page with the
// same generic title and heading but an opening of its own is not.
func TestProbeLikeOverARandomGrid(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	// Product names of made-up words: two grids share almost none of them.
	word := func() string {
		b := make([]byte, 7)
		for i := range b {
			b[i] = "bcdfghklmnprstvz"[rng.IntN(16)]
			if i%2 == 1 {
				b[i] = "aeiou"[rng.IntN(5)]
			}
		}
		return string(b)
	}
	grid := func() string {
		var b strings.Builder
		for range 24 {
			b.WriteString("<div class=card><a href=/p/1>" + word() + " " + word() + " " + word() + "</a></div>")
		}
		return b.String()
	}
	page := func(u, opening string) *Fingerprint {
		body := doc("Sorry, this item is unavailable | Loom", "<main><h1>Sorry, this item is unavailable</h1><p>"+opening+
			"</p><h2>Popular now</h2>"+grid()+"</main>")
		return FingerprintOf(Page{RequestedURL: u, StatusCode: 200, ContentType: "text/html", Body: []byte(body)})
	}
	const gone = "It may have sold out or the shop may have removed it. Have a look at these other things from our makers instead, all made by hand."
	for i := range 20 {
		if why := Like(page("https://s.example/listing/9/apron", gone), page("https://s.example/listing/"+ProbeName+"ab", gone)); why == "" {
			t.Fatalf("draw %d: two not-found pages over random grids are not alike", i)
		}
	}
	own := "This linen apron has two deep pockets and an adjustable neck strap; it is washed soft and cut from one piece of cloth."
	if why := Like(page("https://s.example/listing/5/linen-apron", own), page("https://s.example/listing/"+ProbeName+"ab", gone)); why != "" {
		t.Errorf("a page with its own opening is like the not-found page: %s", why)
	}
}
