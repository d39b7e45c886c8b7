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
	w, e := registryVerifyEngine(t)
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

// TestVerifyChecksCitedIdentifiers: a DOI cited inline or through a
// reference entry is asked at its registry first; one no registry holds is
// an unresolved (phantom) reference with the registry's words, a real one is
// fetched and judged, and one whose registry is down is left to the fetch.
func TestVerifyChecksCitedIdentifiers(t *testing.T) {
	_, e := registryVerifyEngine(t)
	out := []byte("Grid-scale lithium-ion storage costs fell over ten years (https://doi.org/10.5555/sim.2024.0101). " +
		"European gigafactories recycle most battery material [1]. " +
		"Another claim rests on a registry that is down (https://doi.org/10.59999/sim.down.1).\n\n## References\n\n" +
		"1. Doe, J. (2025). Battery recycling yields in European gigafactories. https://doi.org/10.5555/sim.2025.9999\n")
	res, err := e.Verify(context.Background(), out, verify.Args{Model: "lexical", AllowFetch: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Citations) != 3 {
		t.Fatalf("%d citations, want 3", len(res.Citations))
	}
	real, fabricated, down := res.Citations[0], res.Citations[1], res.Citations[2]
	if real.ResolveError != nil || real.Judge == nil {
		t.Errorf("registered DOI: error %+v judge %+v; want fetched and judged", real.ResolveError, real.Judge)
	}
	want := "unresolved: DOI 10.5555/sim.2025.9999 not registered at doi.org"
	if fabricated.ResolveError == nil || fabricated.ResolveError.Kind != verify.KindNotRegistered || fabricated.ResolveError.Message != want {
		t.Errorf("fabricated DOI in the reference list: %+v; want %s %q", fabricated.ResolveError, verify.KindNotRegistered, want)
	}
	// A phantom identifier is a finding: the document fails on it.
	if res.Passed == nil || *res.Passed || !strings.Contains(res.Reason, "1 not_registered") {
		t.Errorf("passed %v reason %q: want failed, naming the phantom DOI", res.Passed, res.Reason)
	}
	if down.ResolveError != nil && down.ResolveError.Kind == verify.KindUnresolved {
		t.Errorf("a DOI whose registry is down was called unresolved: %+v", down.ResolveError)
	}
}

// TestVerifyFindsSwappedReferenceDOIs: a reference entry whose DOI belongs
// to another work (the registry's title is clearly not the entry's) is a
// mismatch with the registry's words, not judged against the other work; an
// entry whose DOI is its own is fetched and judged.
func TestVerifyFindsSwappedReferenceDOIs(t *testing.T) {
	_, e := registryVerifyEngine(t)
	out := []byte("Grid-scale lithium-ion storage costs fell over ten years [1]. " +
		"Electric bus batteries degrade faster in fleets that run all day [2].\n\n## References\n\n" +
		"1. Okafor, N. and Lind, P. (2024). Grid-scale storage costs: a ten-year review of lithium-ion deployments. https://doi.org/10.5555/sim.2024.0101\n" +
		"2. Varga, T. (2023). Battery degradation in electric bus fleets. Journal of Transit Engineering. https://doi.org/10.5555/sim.2023.0042\n")
	res, err := e.Verify(context.Background(), out, verify.Args{Model: "lexical", AllowFetch: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Citations) != 2 {
		t.Fatalf("%d citations, want 2", len(res.Citations))
	}
	own, swapped := res.Citations[0], res.Citations[1]
	if own.ResolveError != nil || own.Judge == nil {
		t.Errorf("an entry with its own DOI: error %+v judge %+v; want fetched and judged", own.ResolveError, own.Judge)
	}
	if swapped.ResolveError == nil || swapped.ResolveError.Kind != verify.KindMismatch ||
		!strings.Contains(swapped.ResolveError.Message, "Urban Heat Islands and Tree Canopy Cover") || swapped.Judge != nil {
		t.Errorf("an entry whose DOI belongs to another work: %+v judge %+v; want %s naming the registry's title, not judged",
			swapped.ResolveError, swapped.Judge, verify.KindMismatch)
	}
	if res.Passed == nil || *res.Passed || !strings.Contains(res.Reason, "1 mismatch") {
		t.Errorf("passed %v reason %q: want failed, naming the swapped DOI", res.Passed, res.Reason)
	}
}

// TestVerifyEntryLabelledByPageTitleIsNoMismatch: an entry labelled the way
// agents label pages ("Grid-scale storage costs - Simulated Energy Press")
// shares only part of the registry's title: it is fetched and judged, not
// called a mismatch.
func TestVerifyEntryLabelledByPageTitleIsNoMismatch(t *testing.T) {
	_, e := registryVerifyEngine(t)
	out := []byte("Grid-scale lithium-ion storage costs fell over ten years [1].\n\n## References\n\n" +
		"1. Lithium-ion storage costs - Simulated Energy Press. https://doi.org/10.5555/sim.2024.0101\n")
	res, err := e.Verify(context.Background(), out, verify.Args{Model: "lexical", AllowFetch: true})
	if err != nil {
		t.Fatal(err)
	}
	if c := res.Citations[0]; c.ResolveError != nil || c.Judge == nil {
		t.Errorf("an entry labelled by its page title: error %+v judge %+v; want fetched and judged", c.ResolveError, c.Judge)
	}
}

// registryVerifyEngine is an engine on the simulated web whose registries
// and DOI resolver are the simulated ones; the web closes with t.
func registryVerifyEngine(t *testing.T) (*simweb.Web, *Engine) {
	t.Helper()
	w, err := simweb.Start(simweb.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Close)
	e := simEngine(w)
	e.Net.Registries = w.RegistryBases()
	e.Net.DOIResolver = w.RegistryBases().DOI
	return w, e
}
