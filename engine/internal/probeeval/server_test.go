package main

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// hostClient reaches every emulated host on ts, whatever the URL's host
// name, and does not follow redirects.
func hostClient(ts *httptest.Server) *http.Client {
	addr := ts.Listener.Addr().String()
	return &http.Client{
		Transport: &http.Transport{DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, network, addr)
		}},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

type answer struct {
	status         int
	location, body string
	header         http.Header
}

func get(t *testing.T, c *http.Client, raw string) answer {
	t.Helper()
	resp, err := c.Get(raw)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return answer{resp.StatusCode, resp.Header.Get("Location"), string(b), resp.Header}
}

// follow follows same-host redirects (at most 5) and returns the last
// answer and the URL it came from.
func follow(t *testing.T, c *http.Client, raw string) (answer, string) {
	t.Helper()
	for range 5 {
		a := get(t, c, raw)
		if a.location == "" {
			return a, raw
		}
		base, _ := url.Parse(raw)
		next, err := base.Parse(a.location)
		if err != nil {
			t.Fatal(err)
		}
		raw = next.String()
	}
	t.Fatalf("too many redirects from %s", raw)
	return answer{}, ""
}

func newTestServer(t *testing.T) (*http.Client, *server) {
	t.Helper()
	dev, holdout := loadSplits(t)
	srv := newServer([]*Spec{dev, holdout}, 1, nil)
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	return hostClient(ts), srv
}

// The routing behaviours, one request each, as the README describes them.
func TestRouting(t *testing.T) {
	c, _ := newTestServer(t)
	const probe = "citegate-probe-0123456789abcdef"
	for _, tc := range []struct {
		name, url    string
		status       int
		location     string
		bodyHas      string
		bodyHasNot   string
		header, hval string
	}{
		{name: "SE canonical slug", url: "http://ask.threadfold.net/questions/4821907/why-does-git-rebase-rewrite-commit-hashes", status: 200, bodyHas: "A commit hash covers the parent hash"},
		{name: "SE other slug 301", url: "http://ask.threadfold.net/questions/3310456/reading-big-csv-pandas", status: 301, location: "/questions/3310456/how-to-read-a-large-csv-file-in-chunks-with-pandas"},
		{name: "SE probe 301s to the cited page", url: "http://ask.threadfold.net/questions/4821907/" + probe, status: 301, location: "/questions/4821907/why-does-git-rebase-rewrite-commit-hashes"},
		{name: "SE no slug 301", url: "http://q.stackvale.com/questions/612345", status: 301, location: "/questions/612345/why-is-floating-point-arithmetic-inexact"},
		{name: "SE unknown id 404", url: "http://ask.threadfold.net/questions/99999999/how-to-configure-the-flux-capacitor", status: 404, bodyHas: "Page not found"},
		{name: "reddit other slug 200", url: "http://forum.pinecrest-social.com/r/bicycling/comments/9zq8rt/winter_commute/", status: 200, bodyHas: "studded tyres"},
		{name: "reddit probe is the thread", url: "http://forum.pinecrest-social.com/r/homebrewing/comments/1a2b3c/first_batch_of_cider_came_out_flat/" + probe, status: 200, bodyHas: "champagne yeast"},
		{name: "dp ref 200", url: "http://shop.marketvane.com/dp/B07XJ8C8F5/ref=sr_1_3", status: 200, bodyHas: "gooseneck kettle"},
		{name: "dp probe is the product", url: "http://shop.marketvane.com/dp/B07XJ8C8F5/" + probe, status: 200, bodyHas: "gooseneck kettle"},
		{name: "slug dp probe 404", url: "http://shop.marketvane.com/Folding-Camping-Chair-Lightweight/dp/" + probe, status: 404},
		{name: "news html probe 301", url: "http://news.harbourgazette.com/article/20231/" + probe + ".html", status: 301, location: "/article/20231/harbour-ferry-timetable-changes-from-march.html"},
		{name: "news unknown id 302 home", url: "http://www.dailybeacon-news.com/article/99999/mayor-resigns-after-scandal.html", status: 302, location: "/"},
		{name: "section any slug 200", url: "http://www.valleytimes-news.com/politics/88123/" + probe, status: 200, bodyHas: "branch libraries"},
		{name: "listing unknown: grid at 200", url: "http://crafts.loomandlantern.com/listing/99999999/linen-apron-with-pockets", status: 200, bodyHas: "product-grid"},
		{name: "wp ?p= 301", url: "http://blog.fernhollow.org/?p=418", status: 301, location: "/2023/06/rainwater-barrels-a-first-season-review/"},
		{name: "wp slug guess 301", url: "http://blog.fernhollow.org/2023/06/rainwater-barrels", status: 301, location: "/2023/06/rainwater-barrels-a-first-season-review/"},
		{name: "wp no guess 404", url: "http://blog.fernhollow.org/2023/07/composting-in-small-spaces/", status: 404},
		{name: "wp probe 404", url: "http://blog.fernhollow.org/2023/06/" + probe, status: 404},
		{name: "medium any slug", url: "http://read.inkwellpress.io/@ana.ruiz/accessible-forms-b81e0f6a2c93", status: 200, bodyHas: "fieldset"},
		{name: "medium probe 404", url: "http://read.inkwellpress.io/@ana.ruiz/" + probe, status: 404},
		{name: "video unknown id 200", url: "http://video.tubeharbor.com/watch?v=Zz0Zz0Zz0Zz", status: 200, bodyHas: "isn&#39;t available anymore"},
		{name: "video extra param", url: "http://www.clipstream.tv/watch?v=Kp9Lm2Nq4Rs&t=42s", status: 200, bodyHas: "whetstone"},
		{name: "locale 301", url: "http://learn.cobaltdocs.com/docs/rotate-api-keys", status: 301, location: "/en-us/docs/rotate-api-keys"},
		{name: "locale probe 301", url: "http://learn.cobaltdocs.com/docs/" + probe, status: 301, location: "/en-us/docs/" + probe},
		{name: "locale 404", url: "http://learn.cobaltdocs.com/en-us/docs/" + probe, status: 404},
		{name: "spa shell", url: "http://app.nimbusboard.io/boards/5521/product-roadmap-2024", status: 200, bodyHas: `<div id="root"></div>`, bodyHasNot: "roadmap"},
		{name: "cdn challenge on unknown path", url: "http://www.ridgelinejournal.com/features/" + probe, status: 403, bodyHas: "Just a moment", header: "Cf-Mitigated", hval: "challenge"},
		{name: "cdn article served", url: "http://www.ridgelinejournal.com/features/the-last-fire-lookout", status: 200, bodyHas: "Baldy Peak"},
		{name: "catch-all /ok/", url: "http://ok.samesite-demo.net/ok/" + probe, status: 200, bodyHas: "microforests"},
		{name: "home for every path", url: "http://www.brightmeadow.co.uk/news/2021/closing-notice", status: 200, bodyHas: "community farm on the edge of town"},
		{name: "302 to home", url: "http://www.oakfieldtheatre.org/tickets/gift-vouchers/summer-offer", status: 302, location: "/"},
		{name: "302 to search", url: "http://store.kettleandco.com/products/copper-moka-pot-6-cup", status: 302, location: "/search?q=copper+moka+pot+6+cup"},
		{name: "search page", url: "http://store.kettleandco.com/search?q=copper+moka", status: 200, bodyHas: "copper moka"},
		{name: "not found 200 echoes path", url: "http://www.fjallnytt.se/kultur/2019/sommarteater-pa-gardet", status: 200, bodyHas: "/kultur/2019/sommarteater-pa-gardet"},
		{name: "wp 404 template at 200", url: "http://blog.horskachata.sk/2021/02/lyzovanie-v-doline/", status: 200, bodyHas: "error404"},
		{name: "azure body at 200", url: "http://static.fabrikamdocs.net/docs/upgrade-from-2x.html", status: 200, bodyHas: "WebContentNotFound"},
		{name: "unknown host", url: "http://nowhere.example.org/", status: 421},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := get(t, c, tc.url)
			if a.status != tc.status || a.location != tc.location {
				t.Fatalf("got %d %q, want %d %q", a.status, a.location, tc.status, tc.location)
			}
			if tc.bodyHas != "" && !strings.Contains(a.body, tc.bodyHas) {
				t.Errorf("body lacks %q", tc.bodyHas)
			}
			if tc.bodyHasNot != "" && strings.Contains(strings.ToLower(a.body), tc.bodyHasNot) {
				t.Errorf("body has %q", tc.bodyHasNot)
			}
			if tc.header != "" && a.header.Get(tc.header) != tc.hval {
				t.Errorf("header %s = %q, want %q", tc.header, a.header.Get(tc.header), tc.hval)
			}
		})
	}
}

// Every cited URL answers as its label says, once same-host redirects are
// followed: a real page ends on 200 with its own text (an app shell on
// 200), a soft 404 ends on 200 or on a challenge-free page without the
// cited title, a hard 404 on 404.
func TestLabelsMatchTheEmulation(t *testing.T) {
	c, _ := newTestServer(t)
	dev, holdout := loadSplits(t)
	for _, sp := range []*Spec{dev, holdout} {
		for _, h := range sp.Hosts {
			for _, cu := range h.URLs {
				a, final := follow(t, c, cu.URL)
				switch cu.Label {
				case "real":
					if a.status != 200 || !strings.Contains(a.body, "<h1") {
						t.Errorf("%s (real): %d at %s", cu.URL, a.status, final)
					}
				case "real_js":
					if a.status != 200 || !strings.Contains(a.body, `id="root"`) {
						t.Errorf("%s (real_js): %d, not the app shell", cu.URL, a.status)
					}
				case "soft404":
					if a.status != 200 {
						t.Errorf("%s (soft404): %d at %s", cu.URL, a.status, final)
					}
				case "missing":
					if a.status != 404 {
						t.Errorf("%s (missing): %d at %s", cu.URL, a.status, final)
					}
				}
			}
		}
	}
}

// Two answers for the same URL differ byte for byte (nonces, tokens,
// sidebars), so byte identity never decides anything.
func TestAnswersCarryDynamicParts(t *testing.T) {
	c, _ := newTestServer(t)
	for _, u := range []string{
		"http://ask.threadfold.net/questions/4821907/why-does-git-rebase-rewrite-commit-hashes",
		"http://www.bergwerk-magazin.de/kultur/2022/museumsnacht-programm",
		"http://blog.zielonyogrod.pl/2022/05/jak-siac-rzodkiewke/",
		"http://static.fabrikamdocs.net/docs/upgrade-from-2x.html",
		"http://app.nimbusboard.io/",
		"http://www.modacasa.it/prodotti/specchio-rotondo-vintage",
	} {
		a, b := get(t, c, u), get(t, c, u)
		if a.body == b.body {
			t.Errorf("%s: two identical answers", u)
		}
	}
}

// The request log flags the probe's requests.
func TestRequestLog(t *testing.T) {
	dev, _ := loadSplits(t)
	var log strings.Builder
	srv := newServer([]*Spec{dev}, 1, &log)
	srv.setTag("dev/standard")
	ts := httptest.NewServer(srv)
	defer ts.Close()
	c := hostClient(ts)
	get(t, c, "http://ask.threadfold.net/questions/4821907/citegate-probe-00ff")
	get(t, c, "http://ask.threadfold.net/questions/4821907/why-does-git-rebase-rewrite-commit-hashes")
	lines := strings.Split(strings.TrimSpace(log.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d log lines: %q", len(lines), log.String())
	}
	if !strings.Contains(lines[0], `"probe":true`) || !strings.Contains(lines[0], `"status":301`) || !strings.Contains(lines[0], `"tag":"dev/standard"`) {
		t.Errorf("probe line %s", lines[0])
	}
	if !strings.Contains(lines[1], `"probe":false`) {
		t.Errorf("page line %s", lines[1])
	}
}
