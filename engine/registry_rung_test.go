package engine

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/citegate/citegate/engine/simweb"
	"github.com/citegate/citegate/netguard"
)

// registryRun builds an online run citing every simulated registry
// scenario at tier.
func registryRun(t *testing.T, scs []simweb.RegistryScenario, tier string) testRun {
	t.Helper()
	return registryRunAs(t, scs, tier, "normal")
}

// registryRunAs is registryRun with the manifest's sensitivity.
func registryRunAs(t *testing.T, scs []simweb.RegistryScenario, tier, sensitivity string) testRun {
	t.Helper()
	var src strings.Builder
	src.WriteString("# Perspective scholarly\n\n## Sources\n\n")
	for _, sc := range scs {
		fmt.Fprintf(&src, "- [%s](%s)\n", sc.LinkText, sc.URL)
	}
	return newRun(t, runSpec{RunID: "RUN", Sensitivity: sensitivity, Files: map[string]string{
		"wave-1/scholarly.md": src.String(),
		"run-config.json": `{"schema_version":"run_config.v1","run_id":"RUN","effective":{"citations":` +
			`{"mode":"online","validation_tier":"` + tier + `","endpoints":{"brightdata":null,"apify":null}}}}`,
	}})
}

// TestRegistryRungAgainstSimulatedRegistries runs the pipeline over the
// simulated registries at the standard tier: every scholarly scenario gets
// its status from the registry rung, with the registry's title and the
// registry named in the notes, and no publisher page is fetched.
func TestRegistryRungAgainstSimulatedRegistries(t *testing.T) {
	w, err := simweb.Start(simweb.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	scs := simweb.RegistryScenarios()
	r := registryRun(t, scs, simweb.TierStandard)
	e := simEngine(w)
	e.Net.Registries = w.RegistryBases()
	e.Net.Contact = "ops@example.org"
	if _, err := e.Run(context.Background(), RunArgs{ManifestPath: r.Manifest}, nil); err != nil {
		t.Fatal(err)
	}
	byURL := map[string]Citation{}
	for _, c := range readCitationLines(t, r.cit("citations.jsonl")) {
		byURL[c.URLOriginal] = c
	}
	for _, sc := range scs {
		c, ok := byURL[sc.URL]
		if !ok {
			for k, v := range byURL {
				if strings.EqualFold(k, sc.URL) {
					c, ok = v, true
				}
			}
		}
		if !ok {
			t.Errorf("%s: no record for %s", sc.Name, sc.URL)
			continue
		}
		if string(c.Status) != sc.Want {
			t.Errorf("%s: status %s, want %s (notes %q)", sc.Name, c.Status, sc.Want, c.Notes)
		}
		if !strings.Contains(c.Notes, "online ladder: registry") {
			t.Errorf("%s: not settled by the registry: %q", sc.Name, c.Notes)
		}
		if c.Status != StatusInvalid && c.Title == "" {
			t.Errorf("%s: no registry title recorded", sc.Name)
		}
	}
	for _, want := range []struct{ name, note string }{
		{"doi-fabricated", "not registered at doi.org"},
		{"doi-swapped", "belongs to \"Urban Heat Islands"},
		{"doi-retracted", "retracted: Crossref lists retraction"},
		{"arxiv-withdrawn", "withdrawn"},
		{"doi-datacite", "found in DataCite"},
	} {
		for _, sc := range scs {
			if sc.Name == want.name {
				if c := byURL[strings.ToLower(sc.URL)]; !strings.Contains(byURL[sc.URL].Notes+c.Notes, want.note) {
					t.Errorf("%s: notes %q lack %q", sc.Name, byURL[sc.URL].Notes+c.Notes, want.note)
				}
			}
		}
	}
	// One batched arXiv request and one esummary request for the run.
	if n := w.Requests(simweb.ArXivHost); n != 1 {
		t.Errorf("arXiv export API got %d requests, want 1 (id_list batch)", n)
	}
	if n := w.Requests(simweb.PubMedHost); n != 1 {
		t.Errorf("esummary got %d requests, want 1", n)
	}
}

// TestRegistryDownNeverInvalid: a DOI whose registries all fail leaves the
// citation to the ordinary ladder (the page itself is fine: valid), with
// a note saying the registry was unavailable.
func TestRegistryDownNeverInvalid(t *testing.T) {
	w, err := simweb.Start(simweb.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	w.AddHost("papers.example.sim", 1)
	scs := []simweb.RegistryScenario{{Name: "down", URL: w.URL("papers.example.sim", "/a/0"),
		LinkText: simweb.SyntheticTitle("papers.example.sim", 0) + ", doi:10.59999/sim.down.1", Want: "valid"}}
	r := registryRun(t, scs, simweb.TierStandard)
	e := simEngine(w)
	e.GuardOptions = w.GuardOptions()
	e.Net.Registries = w.RegistryBases()
	if _, err := e.Run(context.Background(), RunArgs{ManifestPath: r.Manifest}, nil); err != nil {
		t.Fatal(err)
	}
	c := readCitationLines(t, r.cit("citations.jsonl"))[0]
	if c.Status != StatusValid || !strings.Contains(c.Notes, "online ladder: direct_fetch") ||
		!strings.Contains(c.Notes, "registry unavailable: doi.org: HTTP 503") && !strings.Contains(c.Notes, "registry unavailable") {
		t.Errorf("status %s notes %q: want valid from the direct fetch with a registry-unavailable note", c.Status, c.Notes)
	}
	if w.Requests(simweb.CrossrefHost) == 0 {
		t.Error("Crossref was not asked")
	}
}

// TestRegistryPoliteness: registry requests carry the operator's contact
// in the User-Agent and Crossref's mailto, a 429 pauses the host and is
// tried again (Retry-After honoured), and the answer then decides.
func TestRegistryPoliteness(t *testing.T) {
	var mu sync.Mutex
	var uas, queries []string
	crossref := 0
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		mu.Lock()
		uas, queries = append(uas, r.UserAgent()), append(queries, r.URL.RawQuery)
		mu.Unlock()
		switch {
		case strings.HasPrefix(r.URL.Path, "/api/handles/"):
			_, _ = io.WriteString(rw, `{"responseCode":1,"handle":"10.5555/p"}`)
		case strings.HasPrefix(r.URL.Path, "/works/"):
			mu.Lock()
			crossref++
			first := crossref == 1
			mu.Unlock()
			rw.Header().Set("X-Rate-Limit-Limit", "50")
			rw.Header().Set("X-Rate-Limit-Interval", "1s")
			if first {
				rw.Header().Set("Retry-After", "1")
				rw.WriteHeader(http.StatusTooManyRequests)
				return
			}
			_, _ = io.WriteString(rw, `{"status":"ok","message":{"title":["Polite pools and patient clients"],"publisher":"Example"}}`)
		default:
			http.NotFound(rw, r)
		}
	}))
	defer srv.Close()
	port := srv.Listener.Addr().(*net.TCPAddr).Port
	lo := netip.MustParseAddr("127.0.0.1")
	r := registryRun(t, []simweb.RegistryScenario{{URL: "https://doi.org/10.5555/p", LinkText: "Polite pools and patient clients"}}, simweb.TierStandard)
	e := newEngine()
	e.GuardOptions = []netguard.Option{netguard.AllowCIDR(netip.PrefixFrom(lo, 32)), netguard.AllowPorts(port),
		netguard.Pin("doi.registry.test", port, lo), netguard.Pin("api.crossref.test", port, lo)}
	base := func(h string) string { return "http://" + h + ":" + strconv.Itoa(port) }
	e.Net = Network{Getenv: func(k string) string {
		return map[string]string{"CITEGATE_CONTACT_EMAIL": "ops@example.org", "CITEGATE_DOI_BASE": base("doi.registry.test"),
			"CITEGATE_CROSSREF_BASE": base("api.crossref.test")}[k]
	}, HostInterval: 0}
	start := time.Now()
	if _, err := e.Run(context.Background(), RunArgs{ManifestPath: r.Manifest}, nil); err != nil {
		t.Fatal(err)
	}
	c := readCitationLines(t, r.cit("citations.jsonl"))[0]
	if c.Status != StatusValid || c.Title != "Polite pools and patient clients" || !strings.Contains(c.Notes, "found in Crossref") {
		t.Errorf("status %s title %q notes %q", c.Status, c.Title, c.Notes)
	}
	if crossref != 2 || time.Since(start) < time.Second {
		t.Errorf("Crossref asked %d times in %s: want the 429 honoured (Retry-After 1 s) and asked again", crossref, time.Since(start))
	}
	for i, ua := range uas {
		if !strings.Contains(ua, "mailto:ops@example.org") {
			t.Errorf("request %d User-Agent %q lacks the contact", i, ua)
		}
	}
	if !slices.Contains(queries, "mailto=ops@example.org") {
		t.Errorf("no Crossref request carried mailto: %q", queries)
	}
}

// TestRegistryNotAskedInRestrictedRuns: a registry is a third party, so a
// restricted run never sends it an identifier.
func TestRegistryNotAskedInRestrictedRuns(t *testing.T) {
	w, err := simweb.Start(simweb.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	scs := simweb.RegistryScenarios()[:2]
	r := registryRunAs(t, scs, simweb.TierStandard, "restricted")
	e := simEngine(w)
	e.Net.Registries = w.RegistryBases()
	if _, err := e.Run(context.Background(), RunArgs{ManifestPath: r.Manifest}, nil); err != nil {
		t.Fatal(err)
	}
	for _, h := range []string{simweb.DOIHost, simweb.CrossrefHost} {
		if n := w.Requests(h); n != 0 {
			t.Errorf("%s got %d requests from a restricted run", h, n)
		}
	}
}

// TestRegistryAtThoroughTier: at the thorough tier a registered work's
// page is fetched too: a readable page decides (with the registry's note),
// a walled one leaves the registry's valid; a fabricated DOI is settled by
// the registry without fetching the page.
func TestRegistryAtThoroughTier(t *testing.T) {
	w, err := simweb.Start(simweb.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	w.AddHost("papers.example.sim", 1)
	var walled simweb.Scenario
	for _, sc := range w.Catalogue() {
		if sc.Name == "anubis-401" {
			walled = sc
		}
	}
	const title = "Grid-scale storage costs: a ten-year review of lithium-ion deployments"
	scs := []simweb.RegistryScenario{
		{Name: "readable", URL: w.URL("papers.example.sim", "/a/0"), LinkText: title + ", doi:10.5555/sim.2024.0101"},
		{Name: "walled", URL: walled.URL, LinkText: title + " doi:10.5555/sim.2024.0101"},
		{Name: "fabricated", URL: w.URL("papers.example.sim", "/a/9"), LinkText: "Battery recycling yields, doi:10.5555/sim.2025.9999"},
	}
	r := registryRun(t, scs, simweb.TierThorough)
	e := simEngine(w)
	e.Net.Registries = w.RegistryBases()
	e.Net.Getenv = func(string) string { return "" } // no provider: a wall stays blocked
	if _, err := e.Run(context.Background(), RunArgs{ManifestPath: r.Manifest}, nil); err != nil {
		t.Fatal(err)
	}
	byURL := map[string]Citation{}
	for _, c := range readCitationLines(t, r.cit("citations.jsonl")) {
		byURL[c.URLOriginal] = c
	}
	for _, want := range []struct {
		url    string
		status Status
		notes  []string
	}{
		{scs[0].URL, StatusValid, []string{"online ladder: direct_fetch", "found in Crossref; title agrees"}},
		{scs[1].URL, StatusValid, []string{"online ladder: registry", "publisher page blocked"}},
		{scs[2].URL, StatusInvalid, []string{"not registered at doi.org"}},
	} {
		c := byURL[want.url]
		if c.Status != want.status {
			t.Errorf("%s: %s, want %s (notes %q)", want.url, c.Status, want.status, c.Notes)
		}
		for _, n := range want.notes {
			if !strings.Contains(c.Notes, n) {
				t.Errorf("%s: notes %q lack %q", want.url, c.Notes, n)
			}
		}
	}
	if n := w.Requests("papers.example.sim"); n != 1 {
		t.Errorf("the article host got %d requests, want 1 (the fabricated DOI's page is not fetched)", n)
	}
}

// TestRegistryMirrorOnLoopback: the operator's registry bases (a mirror on
// 127.0.0.1 or localhost, any port) are reached with no allow rule at all,
// while a wave citing the mirror's own URL is still refused as a private
// target (the reference's "private/local target blocked"): the trust lives in the registry's guard only.
func TestRegistryMirrorOnLoopback(t *testing.T) {
	var mu sync.Mutex
	var paths []string
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		mu.Lock()
		paths = append(paths, r.URL.Path)
		mu.Unlock()
		switch {
		case strings.HasPrefix(r.URL.Path, "/api/handles/"):
			_, _ = io.WriteString(rw, `{"responseCode":1,"handle":"10.5555/m"}`)
		case strings.HasPrefix(r.URL.Path, "/works/"):
			_, _ = io.WriteString(rw, `{"status":"ok","message":{"title":["Mirrors near the operator"],"publisher":"Example"}}`)
		default:
			http.NotFound(rw, r)
		}
	}))
	defer srv.Close()
	port := strconv.Itoa(srv.Listener.Addr().(*net.TCPAddr).Port)
	cited := "http://127.0.0.1:" + port + "/works/cited-directly"
	r := registryRun(t, []simweb.RegistryScenario{
		{URL: "https://doi.org/10.5555/m", LinkText: "Mirrors near the operator"},
		{URL: cited, LinkText: "The mirror itself"},
	}, simweb.TierStandard)
	e := newEngine() // no allow rule: the default guard
	e.Net = Network{Getenv: func(k string) string {
		return map[string]string{"CITEGATE_DOI_BASE": "http://localhost:" + port,
			"CITEGATE_CROSSREF_BASE": "http://127.0.0.1:" + port}[k]
	}, HostInterval: 0}
	if _, err := e.Run(context.Background(), RunArgs{ManifestPath: r.Manifest}, nil); err != nil {
		t.Fatal(err)
	}
	for _, c := range readCitationLines(t, r.cit("citations.jsonl")) {
		switch c.NormalizedURL {
		case "https://doi.org/10.5555/m":
			if c.Status != StatusValid || !strings.Contains(c.Notes, "found in Crossref") {
				t.Errorf("DOI through the loopback mirror: status %s notes %q", c.Status, c.Notes)
			}
		default:
			if !strings.Contains(c.Notes, "private/local target blocked") {
				t.Errorf("the mirror cited by a wave: status %s notes %q, want the private-target refusal", c.Status, c.Notes)
			}
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if slices.Contains(paths, "/works/cited-directly") {
		t.Errorf("a cited URL reached the operator's mirror: %q", paths)
	}
}
