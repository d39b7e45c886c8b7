package simweb

import (
	"encoding/json"
	"encoding/xml"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/citegate/citegate/engine/registry"
)

// Host names of the simulated scholarly registries. Each answers in its
// real API's format: the doi.org handle API, Crossref's REST API,
// DataCite's JSON:API, arXiv's export API (Atom) and E-utilities esummary
// (JSON). Point the registry rung at them with RegistryBases.
const (
	DOIHost      = "doi.registry.sim"
	CrossrefHost = "api.crossref.sim"
	DataCiteHost = "api.datacite.sim"
	ArXivHost    = "export.arxiv.sim"
	PubMedHost   = "eutils.ncbi.sim"
	OpenAlexHost = "api.openalex.sim"
)

// registryHosts lists the simulated registry hosts.
var registryHosts = []string{DOIHost, CrossrefHost, DataCiteHost, ArXivHost, PubMedHost, OpenAlexHost}

// simWork is a work the simulated registries know. The titles are made
// up for the simulation.
type simWork struct {
	id        registry.ID
	title     string
	publisher string
	agency    string // "crossref" or "datacite" for DOIs
	retracted string // Crossref updated-by type, or arXiv withdrawal comment
	pubtypes  []string
	abstract  string
}

// simWorks are the registered works. 10.59999/… DOIs are registered but
// every metadata API fails for them (a registry that is down).
var simWorks = []simWork{
	{id: registry.ID{Kind: registry.DOI, Value: "10.5555/sim.2024.0101"}, title: "Grid-Scale Storage Costs: A Ten-Year Review of Lithium-Ion Deployments",
		publisher: "Simulated Energy Press", agency: "crossref",
		abstract: "Installed costs of grid-scale lithium-ion storage fell by 70 percent between 2014 and 2024 across the deployments reviewed."},
	{id: registry.ID{Kind: registry.DOI, Value: "10.5555/sim.2023.0042"}, title: "Urban Heat Islands and Tree Canopy Cover in Mid-Sized Cities",
		publisher: "Simulated Urban Studies Society", agency: "crossref"},
	{id: registry.ID{Kind: registry.DOI, Value: "10.5555/sim.2022.0777"}, title: "Sodium-Ion Cathodes With Layered Oxide Structures",
		publisher: "Simulated Energy Press", agency: "crossref", retracted: "retraction"},
	{id: registry.ID{Kind: registry.DOI, Value: "10.5061/sim.dryad.7x1"}, title: "Field Measurements of Battery Degradation in Electric Buses",
		publisher: "Simulated Data Repository", agency: "datacite"},
	{id: registry.ID{Kind: registry.DOI, Value: "10.59999/sim.down.1"}, agency: "down"},
	{id: registry.ID{Kind: registry.ArXiv, Value: "2401.01234"}, title: "Sparse Mixture Models for Charging Demand Forecasting",
		publisher: "arXiv"},
	{id: registry.ID{Kind: registry.ArXiv, Value: "2302.04567"}, title: "A Withdrawn Study of Solid-State Electrolytes",
		publisher: "arXiv", retracted: "This paper has been withdrawn by the author due to an error in Section 3."},
	{id: registry.ID{Kind: registry.PubMed, Value: "31234567"}, title: "Air Pollution Exposure Near Charging Depots: A Cohort Study.",
		publisher: "Simulated Journal of Environmental Health", pubtypes: []string{"Journal Article"}},
}

func findWork(kind registry.Kind, v string) *simWork {
	for i := range simWorks {
		if simWorks[i].id.Kind == kind && simWorks[i].id.Value == strings.ToLower(v) {
			return &simWorks[i]
		}
	}
	return nil
}

// RegistryBases are the simulated registries' base URLs.
func (w *Web) RegistryBases() registry.Bases {
	return registry.Bases{DOI: w.base(DOIHost), Crossref: w.base(CrossrefHost), DataCite: w.base(DataCiteHost),
		ArXiv: w.base(ArXivHost), PubMed: w.base(PubMedHost), OpenAlex: w.base(OpenAlexHost)}
}

// RegistryScenario is a scholarly citation and what the registry rung must
// conclude at the standard tier.
type RegistryScenario struct {
	Name, URL, LinkText, Want string
}

// RegistryScenarios are the scripted scholarly citations: a real work, a
// fabricated DOI, a swapped DOI, a DataCite DOI, a retracted work, a
// withdrawn arXiv paper, a fabricated arXiv id and a PubMed record.
func RegistryScenarios() []RegistryScenario {
	return []RegistryScenario{
		{"doi-real", "https://doi.org/10.5555/sim.2024.0101", "Grid-scale storage costs: a ten-year review of lithium-ion deployments", valid},
		{"doi-fabricated", "https://doi.org/10.5555/sim.2025.9999", "Battery recycling yields in European gigafactories", invalid},
		{"doi-swapped", "https://doi.org/10.5555/sim.2023.0042", "Battery degradation in electric bus fleets", mismatch},
		{"doi-datacite", "https://doi.org/10.5061/SIM.DRYAD.7X1", "Field measurements of battery degradation in electric buses", valid},
		{"doi-retracted", "https://dx.doi.org/10.5555/sim.2022.0777", "Sodium-ion cathodes with layered oxide structures", valid},
		{"arxiv-real", "https://arxiv.org/abs/2401.01234v2", "Sparse mixture models for charging demand forecasting", valid},
		{"arxiv-withdrawn", "https://arxiv.org/pdf/2302.04567", "A withdrawn study of solid-state electrolytes", valid},
		{"arxiv-fabricated", "https://arxiv.org/abs/2405.99999", "Transformer models for grid frequency control", invalid},
		{"pubmed-real", "https://pubmed.ncbi.nlm.nih.gov/31234567/", "Air pollution exposure near charging depots", valid},
	}
}

// serveRegistry answers a request to a simulated registry host.
func (w *Web) serveRegistry(rw http.ResponseWriter, r *http.Request, host string) {
	switch host {
	case DOIHost:
		serveHandle(rw, r)
	case CrossrefHost:
		if r.URL.Path == "/works" {
			serveCrossrefSearch(rw, r)
			return
		}
		serveCrossref(rw, r)
	case OpenAlexHost:
		serveOpenAlexSearch(rw, r)
	case DataCiteHost:
		serveDataCite(rw, r)
	case ArXivHost:
		serveArXiv(rw, r)
	case PubMedHost:
		serveESummary(rw, r)
	default:
		plain(rw, http.StatusNotFound, "not found")
	}
}

func writeJSON(rw http.ResponseWriter, status int, ctype string, v any) {
	rw.Header().Set("Content-Type", ctype)
	rw.WriteHeader(status)
	_ = json.NewEncoder(rw).Encode(v)
}

// serveHandle is the doi.org handle API: /api/handles/{doi}; any other
// path /{doi} is the DOI's landing page (a resolver that ends at the
// publisher's article).
func serveHandle(rw http.ResponseWriter, r *http.Request) {
	doi, ok := strings.CutPrefix(r.URL.Path, "/api/handles/")
	if !ok {
		wk := findWork(registry.DOI, strings.TrimPrefix(r.URL.Path, "/"))
		if wk == nil || wk.title == "" {
			writeHTML(rw, http.StatusNotFound, notFoundPage("Simulated resolver").html(""))
			return
		}
		a := &article{SiteName: wk.publisher, Headline: wk.title, Description: "Abstract of " + wk.title + ".", Author: "A. Author",
			Published: "2024-01-01", Type: "ScholarlyArticle", Paragraphs: []string{"Abstract. " + wk.abstract,
				"This simulated article reports its findings in full for the demonstration of registry checks and claim verification."}}
		writeHTML(rw, http.StatusOK, a.html(""))
		return
	}
	if findWork(registry.DOI, doi) == nil {
		writeJSON(rw, http.StatusNotFound, "application/json;charset=UTF-8", map[string]any{"responseCode": 100, "handle": doi})
		return
	}
	writeJSON(rw, http.StatusOK, "application/json;charset=UTF-8", map[string]any{"responseCode": 1, "handle": doi,
		"values": []any{map[string]any{"index": 1, "type": "URL", "data": map[string]any{"format": "string",
			"value": "https://publisher.example/" + doi}, "ttl": 86400, "timestamp": "2024-01-01T00:00:00Z"}}})
}

// serveCrossref is Crossref's /works/{doi}, with its rate-limit headers.
func serveCrossref(rw http.ResponseWriter, r *http.Request) {
	rw.Header().Set("X-Rate-Limit-Limit", "50")
	rw.Header().Set("X-Rate-Limit-Interval", "1s")
	doi, _ := strings.CutPrefix(r.URL.Path, "/works/")
	wk := findWork(registry.DOI, doi)
	switch {
	case wk != nil && wk.agency == "down":
		plain(rw, http.StatusServiceUnavailable, "Service Unavailable")
		return
	case wk == nil || wk.agency != "crossref":
		plain(rw, http.StatusNotFound, "Resource not found.")
		return
	}
	msg := map[string]any{"DOI": wk.id.Value, "title": []string{wk.title}, "publisher": wk.publisher, "type": "journal-article",
		"prefix": strings.SplitN(wk.id.Value, "/", 2)[0], "member": "99999"}
	if wk.retracted != "" {
		msg["updated-by"] = []any{map[string]any{"DOI": wk.id.Value + ".retraction", "type": wk.retracted, "label": "Retraction",
			"source": "retraction-watch"}}
	}
	writeJSON(rw, http.StatusOK, "application/json", map[string]any{"status": "ok", "message-type": "work",
		"message-version": "1.0.0", "message": msg})
}

// serveDataCite is DataCite's JSON:API /dois/{doi}.
func serveDataCite(rw http.ResponseWriter, r *http.Request) {
	doi, _ := strings.CutPrefix(r.URL.Path, "/dois/")
	wk := findWork(registry.DOI, doi)
	switch {
	case wk != nil && wk.agency == "down":
		writeJSON(rw, http.StatusServiceUnavailable, "application/vnd.api+json", map[string]any{"errors": []any{
			map[string]any{"status": "503", "title": "Service unavailable"}}})
		return
	case wk == nil || wk.agency != "datacite":
		writeJSON(rw, http.StatusNotFound, "application/vnd.api+json", map[string]any{"errors": []any{
			map[string]any{"status": "404", "title": "The resource you are looking for doesn't exist."}}})
		return
	}
	writeJSON(rw, http.StatusOK, "application/vnd.api+json", map[string]any{"data": map[string]any{"id": wk.id.Value,
		"type": "dois", "attributes": map[string]any{"doi": wk.id.Value, "titles": []any{map[string]any{"title": wk.title}},
			"publisher": wk.publisher, "state": "findable"}}})
}

// atomEntry and atomOut render the export API's feed.
type atomEntry struct {
	ID      string `xml:"id"`
	Title   string `xml:"title"`
	Summary string `xml:"summary"`
	Comment string `xml:"arxiv:comment,omitempty"`
}

type atomOut struct {
	XMLName xml.Name    `xml:"feed"`
	NS      string      `xml:"xmlns,attr"`
	ArXivNS string      `xml:"xmlns:arxiv,attr"`
	Title   string      `xml:"title"`
	Entries []atomEntry `xml:"entry"`
}

// serveArXiv is the export API's /api/query?id_list=…: one entry per id
// it knows; an id it does not know gets no entry.
func serveArXiv(rw http.ResponseWriter, r *http.Request) {
	feed := atomOut{NS: "http://www.w3.org/2005/Atom", ArXivNS: "http://arxiv.org/schemas/atom", Title: "arXiv Query: " + r.URL.RawQuery}
	for _, id := range strings.Split(r.URL.Query().Get("id_list"), ",") {
		wk := findWork(registry.ArXiv, id)
		if wk == nil {
			continue
		}
		e := atomEntry{ID: "http://arxiv.org/abs/" + wk.id.Value + "v1", Title: wk.title, Summary: "Simulated abstract."}
		if wk.retracted != "" {
			e.Comment = wk.retracted
		}
		feed.Entries = append(feed.Entries, e)
	}
	rw.Header().Set("Content-Type", "application/atom+xml; charset=utf-8")
	_, _ = rw.Write([]byte(xml.Header))
	_ = xml.NewEncoder(rw).Encode(feed)
}

// serveESummary is E-utilities esummary.fcgi?db=pubmed&id=…&retmode=json.
func serveESummary(rw http.ResponseWriter, r *http.Request) {
	q, _ := url.ParseQuery(r.URL.RawQuery)
	result := map[string]any{}
	var uids []string
	for _, id := range strings.Split(q.Get("id"), ",") {
		uids = append(uids, id)
		wk := findWork(registry.PubMed, id)
		if wk == nil || q.Get("db") != "pubmed" {
			result[id] = map[string]any{"uid": id, "error": "cannot get document summary"}
			continue
		}
		result[id] = map[string]any{"uid": id, "title": wk.title, "fulljournalname": wk.publisher, "source": "Sim Environ Health",
			"pubtype": wk.pubtypes}
	}
	result["uids"] = uids
	writeJSON(rw, http.StatusOK, "application/json; charset=UTF-8", map[string]any{
		"header": map[string]any{"type": "esummary", "version": "0.3"}, "result": result})
}

// searchHits are the simulated works whose titles share a word with q,
// most shared words first (a stand-in for a search engine's ranking).
func searchHits(q string) []*simWork {
	words := map[string]bool{}
	for _, w := range strings.Fields(strings.ToLower(q)) {
		words[strings.Trim(w, ".,:;()\"'")] = true
	}
	type hit struct {
		w *simWork
		n int
	}
	var hits []hit
	for i := range simWorks {
		wk := &simWorks[i]
		if wk.id.Kind != registry.DOI || wk.title == "" {
			continue
		}
		n := 0
		for _, w := range strings.Fields(strings.ToLower(wk.title)) {
			if len(w) > 3 && words[strings.Trim(w, ".,:;()")] {
				n++
			}
		}
		if n > 0 {
			hits = append(hits, hit{wk, n})
		}
	}
	slices.SortStableFunc(hits, func(a, b hit) int { return b.n - a.n })
	out := make([]*simWork, len(hits))
	for i, h := range hits {
		out[i] = h.w
	}
	return out
}

// serveCrossrefSearch is Crossref's /works?query.bibliographic=….
func serveCrossrefSearch(rw http.ResponseWriter, r *http.Request) {
	var items []any
	for _, wk := range searchHits(r.URL.Query().Get("query.bibliographic")) {
		items = append(items, map[string]any{"DOI": wk.id.Value, "title": []string{wk.title}, "score": 20.5})
	}
	writeJSON(rw, http.StatusOK, "application/json", map[string]any{"status": "ok", "message-type": "work-list",
		"message-version": "1.0.0", "message": map[string]any{"total-results": len(items), "items": items, "items-per-page": 5}})
}

// serveOpenAlexSearch is OpenAlex's /works?search=….
func serveOpenAlexSearch(rw http.ResponseWriter, r *http.Request) {
	results := []any{}
	for _, wk := range searchHits(r.URL.Query().Get("search")) {
		results = append(results, map[string]any{"id": "https://openalex.org/W1", "doi": "https://doi.org/" + wk.id.Value, "display_name": wk.title})
	}
	writeJSON(rw, http.StatusOK, "application/json", map[string]any{"meta": map[string]any{"count": len(results)}, "results": results})
}
