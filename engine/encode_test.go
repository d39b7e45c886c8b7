package engine

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/citegate/citegate/engine/jsonx"
)

// TestHandEncodersMatchMarshal keeps the bulk encoders byte-identical to the
// generic ones, over records with every optional field present or absent and
// strings that need escaping.
func TestHandEncodersMatchMarshal(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	strs := []string{"", "x", "https://e.com/a?b=1&c=<2>", "quote\"back\\slash", "line\nbreak\t", "\u2028", "\xff", "é"}
	pick := func() string { return strs[r.IntN(len(strs))] }
	for n := range 300 {
		fb := FoundByDoc{SchemaVersion: "found_by.v1", RunID: pick(), Items: []FoundByItem{}}
		um := URLMapDoc{SchemaVersion: "url_map.v1", RunID: pick(), Items: []URLMapItem{}}
		var recs []Citation
		for range n % 4 {
			fb.Items = append(fb.Items, FoundByItem{URLOriginal: pick(), Wave: pick(), PerspectiveID: pick(), SourceLine: pick(), Ordinal: r.IntN(30), ArtifactPath: pick()})
			um.Items = append(um.Items, URLMapItem{pick(), pick(), pick()})
			c := Citation{SchemaVersion: pick(), NormalizedURL: pick(), CID: pick(), URL: pick(), URLOriginal: pick(),
				Status: Status(pick()), CheckedAt: pick(), FoundBy: []FoundByEntry{}, Notes: pick(),
				Title: pick(), Publisher: pick(), EvidenceSnippet: pick()}
			if r.IntN(2) == 0 {
				code := r.IntN(600)
				c.HTTPStatus = &code
			}
			for range r.IntN(3) {
				c.FoundBy = append(c.FoundBy, FoundByEntry{r.IntN(3), pick(), pick(), pick(), pick()})
			}
			recs = append(recs, c)
		}
		for _, tc := range []struct {
			name string
			got  []byte
			v    any
		}{{"found-by", fb.encodeFile(), &fb}, {"url-map", um.encodeFile(), &um}} {
			want, err := jsonx.MarshalFile(tc.v)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(tc.got, want) {
				t.Fatalf("%s:\n got  %s\n want %s", tc.name, tc.got, want)
			}
		}
		for i := range recs {
			want, err := jsonx.Marshal(&recs[i])
			if err != nil {
				t.Fatal(err)
			}
			if got := appendCitation(nil, &recs[i]); !bytes.Equal(got, want) {
				t.Fatalf("citation:\n got  %s\n want %s", got, want)
			}
		}
	}
}
