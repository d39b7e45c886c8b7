package simweb

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/citegate/citegate/engine/classify"
	"github.com/citegate/citegate/netguard"
)

const (
	testKey   = "bd-test-key"
	testZone  = "web_unlocker1"
	testToken = "apify-test-token"
)

func startWeb(t *testing.T, opts Options) *Web {
	t.Helper()
	w, err := Start(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Close)
	return w
}

func creds() Options {
	return Options{BrightDataKey: testKey, BrightDataZone: testZone, ApifyToken: testToken}
}

// client sends every connection to the web's port, whatever the host, and
// never follows redirects.
func client(t *testing.T, w *Web, timeout time.Duration) *http.Client {
	t.Helper()
	d := &net.Dialer{Timeout: 2 * time.Second}
	tr := &http.Transport{
		Proxy: nil,
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			return d.DialContext(ctx, "tcp", "127.0.0.1:"+strconv.Itoa(w.Port()))
		},
	}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{
		Transport:     tr,
		Timeout:       timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

type answer struct {
	status int
	header http.Header
	body   string
}

func do(t *testing.T, c *http.Client, req *http.Request) answer {
	t.Helper()
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: body: %v", req.Method, req.URL, err)
	}
	return answer{resp.StatusCode, resp.Header, string(b)}
}

func get(t *testing.T, c *http.Client, u string) answer {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	return do(t, c, req)
}

func post(t *testing.T, c *http.Client, u, auth string, body any) answer {
	t.Helper()
	var b []byte
	switch v := body.(type) {
	case string:
		b = []byte(v)
	default:
		var err error
		if b, err = json.Marshal(v); err != nil {
			t.Fatal(err)
		}
	}
	req, err := http.NewRequest(http.MethodPost, u, bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	return do(t, c, req)
}

// follow follows redirects on the simulated web and returns every hop; it
// stops at a Location with an IP-literal host, which this client would
// otherwise send to the web too.
func follow(t *testing.T, c *http.Client, u string) (hops []answer, final string) {
	t.Helper()
	for range 10 {
		a := get(t, c, u)
		hops = append(hops, a)
		loc := a.header.Get("Location")
		if a.status < 300 || a.status > 399 || loc == "" {
			return hops, u
		}
		base, _ := url.Parse(u)
		next, err := base.Parse(loc)
		if err != nil {
			t.Fatalf("bad Location %q: %v", loc, err)
		}
		if net.ParseIP(next.Hostname()) != nil {
			return hops, next.String()
		}
		u = next.String()
	}
	t.Fatalf("redirect loop from %s", u)
	return nil, ""
}

var ldRE = regexp.MustCompile(`(?s)<script type="application/ld\+json">(.*?)</script>`)

func jsonLD(t *testing.T, body string) map[string]any {
	t.Helper()
	m := ldRE.FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no JSON-LD in page:\n%s", body)
	}
	var ld map[string]any
	if err := json.Unmarshal([]byte(m[1]), &ld); err != nil {
		t.Fatalf("JSON-LD: %v\n%s", err, m[1])
	}
	return ld
}

func title(body string) string {
	_, rest, _ := strings.Cut(body, "<title>")
	t, _, _ := strings.Cut(rest, "</title>")
	return t
}

func must(t *testing.T, ok bool, format string, args ...any) {
	t.Helper()
	if !ok {
		t.Errorf(format, args...)
	}
}

func scenario(t *testing.T, w *Web, name string) Scenario {
	t.Helper()
	for _, s := range w.Catalogue() {
		if s.Name == name {
			return s
		}
	}
	t.Fatalf("no scenario %q", name)
	return Scenario{}
}

func TestCatalogue(t *testing.T) {
	w := startWeb(t, creds())
	g := netguard.New(w.GuardOptions()...)
	seen := map[string]bool{}
	statuses := map[string]bool{valid: true, paywalled: true, blocked: true, mismatch: true, invalid: true}
	rungs := map[string]bool{"": true, RungDirect: true, RungBrightData: true, RungApify: true}
	for _, s := range w.Catalogue() {
		must(t, !seen[s.Name], "duplicate scenario %q", s.Name)
		seen[s.Name] = true
		must(t, s.LinkText != "", "%s: no link text", s.Name)
		must(t, len(s.Want) == 2 && statuses[s.Want[TierStandard]] && statuses[s.Want[TierThorough]], "%s: Want %v", s.Name, s.Want)
		must(t, rungs[s.WantRung], "%s: rung %q", s.Name, s.WantRung)
		for _, u := range []string{s.URL, s.FinalURL} {
			if u == "" {
				continue
			}
			if _, err := g.Preflight(u); err != nil {
				t.Errorf("%s: guard refuses %s: %v", s.Name, u, err)
			}
			if _, err := netguard.New().Preflight(u); err == nil {
				t.Errorf("%s: the default guard admits %s", s.Name, u)
			}
		}
	}
	must(t, len(seen) == 28, "want 28 scenarios, have %d", len(seen))
	for _, h := range w.Hosts() {
		// The default port policy refuses the web's port; on port 80 the
		// names themselves pass, so nothing but the allow rules admits them.
		if _, err := netguard.New().Preflight("http://" + h + "/"); err != nil {
			t.Errorf("host %s is not a public-looking name: %v", h, err)
		}
	}
}

// TestScenarios checks that each scripted host answers as scripted.
func TestScenarios(t *testing.T) {
	w := startWeb(t, creds())
	c := client(t, w, 5*time.Second)
	checks := map[string]func(t *testing.T, s Scenario){
		"news-article": func(t *testing.T, s Scenario) {
			a := get(t, c, s.URL)
			must(t, a.status == 200, "status %d", a.status)
			must(t, strings.HasPrefix(a.header.Get("Content-Type"), "text/html"), "content type %q", a.header.Get("Content-Type"))
			must(t, title(a.body) == "City council approves Riverside transit plan | Example News", "title %q", title(a.body))
			for _, want := range []string{`<meta property="og:site_name" content="Example News">`, `<meta name="description" content="The council voted`, "<p>The city council on Thursday"} {
				must(t, strings.Contains(a.body, want), "body lacks %q", want)
			}
			ld := jsonLD(t, a.body)
			pub, _ := ld["publisher"].(map[string]any)
			must(t, ld["@type"] == "NewsArticle" && pub["name"] == "Example News" && ld["isAccessibleForFree"] == true, "JSON-LD %v", ld)
			must(t, ld["mainEntityOfPage"] == s.URL, "mainEntityOfPage %v", ld["mainEntityOfPage"])
		},
		"encyclopedia-parens": func(t *testing.T, s Scenario) {
			must(t, strings.Contains(s.URL, "/wiki/Anode_(chemistry)"), "URL %s", s.URL)
			for _, u := range []string{s.URL, strings.NewReplacer("(", "%28", ")", "%29").Replace(s.URL)} {
				a := get(t, c, u)
				must(t, a.status == 200 && title(a.body) == "Anode (chemistry) - Example Encyclopedia", "%s: %d %q", u, a.status, title(a.body))
			}
		},
		"paywall-jsonld": func(t *testing.T, s Scenario) {
			a := get(t, c, s.URL)
			must(t, a.status == 200, "status %d", a.status)
			ld := jsonLD(t, a.body)
			part, _ := ld["hasPart"].(map[string]any)
			must(t, ld["isAccessibleForFree"] == false && part["cssSelector"] == ".paywall", "JSON-LD %v", ld)
			must(t, strings.Contains(a.body, "Subscribe to continue reading"), "no subscribe wall")
			must(t, strings.Contains(a.body, `<meta name="content_tier" content="locked">`), "no content_tier")
		},
		"paywall-402": func(t *testing.T, s Scenario) {
			a := get(t, c, s.URL)
			must(t, a.status == http.StatusPaymentRequired, "status %d", a.status)
			must(t, strings.Contains(a.body, "Subscribe to continue reading"), "no subscribe wall")
		},
		"cloudflare-challenge": func(t *testing.T, s Scenario) {
			a := get(t, c, s.URL)
			must(t, a.status == 403 && a.header.Get("Cf-Mitigated") == "challenge", "status %d, cf-mitigated %q", a.status, a.header.Get("Cf-Mitigated"))
			must(t, title(a.body) == "Just a moment..." && strings.Contains(a.body, "_cf_chl_opt"), "body %s", a.body)
		},
		"datadome-apify-only": func(t *testing.T, s Scenario) {
			a := get(t, c, s.URL)
			must(t, a.status == 403 && a.header.Get("X-Datadome") == "protected", "status %d, x-datadome %q", a.status, a.header.Get("X-Datadome"))
			must(t, strings.Contains(a.body, "captcha-delivery.com"), "body %s", a.body)
		},
		"blocked-everywhere": func(t *testing.T, s Scenario) {
			a := get(t, c, s.URL)
			must(t, a.status == 403 && strings.Contains(a.body, "<TITLE>Access Denied</TITLE>") && strings.Contains(a.body, "errors&#46;edgesuite&#46;net"), "%d %s", a.status, a.body)
		},
		"dead-404": func(t *testing.T, s Scenario) {
			a := get(t, c, s.URL)
			must(t, a.status == 404 && strings.Contains(title(a.body), "404"), "%d %q", a.status, title(a.body))
		},
		"gone-410": func(t *testing.T, s Scenario) {
			a := get(t, c, s.URL)
			must(t, a.status == 410, "status %d", a.status)
		},
		"soft-404": func(t *testing.T, s Scenario) {
			a := get(t, c, s.URL)
			must(t, a.status == 200 && title(a.body) == "Page not found | Example Blog", "%d %q", a.status, title(a.body))
		},
		"redirect-chain": func(t *testing.T, s Scenario) {
			hops, final := follow(t, c, s.URL)
			must(t, len(hops) == 4, "want 3 redirects and the article, got %d hops", len(hops))
			for i, want := range []int{301, 302, 308, 200} {
				if i < len(hops) {
					must(t, hops[i].status == want, "hop %d: status %d, want %d", i, hops[i].status, want)
				}
			}
			must(t, final == s.FinalURL, "final %s, want %s", final, s.FinalURL)
			must(t, strings.Contains(hops[len(hops)-1].body, "<h1>Deep-sea mining, explained</h1>"), "final page is not the article")
		},
		"redirect-private": func(t *testing.T, s Scenario) {
			a := get(t, c, s.URL)
			must(t, a.status == 302 && a.header.Get("Location") == "http://10.0.0.7/admin", "%d %q", a.status, a.header.Get("Location"))
		},
		"redirect-home": func(t *testing.T, s Scenario) {
			hops, final := follow(t, c, s.URL)
			must(t, len(hops) == 2 && hops[0].status == 301 && hops[1].status == 200, "hops %d", len(hops))
			must(t, final == s.FinalURL, "final %s, want %s", final, s.FinalURL)
			home := strings.ToLower(hops[len(hops)-1].body)
			must(t, !strings.Contains(home, "harbour") && !strings.Contains(home, "bridge"), "home page mentions the story")
		},
		"content-mismatch": func(t *testing.T, s Scenario) {
			a := get(t, c, s.URL)
			body := strings.ToLower(a.body)
			must(t, a.status == 200 && strings.Contains(body, "sourdough"), "%d", a.status)
			must(t, !strings.Contains(body, "batter") && !strings.Contains(body, "recycl"), "page mentions the link text's subject")
		},
		"slow-host": func(t *testing.T, s Scenario) {
			start := time.Now()
			req, _ := http.NewRequest(http.MethodGet, s.URL, nil)
			resp, err := client(t, w, 300*time.Millisecond).Do(req)
			if err == nil {
				resp.Body.Close()
			}
			must(t, err != nil, "slow host answered within 300ms")
			must(t, time.Since(start) < SlowDelay/2, "client timeout not honoured")
		},
		"rate-limited": func(t *testing.T, s Scenario) {
			a := get(t, c, s.URL)
			must(t, a.status == 429 && a.header.Get("Retry-After") == "1", "first: %d, Retry-After %q", a.status, a.header.Get("Retry-After"))
			a = get(t, c, s.URL)
			must(t, a.status == 200 && strings.Contains(a.body, "First-quarter employment figures"), "second: %d", a.status)
		},
		"flaky-503": func(t *testing.T, s Scenario) {
			a := get(t, c, s.URL)
			must(t, a.status == 503, "first: %d", a.status)
			a = get(t, c, s.URL)
			must(t, a.status == 200 && strings.Contains(a.body, "annual report 2025"), "second: %d", a.status)
		},
		"empty-body": func(t *testing.T, s Scenario) {
			a := get(t, c, s.URL)
			must(t, a.status == 200 && a.body == "" && a.header.Get("Content-Length") == "0", "%d %q", a.status, a.body)
		},
		"credential-query": func(t *testing.T, s Scenario) {
			must(t, strings.Contains(s.URL, "?token="+SecretToken), "URL %s", s.URL)
			a := get(t, c, s.URL)
			must(t, a.status == 200 && strings.Contains(a.body, "<h1>Q3 2026 member report</h1>"), "with token: %d", a.status)
			must(t, !strings.Contains(a.body, SecretToken), "page echoes the token")
			bare, _, _ := strings.Cut(s.URL, "?")
			a = get(t, c, bare)
			must(t, a.status == 401, "without token: %d", a.status)
			a = get(t, c, bare+"?token=wrong")
			must(t, a.status == 401, "wrong token: %d", a.status)
		},
		"soft-404-server-template": func(t *testing.T, s Scenario) {
			a := get(t, c, s.URL)
			must(t, a.status == 200 && title(a.body) == "HTTP Status 404 – Not Found", "%d %q", a.status, title(a.body))
		},
		"soft-404-czech": func(t *testing.T, s Scenario) {
			a := get(t, c, s.URL)
			must(t, a.status == 200 && strings.Contains(a.body, "nebyla nalezena"), "%d %q", a.status, title(a.body))
		},
		"soft-404-probe": func(t *testing.T, s Scenario) {
			// The cited path and a path that cannot exist get the same
			// landing page, which names no error.
			a, b := get(t, c, s.URL), get(t, c, w.URL(hostCatchall, "/reviews/2026/"+classify.ProbeName+"0123"))
			must(t, a.status == 200 && b.status == 200 && a.body == b.body, "%d %d", a.status, b.status)
			low := strings.ToLower(a.body)
			must(t, !strings.Contains(low, "not found") && !strings.Contains(low, "404") && !strings.Contains(low, "heat pumps, compared"), "landing page gives itself away")
		},
		"catchall-real-article": func(t *testing.T, s Scenario) {
			a := get(t, c, s.URL)
			must(t, a.status == 200 && strings.Contains(a.body, "<h1>Induction hobs tested</h1>"), "%d", a.status)
		},
		"app-shell": func(t *testing.T, s Scenario) {
			a, b := get(t, c, s.URL), get(t, c, w.URL(hostAppShell, "/anything"))
			must(t, a.status == 200 && a.body == b.body && strings.Contains(a.body, `<div id="root"></div>`), "%d", a.status)
		},
		"sucuri-challenge-200": func(t *testing.T, s Scenario) {
			a := get(t, c, s.URL)
			must(t, a.status == 200 && strings.Contains(a.body, "sucuri_cloudproxy_js"), "%d", a.status)
		},
		"anubis-401": func(t *testing.T, s Scenario) {
			a := get(t, c, s.URL)
			must(t, a.status == 401 && strings.Contains(a.body, "anubis_challenge"), "%d", a.status)
		},
		"login-page": func(t *testing.T, s Scenario) {
			a := get(t, c, s.URL)
			must(t, a.status == 200 && strings.Contains(a.body, `type="password"`), "%d", a.status)
		},
		"members-teaser": func(t *testing.T, s Scenario) {
			a := get(t, c, s.URL)
			must(t, a.status == 200 && strings.Contains(a.body, "Join now or sign in to read the full story"), "%d", a.status)
		},
	}
	for _, s := range w.Catalogue() {
		check := checks[s.Name]
		if check == nil {
			t.Errorf("scenario %s has no check", s.Name)
			continue
		}
		t.Run(s.Name, func(t *testing.T) { check(t, s) })
	}
	if t.Failed() {
		return
	}
	must(t, len(w.ProviderTargets()) == 0, "direct requests reached a provider: %v", w.ProviderTargets())
	must(t, w.Requests(BrightDataHost) == 0 && w.Requests(ApifyHost) == 0, "provider APIs were called")
}

func TestHEAD(t *testing.T) {
	w := startWeb(t, Options{})
	c := client(t, w, 5*time.Second)
	req, _ := http.NewRequest(http.MethodHead, scenario(t, w, "news-article").URL, nil)
	a := do(t, c, req)
	must(t, a.status == 200 && a.body == "" && a.header.Get("Content-Length") != "0", "%d %q %q", a.status, a.body, a.header.Get("Content-Length"))
}

func TestBrightData(t *testing.T) {
	w := startWeb(t, creds())
	c := client(t, w, 5*time.Second)
	api := w.BrightDataBaseURL() + "/request"
	auth := "Bearer " + testKey
	req := func(target string) map[string]string {
		return map[string]string{"zone": testZone, "url": target, "format": "raw"}
	}
	cf := scenario(t, w, "cloudflare-challenge").URL

	t.Run("credentials", func(t *testing.T) {
		for _, bad := range []string{"", "Bearer wrong", "Basic " + testKey, testKey} {
			a := post(t, c, api, bad, req(cf))
			must(t, a.status == 401, "auth %q: status %d", bad, a.status)
			must(t, a.header.Get("X-Brd-Status-Code") == "" && a.header.Get("X-Brd-Error") == "", "auth %q: x-brd headers on 401", bad)
			must(t, !strings.HasPrefix(strings.TrimSpace(a.body), "{"), "401 body is JSON: %s", a.body)
		}
		off := startWeb(t, Options{BrightDataZone: testZone})
		a := post(t, client(t, off, 5*time.Second), off.BrightDataBaseURL()+"/request", "Bearer ", req(cf))
		must(t, a.status == 401, "no key configured: %d", a.status)
	})

	t.Run("unlocks challenge", func(t *testing.T) {
		a := post(t, c, api, auth, req(cf))
		must(t, a.status == 200 && a.header.Get("X-Brd-Status-Code") == "200" && a.header.Get("X-Brd-Error") == "", "%d %v", a.status, a.header)
		must(t, strings.Contains(a.body, "<h1>Global solar capacity passes two terawatts</h1>") && !strings.Contains(a.body, "Just a moment"), "body %s", a.body)

		md := req(cf)
		md["data_format"] = "markdown"
		a = post(t, c, api, auth, md)
		must(t, a.status == 200 && strings.HasPrefix(a.body, "# Global solar capacity passes two terawatts\n"), "markdown %q", a.body)

		js := req(cf)
		js["format"] = "json"
		a = post(t, c, api, auth, js)
		var env struct {
			StatusCode int               `json:"status_code"`
			Headers    map[string]string `json:"headers"`
			Body       string            `json:"body"`
		}
		must(t, json.Unmarshal([]byte(a.body), &env) == nil && env.StatusCode == 200 && strings.Contains(env.Body, "two terawatts"), "json envelope %s", a.body)

		// The slow host's article comes back at once.
		start := time.Now()
		a = post(t, c, api, auth, req(scenario(t, w, "slow-host").URL))
		must(t, a.status == 200 && a.header.Get("X-Brd-Error") == "" && strings.Contains(a.body, "tail latency"), "slow host: %d %v", a.status, a.header)
		must(t, time.Since(start) < time.Second, "unlocker waited for the slow host")
	})

	t.Run("failures", func(t *testing.T) {
		cases := []struct {
			scenario, status, code, errCode string
		}{
			{"datadome-apify-only", "403", "", "policy_20000"},
			{"blocked-everywhere", "502", "reject_block", ""},
			{"news-article", "502", "document_load_failed", ""}, // not known to the fake
			{"credential-query", "502", "document_load_failed", ""},
		}
		for _, tc := range cases {
			a := post(t, c, api, auth, req(scenario(t, w, tc.scenario).URL))
			h := a.header
			must(t, a.status == 200 && h.Get("X-Brd-Error") != "" && h.Get("X-Brd-Status-Code") == tc.status &&
				h.Get("X-Brd-Error-Code") == tc.code && h.Get("X-Brd-Err-Code") == tc.errCode,
				"%s: %d %v", tc.scenario, a.status, h)
		}
		a := post(t, c, api, auth, req(scenario(t, w, "empty-body").URL))
		must(t, a.status == 200 && a.header.Get("X-Brd-Status-Code") == "200" && a.header.Get("X-Brd-Error") == "" && a.body == "",
			"empty page: %d %v %q", a.status, a.header, a.body)
	})

	t.Run("bad requests", func(t *testing.T) {
		for name, body := range map[string]any{
			"bad json":     `{"zone":`,
			"unknown zone": map[string]string{"zone": "other", "url": cf, "format": "raw"},
			"no url":       map[string]string{"zone": testZone, "format": "raw"},
			"no format":    map[string]string{"zone": testZone, "url": cf},
			"bad format":   map[string]string{"zone": testZone, "url": cf, "format": "xml"},
			"not a url":    map[string]string{"zone": testZone, "url": "ftp://x", "format": "raw"},
		} {
			a := post(t, c, api, auth, body)
			must(t, a.status == 400, "%s: %d", name, a.status)
		}
		a := get(t, c, api)
		must(t, a.status == 405, "GET: %d", a.status)
		a = post(t, c, w.BrightDataBaseURL()+"/other", auth, req(cf))
		must(t, a.status == 404, "other path: %d", a.status)
	})

	t.Run("loopback literal", func(t *testing.T) {
		a := post(t, c, w.LoopbackBaseURL()+"/request", auth, req(cf))
		must(t, a.status == 200 && a.header.Get("X-Brd-Status-Code") == "200", "%d", a.status)
	})

	targets := w.ProviderTargets()
	must(t, len(targets) > 0 && targets[0] == cf, "targets %v", targets)
	for _, u := range targets {
		must(t, !strings.Contains(u, SecretToken) || strings.HasPrefix(u, scenario(t, w, "credential-query").URL), "unexpected target %s", u)
	}
	must(t, w.Requests(BrightDataHost) >= len(targets), "requests %d < targets %d", w.Requests(BrightDataHost), len(targets))
}

type testItem struct {
	Query string `json:"query"`
	Crawl struct {
		HTTPStatusCode    int    `json:"httpStatusCode"`
		HTTPStatusMessage string `json:"httpStatusMessage"`
		RequestStatus     string `json:"requestStatus"`
	} `json:"crawl"`
	Metadata struct {
		URL   string `json:"url"`
		Title string `json:"title"`
	} `json:"metadata"`
	Markdown *string `json:"markdown"`
	Text     *string `json:"text"`
}

func TestApify(t *testing.T) {
	w := startWeb(t, creds())
	c := client(t, w, 5*time.Second)
	api := w.ApifyBaseURL() + "/v2/acts/apify~rag-web-browser/run-sync-get-dataset-items"
	auth := "Bearer " + testToken
	input := func(target string) map[string]any {
		return map[string]any{"query": target, "maxResults": 1, "outputFormats": []string{"markdown"}}
	}
	items := func(t *testing.T, a answer) []testItem {
		t.Helper()
		if a.status != 201 {
			t.Fatalf("status %d: %s", a.status, a.body)
		}
		var its []testItem
		if err := json.Unmarshal([]byte(a.body), &its); err != nil {
			t.Fatalf("dataset: %v: %s", err, a.body)
		}
		return its
	}
	dd := scenario(t, w, "datadome-apify-only")

	t.Run("credentials", func(t *testing.T) {
		for _, bad := range []string{"", "Bearer wrong", testToken} {
			a := post(t, c, api, bad, input(dd.URL))
			var env struct {
				Error struct{ Type, Message string }
			}
			must(t, a.status == 401 && json.Unmarshal([]byte(a.body), &env) == nil && env.Error.Type == "token-not-valid", "auth %q: %d %s", bad, a.status, a.body)
		}
		a := post(t, c, api+"?token="+testToken, "", input(dd.URL))
		must(t, a.status == 201, "?token=: %d", a.status)
		off := startWeb(t, Options{})
		a = post(t, client(t, off, 5*time.Second), off.ApifyBaseURL()+"/v2/acts/apify~rag-web-browser/run-sync-get-dataset-items", "Bearer ", input(dd.URL))
		must(t, a.status == 401, "no token configured: %d", a.status)
	})

	t.Run("handled", func(t *testing.T) {
		a := post(t, c, api, auth, input(dd.URL))
		must(t, a.header.Get("X-Apify-Pagination-Total") == "1", "pagination %v", a.header)
		its := items(t, a)
		if len(its) != 1 {
			t.Fatalf("items %d", len(its))
		}
		it := its[0]
		must(t, it.Query == dd.URL && it.Crawl.RequestStatus == "handled" && it.Crawl.HTTPStatusCode == 200, "item %+v", it)
		must(t, it.Metadata.Title == "Holiday sales review: online share hits record | Retail Watch" && it.Metadata.URL == dd.URL, "metadata %+v", it.Metadata)
		must(t, it.Markdown != nil && strings.HasPrefix(*it.Markdown, "# Holiday sales review"), "markdown %v", it.Markdown)
		must(t, it.Text == nil, "text sent without being asked for")

		in := input(dd.URL)
		in["outputFormats"] = []string{"text"}
		it = items(t, post(t, c, api, auth, in))[0]
		must(t, it.Markdown == nil && it.Text != nil && strings.Contains(*it.Text, "31 percent"), "text format %+v", it)
	})

	t.Run("failed", func(t *testing.T) {
		for name, status := range map[string]int{"blocked-everywhere": 403, "news-article": 500, "credential-query": 500} {
			its := items(t, post(t, c, api, auth, input(scenario(t, w, name).URL)))
			must(t, len(its) == 1 && its[0].Crawl.RequestStatus == "failed" && its[0].Crawl.HTTPStatusCode == status && its[0].Metadata.Title == "",
				"%s: %+v", name, its)
		}
		its := items(t, post(t, c, api, auth, input("sourdough starter")))
		must(t, len(its) == 0, "search query: %d items", len(its))
	})

	t.Run("bad requests", func(t *testing.T) {
		for name, body := range map[string]any{
			"bad json":   `[`,
			"no query":   map[string]any{"maxResults": 1},
			"bad format": map[string]any{"query": dd.URL, "outputFormats": []string{"pdf"}},
			"bad max":    map[string]any{"query": dd.URL, "maxResults": 0},
		} {
			a := post(t, c, api, auth, body)
			must(t, a.status == 400 && strings.Contains(a.body, `"invalid-input"`), "%s: %d %s", name, a.status, a.body)
		}
		a := post(t, c, w.ApifyBaseURL()+"/v2/acts/apify~other/run-sync-get-dataset-items", auth, input(dd.URL))
		must(t, a.status == 404, "other actor: %d", a.status)
		a = get(t, c, api)
		must(t, a.status == 405, "GET: %d", a.status)
	})

	t.Run("loopback literal", func(t *testing.T) {
		before := w.Requests(ApifyHost)
		lo := w.LoopbackBaseURL() + "/v2/acts/apify~rag-web-browser/run-sync-get-dataset-items"
		its := items(t, post(t, c, lo, auth, input(dd.URL)))
		must(t, len(its) == 1 && its[0].Crawl.RequestStatus == "handled", "%+v", its)
		must(t, w.Requests(ApifyHost) == before+1, "loopback request not counted under %s", ApifyHost)
	})
}

func TestRequestsAndReset(t *testing.T) {
	w := startWeb(t, creds())
	c := client(t, w, 5*time.Second)
	rl := scenario(t, w, "rate-limited")
	must(t, get(t, c, rl.URL).status == 429, "first request not limited")
	must(t, get(t, c, rl.URL).status == 200, "second request limited")
	post(t, c, w.BrightDataBaseURL()+"/request", "Bearer "+testKey, map[string]string{"zone": testZone, "url": rl.URL, "format": "raw"})
	must(t, w.Requests(hostRateLimited) == 2 && w.Requests("WWW.RateLimited.SIM.") == 2, "requests %d", w.Requests(hostRateLimited))
	must(t, w.Requests(BrightDataHost) == 1 && len(w.ProviderTargets()) == 1, "provider %d %v", w.Requests(BrightDataHost), w.ProviderTargets())
	must(t, w.Requests(hostNews) == 0, "news requests %d", w.Requests(hostNews))

	w.Reset()
	must(t, w.Requests(hostRateLimited) == 0 && w.Requests(BrightDataHost) == 0 && len(w.ProviderTargets()) == 0, "Reset left counts")
	must(t, get(t, c, rl.URL).status == 429, "first request after Reset not limited")
}

func TestAddHost(t *testing.T) {
	w := startWeb(t, Options{})
	c := client(t, w, 5*time.Second)
	const host = "host-007.bench.sim"
	w.AddHost(host, 10)
	for i := range 10 {
		a := get(t, c, w.URL(host, "/a/"+strconv.Itoa(i)))
		must(t, a.status == 200 && strings.Contains(a.body, "<h1>"+SyntheticTitle(host, i)+"</h1>"), "/a/%d: %d", i, a.status)
	}
	for _, p := range []string{"/a/10", "/a/01", "/a/-1", "/a/x", "/"} {
		must(t, get(t, c, w.URL(host, p)).status == 404, "%s is not 404", p)
	}
	must(t, w.Requests(host) == 15, "requests %d", w.Requests(host))
	must(t, get(t, c, w.URL("unknown.example.com", "/")).status == http.StatusMisdirectedRequest, "unknown host answered")

	w.AddHost(hostNews, 3) // scripted hosts are not replaced
	must(t, get(t, c, w.URL(hostNews, "/a/0")).status == 404, "AddHost replaced a scripted host")
	hosts := strings.Join(w.Hosts(), " ")
	must(t, strings.Count(hosts, hostNews) == 1 && strings.Contains(hosts, host) && strings.Contains(hosts, BrightDataHost), "hosts %v", hosts)
}

func TestGuardOptions(t *testing.T) {
	w := startWeb(t, creds())
	ctx := context.Background()
	news := scenario(t, w, "news-article")

	resp, err := netguard.New(w.GuardOptions()...).Fetch(ctx, netguard.Request{Method: "GET", URL: news.URL})
	if err != nil {
		t.Fatalf("guarded fetch: %v", err)
	}
	must(t, resp.StatusCode == 200 && bytes.Contains(resp.Body, []byte("Riverside transit plan")), "%d", resp.StatusCode)

	_, err = netguard.New().Fetch(ctx, netguard.Request{Method: "GET", URL: news.URL})
	must(t, err != nil && netguard.IsRefusal(err), "default guard: %v", err)

	// Each of the three rules is needed: without the allow rule the pinned
	// loopback address is refused.
	port := w.Port()
	_, err = netguard.New(netguard.AllowPorts(port), netguard.Pin(hostNews, port, loopback)).
		Fetch(ctx, netguard.Request{Method: "GET", URL: news.URL})
	must(t, errors.Is(err, netguard.ErrBlockedAddress), "no allow rule: %v", err)

	// The provider hosts are pinned too.
	g := netguard.New(w.GuardOptions()...)
	hc := &http.Client{Transport: g.Transport(), Timeout: 5 * time.Second}
	defer hc.CloseIdleConnections()
	body, _ := json.Marshal(map[string]string{"zone": testZone, "url": scenario(t, w, "cloudflare-challenge").URL, "format": "raw"})
	req, _ := http.NewRequest(http.MethodPost, w.BrightDataBaseURL()+"/request", bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+testKey)
	r, err := hc.Do(req)
	if err != nil {
		t.Fatalf("Bright Data through the guard: %v", err)
	}
	r.Body.Close()
	must(t, r.StatusCode == 200 && r.Header.Get("X-Brd-Status-Code") == "200", "Bright Data: %d", r.StatusCode)
	must(t, strings.HasPrefix(w.ApifyBaseURL(), "http://"+ApifyHost+":"), "Apify base %s", w.ApifyBaseURL())

	// Hosts added later need fresh options.
	w.AddHost("late.bench.sim", 1)
	late := w.URL("late.bench.sim", "/a/0")
	_, err = g.Fetch(ctx, netguard.Request{URL: late})
	must(t, err != nil, "stale options admitted a new host")
	resp, err = netguard.New(w.GuardOptions()...).Fetch(ctx, netguard.Request{URL: late})
	must(t, err == nil && resp.StatusCode == 200, "fresh options: %v", err)
}

func TestLatency(t *testing.T) {
	const lat = 150 * time.Millisecond
	w := startWeb(t, Options{Latency: lat})
	c := client(t, w, 5*time.Second)
	start := time.Now()
	a := get(t, c, scenario(t, w, "news-article").URL)
	must(t, a.status == 200 && time.Since(start) >= lat, "%d after %v", a.status, time.Since(start))
}

func TestCloseInterruptsAndLeaksNothing(t *testing.T) {
	before := runtime.NumGoroutine()
	w, err := Start(Options{Latency: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	c := client(t, w, 10*time.Second)
	get(t, c, scenario(t, w, "news-article").URL)
	w.AddHost("bench.example.net", 1)
	get(t, c, w.URL("bench.example.net", "/a/0"))

	errc := make(chan error, 1)
	go func() {
		req, _ := http.NewRequest(http.MethodGet, scenario(t, w, "slow-host").URL, nil)
		resp, err := c.Do(req)
		if err == nil {
			resp.Body.Close()
			err = errors.New("slow host answered " + resp.Status)
		}
		errc <- err
	}()
	for w.Requests(hostSlow) == 0 {
		time.Sleep(5 * time.Millisecond)
	}
	start := time.Now()
	w.Close()
	w.Close() // idempotent
	must(t, time.Since(start) < SlowDelay/2, "Close waited for the slow handler: %v", time.Since(start))
	must(t, <-errc != nil, "in-flight request did not fail")
	c.Transport.(*http.Transport).CloseIdleConnections()

	if _, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(w.Port()), time.Second); err == nil {
		t.Error("port still accepts connections after Close")
	}
	deadline := time.Now().Add(3 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		buf := make([]byte, 1<<16)
		t.Errorf("goroutines: %d before Start, %d after Close\n%s", before, n, buf[:runtime.Stack(buf, true)])
	}
}

// With Options.TLS the web answers over https with a certificate for the
// asked name from its own CA, which GuardOptions makes the guard trust; a
// guard without it refuses the certificate.
func TestTLSWeb(t *testing.T) {
	w, err := Start(Options{TLS: true})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	w.AddHost("tls.bench.sim", 1)
	u := w.URL("tls.bench.sim", "/a/0")
	if !strings.HasPrefix(u, "https://") {
		t.Fatalf("URL = %s, want https", u)
	}
	g := netguard.New(w.GuardOptions()...)
	resp, err := g.Fetch(context.Background(), netguard.Request{URL: u})
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("Fetch over TLS = %v, %v", resp, err)
	}
	opts := w.GuardOptions()
	untrusting := netguard.New(opts[:len(opts)-1]...) // without WithRootCAs
	if _, err := untrusting.Fetch(context.Background(), netguard.Request{URL: u}); !errors.Is(err, netguard.ErrTLS) {
		t.Errorf("Fetch without the test CA = %v, want ErrTLS", err)
	}
}
