package schema

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// deepCopy copies a decoded JSON document.
func deepCopy(v any) any {
	switch v := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(v))
		for k, e := range v {
			m[k] = deepCopy(e)
		}
		return m
	case []any:
		s := make([]any, len(v))
		for i, e := range v {
			s[i] = deepCopy(e)
		}
		return s
	}
	return v
}

// citationBases are valid records, decoded both with json.Number and float64 numbers.
func citationBases(t *testing.T) []any {
	t.Helper()
	var bases []any
	raw := [][]byte{}
	data, err := os.ReadFile("testdata/citation.json")
	if err != nil {
		t.Fatal(err)
	}
	raw = append(raw, data)
	raw = append(raw, jsonlRecords(t, fixtures+"gate-c/citations.jsonl")[9])
	raw = append(raw, jsonlRecords(t, fixtures+"render/citations.jsonl")...)
	for _, r := range raw {
		doc, err := ValidateJSON(Citation, r)
		if err != nil {
			t.Fatal(err)
		}
		var plain any
		if err := json.Unmarshal(r, &plain); err != nil {
			t.Fatal(err)
		}
		bases = append(bases, doc, plain)
	}
	return bases
}

// citationPaths are the places mutations are applied to: every field a
// record can have, found_by entry fields, and unknown fields.
var citationPaths = []string{
	"/schema_version", "/normalized_url", "/cid", "/url", "/url_original", "/status",
	"/checked_at", "/found_by", "/notes", "/http_status", "/title", "/publisher",
	"/evidence_snippet", "/extra",
	"/found_by/0", "/found_by/0/wave", "/found_by/0/perspective_id", "/found_by/0/agent_type",
	"/found_by/0/artifact_path", "/found_by/0/source_line", "/found_by/0/extra",
}

// deleteValue marks a mutation that removes the field.
type deleteValue struct{}

var citationValues = []any{
	deleteValue{}, nil, true, false, "", " ", "\t", "\u00a0", "\u3000x", "x", "https://example.com/a",
	"citation.v1", "citation.v2", "valid", "paywalled", "blocked", "mismatch", "invalid", "ok", "VALID",
	validCID, strings.ToUpper(validCID), "cid_" + strings.ToUpper(validCID[4:]), validCID[:67], validCID + "0",
	json.Number("1"), json.Number("2"), json.Number("1.0"), json.Number("2e0"), json.Number("1.5"),
	json.Number("3"), json.Number("0"), json.Number("-1"), json.Number("200"), json.Number("1e400"),
	1.0, 2.0, 2.5, 0.0, -1.0, 200.0, 1e300, math.Inf(1),
	[]any{}, map[string]any{}, []any{"x"},
	[]any{map[string]any{"wave": json.Number("1"), "perspective_id": "p", "agent_type": "a", "artifact_path": "w/p.md"}},
	map[string]any{"wave": 2.0, "perspective_id": "p", "agent_type": "a", "artifact_path": "w/p.md", "source_line": "- x"},
}

// mutate applies value at ptr when the parent exists; it reports whether it
// did. An array index may be negative, counting from the end: -1 is the last
// element.
func mutate(doc any, ptr string, value any) bool {
	tokens := strings.Split(ptr, "/")[1:]
	cur := doc
	for _, tok := range tokens[:len(tokens)-1] {
		switch c := cur.(type) {
		case map[string]any:
			cur = c[tok]
		case []any:
			i, ok := index(c, tok)
			if !ok {
				return false
			}
			cur = c[i]
		default:
			return false
		}
	}
	last := tokens[len(tokens)-1]
	switch c := cur.(type) {
	case map[string]any:
		if _, ok := value.(deleteValue); ok {
			delete(c, last)
		} else {
			c[last] = value
		}
		return true
	case []any:
		i, ok := index(c, last)
		if _, del := value.(deleteValue); del || !ok {
			return false
		}
		c[i] = value
		return true
	}
	return false
}

// index resolves an array index token of mutate.
func index(a []any, tok string) (int, bool) {
	i, err := strconv.Atoi(tok)
	if err != nil {
		return 0, false
	}
	if i < 0 {
		i += len(a)
	}
	return i, i >= 0 && i < len(a)
}

// The fast path must never accept what the schema rejects, and must accept
// the ordinary valid records (or it would be no faster).
func TestCitationFastPathIsConservative(t *testing.T) {
	schemas, err := compiled()
	if err != nil {
		t.Fatal(err)
	}
	s := schemas[Citation]
	bases := citationBases(t)
	for _, b := range bases {
		if !citationOK(b) {
			t.Errorf("fast path rejects valid record %v", b)
		}
	}
	check := func(doc any, what string) bool {
		if !citationOK(doc) {
			return false
		}
		if err := s.Validate(doc); err != nil {
			t.Errorf("fast path accepts %s, schema rejects: %v", what, err)
		}
		return true
	}
	accepted, tried := 0, 0
	for _, b := range bases {
		for _, p := range citationPaths {
			for _, v := range citationValues {
				doc := deepCopy(b)
				if mutate(doc, p, deepCopy(v)) {
					tried++
					if check(doc, p+"="+describe(v)) {
						accepted++
					}
				}
			}
		}
	}
	// Random combinations of up to four mutations.
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		doc := deepCopy(bases[rng.IntN(len(bases))])
		var what []string
		for range 1 + rng.IntN(4) {
			p := citationPaths[rng.IntN(len(citationPaths))]
			v := citationValues[rng.IntN(len(citationValues))]
			if mutate(doc, p, deepCopy(v)) {
				what = append(what, p+"="+describe(v))
			}
		}
		tried++
		if check(doc, strings.Join(what, ", ")) {
			accepted++
		}
	}
	if accepted == 0 || accepted == tried {
		t.Errorf("fast path accepted %d of %d mutated records; the test exercises nothing", accepted, tried)
	}
	t.Logf("fast path accepted %d of %d mutated records", accepted, tried)
}

func describe(v any) string {
	if _, ok := v.(deleteValue); ok {
		return "<deleted>"
	}
	b, err := json.Marshal(v)
	if err != nil {
		return "<unencodable>"
	}
	return string(b)
}

// decodeValue round-trips v through JSON the way ValidateJSON decodes
// documents, with json.Number numbers.
func decodeValue(tb testing.TB, v any) any {
	tb.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		tb.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		tb.Fatal(err)
	}
	return doc
}

// foundByDoc builds a valid found_by.v1 document of n items as the extract
// stage writes it: several URLs per artifact, artifact_path on most items.
func foundByDoc(tb testing.TB, n int) any {
	tb.Helper()
	items := make([]any, n)
	for i := range items {
		wave := "wave-1"
		if i%3 == 2 {
			wave = "wave-2"
		}
		u := fmt.Sprintf("https://example%d.com/articles/%d?ref=%d", i%97, i, i%13)
		item := map[string]any{
			"url_original":   u,
			"wave":           wave,
			"perspective_id": fmt.Sprintf("p%d", i%11),
			"source_line":    "- see " + u + " for details",
			"ordinal":        i%40 + 1,
		}
		if i%5 != 0 {
			item["artifact_path"] = fmt.Sprintf("%s/p%d.md", wave, i%11)
		}
		items[i] = item
	}
	return decodeValue(tb, map[string]any{"schema_version": "found_by.v1", "run_id": "dr_20250101_bench", "items": items})
}

// urlMapDoc builds a valid url_map.v1 document of n items as the normalize
// stage writes it.
func urlMapDoc(tb testing.TB, n int) any {
	tb.Helper()
	items := make([]any, n)
	for i := range items {
		nu := fmt.Sprintf("https://example%d.com/articles/%d", i%97, i)
		sum := sha256.Sum256([]byte(nu))
		items[i] = map[string]any{
			"url_original":   nu + "?utm_source=x",
			"normalized_url": nu,
			"cid":            "cid_" + hex.EncodeToString(sum[:]),
		}
	}
	return decodeValue(tb, map[string]any{"schema_version": "url_map.v1", "run_id": "dr_20250101_bench", "items": items})
}

// fixturesDoc builds a valid fixtures.v1 document of n entries in the given
// form: "array" (a bare array of entries), "items" (an object whose items is
// that array) or "map" (normalized_url to entry, every seventh entry a bare
// status string), with entries as offline and online fixtures files hold
// them.
func fixturesDoc(tb testing.TB, n int, form string) any {
	tb.Helper()
	statuses := []string{"valid", "paywalled", "blocked", "mismatch", "invalid"}
	entries := make([]any, n)
	byURL := make(map[string]any, n)
	for i := range entries {
		nu := fmt.Sprintf("https://example%d.com/articles/%d", i%97, i)
		st := statuses[i%len(statuses)]
		entry := map[string]any{
			"normalized_url": nu,
			"status":         st,
			"notes":          "fixture " + st,
		}
		if i%4 != 3 {
			entry["title"] = fmt.Sprintf("Article %d", i)
			entry["publisher"] = fmt.Sprintf("Publisher %d", i%97)
		}
		if st == "invalid" || st == "blocked" {
			entry["http_status"] = 400 + i%4
		} else if i%2 == 0 {
			entry["http_status"] = 200
		}
		if i%3 == 0 {
			entry["evidence_snippet"] = "Fixture-backed citation validation result"
		}
		entries[i] = entry
		if i%7 == 6 {
			byURL[nu] = st
		} else {
			byURL[nu] = entry
		}
	}
	var doc any
	switch form {
	case "array":
		doc = entries
	case "items":
		doc = map[string]any{"items": entries}
	case "map":
		doc = byURL
	default:
		tb.Fatalf("fixturesDoc: unknown form %q", form)
	}
	return decodeValue(tb, doc)
}

// docFastPath describes a document-level fast path for
// TestDocFastPathsAreConservative.
type docFastPath struct {
	name  Name
	ok    func(any) bool
	bases func(t *testing.T) []any // valid documents the fast path must accept
	paths []string                 // where mutations are applied
	// values are set by mutations besides docValues.
	values []any
}

// bothDecodings decodes data as ValidateJSON does (json.Number) and as
// json.Unmarshal into an any does (float64).
func bothDecodings(t *testing.T, data []byte) []any {
	t.Helper()
	var plain any
	if err := json.Unmarshal(data, &plain); err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		t.Fatal(err)
	}
	return []any{doc, plain}
}

// docBases returns every decoding of the files and generated documents.
func docBases(t *testing.T, paths []string, generated ...any) []any {
	t.Helper()
	var out []any
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, bothDecodings(t, data)...)
	}
	for _, g := range generated {
		data, err := json.Marshal(g)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, bothDecodings(t, data)...)
	}
	return out
}

// itemPaths are the item fields in the first and the last item of a document.
func itemPaths(fields ...string) []string {
	var out []string
	for _, i := range []string{"0", "-1"} {
		out = append(out, "/items/"+i)
		for _, f := range fields {
			out = append(out, "/items/"+i+"/"+f)
		}
	}
	return out
}

// fieldPaths are the fields under each of the prefixes, and the prefixes.
func fieldPaths(prefixes []string, fields ...string) []string {
	var out []string
	for _, p := range prefixes {
		out = append(out, p)
		for _, f := range fields {
			out = append(out, p+"/"+f)
		}
	}
	return out
}

// fixtureEntryAll is a fixtures.v1 entry with every known field, each with a
// value no stricter schema would allow, and unknown fields.
var fixtureEntryAll = map[string]any{
	"normalized_url": "", "url_original": " ", "cid": "not-a-cid", "status": "anything", "url": "\u3000",
	"http_status": -1.5e3, "title": "", "publisher": "p", "evidence_snippet": "é", "notes": "n",
	"extra": nil, "more": []any{1, "x", map[string]any{"status": 5}},
}

// fixtureEntryFields are the fields of a fixtures.v1 entry mutations touch.
var fixtureEntryFields = []string{
	"normalized_url", "url_original", "cid", "status", "url", "http_status", "title", "publisher",
	"evidence_snippet", "notes", "extra",
}

var docFastPaths = []docFastPath{
	{
		name: FoundBy,
		ok:   foundByDocOK,
		bases: func(t *testing.T) []any {
			return docBases(t, []string{"testdata/found-by.json"},
				foundByDoc(t, 7),
				map[string]any{"schema_version": "found_by.v1", "run_id": " r ", "items": []any{}},
				map[string]any{"schema_version": "found_by.v1", "run_id": "r", "items": []any{
					map[string]any{"url_original": " ", "wave": "wave-2", "perspective_id": "", "source_line": "", "ordinal": 1, "artifact_path": "x"},
					map[string]any{"url_original": "u", "wave": "wave-1", "perspective_id": "p", "source_line": "s", "ordinal": 9007199254740991, "artifact_path": "é/p.md"},
				}})
		},
		paths: append([]string{"/schema_version", "/run_id", "/items", "/extra"},
			itemPaths("url_original", "wave", "perspective_id", "source_line", "ordinal", "artifact_path", "extra")...),
	},
	{
		name: URLMap,
		ok:   urlMapDocOK,
		bases: func(t *testing.T) []any {
			return docBases(t, []string{fixtures + "validate/url-map.json"},
				urlMapDoc(t, 7),
				map[string]any{"schema_version": "url_map.v1", "run_id": "r", "items": []any{}},
				map[string]any{"schema_version": "url_map.v1", "run_id": "\tr", "generated_at": json.Number("3"), "items": []any{
					map[string]any{"url_original": " x", "normalized_url": "x ", "cid": validCID, "notes": nil, "n": []any{1}},
				}})
		},
		paths: append([]string{"/schema_version", "/run_id", "/items", "/extra"},
			itemPaths("url_original", "normalized_url", "cid", "extra")...),
	},
	{
		name: Fixtures,
		ok:   fixturesDocOK,
		bases: func(t *testing.T) []any {
			return docBases(t, []string{fixtures + "validate/url-checks.json", fixtures + "validate/online-ladder-fixtures.json"},
				fixturesDoc(t, 7, "array"), fixturesDoc(t, 7, "items"), fixturesDoc(t, 7, "map"),
				[]any{}, map[string]any{}, map[string]any{"items": []any{}},
				// The array form.
				[]any{fixtureEntryAll, map[string]any{}, map[string]any{"status": "valid", "http_status": 200}},
				// The items form, whose other properties may be anything,
				// including objects that are not entries.
				map[string]any{
					"items": []any{map[string]any{}, fixtureEntryAll},
					"u0":    []any{1}, "u1": 2, "u3": map[string]any{"status": 5, "x": "y"}, "extra": nil,
				},
				// The map form, with an entry under items, which is then
				// just another URL.
				map[string]any{
					"u0": fixtureEntryAll, "u1": "valid", "u3": map[string]any{}, "u4": "",
					"items": map[string]any{"status": "paywalled", "http_status": 4.5e2},
				})
		},
		paths: append([]string{"/items", "/extra", "/u1", "/u4"},
			fieldPaths([]string{"/0", "/-1", "/items/0", "/items/-1", "/items", "/u0", "/u3"}, fixtureEntryFields...)...),
		values: []any{
			"valid", "paywalled", "blocked", "mismatch", "invalid",
			json.Number("200"), json.Number("404"), json.Number("-0.5e-3"), json.Number("1.e3"), json.Number(".5"),
			json.Number("1e"), json.Number("-"), json.Number("0x10"), json.Number("NaN"), 200.0, 404.0, math.Copysign(0, -1),
			map[string]any{"normalized_url": "n", "status": "valid", "http_status": json.Number("200")},
			map[string]any{"normalized_url": "n", "status": "valid", "http_status": "200"},
			map[string]any{"normalized_url": json.Number("1"), "status": "valid"},
			map[string]any{"status": nil},
			map[string]any{"items": []any{}},
			[]any{map[string]any{"status": "valid", "notes": "x"}},
			[]any{map[string]any{"status": "valid"}, "valid"},
			[]any{fixtureEntryAll, map[string]any{"title": true}},
		},
	},
}

// docValues are the values mutations set: wrong types, blank strings (by
// JavaScript's trim and otherwise), near-miss constants, enum values and cids,
// integers and non-integers at the boundaries, whole items and non-JSON Go
// values.
var docValues = []any{
	deleteValue{}, nil, true, false,
	"", " ", "\t", "\n", "\v", "\f", "\r", "\x00", "\u0085", "\u00a0", "\u1680", "\u2000", "\u200a", "\u2028",
	"\u2029", "\u202f", "\u205f", "\u3000", "\ufeff", " \u3000\t\ufeff ", "\u3000x", "\xff", "é", "x", " x ",
	"https://example.com/a", "/abs/p.md", "//x", "/", "rel/p.md", "\n/x", "\x00x", "é/p.md", "\xff/x", " /x", "./x",
	"found_by.v1", "found_by.v2", "FOUND_BY.V1", "found_by.v1 ", "url_map.v1", "url_map.v2", "url_map.v1\x00",
	"wave-1", "wave-2", "wave-3", "wave-0", "Wave-1", "wave-1 ", "wave1", "1", "2",
	validCID, strings.ToUpper(validCID), "cid_" + strings.ToUpper(validCID[4:]), validCID[:67], validCID + "0",
	"cid_" + strings.Repeat("g", 64), " " + validCID, validCID[4:],
	json.Number("1"), json.Number("2"), json.Number("3"), json.Number("40"), json.Number("0"), json.Number("-0"),
	json.Number("-1"), json.Number("1.0"), json.Number("1.5"), json.Number("0.5"), json.Number("2e0"),
	json.Number("1e2"), json.Number("1E2"), json.Number("01"), json.Number("+1"), json.Number(" 1"),
	json.Number("1e400"), json.Number("123456789012345678901234567890"), json.Number(""), json.Number("1x"),
	1.0, 2.0, 40.0, 0.0, math.Copysign(0, -1), -1.0, 0.5, 1.5, 1e300, 9007199254740991.0, 9007199254740992.0,
	math.Inf(1), math.Inf(-1), math.NaN(), 1, int64(2), float32(1),
	[]any{}, map[string]any{}, []any{"x"}, []any{nil}, []any{map[string]any{}}, map[string]string{"a": "b"}, []string{"x"},
	make(chan int),
	map[string]any{"url_original": "u", "wave": "wave-1", "perspective_id": "p", "source_line": "s", "ordinal": json.Number("1")},
	map[string]any{"url_original": "u", "wave": "wave-2", "perspective_id": "p", "source_line": "s", "ordinal": 2.0, "artifact_path": "w/p.md"},
	map[string]any{"url_original": "u", "wave": 1.0, "perspective_id": "p", "source_line": "s", "ordinal": json.Number("1")},
	map[string]any{"url_original": "u", "normalized_url": "n", "cid": validCID},
	map[string]any{"url_original": "u", "normalized_url": " ", "cid": validCID},
	map[string]any{"wave": json.Number("1"), "perspective_id": "p", "agent_type": "a", "artifact_path": "w/p.md"},
	[]any{map[string]any{"url_original": "u", "wave": "wave-1", "perspective_id": "p", "source_line": "s", "ordinal": json.Number("1")}},
	[]any{map[string]any{"url_original": "u", "normalized_url": "n", "cid": validCID}},
}

// The document fast paths must never accept what the schema rejects, and
// must accept ordinary valid documents (or they would be no faster).
func TestDocFastPathsAreConservative(t *testing.T) {
	schemas, err := compiled()
	if err != nil {
		t.Fatal(err)
	}
	for _, fp := range docFastPaths {
		t.Run(string(fp.name), func(t *testing.T) {
			s := schemas[fp.name]
			bases := fp.bases(t)
			for _, b := range bases {
				if err := s.Validate(b); err != nil {
					t.Fatalf("base document is invalid: %v", err)
				}
				if !fp.ok(b) {
					t.Errorf("fast path rejects valid document %s", describe(b))
				}
			}
			accepted, tried, declined := 0, 0, 0
			check := func(doc any, what string) {
				tried++
				if !fp.ok(doc) {
					if schemaAccepts(s, doc) {
						declined++ // allowed: Validate asks the schema
					}
					return
				}
				accepted++
				if err := s.Validate(doc); err != nil {
					t.Errorf("fast path accepts %s, schema rejects: %v", what, err)
				}
			}
			values := append(slices.Clip(docValues), fp.values...)
			// Whole documents of the wrong shape.
			for _, v := range values {
				if _, ok := v.(deleteValue); !ok {
					check(v, "document "+describe(v))
				}
			}
			for _, b := range bases {
				for _, p := range fp.paths {
					for _, v := range values {
						doc := deepCopy(b)
						if mutate(doc, p, deepCopy(v)) {
							check(doc, p+"="+describe(v))
						}
					}
				}
			}
			// Random combinations of up to four mutations.
			rng := rand.New(rand.NewPCG(3, 4))
			for range 20000 {
				doc := deepCopy(bases[rng.IntN(len(bases))])
				var what []string
				for range 1 + rng.IntN(4) {
					p := fp.paths[rng.IntN(len(fp.paths))]
					v := values[rng.IntN(len(values))]
					if mutate(doc, p, deepCopy(v)) {
						what = append(what, p+"="+describe(v))
					}
				}
				check(doc, strings.Join(what, ", "))
			}
			if accepted == 0 || accepted == tried {
				t.Errorf("fast path accepted %d of %d mutated documents; the test exercises nothing", accepted, tried)
			}
			t.Logf("fast path accepted %d of %d mutated documents; declined %d the schema accepts", accepted, tried, declined)
		})
	}
}

// Valid documents of pipeline size are accepted by the fast paths through
// Validate and ValidateJSON, without the general validator.
func TestDocFastPathsAreTaken(t *testing.T) {
	const n = 10000
	lastItem := func(doc any) map[string]any {
		items := doc.(map[string]any)["items"].([]any)
		return items[len(items)-1].(map[string]any)
	}
	lastURL := fmt.Sprintf("https://example%d.com/articles/%d", (n-1)%97, n-1)
	docs := []struct {
		desc  string
		name  Name
		doc   any
		spoil func(doc any) // makes the document invalid at want
		want  string
	}{
		{"found_by.v1", FoundBy, foundByDoc(t, n), func(doc any) { lastItem(doc)["url_original"] = "" }, "/items/9999/url_original"},
		{"url_map.v1", URLMap, urlMapDoc(t, n), func(doc any) { lastItem(doc)["url_original"] = "" }, "/items/9999/url_original"},
		{"fixtures.v1 array", Fixtures, fixturesDoc(t, n, "array"),
			func(doc any) { a := doc.([]any); a[len(a)-1].(map[string]any)["status"] = json.Number("1") }, "/9999/status"},
		{"fixtures.v1 items", Fixtures, fixturesDoc(t, n, "items"),
			func(doc any) { lastItem(doc)["http_status"] = "200" }, "/items/9999/http_status"},
		{"fixtures.v1 map", Fixtures, fixturesDoc(t, n, "map"),
			func(doc any) { doc.(map[string]any)[lastURL] = map[string]any{"title": nil} },
			"/" + strings.ReplaceAll(lastURL, "/", "~1") + "/title"},
	}
	for _, d := range docs {
		t.Run(d.desc, func(t *testing.T) {
			data, err := json.Marshal(d.doc)
			if err != nil {
				t.Fatal(err)
			}
			var plain any
			if err := json.Unmarshal(data, &plain); err != nil {
				t.Fatal(err)
			}
			before := slowValidations.Load()
			if err := Validate(d.name, d.doc); err != nil {
				t.Errorf("Validate: %v", err)
			}
			if err := Validate(d.name, plain); err != nil {
				t.Errorf("Validate (float64 numbers): %v", err)
			}
			if _, err := ValidateJSON(d.name, data); err != nil {
				t.Errorf("ValidateJSON: %v", err)
			}
			if n := slowValidations.Load() - before; n != 0 {
				t.Errorf("%d of 3 valid 10,000-item documents went to the general validator", n)
			}
			// An invalid last item is still found, by the general
			// validator, in either decoding.
			d.spoil(d.doc)
			d.spoil(plain)
			for _, doc := range []any{d.doc, plain} {
				var se *Error
				if err := Validate(d.name, doc); !errors.As(err, &se) || se.Pointer != d.want {
					t.Errorf("Validate(invalid) = %v, want violation at %s", err, d.want)
				}
			}
			if n := slowValidations.Load() - before; n != 2 {
				t.Errorf("the general validator ran %d times, want 2", n)
			}
		})
	}
}

// schemaAccepts reports whether the general validator accepts doc; it panics
// on some values no JSON text decodes to, which count as rejected.
func schemaAccepts(s *jsonschema.Schema, doc any) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	return s.Validate(doc) == nil
}
