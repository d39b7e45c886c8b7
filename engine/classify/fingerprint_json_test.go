package classify

import (
	"encoding/json"
	"reflect"
	"testing"
)

// TestFingerprintJSONRoundTrip: a fingerprint read back from its JSON is
// the same fingerprint, and compares the same against a page.
func TestFingerprintJSONRoundTrip(t *testing.T) {
	probe := Page{RequestedURL: "https://news.example/a/citegate-probe-00", FinalURL: "https://news.example/a/citegate-probe-00",
		StatusCode: 200, ContentType: "text/html", Header: nil,
		Body: []byte(`<html><head><title>Page not found | News</title><link rel="canonical" href="https://news.example/404"></head>` +
			`<body><h1>Sorry, we could not find that page</h1><p>Try the search box or go back to the front page of News.</p></body></html>`)}
	cited := probe
	cited.RequestedURL, cited.FinalURL = "https://news.example/a/story", "https://news.example/a/story"
	fp := FingerprintOf(probe)
	data, err := json.Marshal(fp)
	if err != nil {
		t.Fatal(err)
	}
	var back Fingerprint
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(*fp, back) {
		t.Fatalf("round trip changed the fingerprint:\n%+v\n%+v", *fp, back)
	}
	c := FingerprintOf(cited)
	if got, want := Like(c, &back), Like(c, fp); got != want || want == "" {
		t.Errorf("Like after the round trip %q, before %q (want a non-empty match)", got, want)
	}
}
