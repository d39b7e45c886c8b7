package main

import "testing"

// A record is found for each cited URL although citegate rewrote it: host
// case, trailing slash, parameter order, a redacted parameter value.
func TestMatchRecords(t *testing.T) {
	sp := &Spec{Split: "t", Hosts: []Host{{Host: "a.example.net", Behaviour: "b", URLs: []Cited{
		{URL: "http://a.example.net/dp/B08N5WRWNW/ref=sr_1_1?crid=2XJ4&keywords=headphones", Label: "real"},
		{URL: "http://a.example.net/x/", Label: "soft404"},
		{URL: "http://a.example.net/w?b=2&a=1", Label: "real"},
		{URL: "http://a.example.net/never-checked", Label: "real"},
	}}}}
	recs := []record{
		{NormalizedURL: "http://a.example.net/dp/B08N5WRWNW/ref=sr_1_1?crid=2XJ4&keywords=%5BREDACTED%5D", Status: "invalid"},
		{NormalizedURL: "http://A.example.net/x", Status: "valid"},
		{NormalizedURL: "http://a.example.net/w?a=1&b=2", Status: "blocked"},
	}
	res := score(sp, "standard", recs)
	want := []string{"invalid", "valid", "blocked", "(missing)"}
	for i, r := range res.Rows {
		if r.Status != want[i] {
			t.Errorf("%s: %s, want %s", r.URL, r.Status, want[i])
		}
	}
	if res.Rows[0].OK || res.Rows[1].OK || !res.Rows[2].OK { // a real page invalid, a soft 404 valid: not accepted
		t.Errorf("acceptance %v %v %v", res.Rows[0].OK, res.Rows[1].OK, res.Rows[2].OK)
	}
}
