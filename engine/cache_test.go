package engine

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/citegate/citegate/engine/simweb"
	"github.com/citegate/citegate/parse"
)

// clock is a settable Engine / resultCache clock, safe for the ladder's
// concurrent readers.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}

const cacheURL = "https://example.org/articles/solar"

// cachedCitation is a finished record as put receives it.
func cachedCitation(normalized string, st Status) *Citation {
	code := 200
	return &Citation{SchemaVersion: "citation.v1", NormalizedURL: normalized, CID: parse.CID(normalized),
		URL: normalized + "?final=1", URLOriginal: normalized, Status: st, CheckedAt: "2026-02-10T08:30:00.000Z",
		FoundBy: []FoundByEntry{}, Notes: "online ladder: direct_fetch; reachable", HTTPStatus: &code,
		Title: "Solar passes two terawatts", Publisher: "Energy Report", EvidenceSnippet: "Installed solar capacity…"}
}

func newTestCache(t *testing.T, c *clock) *resultCache {
	t.Helper()
	return &resultCache{dir: t.TempDir(), ttl: time.Hour, now: c.now}
}

// TestResultCachePutGet: a stored definitive record comes back as a
// decision marked "; cache hit", with its own checked_at and every field.
func TestResultCachePutGet(t *testing.T) {
	for _, st := range []Status{StatusValid, StatusPaywalled, StatusInvalid, StatusMismatch} {
		t.Run(string(st), func(t *testing.T) {
			clk := &clock{t: testNow}
			c := newTestCache(t, clk)
			rec := cachedCitation(cacheURL, st)
			c.put(rec, "")
			d, at, ok := c.get(cacheURL, "")
			if !ok {
				t.Fatal("miss right after put")
			}
			if at != rec.CheckedAt {
				t.Errorf("checked_at = %q, want the stored %q", at, rec.CheckedAt)
			}
			if d.Status != st || d.Notes != rec.Notes+"; cache hit" || d.URL != rec.URL || d.rung != "cache" ||
				d.HTTPStatus == nil || *d.HTTPStatus != 200 || d.Title != rec.Title || d.Publisher != rec.Publisher ||
				d.EvidenceSnippet != rec.EvidenceSnippet {
				t.Errorf("decision = %+v", d)
			}
			if d.checkedAt != "" {
				t.Errorf("get filled decision.checkedAt %q; preLadder sets it", d.checkedAt)
			}
			// The file: one per URL and verdict context, expiring ttl
			// after the put.
			var e cacheEntry
			decodeJSONFile(t, c.path(cacheURL, ""), &e)
			if e.SchemaVersion != "citegate_cache.v1" || e.NormalizedURL != cacheURL ||
				e.ExpiresAt != testNow.Add(time.Hour).Format(time.RFC3339Nano) {
				t.Errorf("entry = %+v", e)
			}
			// Another URL is not this one.
			if _, _, ok := c.get(cacheURL+"/other", ""); ok {
				t.Error("hit for a URL never stored")
			}
		})
	}
}

// TestResultCacheNeverStores: blocked and unknown statuses are never
// written, and a nil cache is inert.
func TestResultCacheNeverStores(t *testing.T) {
	for _, st := range []Status{StatusBlocked, "", "bogus"} {
		t.Run("status "+string(st), func(t *testing.T) {
			c := newTestCache(t, &clock{t: testNow})
			c.put(cachedCitation(cacheURL, st), "")
			if entries, _ := os.ReadDir(c.dir); len(entries) != 0 {
				t.Errorf("put wrote %d files", len(entries))
			}
			if _, _, ok := c.get(cacheURL, ""); ok {
				t.Error("hit")
			}
		})
	}
	t.Run("nil cache", func(t *testing.T) {
		var c *resultCache
		c.put(cachedCitation(cacheURL, StatusValid), "")
		if _, _, ok := c.get(cacheURL, ""); ok {
			t.Error("nil cache hit")
		}
	})
	t.Run("unwritable dir", func(t *testing.T) {
		dir := t.TempDir()
		blocker := filepath.Join(dir, "cache")
		writeFile(t, blocker, "a file where the cache dir should be")
		c := &resultCache{dir: blocker, ttl: time.Hour, now: func() time.Time { return testNow }}
		c.put(cachedCitation(cacheURL, StatusValid), "") // must not panic or fail the run
		if _, _, ok := c.get(cacheURL, ""); ok {
			t.Error("hit from an unwritable cache")
		}
	})
}

// TestResultCacheExpiry: an entry lives exactly ttl from the put, on the
// cache's clock (the Engine's when built by Engine.cache).
func TestResultCacheExpiry(t *testing.T) {
	tests := []struct {
		name    string
		advance time.Duration
		hit     bool
	}{
		{"same instant", 0, true},
		{"clock went back", -24 * time.Hour, true},
		{"just before expiry", time.Hour - time.Millisecond, true},
		{"at expiry", time.Hour, false},
		{"long after", 30 * 24 * time.Hour, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clk := &clock{t: testNow}
			c := newTestCache(t, clk)
			c.put(cachedCitation(cacheURL, StatusValid), "")
			clk.set(testNow.Add(tt.advance))
			if _, _, ok := c.get(cacheURL, ""); ok != tt.hit {
				t.Errorf("hit = %v, want %v", ok, tt.hit)
			}
		})
	}
	t.Run("engine clock and default ttl", func(t *testing.T) {
		clk := &clock{t: testNow}
		e := newEngine()
		e.Now = clk.now
		fileCache := func() *resultCache {
			c, _ := e.verdictCache(context.Background(), &fleetRun{}, &citationConfig{}).(*resultCache)
			return c
		}
		if e.verdictCache(context.Background(), &fleetRun{}, &citationConfig{}) != nil {
			t.Fatal("a cache without CacheDir")
		}
		e.Net.CacheDir = t.TempDir()
		c := fileCache()
		if c == nil || c.ttl != DefaultCacheTTL || c.dir != e.Net.CacheDir {
			t.Fatalf("cache = %+v, want dir %s ttl %v", c, e.Net.CacheDir, DefaultCacheTTL)
		}
		c.put(cachedCitation(cacheURL, StatusValid), "")
		clk.set(testNow.Add(DefaultCacheTTL - time.Second))
		if _, _, ok := fileCache().get(cacheURL, ""); !ok {
			t.Error("miss before the default TTL")
		}
		clk.set(testNow.Add(DefaultCacheTTL))
		if _, _, ok := fileCache().get(cacheURL, ""); ok {
			t.Error("hit once the Engine clock passed the default TTL")
		}
	})
}

// TestResultCacheBadEntries: anything but a well-formed, current entry
// for exactly this normalized URL is a miss, never an error.
func TestResultCacheBadEntries(t *testing.T) {
	good := func(mut func(*cacheEntry)) string {
		e := cacheEntry{SchemaVersion: "citegate_cache.v1", NormalizedURL: cacheURL,
			Verdict: Verdict{Status: StatusValid, URL: cacheURL, Notes: "online ladder: direct_fetch"}, CheckedAt: "2026-02-10T08:30:00.000Z",
			ExpiresAt: testNow.Add(time.Hour).Format(time.RFC3339Nano)}
		if mut != nil {
			mut(&e)
		}
		data, err := json.Marshal(e)
		if err != nil {
			panic(err)
		}
		return string(data)
	}
	tests := []struct {
		name    string
		content string // written at cacheURL's path; "<dir>" makes it a directory
		hit     bool
	}{
		{"well-formed (control)", good(nil), true},
		{"not JSON", `{"schema_version":"citegate_cache.v1",`, false},
		{"empty file", "", false},
		{"JSON array", "[]", false},
		{"another normalized_url", good(func(e *cacheEntry) { e.NormalizedURL = cacheURL + "/other" }), false},
		{"other schema version", good(func(e *cacheEntry) { e.SchemaVersion = "citegate_cache.v2" }), false},
		{"no schema version", good(func(e *cacheEntry) { e.SchemaVersion = "" }), false},
		{"unparseable expiry", good(func(e *cacheEntry) { e.ExpiresAt = "tomorrow" }), false},
		{"expired", good(func(e *cacheEntry) { e.ExpiresAt = testNow.Add(-time.Second).Format(time.RFC3339Nano) }), false},
		{"blocked status", good(func(e *cacheEntry) { e.Status = StatusBlocked }), false},
		{"unknown status", good(func(e *cacheEntry) { e.Status = "maybe" }), false},
		{"over 1 MiB", good(func(e *cacheEntry) { e.Notes = strings.Repeat("x", 1<<20) }), false},
		{"directory", "<dir>", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newTestCache(t, &clock{t: testNow})
			p := c.path(cacheURL, "")
			if tt.content == "<dir>" {
				if err := os.MkdirAll(p, 0o755); err != nil {
					t.Fatal(err)
				}
			} else {
				writeFile(t, p, tt.content)
			}
			d, _, ok := c.get(cacheURL, "")
			if ok != tt.hit {
				t.Fatalf("hit = %v (%+v), want %v", ok, d, tt.hit)
			}
		})
	}
	t.Run("entry filed under another URL's name", func(t *testing.T) {
		c := newTestCache(t, &clock{t: testNow})
		other := cacheURL + "/other"
		c.put(cachedCitation(other, StatusValid), "")
		// Copy the other URL's file to this URL's path (a renamed or
		// colliding file): it names a different normalized_url.
		data, err := os.ReadFile(c.path(other, ""))
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, c.path(cacheURL, ""), string(data))
		if _, _, ok := c.get(cacheURL, ""); ok {
			t.Error("hit for an entry of another normalized_url")
		}
		if _, _, ok := c.get(other, ""); !ok {
			t.Error("the other URL's own entry missed")
		}
	})
}

// TestCacheServesDefinitiveResults runs the whole catalogue twice with a
// cache. The second run (counters reset, clock an hour later) settles
// every definitive URL from the cache without one request to its host or
// to a provider, keeping the first check's time; the blocked ones are
// fetched and escalated again.
func TestCacheServesDefinitiveResults(t *testing.T) {
	t.Parallel()
	w := startWeb(t)
	r := simRunOpts(t, w, simOpts{})
	clk := &clock{t: testNow}
	e := fastSimEngine(w, true)
	e.Now = clk.now
	e.Net.CacheDir = filepath.Join(t.TempDir(), "cache") // created on first put

	if _, err := e.Run(bg, RunArgs{ManifestPath: r.Manifest}, nil); err != nil {
		t.Fatal(err)
	}
	scs := w.Catalogue()
	first := recordsByScenario(t, r, scs)
	definitive := 0
	for _, sc := range scs {
		if n := w.Requests(scenarioHost(t, sc)); n == 0 {
			t.Errorf("run 1: %s never reached %s", sc.Name, scenarioHost(t, sc))
		}
		if c := first[sc.Name]; strings.Contains(c.Notes, "cache hit") {
			t.Errorf("run 1: %s served from an empty cache: %q", sc.Name, c.Notes)
		} else if c.Status != StatusBlocked && !strings.Contains(sc.URL, simweb.SecretToken) {
			definitive++ // credential-bearing URLs are never cached
		}
	}
	if files, _ := os.ReadDir(e.Net.CacheDir); len(files) != definitive {
		t.Errorf("cache holds %d entries, want one per definitive URL (%d)", len(files), definitive)
	}

	w.Reset()
	clk.set(testNow.Add(time.Hour))
	_, events, err := collect(t, e, bg, RunArgs{ManifestPath: r.Manifest}, nil)
	if err != nil {
		t.Fatal(err)
	}
	second := recordsByScenario(t, r, scs)
	finRung := map[string]string{}
	for _, ev := range events {
		if ev.Kind == EventFinished {
			finRung[ev.URL] = ev.Rung
		}
	}
	// Hosts serving at least one blocked scenario are expected to be asked
	// again; every other host must see nothing.
	refetched := map[string]bool{}
	var blockedURLs []string
	for _, sc := range scs {
		if first[sc.Name].Status == StatusBlocked {
			refetched[scenarioHost(t, sc)] = true
			blockedURLs = append(blockedURLs, sc.URL)
		}
	}
	for _, sc := range scs {
		a, b := first[sc.Name], second[sc.Name]
		host := scenarioHost(t, sc)
		if strings.Contains(sc.URL, simweb.SecretToken) {
			// A credential-bearing URL is never cached: its redacted form
			// would stand for every token. It is fetched again.
			if strings.Contains(b.Notes, "cache hit") || w.Requests(host) == 0 {
				t.Errorf("%s: credentialed URL served from the cache: %q", sc.Name, b.Notes)
			}
			continue
		}
		if a.Status == StatusBlocked {
			if b.Status != StatusBlocked || strings.Contains(b.Notes, "cache hit") || finRung[b.NormalizedURL] == "cache" {
				t.Errorf("%s: blocked result was cached: %s %q", sc.Name, b.Status, b.Notes)
			}
			if w.Requests(host) == 0 {
				t.Errorf("%s: blocked URL not fetched again", sc.Name)
			}
			if b.CheckedAt != testNow.Add(time.Hour).Format("2006-01-02T15:04:05.000Z") {
				t.Errorf("%s: refetched checked_at %s, want the second run's time", sc.Name, b.CheckedAt)
			}
			continue
		}
		if b.Status != a.Status || b.Notes != a.Notes+"; cache hit" || b.CheckedAt != a.CheckedAt ||
			b.URL != a.URL || b.Title != a.Title || finRung[b.NormalizedURL] != "cache" {
			t.Errorf("%s: second run = %s %q at %s (rung %s), want the cached %s %q at %s",
				sc.Name, b.Status, b.Notes, b.CheckedAt, finRung[b.NormalizedURL], a.Status, a.Notes, a.CheckedAt)
		}
		if !refetched[host] {
			if n := w.Requests(host); n != 0 {
				t.Errorf("%s: %d requests to %s despite a cached result", sc.Name, n, host)
			}
		}
	}
	// The redirect chain's later hosts stay quiet too.
	for _, h := range []string{"click.example.net", "magazine.example.com"} {
		if n := w.Requests(h); n != 0 {
			t.Errorf("%d requests to %s", n, h)
		}
	}
	// Providers were asked only about the blocked URLs.
	for _, target := range w.ProviderTargets() {
		found := false
		for _, u := range blockedURLs {
			found = found || target == u
		}
		if !found {
			t.Errorf("a provider was asked about %s, which was cached", target)
		}
	}
	if len(w.ProviderTargets()) == 0 {
		t.Error("the blocked URLs were not escalated again")
	}
	// No secret reached the cache.
	_ = filepath.WalkDir(e.Net.CacheDir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.Contains(readFile(t, p), simweb.SecretToken) {
			t.Errorf("cache file %s holds the URL token", p)
		}
		return err
	})
}

// TestCacheTransientAndExpiry: with one direct attempt and no providers,
// a 429 and a 503 end blocked and are fetched again next run, while the
// definitive results are served from the cache until the Engine clock
// passes CacheTTL, when everything is fetched afresh.
func TestCacheTransientAndExpiry(t *testing.T) {
	t.Parallel()
	w := startWeb(t)
	names := []string{"news-article", "dead-404", "rate-limited", "flaky-503"}
	scs := simScenarios(t, w, names...)
	r := simRunOpts(t, w, simOpts{scenarios: names, policy: `{"schema_version":"run_policy.v1","citations_ladder_policy_v1":{` +
		`"direct_fetch_timeout_ms":600,"endpoint_timeout_ms":3000,"direct_fetch_max_attempts":1}}`})
	clk := &clock{t: testNow}
	e := fastSimEngine(w, false)
	e.Now = clk.now
	e.Net.CacheDir = t.TempDir()
	e.Net.CacheTTL = 24 * time.Hour
	iso := func(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

	type want struct {
		status   Status
		cached   bool
		requests int
	}
	steps := []struct {
		name string
		at   time.Time
		want map[string]want
		// checkedAt is the expected checked_at of the definitive records.
		checkedAt time.Time
	}{
		{"first run", testNow, map[string]want{
			"news-article": {StatusValid, false, 1}, "dead-404": {StatusInvalid, false, 1},
			"rate-limited": {StatusBlocked, false, 1}, "flaky-503": {StatusBlocked, false, 1},
		}, testNow},
		{"within ttl", testNow.Add(23 * time.Hour), map[string]want{
			"news-article": {StatusValid, true, 0}, "dead-404": {StatusInvalid, true, 0},
			"rate-limited": {StatusBlocked, false, 1}, "flaky-503": {StatusBlocked, false, 1},
		}, testNow},
		{"past ttl", testNow.Add(24*time.Hour + time.Minute), map[string]want{
			"news-article": {StatusValid, false, 1}, "dead-404": {StatusInvalid, false, 1},
			"rate-limited": {StatusBlocked, false, 1}, "flaky-503": {StatusBlocked, false, 1},
		}, testNow.Add(24*time.Hour + time.Minute)},
	}
	for _, st := range steps {
		w.Reset()
		clk.set(st.at)
		if _, err := e.Run(bg, RunArgs{ManifestPath: r.Manifest}, nil); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		recs := recordsByScenario(t, r, scs)
		for _, sc := range scs {
			c, wt := recs[sc.Name], st.want[sc.Name]
			if c.Status != wt.status || strings.HasSuffix(c.Notes, "; cache hit") != wt.cached {
				t.Errorf("%s: %s = %s %q, want %s (cached %v)", st.name, sc.Name, c.Status, c.Notes, wt.status, wt.cached)
			}
			if n := w.Requests(scenarioHost(t, sc)); n != wt.requests {
				t.Errorf("%s: %s: %d requests, want %d", st.name, sc.Name, n, wt.requests)
			}
			wantAt := st.at
			if c.Status != StatusBlocked {
				wantAt = st.checkedAt
			}
			if c.CheckedAt != iso(wantAt) {
				t.Errorf("%s: %s checked_at %s, want %s", st.name, sc.Name, c.CheckedAt, iso(wantAt))
			}
		}
		if strings.Contains(recs["rate-limited"].Notes, "cache") || !strings.Contains(recs["rate-limited"].Notes, "429") {
			t.Errorf("%s: rate-limited notes %q", st.name, recs["rate-limited"].Notes)
		}
	}
}

// TestCacheRespectsVerdictInputs: a cached verdict may only be reused
// when it would be reached again. The tier and the citing link text both
// change the verdict for the same page (simweb scripts soft-404,
// redirect-home and content-mismatch as valid at standard but not at
// thorough), so a cache keyed on the URL alone must not hand a standard
// run's "valid" to a thorough run, nor one citation's match to another.
func TestCacheRespectsVerdictInputs(t *testing.T) {
	t.Parallel()
	w := startWeb(t)
	names := []string{"soft-404", "redirect-home", "content-mismatch"}
	scs := simScenarios(t, w, names...)

	t.Run("tier", func(t *testing.T) {
		e := fastSimEngine(w, true)
		e.Net.CacheDir = t.TempDir()
		for _, tier := range []string{simweb.TierStandard, simweb.TierThorough} {
			r := simRunOpts(t, w, simOpts{scenarios: names, tier: tier})
			if _, err := e.Run(bg, RunArgs{ManifestPath: r.Manifest}, nil); err != nil {
				t.Fatal(err)
			}
			recs := recordsByScenario(t, r, scs)
			for _, sc := range scs {
				if c := recs[sc.Name]; string(c.Status) != sc.Want[tier] {
					t.Errorf("%s at %s: %s %q, want %s", sc.Name, tier, c.Status, c.Notes, sc.Want[tier])
				}
			}
		}
	})

	t.Run("link text", func(t *testing.T) {
		e := fastSimEngine(w, true)
		e.Net.CacheDir = t.TempDir()
		mismatch := scs[2]
		for _, tc := range []struct {
			linkText string
			want     Status
		}{
			{"How to keep a sourdough starter alive", StatusValid},
			{mismatch.LinkText, StatusMismatch}, // "EU battery recycling targets…"
		} {
			r := newRun(t, runSpec{RunID: "RUN", Sensitivity: "normal", Files: map[string]string{
				"wave-1/sim.md": "## Sources\n\n- [" + tc.linkText + "](" + mismatch.URL + ")\n",
				"run-config.json": `{"schema_version":"run_config.v1","run_id":"RUN","effective":{"citations":` +
					`{"mode":"online","validation_tier":"thorough"}}}`,
				"run-config/policy.json": simPolicyJSON,
			}})
			if _, err := e.Run(bg, RunArgs{ManifestPath: r.Manifest}, nil); err != nil {
				t.Fatal(err)
			}
			recs := readCitationLines(t, r.cit("citations.jsonl"))
			if len(recs) != 1 || recs[0].Status != tc.want {
				t.Errorf("cited as %q: %+v, want %s", tc.linkText, recs, tc.want)
			}
		}
	})
}
