package simweb

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Scenario is one scripted citation: the URL to validate, the link text
// the citation carries, and what a correct validator must conclude.
type Scenario struct {
	Name     string
	URL      string
	LinkText string
	// Want maps a validation tier ("standard", "thorough") to the status a
	// correct validator must reach there ("valid", "paywalled", "blocked",
	// "mismatch", "invalid"). A tier that is absent is not scripted.
	Want map[string]string
	// WantRung is the ladder rung whose answer the verdict rests on:
	// RungDirect, RungBrightData or RungApify, or "" when no rung got
	// usable content (everything blocked, or the guard refused the chain).
	WantRung string
	// FinalURL is where redirects end, when the scenario redirects.
	FinalURL string
}

// Tiers and rungs used in Scenario.
const (
	TierStandard = "standard"
	TierThorough = "thorough"

	RungDirect     = "direct_fetch"
	RungBrightData = "bright_data"
	RungApify      = "apify"
)

// SecretToken is the credential in the credential-query scenario's URL
// (?token=SecretToken). The page answers only when it is present, and no
// provider should ever be sent it: check ProviderTargets.
const SecretToken = "SECRET-7f3a9c2e41d8b6a0"

// SlowDelay is how long the slow host takes to answer. The slow-host
// scenario's Want assumes a hop timeout shorter than this, so the direct
// fetch times out and Bright Data (which answers at once) gets the page.
const SlowDelay = 2 * time.Second

// handler answers one request; n is the request's ordinal on its host
// since Start or the last Reset (1 for the first).
type handler func(rw http.ResponseWriter, r *http.Request, n int)

// site is one scripted host.
type site struct {
	name     string
	pages    map[string]handler // by r.URL.Path
	fallback handler            // unknown paths; nil means the site's 404 page
}

func (s *site) serve(rw http.ResponseWriter, r *http.Request, n int) {
	if h := s.pages[r.URL.Path]; h != nil {
		h(rw, r, n)
		return
	}
	if s.fallback != nil {
		s.fallback(rw, r, n)
		return
	}
	writeHTML(rw, http.StatusNotFound, notFoundPage(s.name).html(""))
}

// remote is what the fake providers return for one known target. A
// target without a remote gets a failed unlock and a failed crawl.
type remote struct {
	page      *article // nil: the providers get an empty page
	canonical string
	bd        bdAnswer
	apify     apifyAnswer
}

// bdAnswer is the fake Web Unlocker's answer. With err set it is a
// Bright Data-side failure (x-brd-error, plus the codes); otherwise the
// target's page with x-brd-status-code status.
type bdAnswer struct {
	status             int
	err, code, errCode string
}

// apifyAnswer is the rag-web-browser item: handled (with the page) or
// failed with message.
type apifyAnswer struct {
	handled bool
	status  int
	message string
}

// scenarioDef is a catalogue entry before the port is known.
type scenarioDef struct {
	name, host, path, linkText string
	standard, thorough         string
	rung                       string
	finalHost, finalPath       string
}

// Verdicts, spelt as citation.v1 statuses.
const (
	valid     = "valid"
	paywalled = "paywalled"
	blocked   = "blocked"
	mismatch  = "mismatch"
	invalid   = "invalid"
)

// Scripted host names. Every name passes netguard's Preflight (dotted,
// no internal suffix); all are pinned to 127.0.0.1 by GuardOptions.
const (
	hostNews         = "news.example.com"
	hostEncyclopedia = "encyclopedia.example.org"
	hostLedger       = "www.ledger-times.sim"
	hostJournal      = "www.sciencejournal.sim"
	hostEnergy       = "www.energyreport.sim"
	hostRetail       = "www.retailwatch.sim"
	hostFortress     = "www.fortressdata.sim"
	hostOld          = "old.example.net"
	hostBlog         = "blog.example.com"
	hostShort        = "go.shortlink.sim"
	hostClick        = "click.example.net"
	hostMagazine     = "magazine.example.com"
	hostRedirect     = "redirect.example.net"
	hostGazette      = "www.gazette.sim"
	hostBakery       = "www.bakery-blog.sim"
	hostSlow         = "slow.example.org"
	hostRateLimited  = "www.ratelimited.sim"
	hostFlaky        = "flaky.example.net"
	hostEmpty        = "empty.example.org"
	hostMembers      = "members.example.com"
	hostRecords      = "records.example.gov"
	hostMesto        = "www.mesto-priklad.cz"
	hostCatchall     = "www.catchall-review.sim"
	hostAppShell     = "app.fleet-dashboards.sim"
	hostCoastal      = "www.coastal-news.sim"
	hostForge        = "git.opensource-forge.sim"
	hostBank         = "portal.example-bank.sim"
	hostTrade        = "www.trade-weekly.sim"
)

var scenarioDefs = []scenarioDef{
	{name: "news-article", host: hostNews, path: "/2026/03/12/city-council-approves-riverside-transit-plan",
		linkText: "City council approves Riverside transit plan", standard: valid, thorough: valid, rung: RungDirect},
	{name: "encyclopedia-parens", host: hostEncyclopedia, path: "/wiki/Anode_(chemistry)",
		linkText: "Anode (chemistry)", standard: valid, thorough: valid, rung: RungDirect},
	{name: "paywall-jsonld", host: hostLedger, path: "/business/2026/04/steel-tariffs-what-changes-for-manufacturers",
		linkText: "Steel tariffs: what changes for manufacturers", standard: paywalled, thorough: paywalled, rung: RungDirect},
	{name: "paywall-402", host: hostJournal, path: "/doi/10.5555/jam.2026.0142",
		linkText: "Degradation pathways of silicon anodes in solid-state cells", standard: paywalled, thorough: paywalled, rung: RungDirect},
	{name: "cloudflare-challenge", host: hostEnergy, path: "/2026/01/global-solar-capacity-passes-two-terawatts",
		linkText: "Global solar capacity passes two terawatts", standard: valid, thorough: valid, rung: RungBrightData},
	{name: "datadome-apify-only", host: hostRetail, path: "/insights/2026/holiday-sales-review",
		linkText: "Holiday sales review: online share hits record", standard: valid, thorough: valid, rung: RungApify},
	{name: "blocked-everywhere", host: hostFortress, path: "/research/annual-outlook-2026",
		linkText: "Fortress Data annual outlook 2026", standard: blocked, thorough: blocked, rung: ""},
	{name: "dead-404", host: hostOld, path: "/2019/press/q4-results",
		linkText: "Example Corp Q4 2019 results", standard: invalid, thorough: invalid, rung: RungDirect},
	{name: "gone-410", host: hostOld, path: "/2018/products/model-x",
		linkText: "Example Corp Model X product page", standard: invalid, thorough: invalid, rung: RungDirect},
	{name: "soft-404", host: hostBlog, path: "/posts/quantum-batteries-explained",
		linkText: "Quantum batteries explained", standard: invalid, thorough: invalid, rung: RungDirect},
	{name: "redirect-chain", host: hostShort, path: "/x7Kq2",
		linkText: "Deep-sea mining, explained", standard: valid, thorough: valid, rung: RungDirect,
		finalHost: hostMagazine, finalPath: "/features/deep-sea-mining-explained"},
	{name: "redirect-private", host: hostRedirect, path: "/go/77",
		linkText: "Partner dashboard", standard: invalid, thorough: invalid, rung: ""},
	{name: "redirect-home", host: hostGazette, path: "/2025/11/03/harbour-bridge-closure-extended",
		linkText: "Harbour bridge closure extended until March", standard: valid, thorough: mismatch, rung: RungDirect,
		finalHost: hostGazette, finalPath: "/"},
	{name: "content-mismatch", host: hostBakery, path: "/2025/09/perfect-sourdough-starter",
		linkText: "EU battery recycling targets for lithium-ion cells", standard: valid, thorough: mismatch, rung: RungDirect},
	{name: "slow-host", host: hostSlow, path: "/papers/tail-latency-study",
		linkText: "Measuring tail latency in public web services", standard: valid, thorough: valid, rung: RungBrightData},
	{name: "rate-limited", host: hostRateLimited, path: "/stats/2026/q1-employment",
		linkText: "First-quarter employment figures", standard: valid, thorough: valid, rung: RungDirect},
	{name: "flaky-503", host: hostFlaky, path: "/reports/annual-report-2025",
		linkText: "Example Utilities annual report 2025", standard: valid, thorough: valid, rung: RungDirect},
	{name: "empty-body", host: hostEmpty, path: "/bulletins/water-quality-q2",
		linkText: "Quarterly water quality bulletin", standard: blocked, thorough: blocked, rung: ""},
	{name: "credential-query", host: hostMembers, path: "/reports/q3-2026?token=" + SecretToken,
		linkText: "Q3 2026 member report", standard: valid, thorough: valid, rung: RungDirect},
	// Soft 404s at the default tier: a server's error template and a page
	// in Czech, both served with 200; a catch-all site whose answer only
	// the site probe gives away (a real article on it stays valid).
	{name: "soft-404-server-template", host: hostRecords, path: "/documents/2025/annual-permits-summary",
		linkText: "Annual permits summary 2025", standard: invalid, thorough: invalid, rung: RungDirect},
	{name: "soft-404-czech", host: hostMesto, path: "/zpravy/2026/nova-knihovna-otevrena",
		linkText: "Nová knihovna otevřena", standard: invalid, thorough: invalid, rung: RungDirect},
	{name: "soft-404-probe", host: hostCatchall, path: "/reviews/2026/best-heat-pumps-compared",
		linkText: "The best heat pumps, compared", standard: invalid, thorough: invalid, rung: RungDirect},
	{name: "catchall-real-article", host: hostCatchall, path: "/reviews/2026/induction-hobs-tested",
		linkText: "Induction hobs tested", standard: valid, thorough: valid, rung: RungDirect},
	// Every path of a script-rendered site answers the same shell: the
	// probe shows it, and the unlocker's rendering has the article.
	{name: "app-shell", host: hostAppShell, path: "/reports/2026/fleet-electrification",
		linkText: "Fleet electrification report 2026", standard: valid, thorough: valid, rung: RungBrightData},
	// Challenges served with 200 and with 401: never valid, never paywalled.
	{name: "sucuri-challenge-200", host: hostCoastal, path: "/2026/02/storm-surge-barrier-approved",
		linkText: "Storm surge barrier approved", standard: valid, thorough: valid, rung: RungBrightData},
	{name: "anubis-401", host: hostForge, path: "/project/wiki/Release-notes-4.2",
		linkText: "Release notes 4.2", standard: blocked, thorough: blocked, rung: ""},
	// A sign-in page served directly, and a members-only teaser.
	{name: "login-page", host: hostBank, path: "/statements/2026/q1-summary",
		linkText: "Q1 2026 account summary", standard: paywalled, thorough: paywalled, rung: RungDirect},
	{name: "members-teaser", host: hostTrade, path: "/news/2026/02/port-congestion-eases",
		linkText: "Port congestion eases as freight rates fall", standard: paywalled, thorough: paywalled, rung: RungDirect},
}

// scenarioNamed returns the scenario called name.
func scenarioNamed(name string) scenarioDef {
	for _, d := range scenarioDefs {
		if d.name == name {
			return d
		}
	}
	panic("simweb: no scenario " + name)
}

// Catalogue lists the scripted scenarios in a fixed order.
func (w *Web) Catalogue() []Scenario {
	out := make([]Scenario, 0, len(scenarioDefs))
	for _, d := range scenarioDefs {
		s := Scenario{
			Name:     d.name,
			URL:      w.URL(d.host, d.path),
			LinkText: d.linkText,
			Want:     map[string]string{TierStandard: d.standard, TierThorough: d.thorough},
			WantRung: d.rung,
		}
		if d.finalHost != "" {
			s.FinalURL = w.URL(d.finalHost, d.finalPath)
		}
		out = append(out, s)
	}
	return out
}

// static serves a pre-rendered page.
func static(status int, body []byte) handler {
	return func(rw http.ResponseWriter, _ *http.Request, _ int) { writeHTML(rw, status, body) }
}

// redirect answers with status and Location loc.
func redirect(status int, loc string) handler {
	return func(rw http.ResponseWriter, _ *http.Request, _ int) {
		rw.Header().Set("Location", loc)
		writeHTML(rw, status, []byte(`<html><head><title>Moved</title></head><body><a href="`+
			strings.ReplaceAll(loc, `"`, "&quot;")+`">Moved here</a></body></html>`))
	}
}

// script builds the scripted hosts and what the fake providers know.
func (w *Web) script() (map[string]*site, map[string]remote) {
	sites := map[string]*site{}
	remotes := map[string]remote{}
	add := func(host, name string, pages map[string]handler) *site {
		s := &site{name: name, pages: pages}
		sites[host] = s
		return s
	}
	page := func(host, path string, a *article) []byte { return a.html(w.URL(host, path)) }
	know := func(host, path string, a *article, bd bdAnswer, ap apifyAnswer) {
		remotes[host+path] = remote{page: a, canonical: w.URL(host, path), bd: bd, apify: ap}
	}
	unlocked := bdAnswer{status: http.StatusOK}
	crawled := apifyAnswer{handled: true, status: http.StatusOK}

	// 1. A normal news article.
	news := &article{
		SiteName:    "Example News",
		Headline:    "City council approves Riverside transit plan",
		Description: "The council voted 9-2 to fund a light-rail line and twelve rapid bus routes linking Riverside to the city centre by 2031.",
		Author:      "Maria Lopez",
		Published:   "2026-03-12",
		Paragraphs: []string{
			"The city council on Thursday approved the Riverside transit plan, a 1.4 billion dollar programme that adds a light-rail line and twelve rapid bus routes between the Riverside district and the city centre.",
			"The vote was 9 to 2. Supporters said the plan would cut average commute times by a quarter; the two members who voted against it questioned the ridership forecasts.",
			"Construction of the first light-rail segment is due to start next spring, with full service expected by 2031. The plan is funded by a regional sales tax that voters approved in 2024.",
			"Residents can comment on the proposed station locations until the end of April at public meetings in each affected neighbourhood.",
		},
	}
	d := scenarioNamed("news-article")
	add(hostNews, "Example News", map[string]handler{d.path: static(http.StatusOK, page(hostNews, d.path, news))})

	// 2. An encyclopedia page with parentheses in the path.
	anode := &article{
		SiteName:    "Example Encyclopedia",
		Title:       "Anode (chemistry) - Example Encyclopedia",
		Headline:    "Anode (chemistry)",
		Description: "An anode is the electrode of an electrochemical cell at which oxidation takes place.",
		Type:        "Article",
		Paragraphs: []string{
			"An anode is the electrode of an electrochemical cell at which oxidation takes place: electrons leave the cell through the anode into the external circuit.",
			"In a galvanic cell such as a discharging battery the anode is the negative terminal; in an electrolytic cell it is the positive terminal, connected to the positive side of the power supply.",
			"In lithium-ion batteries the anode is usually graphite, into which lithium ions are intercalated during charging. Silicon and lithium titanate are used as alternatives.",
		},
	}
	add(hostEncyclopedia, "Example Encyclopedia", map[string]handler{
		"/wiki/Anode_(chemistry)": static(http.StatusOK, page(hostEncyclopedia, "/wiki/Anode_(chemistry)", anode)),
	})

	// 3. A paywalled article: 200 with paywall structured data and a wall.
	ledger := &article{
		SiteName:    "The Ledger Times",
		Headline:    "Steel tariffs: what changes for manufacturers",
		Description: "New tariffs on imported steel take effect on 1 May. We look at who pays and which industries are most exposed.",
		Author:      "James Whitfield",
		Published:   "2026-04-08",
		Paragraphs: []string{
			"New tariffs on imported steel take effect on 1 May. Manufacturers that rely on imported coil face higher input costs, and several have already warned customers of price rises.",
		},
		Locked: true,
	}
	d = scenarioNamed("paywall-jsonld")
	add(hostLedger, "The Ledger Times", map[string]handler{d.path: static(http.StatusOK, page(hostLedger, d.path, ledger))})

	// 4. A 402 paywall.
	journal := &article{
		SiteName:    "Journal of Applied Materials",
		Headline:    "Degradation pathways of silicon anodes in solid-state cells",
		Description: "Abstract: we follow the capacity loss of silicon anodes in sulfide solid-state cells over 500 cycles.",
		Author:      "K. Yamamoto",
		Published:   "2026-02-17",
		Type:        "ScholarlyArticle",
		Paragraphs: []string{
			"Abstract. We follow the capacity loss of silicon anodes in sulfide solid-state cells over 500 cycles and identify interface cracking as the dominant degradation pathway.",
			"Access to the full text of this article requires a subscription or a one-time purchase.",
		},
		Locked: true,
	}
	d = scenarioNamed("paywall-402")
	add(hostJournal, "Journal of Applied Materials", map[string]handler{d.path: static(http.StatusPaymentRequired, page(hostJournal, d.path, journal))})

	// 5. A Cloudflare managed challenge; the unlocker gets the article.
	solar := &article{
		SiteName:    "Energy Report",
		Headline:    "Global solar capacity passes two terawatts",
		Description: "Installed solar capacity worldwide passed two terawatts at the end of 2025, double the total of three years earlier.",
		Author:      "Priya Natarajan",
		Published:   "2026-01-20",
		Paragraphs: []string{
			"Installed solar capacity worldwide passed two terawatts at the end of 2025, according to figures compiled by industry analysts, roughly double the total of three years earlier.",
			"China accounted for more than half of last year's additions, followed by the European Union, the United States and India.",
			"Analysts cautioned that grid connections and storage are now the main constraints on growth in several markets.",
		},
	}
	d = scenarioNamed("cloudflare-challenge")
	challenge := []byte(fmt.Sprintf(cloudflareChallenge, hostEnergy, hostEnergy))
	add(hostEnergy, "Energy Report", map[string]handler{d.path: func(rw http.ResponseWriter, _ *http.Request, _ int) {
		h := rw.Header()
		h.Set("Server", "cloudflare")
		h.Set("Cf-Ray", "8f1c2d3e4a5b6c7d-AMS")
		h.Set("Cf-Mitigated", "challenge")
		h.Set("Cache-Control", "private, max-age=0, no-store, no-cache, must-revalidate")
		writeHTML(rw, http.StatusForbidden, challenge)
	}})
	know(hostEnergy, d.path, solar, unlocked, crawled)

	// 6. DataDome blocks direct requests, Bright Data refuses the site by
	// policy, Apify reads it.
	retail := &article{
		SiteName:    "Retail Watch",
		Headline:    "Holiday sales review: online share hits record",
		Description: "Online purchases made up a record 31 percent of holiday retail sales.",
		Author:      "Daniel Okafor",
		Published:   "2026-01-09",
		Paragraphs: []string{
			"Online purchases made up a record 31 percent of holiday retail sales, up from 28 percent a year earlier, as shoppers shifted spending towards the final week of December.",
			"Electronics and toys led growth, while apparel sales were flat. Use of buy-now-pay-later services rose for the third year running.",
		},
	}
	d = scenarioNamed("datadome-apify-only")
	dd := []byte(fmt.Sprintf(dataDomeBlock, hostRetail))
	add(hostRetail, "Retail Watch", map[string]handler{d.path: func(rw http.ResponseWriter, _ *http.Request, _ int) {
		h := rw.Header()
		h.Set("X-Datadome", "protected")
		h.Set("X-Datadome-Cid", "AHrlqAAAAAMAsim0000000000")
		h.Set("Set-Cookie", "datadome=sim0000000000000000; Max-Age=31536000; Path=/; Secure; SameSite=Lax")
		h.Set("Cache-Control", "max-age=0, private, no-cache, no-store, must-revalidate")
		writeHTML(rw, http.StatusForbidden, dd)
	}})
	know(hostRetail, d.path, retail,
		bdAnswer{status: http.StatusForbidden, err: "Forbidden: target site is blocked by Bright Data policy", errCode: "policy_20000"},
		crawled)

	// 7. Nobody gets in: Akamai denies, the unlocker is rejected, the
	// crawler gets a 403.
	d = scenarioNamed("blocked-everywhere")
	denied := []byte(fmt.Sprintf(akamaiDenied, strings.ReplaceAll(hostFortress, ".", "&#46;")))
	add(hostFortress, "Fortress Data", map[string]handler{d.path: func(rw http.ResponseWriter, _ *http.Request, _ int) {
		h := rw.Header()
		h.Set("Server", "AkamaiGHost")
		h.Set("Set-Cookie", "_abck=sim0000000000~-1~YAAQsim~-1~-1~-1; Path=/; Secure")
		writeHTML(rw, http.StatusForbidden, denied)
	}})
	know(hostFortress, d.path, nil,
		bdAnswer{status: http.StatusBadGateway, err: "Request was blocked by the target site", code: "reject_block"},
		apifyAnswer{status: http.StatusForbidden, message: "Request blocked - received 403 status code."})

	// 8. A dead link and a gone page.
	gone := &article{SiteName: "Example Corp", Title: "410 Gone | Example Corp",
		Paragraphs: []string{"This product page has been permanently removed."}}
	add(hostOld, "Example Corp", map[string]handler{
		scenarioNamed("gone-410").path: static(http.StatusGone, gone.html("")),
	}) // dead-404 falls through to the site's 404 page

	// 9. A soft 404: every path but the home page answers 200 "Page not
	// found", as catch-all blog themes do.
	soft := (&article{SiteName: "Example Blog", Title: "Page not found | Example Blog",
		Paragraphs: []string{"Sorry, the page you are looking for does not exist. Try searching the blog or return to the home page."}}).html("")
	blogHome := (&article{SiteName: "Example Blog", Title: "Example Blog | Notes on physics and engineering",
		Paragraphs: []string{"Latest posts: Why superconductors need the cold. A short history of the transistor."}}).html(w.URL(hostBlog, "/"))
	add(hostBlog, "Example Blog", map[string]handler{"/": static(http.StatusOK, blogHome)}).fallback = static(http.StatusOK, soft)

	// 10. Three redirects across two hosts to an article.
	mining := &article{
		SiteName:    "Example Magazine",
		Headline:    "Deep-sea mining, explained",
		Description: "What polymetallic nodules are, who wants to mine them, and what is known about the risks to the deep-sea floor.",
		Author:      "Hannah Berg",
		Published:   "2025-10-02",
		Paragraphs: []string{
			"Deep-sea mining means collecting polymetallic nodules, potato-sized lumps rich in nickel, cobalt and manganese, from the abyssal plains thousands of metres below the surface.",
			"Supporters say the metals are needed for batteries; marine scientists warn that the plumes and noise could harm ecosystems that take decades to recover.",
		},
	}
	final := scenarioNamed("redirect-chain").finalPath
	add(hostShort, "Shortlink", map[string]handler{
		scenarioNamed("redirect-chain").path: redirect(http.StatusMovedPermanently, w.URL(hostClick, "/track?id=4471&dest=mag")),
	})
	add(hostClick, "Example Click Tracking", map[string]handler{
		"/track": redirect(http.StatusFound, w.URL(hostMagazine, "/features/old-deep-sea-mining")),
	})
	add(hostMagazine, "Example Magazine", map[string]handler{
		"/features/old-deep-sea-mining": redirect(http.StatusPermanentRedirect, final),
		final:                           static(http.StatusOK, page(hostMagazine, final, mining)),
	})

	// 11. A redirect into a private address.
	add(hostRedirect, "Example Redirects", map[string]handler{
		scenarioNamed("redirect-private").path: redirect(http.StatusFound, "http://10.0.0.7/admin"),
	})

	// 12. A deep link that redirects to the home page.
	gazetteHome := (&article{SiteName: "The Gazette", Title: "The Gazette | Local news, sport and weather",
		Description: "Local news, sport and weather from The Gazette.",
		Paragraphs: []string{
			"Top stories: New library opens in the old post office building.",
			"Sport: Rovers win the county cup after extra time.",
			"Weather: Dry and bright this weekend with light winds.",
		}}).html(w.URL(hostGazette, "/"))
	add(hostGazette, "The Gazette", map[string]handler{
		scenarioNamed("redirect-home").path: redirect(http.StatusMovedPermanently, "/"),
		"/":                                 static(http.StatusOK, gazetteHome),
	})

	// 13. Content unrelated to the link text.
	sourdough := &article{
		SiteName:    "Crumb & Crust",
		Headline:    "How to keep a sourdough starter alive",
		Description: "Feeding schedules, flour choices and what to do when your starter smells of nail varnish.",
		Author:      "Elena Rossi",
		Published:   "2025-09-14",
		Type:        "BlogPosting",
		Paragraphs: []string{
			"A sourdough starter is a culture of wild yeast and lactic acid bacteria kept alive with regular feeds of flour and water.",
			"Feed it once a day at room temperature, discarding all but a spoonful before each feed. Rye flour makes a livelier starter than white flour.",
			"A smell of nail varnish means the starter is hungry: feed it twice a day for a few days and it will recover.",
			"Keep the jar loosely covered so gases can escape, and mark the level with a rubber band after each feed: a healthy starter doubles within six to eight hours.",
			"If you bake only at weekends, the starter can live in the fridge between bakes. Take it out the evening before, feed it, and it will be ready by morning.",
		},
	}
	d = scenarioNamed("content-mismatch")
	add(hostBakery, "Crumb & Crust", map[string]handler{d.path: static(http.StatusOK, page(hostBakery, d.path, sourdough))})

	// 14. A slow host: the article arrives after SlowDelay. The unlocker,
	// with its own time budget, returns it at once.
	latency := &article{
		SiteName:    "Example Research",
		Headline:    "Measuring tail latency in public web services",
		Description: "A year of measurements shows the slowest one percent of requests dominates user-visible delay.",
		Author:      "Tomás Reyes",
		Published:   "2025-06-30",
		Type:        "ScholarlyArticle",
		Paragraphs: []string{
			"We measured response times of 1,200 public web services for a year and found that the slowest one percent of requests accounts for most user-visible delay.",
			"Hedged requests and tighter timeouts reduced the 99th percentile by 40 percent at a cost of 3 percent extra load.",
		},
	}
	d = scenarioNamed("slow-host")
	slowBody := page(hostSlow, d.path, latency)
	add(hostSlow, "Example Research", map[string]handler{d.path: func(rw http.ResponseWriter, r *http.Request, _ int) {
		if w.sleep(r, SlowDelay) {
			writeHTML(rw, http.StatusOK, slowBody)
		}
	}})
	know(hostSlow, d.path, latency, unlocked, crawled)

	// 15. Rate limited: the first request since Reset gets 429.
	jobs := &article{
		SiteName:    "Labour Statistics Digest",
		Headline:    "First-quarter employment figures",
		Description: "Employment rose 0.4 percent in the first quarter; unemployment held at 4.1 percent.",
		Author:      "Statistics Desk",
		Published:   "2026-04-30",
		Paragraphs: []string{
			"Employment rose 0.4 percent in the first quarter of 2026, adding about 130,000 jobs, while the unemployment rate held at 4.1 percent.",
			"Health care and construction accounted for most of the gains; manufacturing employment fell slightly.",
		},
	}
	d = scenarioNamed("rate-limited")
	jobsBody := page(hostRateLimited, d.path, jobs)
	tooMany := []byte("<html><head><title>429 Too Many Requests</title></head><body><h1>Too Many Requests</h1><p>Please slow down and try again shortly.</p></body></html>")
	add(hostRateLimited, "Labour Statistics Digest", map[string]handler{d.path: func(rw http.ResponseWriter, _ *http.Request, n int) {
		if n == 1 {
			rw.Header().Set("Retry-After", "1")
			writeHTML(rw, http.StatusTooManyRequests, tooMany)
			return
		}
		writeHTML(rw, http.StatusOK, jobsBody)
	}})

	// 16. Flaky: the first request since Reset gets 503.
	utility := &article{
		SiteName:    "Example Utilities",
		Headline:    "Example Utilities annual report 2025",
		Description: "Revenue, investment and reliability figures for the 2025 financial year.",
		Author:      "Investor Relations",
		Published:   "2026-03-02",
		Type:        "Report",
		Paragraphs: []string{
			"Revenue rose 6 percent to 2.3 billion in 2025, driven by network investment allowed under the new regulatory settlement.",
			"Average supply interruptions per customer fell to 48 minutes, the lowest on record.",
		},
	}
	d = scenarioNamed("flaky-503")
	utilityBody := page(hostFlaky, d.path, utility)
	unavailable := []byte("<html><head><title>503 Service Unavailable</title></head><body><h1>Service Unavailable</h1><p>The server is temporarily unable to handle your request.</p></body></html>")
	add(hostFlaky, "Example Utilities", map[string]handler{d.path: func(rw http.ResponseWriter, _ *http.Request, n int) {
		if n == 1 {
			writeHTML(rw, http.StatusServiceUnavailable, unavailable)
			return
		}
		writeHTML(rw, http.StatusOK, utilityBody)
	}})

	// 17. An empty 200; the providers see the same nothing.
	d = scenarioNamed("empty-body")
	add(hostEmpty, "Example Water", map[string]handler{d.path: static(http.StatusOK, nil)})
	know(hostEmpty, d.path, nil, unlocked, crawled)

	// 18. A credential in the query: the article needs the token.
	members := &article{
		SiteName:    "Example Members",
		Headline:    "Q3 2026 member report",
		Description: "Membership, events and finances for the third quarter of 2026.",
		Author:      "Member Services",
		Published:   "2026-10-05",
		Type:        "Report",
		Paragraphs: []string{
			"Membership grew to 18,400 in the third quarter, with the strongest growth among student members.",
			"Event attendance recovered to pre-2020 levels and the association closed the quarter with a small surplus.",
		},
	}
	path, _, _ := strings.Cut(scenarioNamed("credential-query").path, "?")
	memberBody := page(hostMembers, path, members)
	login := (&article{SiteName: "Example Members", Title: "Sign in | Example Members",
		Paragraphs: []string{"Sign in to continue. This report is available to members only."}}).html("")
	add(hostMembers, "Example Members", map[string]handler{path: func(rw http.ResponseWriter, r *http.Request, _ int) {
		if r.URL.Query().Get("token") == SecretToken {
			writeHTML(rw, http.StatusOK, memberBody)
			return
		}
		rw.Header().Set("WWW-Authenticate", `Bearer realm="members"`)
		writeHTML(rw, http.StatusUnauthorized, login)
	}})

	w.scriptIssue9(add, know, page)
	return sites, remotes
}

// scriptIssue9 adds the hosts of the soft-404, challenge and login-wall
// scenarios.
func (w *Web) scriptIssue9(add func(host, name string, pages map[string]handler) *site,
	know func(host, path string, a *article, bd bdAnswer, ap apifyAnswer), page func(host, path string, a *article) []byte) {
	unlocked := bdAnswer{status: http.StatusOK}
	crawled := apifyAnswer{handled: true, status: http.StatusOK}

	// A Tomcat 404 report and a Czech "page not found", both with 200.
	add(hostRecords, "Example Records Office", nil).fallback = static(http.StatusOK, []byte(tomcatNotFound))
	add(hostMesto, "Město Příklad", nil).fallback = static(http.StatusOK, []byte(czechNotFound))

	// A catch-all site: every unknown path answers 200 with the landing
	// page, which says nothing about a missing page.
	landing := (&article{SiteName: "Catchall Review", Title: "Catchall Review | Independent tests of home appliances",
		Description: "Independent tests of heat pumps, hobs, washing machines and other home appliances.",
		Paragraphs: []string{
			"Catchall Review tests home appliances in its own laboratory and publishes every measurement alongside the verdict.",
			"Latest reviews: quiet dishwashers under 45 decibels, compact heat-pump dryers, and the cheapest way to heat a small flat.",
			"Our testers buy every product in a shop, like any customer, and never accept samples from manufacturers.",
		}}).html(w.URL(hostCatchall, "/"))
	hobs := &article{
		SiteName:    "Catchall Review",
		Headline:    "Induction hobs tested",
		Description: "We timed how long eleven induction hobs take to boil a litre of water and measured their standby power.",
		Author:      "Lena Fischer",
		Published:   "2026-01-22",
		Paragraphs: []string{
			"We timed how long eleven induction hobs take to bring a litre of water to the boil: the fastest needed 2 minutes 41 seconds, the slowest almost five minutes.",
			"Standby power ranged from 0.3 to 2.1 watts. Two models kept their fans running for several minutes after being switched off.",
		},
	}
	real := scenarioNamed("catchall-real-article").path
	add(hostCatchall, "Catchall Review", map[string]handler{
		real: static(http.StatusOK, page(hostCatchall, real, hobs)),
	}).fallback = static(http.StatusOK, landing)

	// A script-rendered app: the same shell for every path; the unlocker
	// (a browser) gets the rendered report.
	fleet := &article{
		SiteName:    "Fleet Dashboards",
		Headline:    "Fleet electrification report 2026",
		Description: "Electric vans made up 18 percent of new fleet registrations in 2025.",
		Published:   "2026-02-10",
		Type:        "Report",
		Paragraphs: []string{
			"Electric vans made up 18 percent of new fleet registrations in 2025, up from 11 percent a year earlier.",
			"Depot charging remains the main constraint: a third of operators reported waiting more than a year for a grid connection.",
		},
	}
	d := scenarioNamed("app-shell")
	add(hostAppShell, "Fleet Dashboards", nil).fallback = static(http.StatusOK, []byte(appShell))
	know(hostAppShell, d.path, fleet, unlocked, crawled)

	// Sucuri's JS cookie challenge, served with 200; the unlocker passes it.
	surge := &article{
		SiteName:    "Coastal News",
		Headline:    "Storm surge barrier approved",
		Description: "The regional council approved a movable storm surge barrier for the estuary.",
		Author:      "Tom Hale",
		Published:   "2026-02-14",
		Paragraphs: []string{
			"The regional council approved a movable storm surge barrier for the estuary, to be completed by 2032 at a cost of 640 million.",
			"The barrier will close about ten times a year at current sea levels, and more often as levels rise.",
		},
	}
	d = scenarioNamed("sucuri-challenge-200")
	add(hostCoastal, "Coastal News", map[string]handler{d.path: func(rw http.ResponseWriter, _ *http.Request, _ int) {
		rw.Header().Set("Server", "Sucuri/Cloudproxy")
		writeHTML(rw, http.StatusOK, []byte(sucuriChallenge))
	}})
	know(hostCoastal, d.path, surge, unlocked, crawled)

	// Anubis answers 401 with its proof-of-work page; no provider gets in.
	d = scenarioNamed("anubis-401")
	add(hostForge, "Open Source Forge", map[string]handler{d.path: static(http.StatusUnauthorized, []byte(anubisChallenge))})

	// A bank's sign-in page at every path, and a members-only teaser.
	add(hostBank, "Example Bank", nil).fallback = static(http.StatusOK, []byte(bankLogin))
	d = scenarioNamed("members-teaser")
	add(hostTrade, "Trade Weekly", map[string]handler{d.path: static(http.StatusOK, []byte(membersTeaser))})
}

// SyntheticTitle is the headline of synthetic page /a/{i} on host (see
// AddHost); a citation whose link text is this title matches the page.
func SyntheticTitle(host string, i int) string {
	return fmt.Sprintf("Field report %d: %s", i, syntheticTopic(host, i))
}

var syntheticTopics = []string{
	"regional rail ridership", "coastal flood defences", "onshore wind permits",
	"school meal programmes", "hospital waiting times", "urban tree canopy",
	"grid battery storage tenders", "household water prices", "rural broadband rollout",
	"new housing starts",
}

func syntheticTopic(host string, i int) string {
	var h uint32 = 2166136261 // FNV-1a
	for j := 0; j < len(host); j++ {
		h = (h ^ uint32(host[j])) * 16777619
	}
	return syntheticTopics[(int(h%uint32(len(syntheticTopics)))+i)%len(syntheticTopics)]
}

func (w *Web) serveSynthetic(rw http.ResponseWriter, r *http.Request, host string, pages int) {
	rest, ok := strings.CutPrefix(r.URL.Path, "/a/")
	i, err := strconv.Atoi(rest)
	if !ok || err != nil || i < 0 || i >= pages || strconv.Itoa(i) != rest {
		writeHTML(rw, http.StatusNotFound, notFoundPage(host).html(""))
		return
	}
	topic := syntheticTopic(host, i)
	a := &article{
		SiteName:    host,
		Headline:    SyntheticTitle(host, i),
		Description: "A short field report on " + topic + ".",
		Author:      "Staff Reporter",
		Published:   "2026-01-15",
		Paragraphs: []string{
			fmt.Sprintf("This field report, number %d from %s, looks at %s and what changed over the past year.", i, host, topic),
			"Officials said the figures would be reviewed again next year. Local groups welcomed the report but asked for more detail.",
		},
	}
	writeHTML(rw, http.StatusOK, a.html(w.URL(host, r.URL.Path)))
}
