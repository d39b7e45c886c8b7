package engine

import (
	"reflect"
	"testing"
)

// The one-pass reader of {"<url>": "<status>"} files must give exactly what
// the general reader gives: entries, order, warnings and digest.
func TestStatusMapMatchesGeneralReader(t *testing.T) {
	for _, doc := range []string{
		`{}`,
		`{"https://a.example/1": "valid", "https://b.example/2?token=sk-abcdefghijklmnopqrstuvwx": " paywalled ", "https://c.example/": "nonsense"}`,
		`{"https://z.example/": "", "https://a.example/~x": "blocked", "https://a.example/1": "invalid"}`,
		`{ "https://a.example/é" : "mismatch" , "https://a.example/\u2028" : "valid" }`,
	} {
		keys, statuses, ok := statusMap([]byte(doc))
		if !ok {
			t.Fatalf("%s: not read as a status map", doc)
		}
		fast := fixturesFromStatusMap("p", "offline", keys, statuses)
		general, err := fixturesFromDoc("p", "offline", []byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range []*fixtureSet{fast, general} {
			if err := f.index(); err != nil {
				t.Fatal(err)
			}
		}
		if !reflect.DeepEqual(fast.entries, general.entries) || !reflect.DeepEqual(fast.warnings, general.warnings) || fast.digest != general.digest {
			t.Errorf("%s:\n fast    %+v %q %s\n general %+v %q %s", doc, fast.entries, fast.warnings, fast.digest, general.entries, general.warnings, general.digest)
		}
	}
	// Shapes the one-pass reader leaves to the general one.
	for _, doc := range []string{
		`[{"normalized_url": "https://a.example/", "status": "valid"}]`,
		`{"items": []}`,
		`{"https://a.example/": {"status": "valid"}}`,
		`{"https://a.example/": "valid", "https://a.example/": "blocked"}`,
		`{"https://a.example/": 3}`,
		`{"https://a.example/": "valid"} {}`,
		`{"https://a.example/": "valid"`,
	} {
		if _, _, ok := statusMap([]byte(doc)); ok {
			t.Errorf("%s: read as a status map", doc)
		}
	}
}
