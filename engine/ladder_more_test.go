package engine

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/citegate/citegate/engine/schema"
	"github.com/citegate/citegate/engine/simweb"
	"github.com/citegate/citegate/netguard"
)

// simPolicyJSON is simRun's short ladder policy: 600 ms per hop (the slow
// host's 2 s answer times out), two direct attempts, one per provider.
const simPolicyJSON = `{"schema_version":"run_policy.v1","citations_ladder_policy_v1":{` +
	`"direct_fetch_timeout_ms":600,"endpoint_timeout_ms":3000,"direct_fetch_max_attempts":2,` +
	`"bright_data_max_attempts":1,"apify_max_attempts":1,"backoff_initial_ms":20,"backoff_max_ms":200}}`

// simOpts describes an online run over some simweb scenarios.
type simOpts struct {
	// scenarios are catalogue names; nil cites the whole catalogue.
	scenarios []string
	// tier is run-config effective.citations.validation_tier (default standard).
	tier string
	// sensitivity is manifest.query.sensitivity (default normal).
	sensitivity string
	// brightData is run-config effective.citations.endpoints.brightdata;
	// "" writes null.
	brightData string
	// policy is run-config/policy.json (default simPolicyJSON).
	policy string
	// extra are more lines for the Sources section, as written.
	extra []string
}

// simScenarios returns the named catalogue scenarios (all when names is nil).
func simScenarios(t *testing.T, w *simweb.Web, names ...string) []simweb.Scenario {
	t.Helper()
	cat := w.Catalogue()
	if names == nil {
		return cat
	}
	var out []simweb.Scenario
	for _, n := range names {
		i := slices.IndexFunc(cat, func(s simweb.Scenario) bool { return s.Name == n })
		if i < 0 {
			t.Fatalf("simweb has no scenario %q", n)
		}
		out = append(out, cat[i])
	}
	return out
}

// simRunOpts builds an online run (mode from run-config) citing the chosen
// scenarios in wave-1/sim.md.
func simRunOpts(t *testing.T, w *simweb.Web, o simOpts) testRun {
	t.Helper()
	var src strings.Builder
	src.WriteString("# Perspective sim\n\n## Sources\n\n")
	for _, sc := range simScenarios(t, w, o.scenarios...) {
		fmt.Fprintf(&src, "- [%s](%s)\n", sc.LinkText, sc.URL)
	}
	for _, l := range o.extra {
		src.WriteString(l + "\n")
	}
	bd := "null"
	if o.brightData != "" {
		js, err := json.Marshal(o.brightData)
		if err != nil {
			t.Fatal(err)
		}
		bd = string(js)
	}
	return newRun(t, runSpec{RunID: "RUN", Sensitivity: cmp.Or(o.sensitivity, "normal"), Files: map[string]string{
		"wave-1/sim.md": src.String(),
		"run-config.json": `{"schema_version":"run_config.v1","run_id":"RUN","effective":{"citations":` +
			`{"mode":"online","validation_tier":"` + cmp.Or(o.tier, simweb.TierStandard) + `","endpoints":{"brightdata":` + bd + `,"apify":null}}}}`,
		"run-config/policy.json": cmp.Or(o.policy, simPolicyJSON),
	}})
}

// fastSimEngine is simEngine with Retry-After capped at 100 ms (the
// rate-limited host asks for 1 s), a resolver that answers NXDOMAIN for any
// name simweb does not pin (so nothing can reach real DNS) and, unless
// creds, no provider credentials in the environment.
func fastSimEngine(w *simweb.Web, creds bool) *Engine {
	e := simEngine(w)
	e.GuardOptions = append(e.GuardOptions, netguard.WithResolver(noDNS{}))
	e.Net.MaxRetryWait = 100 * time.Millisecond
	if !creds {
		e.Net.Getenv = func(string) string { return "" }
	}
	return e
}

// startWeb starts a simulated web with the credentials simEngine sends.
func startWeb(t *testing.T) *simweb.Web {
	t.Helper()
	w, err := simweb.Start(simweb.Options{BrightDataKey: simBDKey, BrightDataZone: simBDZone, ApifyToken: simApifyTok})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Close)
	return w
}

// redactedOriginal is how a record spells a scenario's url_original.
func redactedOriginal(sc simweb.Scenario) string {
	return strings.ReplaceAll(sc.URL, simweb.SecretToken, "%5BREDACTED%5D")
}

// scenarioHost is the host name a scenario's first request goes to.
func scenarioHost(t *testing.T, sc simweb.Scenario) string {
	t.Helper()
	u, err := url.Parse(sc.URL)
	if err != nil {
		t.Fatal(err)
	}
	return u.Hostname()
}

// recordsByScenario maps scenario names to their citations.jsonl records,
// failing for a scenario without one.
func recordsByScenario(t *testing.T, r testRun, scs []simweb.Scenario) map[string]Citation {
	t.Helper()
	byOrig := map[string]Citation{}
	for _, c := range readCitationLines(t, r.cit("citations.jsonl")) {
		byOrig[c.URLOriginal] = c
	}
	out := map[string]Citation{}
	for _, sc := range scs {
		c, ok := byOrig[redactedOriginal(sc)]
		if !ok {
			t.Fatalf("%s: no record for %s", sc.Name, redactedOriginal(sc))
		}
		out[sc.Name] = c
	}
	return out
}

// readBlocked decodes blocked-urls.json into url_original-free items keyed
// by normalized_url.
func readBlocked(t *testing.T, r testRun) map[string]blockedItem {
	t.Helper()
	var doc blockedDoc
	decodeJSONFile(t, r.cit("blocked-urls.json"), &doc)
	out := map[string]blockedItem{}
	for _, it := range doc.Items {
		out[it.NormalizedURL] = it
	}
	return out
}

// TestLadderThirdPartiesWithheld: when the run may not (restricted
// sensitivity) or cannot (no credentials, no endpoint) use Bright Data and
// Apify, every scenario that needs a provider ends blocked with a note
// saying why, the providers are never contacted, blocked-urls.json
// recommends the matching action, and the direct rung still settles
// everything it can.
func TestLadderThirdPartiesWithheld(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		sensitivity string
		creds       bool
		// wantNotes must all occur in a provider-dependent scenario's notes.
		wantNotes []string
		// wantActions lists the acceptable blocked-urls.json actions.
		wantActions []string
	}{
		{
			name: "restricted sensitivity", sensitivity: "restricted", creds: true,
			wantNotes: []string{
				"bright_data=skipped(restricted sensitivity: direct fetch only)",
				"apify=skipped(restricted sensitivity: direct fetch only)",
			},
			// Configuring an endpoint would not help a restricted run, so
			// it gets its own advice (which blocked_urls.v1 must accept).
			wantActions: []string{
				"Restricted runs fetch directly only: check the source by hand or provide a deterministic online fixture.",
			},
		},
		{
			name: "no provider credentials", sensitivity: "normal", creds: false,
			wantNotes: []string{
				"bright_data=skipped(no credentials: set BRIGHTDATA_API_KEY and BRIGHTDATA_UNLOCKER_ZONE, or configure an endpoint)",
				"apify=skipped(no credentials: set APIFY_TOKEN, or configure an endpoint)",
			},
			wantActions: []string{"Configure Bright Data/Apify endpoint or provide deterministic online fixture."},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := startWeb(t)
			r := simRunOpts(t, w, simOpts{sensitivity: tt.sensitivity})
			sum, events, err := collect(t, fastSimEngine(w, tt.creds), bg, RunArgs{ManifestPath: r.Manifest}, nil)
			if err != nil {
				// Keep checking the verdicts, which the event stream
				// carries, so one failure does not hide the others.
				t.Errorf("Run failed: %v", err)
			}
			scs := w.Catalogue()
			recs := map[string]Citation{}
			for _, ev := range events {
				if ev.Kind != EventFinished || ev.Citation == nil {
					continue
				}
				for _, sc := range scs {
					if ev.Citation.URLOriginal == redactedOriginal(sc) {
						recs[sc.Name] = *ev.Citation
					}
				}
			}
			if len(recs) != len(scs) {
				t.Fatalf("%d of %d scenarios finished", len(recs), len(scs))
			}
			var blocked map[string]blockedItem
			if err == nil {
				if sum.Mode != ModeOnline || sum.ModeSource != "run-config.effective.citations" {
					t.Errorf("mode = %s from %s, want online from run-config", sum.Mode, sum.ModeSource)
				}
				if onDisk := recordsByScenario(t, r, scs); mustJSON(t, onDisk) != mustJSON(t, recs) {
					t.Errorf("citations.jsonl differs from the finished events")
				}
				blocked = readBlocked(t, r)
			}
			for _, sc := range scs {
				c := recs[sc.Name]
				needsProvider := sc.WantRung == simweb.RungBrightData || sc.WantRung == simweb.RungApify ||
					sc.Want[simweb.TierStandard] == "blocked"
				if !needsProvider {
					// The direct rung is untouched by the provider policy.
					if want := sc.Want[simweb.TierStandard]; string(c.Status) != want {
						t.Errorf("%s: status %s, want %s (notes %q)", sc.Name, c.Status, want, c.Notes)
					}
					continue
				}
				if c.Status != StatusBlocked {
					t.Errorf("%s: status %s, want blocked (notes %q)", sc.Name, c.Status, c.Notes)
					continue
				}
				for _, n := range tt.wantNotes {
					if !strings.Contains(c.Notes, n) {
						t.Errorf("%s: notes %q lack %q", sc.Name, c.Notes, n)
					}
				}
				if !strings.Contains(c.Notes, "direct_fetch=failed") {
					t.Errorf("%s: notes %q do not record the direct attempt", sc.Name, c.Notes)
				}
				if a := blockedAction(c.Notes); !slices.Contains(tt.wantActions, a) {
					t.Errorf("%s: blockedAction = %q, want one of %q", sc.Name, a, tt.wantActions)
				}
				if blocked == nil {
					continue
				}
				b, ok := blocked[c.NormalizedURL]
				if !ok {
					t.Errorf("%s: not in blocked-urls.json", sc.Name)
					continue
				}
				if !slices.Contains(tt.wantActions, b.Action) {
					t.Errorf("%s: blocked action %q, want one of %q", sc.Name, b.Action, tt.wantActions)
				}
				if b.Notes != c.Notes || b.Status != StatusBlocked {
					t.Errorf("%s: blocked item %+v disagrees with the record %+v", sc.Name, b, c)
				}
			}
			// The scenarios the brief names explicitly.
			for _, name := range []string{"cloudflare-challenge", "datadome-apify-only"} {
				if recs[name].Status != StatusBlocked {
					t.Errorf("%s: status %s, want blocked", name, recs[name].Status)
				}
			}
			if got := w.ProviderTargets(); len(got) != 0 {
				t.Errorf("providers were sent %d targets: %q", len(got), got)
			}
			for _, h := range []string{simweb.BrightDataHost, simweb.ApifyHost} {
				if n := w.Requests(h); n != 0 {
					t.Errorf("%s received %d requests", h, n)
				}
			}
			if err != nil {
				return
			}
			if sum.Artifacts.BlockedURLsQueue == nil {
				t.Fatal("no blocked-urls.queue.md written")
			}
			q := readFile(t, *sum.Artifacts.BlockedURLsQueue)
			if !slices.ContainsFunc(tt.wantActions, func(a string) bool { return strings.Contains(q, "- recommended_action: "+a) }) {
				t.Errorf("queue lacks the action %q:\n%s", tt.wantActions, q)
			}
		})
	}
}

// TestBlockedActionInSchema: every action blockedAction can return must be
// one blocked_urls.v1 accepts, or the whole online run fails to write its
// artifacts (SCHEMA_VALIDATION_FAILED) the moment one URL is blocked for
// that reason.
func TestBlockedActionInSchema(t *testing.T) {
	tests := []struct{ name, notes string }{
		{"dry-run", dryRunNotes},
		{"private target", "online ladder blocked: direct_fetch=failed(private/local target blocked)"},
		{"no credentials", "online ladder blocked: direct_fetch=failed(attempt 1/1: http 403); " +
			"bright_data=skipped(no credentials: set BRIGHTDATA_API_KEY and BRIGHTDATA_UNLOCKER_ZONE, or configure an endpoint)"},
		{"endpoint not configured", "online ladder blocked: bright_data=failed(endpoint not configured)"},
		{"protocol", "disallowed protocol ftp"},
		{"restricted sensitivity", "online ladder blocked: direct_fetch=failed(attempt 1/2: bot wall); " +
			"bright_data=skipped(restricted sensitivity: direct fetch only); apify=skipped(restricted sensitivity: direct fetch only)"},
		{"anything else", "online ladder blocked: direct_fetch=failed(attempt 2/2: timeout)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			action := blockedAction(tt.notes)
			doc := blockedDoc{SchemaVersion: "blocked_urls.v1", RunID: "RUN", GeneratedAt: testNowISO, Items: []blockedItem{{
				NormalizedURL: "https://example.org/a", CID: cidOf("https://example.org/a"), Status: StatusBlocked,
				URL: "https://example.org/a", Notes: tt.notes, Action: action, FoundBy: []FoundByEntry{},
			}}}
			if _, err := marshalChecked(schema.BlockedURLs, doc, "/blocked-urls.json"); err != nil {
				t.Errorf("action %q for notes %q is refused by blocked_urls.v1: %v", action, tt.notes, err)
			}
		})
	}
}

// adapterCall is one request the operator adapter received.
type adapterCall struct {
	method, path, contentType, authorization string
	body                                     map[string]any
}

// TestLadderGenericAdapter: with no Bright Data credentials, a run-config
// endpoint makes the bright_data rung call the operator adapter with the
// reference contract (POST {url, ladder_step}, no credentials), and the
// adapter's verdict settles the citation.
func TestLadderGenericAdapter(t *testing.T) {
	t.Parallel()
	w := startWeb(t)
	var (
		mu    sync.Mutex
		calls []adapterCall
	)
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		var body map[string]any
		if err := json.Unmarshal(raw, &body); err != nil {
			t.Errorf("adapter body %q: %v", raw, err)
		}
		mu.Lock()
		calls = append(calls, adapterCall{r.Method, r.URL.Path, r.Header.Get("Content-Type"), r.Header.Get("Authorization"), body})
		mu.Unlock()
		rw.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(rw, `{"status":"valid","title":"Adapter Title","notes":"adapter ok"}`)
	}))
	defer srv.Close()
	port, err := strconv.Atoi(srv.URL[strings.LastIndexByte(srv.URL, ':')+1:])
	if err != nil {
		t.Fatal(err)
	}

	r := simRunOpts(t, w, simOpts{scenarios: []string{"news-article", "cloudflare-challenge"}, brightData: srv.URL + "/verify"})
	e := fastSimEngine(w, false)
	e.GuardOptions = append(e.GuardOptions, netguard.AllowCIDR(netip.MustParsePrefix("127.0.0.1/32")), netguard.AllowPorts(port))
	sum, err := e.Run(bg, RunArgs{ManifestPath: r.Manifest}, nil)
	if err != nil {
		t.Fatal(err)
	}
	scs := simScenarios(t, w, "news-article", "cloudflare-challenge")
	recs := recordsByScenario(t, r, scs)

	if c := recs["news-article"]; c.Status != StatusValid || !strings.Contains(c.Notes, "online ladder: direct_fetch") {
		t.Errorf("news-article = %s %q, want valid by direct_fetch", c.Status, c.Notes)
	}
	cf := recs["cloudflare-challenge"]
	if cf.Status != StatusValid || cf.Title != "Adapter Title" || cf.Notes != "adapter ok; online ladder: bright_data" {
		t.Errorf("cloudflare-challenge = %s title %q notes %q, want valid, \"Adapter Title\", \"adapter ok; online ladder: bright_data\"",
			cf.Status, cf.Title, cf.Notes)
	}
	if !strings.HasSuffix(cf.Notes, "; online ladder: bright_data") {
		t.Errorf("notes %q do not end with the rung", cf.Notes)
	}
	if cf.URL != cf.NormalizedURL {
		t.Errorf("url = %q, want the normalized URL %q (the adapter sent none)", cf.URL, cf.NormalizedURL)
	}

	mu.Lock()
	defer mu.Unlock()
	if len(calls) != 1 {
		t.Fatalf("adapter received %d calls, want 1: %+v", len(calls), calls)
	}
	c := calls[0]
	want := map[string]any{"url": scs[1].URL, "ladder_step": "bright_data"}
	if c.method != http.MethodPost || c.path != "/verify" || !strings.HasPrefix(c.contentType, "application/json") {
		t.Errorf("adapter call = %s %s (%s), want POST /verify with JSON", c.method, c.path, c.contentType)
	}
	if mustJSON(t, c.body) != mustJSON(t, want) {
		t.Errorf("adapter body = %s, want exactly %s", mustJSON(t, c.body), mustJSON(t, want))
	}
	if c.authorization != "" {
		t.Errorf("adapter received Authorization %q; the contract carries no credentials", c.authorization)
	}
	if got := w.ProviderTargets(); len(got) != 0 {
		t.Errorf("the simulated provider APIs were called: %q", got)
	}
	// The effective endpoint is recorded in the capture.
	var capture captureDoc
	decodeJSONFile(t, *sum.Artifacts.OnlineFixtures, &capture)
	if ep := capture.EffectiveConfig.Endpoints.BrightData; ep == nil || *ep != srv.URL+"/verify" ||
		capture.EffectiveConfig.EndpointSources.BrightData != "run-config.effective.citations" {
		t.Errorf("capture effective endpoints = %+v / %+v", capture.EffectiveConfig.Endpoints, capture.EffectiveConfig.EndpointSources)
	}
}

// TestValidateRecoversOriginals: the standalone tools chain (Extract,
// Normalize, Validate) keeps the credential-query URL redacted in every
// artifact, yet the direct rung fetches the real URL, recovered from the
// wave file that found-by.json names. Without the wave file the redacted
// URL is all there is: the page answers 401 (a login wall, which the
// classifier calls paywalled), and the providers are still never asked.
func TestValidateRecoversOriginals(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name          string
		removeWave    bool
		wantStatus    Status
		wantNote      string
		wantTargetHit int // requests the members host must have seen
	}{
		{name: "wave file present", wantStatus: StatusValid, wantNote: "online ladder: direct_fetch", wantTargetHit: 1},
		{name: "wave file gone", removeWave: true, wantStatus: StatusPaywalled,
			wantNote: `online ladder: direct_fetch; paywall [http-401]: status "401 Unauthorized"`, wantTargetHit: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := startWeb(t)
			scs := simScenarios(t, w, "credential-query", "news-article")
			r := simRunOpts(t, w, simOpts{scenarios: []string{"credential-query", "news-article"}})
			e := fastSimEngine(w, true)
			if _, err := e.Extract(bg, ExtractArgs{ManifestPath: r.Manifest, Reason: "extract"}); err != nil {
				t.Fatal(err)
			}
			if _, err := e.Normalize(bg, NormalizeArgs{ManifestPath: r.Manifest, Reason: "normalize"}); err != nil {
				t.Fatal(err)
			}
			var fb FoundByDoc
			decodeJSONFile(t, r.cit("found-by.json"), &fb)
			for _, it := range fb.Items {
				if it.ArtifactPath != "wave-1/sim.md" {
					t.Errorf("found-by item %+v: artifact_path %q, want wave-1/sim.md", it, it.ArtifactPath)
				}
			}
			if tt.removeWave {
				// Keep the directory (nothing else needs it): only the
				// source of the original is gone.
				if err := os.Remove(r.path("wave-1/sim.md")); err != nil {
					t.Fatal(err)
				}
			}
			res, err := e.Validate(bg, ValidateArgs{ManifestPath: r.Manifest, Reason: "validate"}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if res.Mode != ModeOnline || res.OnlineDryRun == nil || *res.OnlineDryRun {
				t.Fatalf("validate ran mode %s dry-run %v, want live online", res.Mode, res.OnlineDryRun)
			}
			recs := recordsByScenario(t, r, scs)
			c := recs["credential-query"]
			if c.Status != tt.wantStatus || !strings.Contains(c.Notes, tt.wantNote) {
				t.Errorf("credential-query = %s %q, want %s with %q", c.Status, c.Notes, tt.wantStatus, tt.wantNote)
			}
			if !strings.Contains(c.URLOriginal, "token=%5BREDACTED%5D") || !strings.Contains(c.NormalizedURL, "token=%5BREDACTED%5D") {
				t.Errorf("record URLs not redacted: %q / %q", c.URLOriginal, c.NormalizedURL)
			}
			if recs["news-article"].Status != StatusValid {
				t.Errorf("news-article = %+v", recs["news-article"])
			}
			if n := w.Requests(scenarioHost(t, scs[0])); n != tt.wantTargetHit {
				t.Errorf("members host saw %d requests, want %d", n, tt.wantTargetHit)
			}
			for _, target := range w.ProviderTargets() {
				if strings.Contains(target, "members.example.com") || strings.Contains(target, simweb.SecretToken) {
					t.Errorf("the credential-bearing URL reached a provider: %q", target)
				}
			}
			// Every artifact names the URL only in its redacted form.
			mentions := 0
			err = filepath.WalkDir(r.Root, func(p string, d os.DirEntry, err error) error {
				if err != nil || d.IsDir() || p == r.path("wave-1/sim.md") {
					return err
				}
				data := readFile(t, p)
				if strings.Contains(data, simweb.SecretToken) {
					t.Errorf("%s holds the token", p)
				}
				if strings.Contains(data, "members.example.com") {
					mentions++
					if !strings.Contains(data, "token=%5BREDACTED%5D") {
						t.Errorf("%s names the members URL without the redacted token", p)
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			// extracted-urls, found-by, normalized-urls, url-map, citations,
			// the capture and the report at least.
			if mentions < 6 {
				t.Errorf("only %d artifacts mention the members URL", mentions)
			}
			if js := mustJSON(t, res); strings.Contains(js, simweb.SecretToken) {
				t.Errorf("result holds the token: %s", js)
			}
		})
	}
}

// wireLog records the request line and Host of every HTTP/1 request the
// guard's sockets carry, in order. It is a raw dialer for
// netguard.WithDialContext: the guard has already resolved (Pin) and
// classified the address it is handed.
type wireLog struct {
	mu   sync.Mutex
	reqs []wireReq
	bad  []string
}

type wireReq struct{ method, host, path string }

func (l *wireLog) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	return &wireConn{Conn: c, log: l}, nil
}

// forHost lists the methods sent to host, in order.
func (l *wireLog) forHost(host string) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, r := range l.reqs {
		if r.host == host {
			out = append(out, r.method)
		}
	}
	return out
}

type wireConn struct {
	net.Conn
	log *wireLog
}

// Write sees each request's head in one write: net/http buffers the head
// (4 KiB) and flushes it once.
func (c *wireConn) Write(p []byte) (int, error) {
	for _, m := range []string{"GET ", "HEAD ", "POST "} {
		if bytes.HasPrefix(p, []byte(m)) {
			req, err := http.ReadRequest(bufio.NewReader(bytes.NewReader(p)))
			c.log.mu.Lock()
			if err != nil {
				c.log.bad = append(c.log.bad, fmt.Sprintf("%q: %v", p, err))
			} else {
				host := req.Host
				if h, _, err := net.SplitHostPort(host); err == nil {
					host = h
				}
				c.log.reqs = append(c.log.reqs, wireReq{req.Method, host, req.URL.Path})
			}
			c.log.mu.Unlock()
			break
		}
	}
	return c.Conn.Write(p)
}

// TestLadderBasicTierHeadFirst: the basic tier asks with HEAD and is
// satisfied by a 2xx; a HEAD that fails (404, 402, a 403 bot wall) falls
// back to GET. simweb counts requests but not methods, so the sockets
// under the guard record each request line; Requests cross-checks the
// count.
func TestLadderBasicTierHeadFirst(t *testing.T) {
	t.Parallel()
	w := startWeb(t)
	tests := []struct {
		scenario    string
		wantStatus  Status
		wantMethods []string
		wantNote    string
	}{
		{"news-article", StatusValid, []string{"HEAD"}, "(HEAD)"},
		{"dead-404", StatusInvalid, []string{"HEAD", "GET"}, "online ladder: direct_fetch"},
		{"paywall-402", StatusPaywalled, []string{"HEAD", "GET"}, "online ladder: direct_fetch"},
		// A bot wall answers HEAD with 403 as well; GET sees the same wall
		// and the ladder moves on to Bright Data.
		{"cloudflare-challenge", StatusValid, []string{"HEAD", "GET"}, "online ladder: bright_data"},
	}
	var names []string
	for _, tt := range tests {
		names = append(names, tt.scenario)
	}
	scs := simScenarios(t, w, names...)
	r := simRunOpts(t, w, simOpts{scenarios: names, tier: "basic"})
	wl := &wireLog{}
	e := fastSimEngine(w, true)
	e.GuardOptions = append(e.GuardOptions, netguard.WithDialContext(wl.dial))
	sum, err := e.Run(bg, RunArgs{ManifestPath: r.Manifest}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if sum.ValidationTier != "basic" {
		t.Fatalf("validation tier = %s, want basic", sum.ValidationTier)
	}
	recs := recordsByScenario(t, r, scs)
	for i, tt := range tests {
		t.Run(tt.scenario, func(t *testing.T) {
			c := recs[tt.scenario]
			if c.Status != tt.wantStatus || !strings.Contains(c.Notes, tt.wantNote) {
				t.Errorf("status %s notes %q, want %s with %q", c.Status, c.Notes, tt.wantStatus, tt.wantNote)
			}
			host := scenarioHost(t, scs[i])
			if got := wl.forHost(host); !slices.Equal(got, tt.wantMethods) {
				t.Errorf("%s saw %v, want %v", host, got, tt.wantMethods)
			}
			if n := w.Requests(host); n != len(tt.wantMethods) {
				t.Errorf("simweb counted %d requests to %s, want %d", n, host, len(tt.wantMethods))
			}
		})
	}
	wl.mu.Lock()
	defer wl.mu.Unlock()
	if len(wl.bad) != 0 {
		t.Errorf("unparsed request heads: %v", wl.bad)
	}
}

// TestRunCancelledDuringSlowFetch: cancelling while the slow host is being
// fetched (its answer takes 2 s, the hop timeout here is 5 s) abandons the
// request at once; Run returns CANCELLED and writes nothing.
func TestRunCancelledDuringSlowFetch(t *testing.T) {
	t.Parallel()
	w := startWeb(t)
	slow := simScenarios(t, w, "slow-host")[0]
	slowHost := scenarioHost(t, slow)
	r := simRunOpts(t, w, simOpts{scenarios: []string{"news-article", "slow-host", "paywall-402"},
		policy: `{"schema_version":"run_policy.v1","citations_ladder_policy_v1":{"direct_fetch_timeout_ms":5000,` +
			`"endpoint_timeout_ms":5000,"direct_fetch_max_attempts":1,"bright_data_max_attempts":1,"apify_max_attempts":1}}`})
	before := snapshot(t, r.Root)
	ctx, cancel := context.WithCancel(bg)
	defer cancel()
	var (
		once      sync.Once
		cancelled = make(chan time.Time, 1)
	)
	start := time.Now()
	sum, events, err := collect(t, fastSimEngine(w, true), ctx, RunArgs{ManifestPath: r.Manifest}, func(ev Event) {
		if ev.Kind != EventAttempt || !strings.Contains(ev.URL, slowHost) {
			return
		}
		once.Do(func() {
			// Cancel once the request is in the slow host's handler.
			go func() {
				for deadline := time.Now().Add(5 * time.Second); w.Requests(slowHost) == 0 && time.Now().Before(deadline); {
					time.Sleep(5 * time.Millisecond)
				}
				cancelled <- time.Now()
				cancel()
			}()
		})
	})
	returned := time.Now()
	asError(t, err, CodeCancelled)
	if sum != nil {
		t.Errorf("cancelled run returned a summary: %+v", sum)
	}
	var at time.Time
	select {
	case at = <-cancelled:
	default:
		t.Fatalf("never cancelled; events: %d", len(events))
	}
	if n := w.Requests(slowHost); n != 1 {
		t.Errorf("slow host saw %d requests, want 1 (cancelled mid-fetch)", n)
	}
	if d := returned.Sub(at); d > time.Second {
		t.Errorf("Run returned %v after cancel; the in-flight fetch was not abandoned", d)
	}
	if d := returned.Sub(start); d >= simweb.SlowDelay {
		t.Errorf("Run took %v, as long as the slow host's answer", d)
	}
	for _, ev := range events {
		if ev.Kind == EventFinished && ev.Citation != nil && strings.Contains(ev.URL, slowHost) && ev.Citation.Status != StatusBlocked {
			t.Errorf("slow host finished as %s after cancellation", ev.Citation.Status)
		}
	}
	if d := diffSnapshots(before, snapshot(t, r.Root)); len(d) != 0 {
		t.Errorf("cancelled run changed files: %v", d)
	}
	if _, err := os.Stat(r.path("citations")); !os.IsNotExist(err) {
		t.Errorf("citations/ exists after a cancelled run (err %v)", err)
	}
	if tmp := tempFiles(t, r.Root); len(tmp) != 0 {
		t.Errorf("temporary files left: %v", tmp)
	}
}

// TestLadderEvents: a live run's event stream. Per URL, the attempts (each
// followed by its attempt-done) and retry waits come in ladder order
// (direct, then Bright Data, then Apify), a 429 announces its wait, every URL is queued and finished exactly once,
// and Seq numbers the whole stream 1, 2, 3, ….
func TestLadderEvents(t *testing.T) {
	t.Parallel()
	w := startWeb(t)
	type step struct {
		kind    EventKind
		rung    string
		attempt int
	}
	// try is an attempt and its attempt-done.
	try := func(rung string, a int) []step { return []step{{EventAttempt, rung, a}, {EventAttemptDone, rung, a}} }
	wait := func(rung string, a int) []step { return []step{{EventRetryWait, rung, a}} }
	seq := slices.Concat[[]step]
	tests := []struct {
		scenario  string
		wantSteps []step
		wantRung  string // Rung of the EventFinished
		// wantStatuses are the HTTPStatus of the direct attempt-done events.
		wantStatuses []int
	}{
		// A valid page is compared with its host's answer to a URL that
		// cannot exist: one site probe per host, after the direct attempt.
		{"news-article", seq(try("direct_fetch", 1), try(RungProbe, 1)), "direct_fetch", []int{200}},
		{"cloudflare-challenge", seq(try("direct_fetch", 1), try("bright_data", 1)), "bright_data", []int{403}},
		{"datadome-apify-only", seq(try("direct_fetch", 1), try("bright_data", 1), try("apify", 1)), "apify", []int{403}},
		{"rate-limited", seq(try("direct_fetch", 1), wait("direct_fetch", 1), try("direct_fetch", 2), try(RungProbe, 1)), "direct_fetch", []int{429, 200}},
		{"flaky-503", seq(try("direct_fetch", 1), wait("direct_fetch", 1), try("direct_fetch", 2), try(RungProbe, 1)), "direct_fetch", []int{503, 200}},
		{"blocked-everywhere", seq(try("direct_fetch", 1), try("bright_data", 1), try("apify", 1)), "ladder", []int{403}},
	}
	var names []string
	for _, tt := range tests {
		names = append(names, tt.scenario)
	}
	scs := simScenarios(t, w, names...)
	r := simRunOpts(t, w, simOpts{scenarios: names})
	_, events, err := collect(t, fastSimEngine(w, true), bg, RunArgs{ManifestPath: r.Manifest}, nil)
	if err != nil {
		t.Fatal(err)
	}
	recs := recordsByScenario(t, r, scs)

	for i, ev := range events {
		if ev.Seq != uint64(i+1) {
			t.Fatalf("event %d (%s) has Seq %d; want a gapless increasing sequence", i, ev.Kind, ev.Seq)
		}
	}
	queued, finished := map[string]int{}, map[string]Event{}
	steps := map[string][]step{}
	waits := map[string][]Event{}
	directStatuses := map[string][]int{}
	for _, ev := range events {
		switch ev.Kind {
		case EventQueued:
			queued[ev.URL]++
			if ev.Total != len(names) {
				t.Errorf("queued %s: Total %d, want %d", ev.URL, ev.Total, len(names))
			}
		case EventFinished:
			if _, dup := finished[ev.URL]; dup {
				t.Errorf("%s finished twice", ev.URL)
			}
			finished[ev.URL] = ev
		case EventAttempt:
			steps[ev.URL] = append(steps[ev.URL], step{ev.Kind, ev.Rung, ev.Attempt})
			if _, done := finished[ev.URL]; done {
				t.Errorf("%s: attempt after finished", ev.URL)
			}
		case EventAttemptDone:
			steps[ev.URL] = append(steps[ev.URL], step{ev.Kind, ev.Rung, ev.Attempt})
			if ev.Rung == "direct_fetch" {
				directStatuses[ev.URL] = append(directStatuses[ev.URL], ev.HTTPStatus)
			}
			if ev.Elapsed <= 0 || ev.Detail == "" {
				t.Errorf("attempt-done %+v lacks elapsed time or outcome", ev)
			}
		case EventRetryWait:
			steps[ev.URL] = append(steps[ev.URL], step{ev.Kind, ev.Rung, ev.Attempt})
			waits[ev.URL] = append(waits[ev.URL], ev)
		}
	}
	if len(finished) != len(names) || len(queued) != len(names) {
		t.Errorf("%d URLs queued and %d finished, want %d each", len(queued), len(finished), len(names))
	}
	for i, tt := range tests {
		t.Run(tt.scenario, func(t *testing.T) {
			c := recs[tt.scenario]
			u := c.NormalizedURL
			if queued[u] != 1 {
				t.Errorf("queued %d times", queued[u])
			}
			fin, ok := finished[u]
			if !ok {
				t.Fatal("never finished")
			}
			if fin.Citation == nil || fin.Citation.Status != c.Status || fin.Rung != tt.wantRung || fin.CID != c.CID {
				t.Errorf("finished event %+v disagrees with record %s (want rung %s)", fin, c.Status, tt.wantRung)
			}
			if want := scs[i].Want[simweb.TierStandard]; string(c.Status) != want {
				t.Errorf("status %s, want %s", c.Status, want)
			}
			if !slices.Equal(steps[u], tt.wantSteps) {
				t.Errorf("steps %v, want %v", steps[u], tt.wantSteps)
			}
			if !slices.Equal(directStatuses[u], tt.wantStatuses) {
				t.Errorf("direct attempt statuses %v, want %v", directStatuses[u], tt.wantStatuses)
			}
			for _, wv := range waits[u] {
				if wv.Wait <= 0 {
					t.Errorf("retry wait %+v has no duration", wv)
				}
			}
		})
	}
	rl := waits[recs["rate-limited"].NormalizedURL]
	if len(rl) != 1 || !strings.Contains(rl[0].Detail, "429") {
		t.Errorf("rate-limited waits %+v, want one whose detail names 429", rl)
	} else if rl[0].Wait != 100*time.Millisecond {
		// Retry-After: 1 capped by MaxRetryWait (100 ms) beats the 20 ms backoff.
		t.Errorf("rate-limited wait %v, want the capped Retry-After 100ms", rl[0].Wait)
	}
	if fl := waits[recs["flaky-503"].NormalizedURL]; len(fl) != 1 || !strings.Contains(fl[0].Detail, "503") {
		t.Errorf("flaky waits %+v, want one whose detail names 503", fl)
	}
}
