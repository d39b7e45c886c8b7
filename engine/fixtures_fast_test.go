package engine

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
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
		"{\"https://a.example/\\\"q\\\\b\\/c\": \"va\\u006cid\", \"https://b.example/\xff\": \"valid\"}\n\t ",
		" \r\n{ } ",
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
		`{"https://a.example/": "valid",}`,
		`{"https://a.example/": "bad \x escape"}`,
		"{\"https://a.example/\": \"raw\ttab\"}",
		`{"a" "valid"}`,
		``,
	} {
		if _, _, ok := statusMap([]byte(doc)); ok {
			t.Errorf("%s: read as a status map", doc)
		}
	}
}

// statusMapTokens is the reader statusMap replaced (encoding/json's token
// stream), kept as the oracle the fuzz test compares it with.
func statusMapTokens(data []byte) (keys, statuses []string, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, nil, false
	}
	seen := map[string]bool{}
	for dec.More() {
		kt, err := dec.Token()
		k, isKey := kt.(string)
		if err != nil || !isKey || k == "items" || seen[k] {
			return nil, nil, false
		}
		vt, err := dec.Token()
		v, isString := vt.(string)
		if err != nil || !isString {
			return nil, nil, false
		}
		seen[k] = true
		keys, statuses = append(keys, k), append(statuses, v)
	}
	if t, err := dec.Token(); err != nil || t != json.Delim('}') {
		return nil, nil, false
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, nil, false
	}
	return keys, statuses, true
}

// FuzzStatusMap: the one-pass reader accepts exactly the documents
// encoding/json's token stream accepts, reads the same keys and statuses, and
// the general reader accepts them too.
func FuzzStatusMap(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":"b"}`, `{"a\"":"\u00e9"}`, "{\"\xff\":\"valid\"}", `{"a":"b",}`, `{"a":1}`, ` {"a" : "b" } `} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		keys, statuses, ok := statusMap(data)
		k2, s2, ok2 := statusMapTokens(data)
		if ok != ok2 {
			t.Fatalf("%q: one pass ok=%v, token stream ok=%v", data, ok, ok2)
		}
		if !ok {
			return
		}
		if !reflect.DeepEqual(keys, k2) || !reflect.DeepEqual(statuses, s2) {
			t.Fatalf("%q: one pass %q %q, token stream %v %q %q", data, keys, statuses, ok2, k2, s2)
		}
		if _, err := fixturesFromDoc("p", "offline", data); err != nil {
			t.Fatalf("%q: general reader refuses what statusMap read: %v", data, err)
		}
	})
}

// A status-map file is checked when loaded and read into entries only when
// validate needs them (fixtureSet.ready); what it reads is what the general
// reader reads. The shapes the one-pass path leaves to the general reader
// are read (or refused) at load time, as before.
func TestPendingFixturesReadAsBefore(t *testing.T) {
	write := func(doc string) string {
		path := filepath.Join(t.TempDir(), "fixtures.json")
		if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	for _, doc := range []string{
		`{"https://a.example/1": "valid", "https://b.example/2": "blocked "}`,
		`{"https://a.example/\u00e9": "nonsense", "https://b.example/\\": "valid"}`,
		`{}`,
	} {
		path := write(doc)
		f, err := loadFixtures(path, "offline")
		if err != nil {
			t.Fatal(err)
		}
		if f.pending == nil || f.entries != nil {
			t.Fatalf("%s: read at load time, not when needed", doc)
		}
		if err := f.ready(); err != nil {
			t.Fatal(err)
		}
		want, err := fixturesFromDoc(path, "offline", []byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		if err := want.index(); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(f.entries, want.entries) || !reflect.DeepEqual(f.warnings, want.warnings) || f.digest != want.digest {
			t.Errorf("%s:\n pending %+v %q %s\n general %+v %q %s", doc, f.entries, f.warnings, f.digest, want.entries, want.warnings, want.digest)
		}
	}
	// A repeated key and an "items" key with a string value are the
	// general reader's, read when the file is loaded, as before.
	for _, doc := range []string{`{"https://a.example/": "valid", "https://a.example/": "blocked"}`, `{"items": "valid", "https://a.example/": "valid"}`} {
		f, err := loadFixtures(write(doc), "offline")
		if err != nil {
			t.Fatalf("%s: %v", doc, err)
		}
		if f.pending != nil || f.digest == "" {
			t.Errorf("%s: pending %v, digest %q; want the general reader's set, read at load", doc, f.pending != nil, f.digest)
		}
	}
}
