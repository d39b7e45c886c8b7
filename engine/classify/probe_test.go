package classify

import (
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
	if Like(cs, ps) == "" || cs.Meaningful() {
		t.Errorf("app shell: Like %q, meaningful %v", Like(cs, ps), cs.Meaningful())
	}
	if ProbeWorthy("https://c.example/") || !ProbeWorthy("https://c.example/a/b") {
		t.Error("ProbeWorthy: home pages are not compared, deep links are")
	}
}
