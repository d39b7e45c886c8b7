package engine

import (
	"context"
	"strings"
	"testing"

	"github.com/citegate/citegate/engine/simweb"
	"github.com/citegate/citegate/engine/verify"
)

// TestVerifyLooksUpTitleOnlyReferences: a reference-list entry with only
// authors, a year and a title is looked up in Crossref (query.bibliographic)
// and, found, verified against the work's page through its DOI; one that no
// registry knows is reported "unresolved: no such work found in …" with the
// candidates considered (a phantom reference). Before, both were skipped as
// "unresolvable_kind" without a lookup.
func TestVerifyLooksUpTitleOnlyReferences(t *testing.T) {
	w, err := simweb.Start(simweb.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	e := simEngine(w)
	e.Net.Registries = w.RegistryBases()
	e.Net.DOIResolver = w.RegistryBases().DOI
	out := []byte("Installed costs of grid-scale lithium-ion storage fell by 70 percent between 2014 and 2024 [1]. " +
		"Cold winters halve the life of electric bus batteries [2].\n\n## References\n\n" +
		"1. Okafor, N. and Lind, P. (2024). *Grid-scale storage costs: a ten-year review of lithium-ion deployments*. Simulated Energy Press.\n" +
		"2. Varga, T. (2023). Cold winters and the longevity of electric bus batteries. Journal of Transit Engineering.\n")
	res, err := e.Verify(context.Background(), out, verify.Args{Model: "lexical", AllowFetch: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Citations) != 2 {
		t.Fatalf("%d citations, want 2", len(res.Citations))
	}
	found, phantom := res.Citations[0], res.Citations[1]
	if found.ResolveStatus != "ok" || found.Source == nil || !strings.Contains(found.Source.URL, "10.5555/sim.2024.0101") || found.Judge == nil {
		t.Errorf("title-only reference [1]: status %s source %+v error %+v judge %+v; want resolved through its DOI and judged",
			found.ResolveStatus, found.Source, found.ResolveError, found.Judge)
	}
	if phantom.ResolveError == nil || phantom.ResolveError.Kind != verify.KindUnresolved ||
		!strings.HasPrefix(phantom.ResolveError.Message, "unresolved: no such work found in Crossref, OpenAlex (candidates: ") ||
		!strings.Contains(phantom.ResolveError.Message, "Field Measurements of Battery Degradation in Electric Buses") {
		t.Errorf("phantom reference [2]: %+v", phantom.ResolveError)
	}
	if w.Requests(simweb.CrossrefHost) != 2 || w.Requests(simweb.OpenAlexHost) != 1 {
		t.Errorf("Crossref asked %d times, OpenAlex %d: want one Crossref search each, OpenAlex only for the one Crossref did not find",
			w.Requests(simweb.CrossrefHost), w.Requests(simweb.OpenAlexHost))
	}
}
