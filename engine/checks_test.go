package engine

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/citegate/citegate/engine/jsonx"
	"github.com/citegate/citegate/engine/schema"
)

// schemaAccepts marshals v as it would be written and asks the schema.
func schemaAccepts(t *testing.T, name schema.Name, v any) bool {
	t.Helper()
	data, err := jsonx.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var doc any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	return schema.Validate(name, doc) == nil
}

// strs are the values every string field is mutated to.
var strs = []string{"", " ", "\t\n", "\u00a0", "/abs", "x", "cid_" + strings.Repeat("a", 64), "CID_" + strings.Repeat("A", 64),
	"cid_" + strings.Repeat("g", 64), "wave-1", "wave-2", "wave-3", "citation.v1", "found_by.v1", "url_map.v1", "valid", "ok",
	"\xff", "https://example.com/", "\u2028"}

func validCitation() Citation {
	code := 200
	return Citation{SchemaVersion: "citation.v1", NormalizedURL: "https://example.com/a", CID: "cid_" + strings.Repeat("0", 64),
		URL: "https://example.com/a", URLOriginal: "https://example.com/a/", Status: StatusValid, CheckedAt: "2026-01-01T00:00:00.000Z",
		FoundBy: []FoundByEntry{{Wave: 1, PerspectiveID: "p1", AgentType: "unknown", ArtifactPath: "wave-1/p1.md", SourceLine: "- x"}},
		Notes:   "ok", HTTPStatus: &code, Title: "T"}
}

// TestTypedChecksAreConservative mutates every field of each bulk artifact
// type: whenever a typed check accepts, the schema must accept too, and the
// unmutated records must be accepted (or the fast path would never be used).
func TestTypedChecksAreConservative(t *testing.T) {
	accepted, total := 0, 0
	check := func(name schema.Name, ok bool, v any, what string) {
		t.Helper()
		total++
		if !ok {
			return
		}
		accepted++
		if !schemaAccepts(t, name, v) {
			t.Errorf("%s: typed check accepted %s, the schema rejects it", name, what)
		}
	}
	base := validCitation()
	if !base.schemaOK() {
		t.Fatal("valid citation rejected by its typed check")
	}
	cfields := []func(*Citation, string){
		func(c *Citation, s string) { c.SchemaVersion = s }, func(c *Citation, s string) { c.NormalizedURL = s },
		func(c *Citation, s string) { c.CID = s }, func(c *Citation, s string) { c.URL = s },
		func(c *Citation, s string) { c.URLOriginal = s }, func(c *Citation, s string) { c.Status = Status(s) },
		func(c *Citation, s string) { c.CheckedAt = s }, func(c *Citation, s string) { c.Notes = s },
		func(c *Citation, s string) { c.FoundBy[0].PerspectiveID = s }, func(c *Citation, s string) { c.FoundBy[0].AgentType = s },
		func(c *Citation, s string) { c.FoundBy[0].ArtifactPath = s }, func(c *Citation, s string) { c.FoundBy[0].SourceLine = s },
	}
	for i, f := range cfields {
		for _, s := range strs {
			c := validCitation()
			f(&c, s)
			check(schema.Citation, c.schemaOK(), &c, "field "+string(rune('a'+i))+"="+s)
		}
	}
	for _, w := range []int{0, 1, 2, 3, -1} {
		c := validCitation()
		c.FoundBy[0].Wave = w
		check(schema.Citation, c.schemaOK(), &c, "wave")
	}
	c := validCitation()
	c.FoundBy = nil
	check(schema.Citation, c.schemaOK(), &c, "nil found_by")

	fb := func() FoundByDoc {
		return FoundByDoc{SchemaVersion: "found_by.v1", RunID: "dr_1", Items: []FoundByItem{
			{URLOriginal: "https://e.com/", Wave: "wave-1", PerspectiveID: "p", SourceLine: "- x", Ordinal: 1, ArtifactPath: "wave-1/p.md"}}}
	}
	if d := fb(); !d.schemaOK() {
		t.Fatal("valid found-by rejected")
	}
	ffields := []func(*FoundByDoc, string){
		func(d *FoundByDoc, s string) { d.SchemaVersion = s }, func(d *FoundByDoc, s string) { d.RunID = s },
		func(d *FoundByDoc, s string) { d.Items[0].URLOriginal = s }, func(d *FoundByDoc, s string) { d.Items[0].Wave = s },
		func(d *FoundByDoc, s string) { d.Items[0].PerspectiveID = s }, func(d *FoundByDoc, s string) { d.Items[0].SourceLine = s },
		func(d *FoundByDoc, s string) { d.Items[0].ArtifactPath = s },
	}
	for _, f := range ffields {
		for _, s := range strs {
			d := fb()
			f(&d, s)
			check(schema.FoundBy, d.schemaOK(), &d, "found-by "+s)
		}
	}
	for _, o := range []int{-1, 0, 1, 2} {
		d := fb()
		d.Items[0].Ordinal = o
		check(schema.FoundBy, d.schemaOK(), &d, "ordinal")
	}

	um := func() URLMapDoc {
		return URLMapDoc{SchemaVersion: "url_map.v1", RunID: "dr_1", Items: []URLMapItem{
			{URLOriginal: "https://e.com/", NormalizedURL: "https://e.com/", CID: "cid_" + strings.Repeat("0", 64)}}}
	}
	if d := um(); !d.schemaOK() {
		t.Fatal("valid url-map rejected")
	}
	ufields := []func(*URLMapDoc, string){
		func(d *URLMapDoc, s string) { d.SchemaVersion = s }, func(d *URLMapDoc, s string) { d.RunID = s },
		func(d *URLMapDoc, s string) { d.Items[0].URLOriginal = s }, func(d *URLMapDoc, s string) { d.Items[0].NormalizedURL = s },
		func(d *URLMapDoc, s string) { d.Items[0].CID = s },
	}
	for _, f := range ufields {
		for _, s := range strs {
			d := um()
			f(&d, s)
			check(schema.URLMap, d.schemaOK(), &d, "url-map "+s)
		}
	}
	if accepted == 0 || accepted == total {
		t.Errorf("typed checks accepted %d of %d mutants; the test would prove nothing", accepted, total)
	}
}
