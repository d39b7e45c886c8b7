package registry

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
)

// fakeRegistries answers registry URLs from a table, in each API's format;
// an URL not in the table answers what the registry says of an unknown id.
type fakeRegistries struct {
	answers map[string]*Response
	down    bool
	asked   []string
}

func (f *fakeRegistries) get(_ context.Context, url, _ string) (*Response, error) {
	f.asked = append(f.asked, url)
	if f.down {
		return nil, errors.New("dial tcp: connection refused")
	}
	if r, ok := f.answers[url]; ok {
		return r, nil
	}
	switch {
	case strings.Contains(url, "/api/handles/"):
		return &Response{Status: 404, Body: []byte(`{"responseCode":100,"handle":"x"}`)}, nil
	case strings.Contains(url, "/works/"):
		return &Response{Status: 404, Body: []byte("Resource not found.")}, nil
	case strings.Contains(url, "/dois/"):
		return &Response{Status: 404, Body: []byte(`{"errors":[{"status":"404","title":"The resource you are looking for doesn't exist."}]}`)}, nil
	}
	return &Response{Status: 500}, nil
}

func ok(body string) *Response { return &Response{Status: http.StatusOK, Body: []byte(body)} }

const handleFound = `{"responseCode":1,"handle":"10.1000/a","values":[{"index":1,"type":"URL","data":{"format":"string","value":"https://example.org/a"}}]}`

func testClient(f *fakeRegistries) *Client {
	return &Client{Bases: BasesFromEnv(Bases{}, nil), Contact: "ops@example.org", Get: f.get}
}

func TestLookupDOI(t *testing.T) {
	f := &fakeRegistries{answers: map[string]*Response{
		"https://doi.org/api/handles/10.1000/a": ok(handleFound),
		"https://api.crossref.org/works/10.1000/a?mailto=ops@example.org": ok(`{"status":"ok","message-type":"work","message":{` +
			`"title":["Tidal <i>Energy</i> Arrays"],"publisher":"Example Press","container-title":["Journal of Examples"],` +
			`"updated-by":[{"DOI":"10.1000/a.r","type":"retraction","label":"Retraction"}]}}`),
		"https://doi.org/api/handles/10.5061/b": ok(handleFound),
		"https://api.datacite.org/dois/10.5061/b": ok(`{"data":{"id":"10.5061/b","type":"dois","attributes":{"titles":[` +
			`{"title":"Subtitle first","titleType":"Subtitle"},{"title":"Bus battery field data"}],"publisher":{"name":"Example Repository"}}}}`),
		"https://doi.org/api/handles/10.9999/c": ok(handleFound),
	}}
	c := testClient(f)
	a := c.LookupDOI(context.Background(), "10.1000/a")
	if !a.Found || a.Work.Title != "Tidal Energy Arrays" || a.Work.Registry != "Crossref" || a.Work.Venue != "Journal of Examples" ||
		!strings.HasPrefix(a.Work.Retracted, "retracted:") || a.Requests != 2 {
		t.Errorf("Crossref DOI: %+v", a)
	}
	a = c.LookupDOI(context.Background(), "10.5061/b")
	if !a.Found || a.Work.Title != "Bus battery field data" || a.Work.Publisher != "Example Repository" || a.Work.Registry != "DataCite" || a.Requests != 3 {
		t.Errorf("DataCite DOI: %+v", a)
	}
	a = c.LookupDOI(context.Background(), "10.9999/c") // another agency
	if !a.Found || a.Work.Title != "" || a.Work.Registry != "doi.org" {
		t.Errorf("other agency DOI: %+v", a)
	}
	a = c.LookupDOI(context.Background(), "10.1000/nope")
	if a.Found || a.Err != nil || a.NotFoundBy != "doi.org" || a.Requests != 1 {
		t.Errorf("unregistered DOI: %+v", a)
	}
	f.down = true
	a = c.LookupDOI(context.Background(), "10.1000/a")
	if a.Found || a.Err == nil || !errors.Is(a.Err, ErrUnavailable) {
		t.Errorf("registries down: %+v", a)
	}
}

// A handle API that is down does not make a DOI Crossref holds unknown,
// and a 5xx from it is not "not registered".
func TestLookupDOIHandleDown(t *testing.T) {
	f := &fakeRegistries{answers: map[string]*Response{
		"https://doi.org/api/handles/10.1000/a":    {Status: 503},
		"https://api.crossref.org/works/10.1000/a": ok(`{"status":"ok","message":{"title":["A title here"]}}`),
		"https://doi.org/api/handles/10.1000/z":    {Status: 503},
	}}
	c := testClient(f)
	c.Contact = ""
	if a := c.LookupDOI(context.Background(), "10.1000/a"); !a.Found || a.Work.Title != "A title here" {
		t.Errorf("handle down, Crossref up: %+v", a)
	}
	if a := c.LookupDOI(context.Background(), "10.1000/z"); a.Err == nil {
		t.Errorf("handle down, no metadata: %+v, want unavailable (never invalid)", a)
	}
}

const atomHead = `<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/" xmlns:arxiv="http://arxiv.org/schemas/atom" xmlns="http://www.w3.org/2005/Atom">
<opensearch:totalResults>2</opensearch:totalResults>`

func TestLookupArXivBatch(t *testing.T) {
	f := &fakeRegistries{answers: map[string]*Response{
		"https://export.arxiv.org/api/query?id_list=2101.00001%2Cmath%2F0501001%2C2101.99999&max_results=3": ok(atomHead + `
<entry><id>http://arxiv.org/abs/2101.00001v3</id><title>Graph
  Sparsifiers Revisited</title><summary>We revisit.</summary></entry>
<entry><id>http://arxiv.org/abs/math/0501001v1</id><title>On old identifiers</title><summary>This paper has been withdrawn by the author.</summary>
<arxiv:comment>withdrawn</arxiv:comment></entry>
</feed>`),
	}}
	got := testClient(f).LookupArXiv(context.Background(), []string{"2101.00001", "math/0501001", "2101.99999"})
	if a := got["2101.00001"]; !a.Found || a.Work.Title != "Graph Sparsifiers Revisited" || a.Requests != 1 {
		t.Errorf("2101.00001: %+v", a)
	}
	if a := got["math/0501001"]; !a.Found || !strings.HasPrefix(a.Work.Retracted, "withdrawn") || a.Requests != 0 {
		t.Errorf("math/0501001: %+v", a)
	}
	if a := got["2101.99999"]; a.Found || a.Err != nil || a.NotFoundBy != "arXiv" {
		t.Errorf("2101.99999: %+v", a)
	}
	if len(f.asked) != 1 {
		t.Errorf("%d requests, want one id_list batch", len(f.asked))
	}
}

// A 400 for a batch (one id the API calls malformed) is asked again id by
// id; the malformed one is not found, the others answered.
func TestLookupArXivBadIDInBatch(t *testing.T) {
	bad := &Response{Status: 400, Body: []byte(atomHead + `<entry><id>https://arxiv.org/api/errors#incorrect_id_format_for_0000.00000</id><title>Error</title></entry></feed>`)}
	f := &fakeRegistries{answers: map[string]*Response{
		"https://export.arxiv.org/api/query?id_list=2101.00001%2C0000.00000&max_results=2": bad,
		"https://export.arxiv.org/api/query?id_list=0000.00000&max_results=1":              bad,
		"https://export.arxiv.org/api/query?id_list=2101.00001&max_results=1": ok(atomHead +
			`<entry><id>http://arxiv.org/abs/2101.00001v1</id><title>Graph Sparsifiers Revisited</title></entry></feed>`),
	}}
	got := testClient(f).LookupArXiv(context.Background(), []string{"2101.00001", "0000.00000"})
	if !got["2101.00001"].Found || got["0000.00000"].Found || got["0000.00000"].Err != nil {
		t.Errorf("got %+v", got)
	}
}

func TestLookupPubMed(t *testing.T) {
	f := &fakeRegistries{answers: map[string]*Response{
		"https://eutils.ncbi.nlm.nih.gov/entrez/eutils/esummary.fcgi?db=pubmed&email=ops%40example.org&id=111%2C222&retmode=json&tool=citegate": ok(
			`{"header":{"type":"esummary","version":"0.3"},"result":{"uids":["111","222"],` +
				`"111":{"uid":"111","title":"Iron and the liver.","fulljournalname":"Example Hepatology","source":"Ex Hepatol","pubtype":["Journal Article","Retracted Publication"]},` +
				`"222":{"uid":"222","error":"cannot get document summary"}}}`),
	}}
	got := testClient(f).LookupPubMed(context.Background(), PubMed, []string{"111", "222"})
	if a := got["111"]; !a.Found || a.Work.Title != "Iron and the liver." || a.Work.Publisher != "Example Hepatology" || a.Work.Retracted == "" {
		t.Errorf("111: %+v", a)
	}
	if a := got["222"]; a.Found || a.Err != nil || a.NotFoundBy != "PubMed" {
		t.Errorf("222: %+v", a)
	}
	f.answers = nil
	if a := testClient(f).LookupPubMed(context.Background(), PMC, []string{"5"})["5"]; a.Err == nil {
		t.Errorf("esummary failing: %+v, want unavailable", a)
	}
}

func TestBasesFromEnv(t *testing.T) {
	env := map[string]string{EnvCrossref: "http://mirror.test/cr/", EnvArXiv: " http://ax.test "}
	b := BasesFromEnv(Bases{PubMed: "http://pm.test"}, func(k string) string { return env[k] })
	want := Bases{DOI: "https://doi.org", Crossref: "http://mirror.test/cr", DataCite: "https://api.datacite.org",
		ArXiv: "http://ax.test", PubMed: "http://pm.test", OpenAlex: "https://api.openalex.org"}
	if b != want {
		t.Errorf("got %+v\nwant %+v", b, want)
	}
}
