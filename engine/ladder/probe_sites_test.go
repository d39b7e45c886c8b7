package ladder

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/citegate/citegate/engine/classify"
	"github.com/citegate/citegate/engine/record"
)

// Sites that route by an id in the path, and sites that answer missing
// pages with a page of their own, as the site probe meets them. Each
// site's routing follows its public behaviour:
//   - qa: Stack Exchange's /questions/<id>/<slug>: any slug 301s to the
//     canonical one, an unknown id is a real 404;
//   - forum: Reddit's /r/<sub>/comments/<id>/<slug>/: the same thread
//     whatever the slug; an unknown id gets a 200 page with no phrase a
//     rule knows;
//   - shop: Amazon's /dp/<ASIN>/ref=…: the product whatever follows the
//     ASIN, rel=canonical /<Name>/dp/<ASIN>;
//   - ok: a host that answers any path under /ok/ with the same article
//     (issue 20's simulated host), anything else a real 404;
//   - home: the home page for every path, 200;
//   - tohome: a 302 to the home page for every deep path;
//   - tmpl: real articles, and a 200 "missing" template (nonce, random
//     sidebar, the path echoed) for everything else.
//
// Every page carries a nonce and a random sidebar, so byte identity never
// decides.

type siteFunc func(w http.ResponseWriter, r *http.Request)

func nonce() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// sitePage is an HTML page with a headline, a body and the dynamic bits
// real sites carry.
func sitePage(title, canonical, h1, body string) string {
	var c string
	if canonical != "" {
		c = `<link rel="canonical" href="` + canonical + `">`
	}
	n := nonce()
	return `<!DOCTYPE html><html><head><title>` + title + `</title>` + c +
		`<meta name="csrf-token" content="` + n + `"></head><body><nav>Home · Latest · About</nav><main><h1>` + h1 + `</h1>` +
		body + `</main><aside>Trending: item ` + n[:4] + `, item ` + n[4:8] + `</aside><footer>© Site</footer></body></html>`
}

func paras(topic string) string {
	return "<p>" + strings.Repeat("This long paragraph about "+topic+" explains the measured results, the methods and the data in detail. ", 6) +
		"</p><p>" + strings.Repeat("A second paragraph on "+topic+" adds context, caveats and what the authors concluded. ", 5) + "</p>"
}

var qaPath = regexp.MustCompile(`^/questions/(\d+)(?:/([^/]*))?$`)

func qaSite(base *string) siteFunc {
	questions := map[string]string{"4812": "how-to-read-a-file-line-by-line", "977": "why-is-my-loop-slow"}
	return func(w http.ResponseWriter, r *http.Request) {
		m := qaPath.FindStringSubmatch(r.URL.Path)
		if m == nil || questions[m[1]] == "" {
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte(sitePage("Page not found - Q&A", "", "Page not found", "<p>This question was removed or never existed.</p>")))
			return
		}
		canon := "/questions/" + m[1] + "/" + questions[m[1]]
		if r.URL.Path != canon {
			http.Redirect(w, r, canon, http.StatusMovedPermanently)
			return
		}
		title := strings.ReplaceAll(questions[m[1]], "-", " ")
		_, _ = w.Write([]byte(sitePage(title+" - Q&A", *base+canon, title, paras(title))))
	}
}

var forumPath = regexp.MustCompile(`^/r/(\w+)/comments/(\w+)(?:/.*)?$`)

func forumSite() siteFunc {
	threads := map[string]string{"1abc2d": "Results of our heat pump field trial", "9zz8yy": "Ask me anything about tidal energy"}
	return func(w http.ResponseWriter, r *http.Request) {
		m := forumPath.FindStringSubmatch(r.URL.Path)
		if m != nil && threads[m[2]] != "" {
			t := threads[m[2]]
			_, _ = w.Write([]byte(sitePage(t+" : r/"+m[1], "", t, paras(t))))
			return
		}
		_, _ = w.Write([]byte(sitePage("reddit", "", "Hmm, there is nothing at this address",
			"<p>The link may be broken, or the post may have been removed by its author. Browse popular communities instead.</p>"+
				"<ul><li>r/science</li><li>r/worldnews</li><li>r/askhistorians</li><li>r/dataisbeautiful</li></ul>")))
	}
}

var shopPath = regexp.MustCompile(`^(?:/[^/]+)?/dp/([A-Z0-9]{10})(?:/.*)?$`)

func shopSite(base *string) siteFunc {
	products := map[string]string{"B08N5WRWNW": "Compact Induction Hob", "B07XJ8C8F5": "Quiet Dishwasher"}
	return func(w http.ResponseWriter, r *http.Request) {
		m := shopPath.FindStringSubmatch(r.URL.Path)
		if m == nil || products[m[1]] == "" {
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte(sitePage("Page Not Found", "", "Sorry! We couldn't find that page", "<p>Try searching or go to the home page.</p>")))
			return
		}
		name := products[m[1]]
		_, _ = w.Write([]byte(sitePage(name+" : Home & Kitchen", *base+"/"+strings.ReplaceAll(name, " ", "-")+"/dp/"+m[1], name, paras(name))))
	}
}

func okSite() siteFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/ok/") {
			_, _ = w.Write([]byte(sitePage("Grid batteries store a record amount", "", "Grid batteries store a record amount", paras("grid batteries"))))
			return
		}
		http.NotFound(w, r)
	}
}

func homeSite() siteFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(sitePage("Daily Courier - news from the valley", "", "Daily Courier", paras("the valley's latest news"))))
	}
}

func toHomeSite() siteFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.Redirect(w, r, "/", http.StatusFound)
			return
		}
		_, _ = w.Write([]byte(sitePage("Harbour Times", "", "Harbour Times", paras("the harbour's latest news"))))
	}
}

// videoSite: YouTube's /watch?v=<id>: an unknown id gets a 200 page
// saying the video is unavailable, in words no phrase rule knows.
func videoSite() siteFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/watch" {
			http.NotFound(w, r)
			return
		}
		if r.URL.Query().Get("v") == "dQw4w9WgXcQ" {
			_, _ = w.Write([]byte(sitePage("Tidal turbines explained - VideoHub", "", "Tidal turbines explained", paras("tidal turbines"))))
			return
		}
		_, _ = w.Write([]byte(sitePage("VideoHub", "", "VideoHub", "<p>This content cannot be played. "+
			"Browse recommended channels, trending uploads and music from creators around the world on VideoHub, "+
			"or sign in to see your subscriptions and the playlists you saved for later viewing on any device.</p>")))
	}
}

// searchSite: a shop that sends a link to a product it no longer sells to
// its search page, with the old slug as the query.
func searchSite() siteFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/products/copper-kettle":
			_, _ = w.Write([]byte(sitePage("Copper kettle - Kettle & Co", "", "Copper kettle", paras("copper kettles"))))
		case "/search":
			q := r.URL.Query().Get("q")
			_, _ = w.Write([]byte(sitePage("Search: "+q+" - Kettle & Co", "", "Results for "+q,
				"<p>We found products that may match "+q+". Filter by price, colour or brand, and sort by popularity "+
					"or newest first. Free delivery on orders over fifty pounds and free returns within thirty days.</p>"+
					"<ul><li>Enamel teapot "+nonce()+"</li><li>Milk pan "+nonce()+"</li></ul>")))
		default:
			http.Redirect(w, r, "/search?q="+strings.ReplaceAll(strings.Trim(r.URL.Path, "/"), "/", "+"), http.StatusFound)
		}
	}
}

func templateSite() siteFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/science/2025/ocean-heat-record" {
			_, _ = w.Write([]byte(sitePage("Ocean heat hits a record - Science Desk", "", "Ocean heat hits a record", paras("ocean heat"))))
			return
		}
		var related strings.Builder
		for range 6 {
			related.WriteString("<li>Story " + nonce() + " from our archive</li>")
		}
		_, _ = w.Write([]byte(sitePage("Science Desk", "", "We looked everywhere",
			"<p>Nothing lives at "+r.URL.Path+" any more. The Science Desk covers climate, space, health and technology "+
				"with daily reporting from our newsroom and analysis from our editors. Use the menu to browse the sections, "+
				"or start from the front page where the day's most important stories are collected.</p>"+
				"<p>Maybe one of these stories is what you wanted:</p><ul>"+related.String()+"</ul>")))
	}
}

// TestSiteProbeRouting: real pages on id-routing sites stay valid and
// soft 404s are invalid, whichever citation of a host the probes are built
// from.
func TestSiteProbeRouting(t *testing.T) {
	type cite struct {
		site, path, link string
		want             record.Status
	}
	var qaBase, shopBase string
	sites := map[string]siteFunc{"qa": qaSite(&qaBase), "forum": forumSite(), "shop": shopSite(&shopBase), "ok": okSite(),
		"home": homeSite(), "tohome": toHomeSite(), "tmpl": templateSite(),
		"video": videoSite(), "search": searchSite()}
	servers := map[string]*httptest.Server{}
	var all []*httptest.Server
	for name, f := range sites {
		s := httptest.NewServer(http.HandlerFunc(f))
		defer s.Close()
		servers[name] = s
		all = append(all, s)
	}
	qaBase, shopBase = servers["qa"].URL, servers["shop"].URL
	cites := []cite{
		{"qa", "/questions/4812/how-to-read-a-file-line-by-line", "How to read a file line by line", record.StatusValid},
		{"qa", "/questions/977/why-is-my-loop-so-slow-old-title", "Q&A answer", record.StatusValid},
		{"forum", "/r/energy/comments/1abc2d/results_of_our_trial/", "Forum thread", record.StatusValid},
		{"forum", "/r/energy/comments/7qq7qq/a_thread_that_never_was/", "Forum thread", record.StatusInvalid},
		{"shop", "/dp/B08N5WRWNW/ref=sr_1_1", "Product page", record.StatusValid},
		{"shop", "/Quiet-Dishwasher/dp/B07XJ8C8F5", "Product page", record.StatusValid},
		{"ok", "/ok/first-copy", "Grid batteries store a record amount", record.StatusValid},
		{"ok", "/ok/second-copy", "Source", record.StatusValid},
		{"home", "/news/2024/mayor-opens-bridge", "Mayor opens the new bridge", record.StatusInvalid},
		{"tohome", "/local/2025/ferry-timetable-changes", "Ferry timetable changes", record.StatusInvalid},
		{"tmpl", "/science/2025/ocean-heat-record", "Ocean heat hits a record", record.StatusValid},
		{"tmpl", "/science/2025/deep-sea-mining-ban", "Deep-sea mining ban", record.StatusInvalid},
		{"video", "/watch?v=dQw4w9WgXcQ", "Tidal turbines explained", record.StatusValid},
		{"video", "/watch?v=Zz0Zz0Zz0Zz", "Wave energy in ten minutes", record.StatusInvalid},
		{"search", "/products/copper-kettle", "Copper kettle", record.StatusValid},
		{"search", "/products/enamel-jug-discontinued", "Enamel jug", record.StatusInvalid},
	}
	run := func(order []cite, tier classify.Tier) map[string]record.Status {
		var items []Item
		for i, c := range order {
			u := servers[c.site].URL + c.path
			items = append(items, Item{Index: i, URL: u, Fetch: u, Citation: classify.Citation{LinkText: c.link}})
		}
		l := New(Config{Guard: loopbackGuard(all...), Tier: tier, Concurrency: 1, PerHost: 1, DirectAttempts: 1,
			MaxRetryWait: time.Second, Now: time.Now})
		var mu sync.Mutex
		got := map[string]record.Status{}
		l.Run(context.Background(), items, func(it *Item, d Decision, _ string) {
			mu.Lock()
			defer mu.Unlock()
			got[it.URL] = d.Status
			if d.Status == record.StatusInvalid && !strings.Contains(d.Notes, "soft 404") {
				t.Errorf("%s: invalid without a soft-404 rule: %q", it.URL, d.Notes)
			}
			if d.Status != cites[slices.IndexFunc(cites, func(c cite) bool { return servers[c.site].URL+c.path == it.URL })].want {
				t.Logf("%s: %s %q", it.URL, d.Status, d.Notes)
			}
		})
		return got
	}
	reversed := slices.Clone(cites)
	slices.Reverse(reversed)
	for _, tier := range []classify.Tier{classify.Standard, classify.Thorough} {
		for name, order := range map[string][]cite{"forward": cites, "reversed": reversed} {
			got := run(order, tier)
			for _, c := range cites {
				if s := got[servers[c.site].URL+c.path]; s != c.want {
					t.Errorf("%v %s: %s %s: %s, want %s", tier, name, c.site, c.path, s, c.want)
				}
			}
		}
	}
}

// TestSiteProbeBudget: a host's shapes are probed at most
// probeShapesPerHost times, each with at most probeRequestsPerShape
// requests.
func TestSiteProbeBudget(t *testing.T) {
	var mu sync.Mutex
	probes := 0
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.URL.Path, classify.ProbeName) {
			mu.Lock()
			probes++
			mu.Unlock()
		}
		_, _ = w.Write([]byte(sitePage("Catch-all", "", "Catch-all", paras("everything"))))
	}))
	defer s.Close()
	var items []Item
	for i := range 8 {
		u := fmt.Sprintf("%s/section%c/page-%d/x", s.URL, 'a'+i, i)
		items = append(items, Item{Index: i, URL: u, Fetch: u})
	}
	l := New(Config{Guard: loopbackGuard(s), Tier: classify.Standard, Concurrency: 2, PerHost: 2, DirectAttempts: 1,
		MaxRetryWait: time.Second, Now: time.Now})
	l.Run(context.Background(), items, func(*Item, Decision, string) {})
	if limit := probeShapesPerHost * probeRequestsPerShape; probes == 0 || probes > limit {
		t.Errorf("%d probes for 8 shapes of one host, want 1 to %d", probes, limit)
	}
}
