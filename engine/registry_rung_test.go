package engine

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/citegate/citegate/engine/simweb"
)

// registryRun builds an online run citing every simulated registry
// scenario at tier.
func registryRun(t *testing.T, scs []simweb.RegistryScenario, tier string) testRun {
	t.Helper()
	var src strings.Builder
	src.WriteString("# Perspective scholarly\n\n## Sources\n\n")
	for _, sc := range scs {
		fmt.Fprintf(&src, "- [%s](%s)\n", sc.LinkText, sc.URL)
	}
	return newRun(t, runSpec{RunID: "RUN", Sensitivity: "normal", Files: map[string]string{
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
