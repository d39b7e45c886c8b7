package engine

import (
	"bufio"
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
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
	for n := range 304 {
		fb := FoundByDoc{SchemaVersion: "found_by.v1", RunID: pick(), Items: []FoundByItem{}}
		um := URLMapDoc{SchemaVersion: "url_map.v1", RunID: pick(), Items: []URLMapItem{}}
		var recs []Citation
		items := n % 4
		if n >= 300 {
			items = 1500 // the streams spill their buffer many times
		}
		for range items {
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
		}{{"found-by", streamed(t, fb.writeFile), &fb}, {"url-map", streamed(t, um.writeFile), &um}} {
			want, err := jsonx.MarshalFile(tc.v)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(tc.got, want) {
				t.Fatalf("%s:\n got  %s\n want %s", tc.name, tc.got, want)
			}
		}
		var jsonl []byte
		for i := range recs {
			want, err := jsonx.Marshal(&recs[i])
			if err != nil {
				t.Fatal(err)
			}
			if got := appendCitation(nil, &recs[i]); !bytes.Equal(got, want) {
				t.Fatalf("citation:\n got  %s\n want %s", got, want)
			}
			jsonl = append(append(jsonl, want...), '\n')
		}
		// Records that fail the typed check are validated by the schema,
		// which rejects most random ones; the rest must stream unchanged.
		if enc, err := encodeCitations(recs, "citations.jsonl"); err == nil {
			if got := streamed(t, enc); !bytes.Equal(got, jsonl) {
				t.Fatalf("citations.jsonl stream differs:\n got  %s\n want %s", got, jsonl)
			}
		}
	}
}

// streamed runs a streaming encoder into memory.
func streamed(t *testing.T, write func(w *bufio.Writer) error) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := bufio.NewWriterSize(&buf, 4096)
	if err := write(w); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestCitationsStreamLargeValid streams many schema-valid records through the
// buffer-spilling path of encodeCitations.
func TestCitationsStreamLargeValid(t *testing.T) {
	var recs []Citation
	var want []byte
	for i := range 3000 {
		code := 200
		c := Citation{SchemaVersion: "citation.v1", NormalizedURL: fmt.Sprintf("https://e.com/%d", i), CID: "cid_" + strings.Repeat("0", 63) + "1",
			URL: "https://e.com/x", URLOriginal: "https://e.com/x", Status: StatusValid, CheckedAt: "t", HTTPStatus: &code,
			FoundBy: []FoundByEntry{{1, "p", "a", "wave-1/p.md", "line é <&>"}}, Notes: "n"}
		if !c.schemaOK() {
			t.Fatalf("fixture record %d fails the typed check", i)
		}
		line, err := jsonx.Marshal(&c)
		if err != nil {
			t.Fatal(err)
		}
		want = append(append(want, line...), '\n')
		recs = append(recs, c)
	}
	enc, err := encodeCitations(recs, "citations.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if got := streamed(t, enc); !bytes.Equal(got, want) {
		t.Fatalf("stream of %d records differs from Marshal (%d vs %d bytes)", len(recs), len(got), len(want))
	}
}
