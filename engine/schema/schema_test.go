package schema

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const fixtures = "../../testdata/reference/phase04/"

func TestEmbeddedSchemasCompile(t *testing.T) {
	schemas, err := compiled()
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	if len(schemas) != len(names) {
		t.Errorf("compiled %d schemas, want %d", len(schemas), len(names))
	}
	// Every embedded file is a listed schema whose title is its name.
	entries, err := fs.ReadDir(files, "schemas")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		n := Name(strings.TrimSuffix(e.Name(), ".json"))
		if !slices.Contains(names, n) {
			t.Errorf("schemas/%s is not in names", e.Name())
		}
		data, err := files.ReadFile("schemas/" + e.Name())
		if err != nil {
			t.Fatal(err)
		}
		var head struct {
			Schema string `json:"$schema"`
			Title  string `json:"title"`
		}
		if err := json.Unmarshal(data, &head); err != nil {
			t.Fatal(err)
		}
		if head.Title != string(n) || head.Schema != "https://json-schema.org/draft/2020-12/schema" {
			t.Errorf("schemas/%s: title %q, $schema %q", e.Name(), head.Title, head.Schema)
		}
	}
}

// decodeFile reads a JSON document the way ValidateJSON decodes it.
func decodeFile(t *testing.T, path string) any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return doc
}

// jsonlRecords reads every line of a JSONL file.
func jsonlRecords(t *testing.T, path string) [][]byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out [][]byte
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if line := bytes.TrimSpace(sc.Bytes()); len(line) > 0 {
			out = append(out, bytes.Clone(line))
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestReferenceFixturesValidate(t *testing.T) {
	files := []struct {
		name Name
		path string
	}{
		{URLMap, fixtures + "validate/url-map.json"},
		{Fixtures, fixtures + "validate/url-checks.json"},
		{Fixtures, fixtures + "validate/online-ladder-fixtures.json"},
	}
	for _, f := range files {
		data, err := os.ReadFile(f.path)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ValidateJSON(f.name, data); err != nil {
			t.Errorf("%s as %s: %v", f.path, f.name, err)
		}
	}
	for _, path := range []string{fixtures + "gate-c/citations.jsonl", fixtures + "render/citations.jsonl"} {
		records := jsonlRecords(t, path)
		if len(records) == 0 {
			t.Fatalf("%s: no records", path)
		}
		for i, rec := range records {
			if _, err := ValidateJSON(Citation, rec); err != nil {
				t.Errorf("%s line %d: %v", path, i+1, err)
			}
		}
	}
}

func TestSamplesValidate(t *testing.T) {
	samples := []struct {
		name Name
		file string
	}{
		{Manifest, "manifest.json"},
		{Gates, "gates.json"},
		{RunConfig, "run-config.json"},
		{RunPolicy, "policy.json"},
		{FoundBy, "found-by.json"},
		{Citation, "citation.json"},
		{OnlineFixtures, "online-fixtures.json"},
		{Fixtures, "online-fixtures.json"}, // a capture replays as fixtures input
		{BlockedURLs, "blocked-urls.json"},
	}
	for _, s := range samples {
		t.Run(string(s.name)+"/"+s.file, func(t *testing.T) {
			if err := Validate(s.name, decodeFile(t, filepath.Join("testdata", s.file))); err != nil {
				t.Error(err)
			}
		})
	}
}

// Documents decoded without UseNumber carry float64 numbers.
func TestValidateFloat64Numbers(t *testing.T) {
	data, err := os.ReadFile("testdata/manifest.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	if err := Validate(Manifest, doc); err != nil {
		t.Error(err)
	}
	setAt(t, doc, "/revision", 2.5)
	var se *Error
	if err := Validate(Manifest, doc); !errors.As(err, &se) || se.Pointer != "/revision" {
		t.Errorf("Validate = %v, want violation at /revision", err)
	}
}

// op edits a decoded document for one mutation case.
type op func(t *testing.T, doc any)

func set(ptr string, v any) op {
	return func(t *testing.T, doc any) { setAt(t, doc, ptr, v) }
}

func del(ptr string) op {
	return func(t *testing.T, doc any) { deleteAt(t, doc, ptr) }
}

// parent resolves all but the last token of a JSON pointer.
func parent(t *testing.T, doc any, ptr string) (any, string) {
	t.Helper()
	tokens := strings.Split(ptr, "/")[1:]
	for i, tok := range tokens {
		tokens[i] = strings.NewReplacer("~1", "/", "~0", "~").Replace(tok)
	}
	cur := doc
	for _, tok := range tokens[:len(tokens)-1] {
		switch c := cur.(type) {
		case map[string]any:
			cur = c[tok]
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i >= len(c) {
				t.Fatalf("bad pointer %s", ptr)
			}
			cur = c[i]
		default:
			t.Fatalf("bad pointer %s", ptr)
		}
	}
	return cur, tokens[len(tokens)-1]
}

func setAt(t *testing.T, doc any, ptr string, v any) {
	t.Helper()
	p, last := parent(t, doc, ptr)
	switch c := p.(type) {
	case map[string]any:
		c[last] = v
	case []any:
		i, err := strconv.Atoi(last)
		if err != nil || i >= len(c) {
			t.Fatalf("bad pointer %s", ptr)
		}
		c[i] = v
	default:
		t.Fatalf("bad pointer %s", ptr)
	}
}

func deleteAt(t *testing.T, doc any, ptr string) {
	t.Helper()
	p, last := parent(t, doc, ptr)
	m, ok := p.(map[string]any)
	if !ok {
		t.Fatalf("bad pointer %s", ptr)
	}
	delete(m, last)
}

const validCID = "cid_c670cd0eb843b54f7bf606819590ba27f769b0fbbaa2a5b44ca776f536daea44"

func TestMutationsAreReportedAtTheirPointer(t *testing.T) {
	tests := []struct {
		name   Name
		sample string
		desc   string
		edits  []op
		want   string // pointer of the violation; "-" means the document stays valid
	}{
		// manifest.v1
		{Manifest, "manifest.json", "sensitivity outside enum", []op{set("/query/sensitivity", "bogus")}, "/query/sensitivity"},
		{Manifest, "manifest.json", "relative artifacts root", []op{set("/artifacts/root", "runs/x")}, "/artifacts/root"},
		{Manifest, "manifest.json", "empty artifacts root", []op{set("/artifacts/root", "")}, "/artifacts/root"},
		{Manifest, "manifest.json", "wrong schema_version", []op{set("/schema_version", "manifest.v2")}, "/schema_version"},
		{Manifest, "manifest.json", "blank run_id", []op{set("/run_id", " \t ")}, "/run_id"},
		{Manifest, "manifest.json", "run_id of JavaScript-only whitespace", []op{set("/run_id", "\u00a0\u3000\ufeff")}, "/run_id"},
		{Manifest, "manifest.json", "revision 0", []op{set("/revision", json.Number("0"))}, "/revision"},
		{Manifest, "manifest.json", "fractional revision", []op{set("/revision", json.Number("1.5"))}, "/revision"},
		{Manifest, "manifest.json", "integral float revision", []op{set("/revision", json.Number("2.0"))}, "-"},
		{Manifest, "manifest.json", "mode outside enum", []op{set("/mode", "fast")}, "/mode"},
		{Manifest, "manifest.json", "status outside enum", []op{set("/status", "done")}, "/status"},
		{Manifest, "manifest.json", "missing query text", []op{del("/query/text")}, "/query"},
		{Manifest, "manifest.json", "constraints not an object", []op{set("/query/constraints", "x")}, "/query/constraints"},
		{Manifest, "manifest.json", "stage perspectives", []op{set("/stage/current", "perspectives")}, "-"},
		{Manifest, "manifest.json", "stage outside enum", []op{set("/stage/current", "drafting")}, "/stage/current"},
		{Manifest, "manifest.json", "history gates_revision fractional", []op{set("/stage/history/1/gates_revision", json.Number("1.5"))}, "/stage/history/1/gates_revision"},
		{Manifest, "manifest.json", "history reason empty", []op{set("/stage/history/0/reason", "")}, "/stage/history/0/reason"},
		{Manifest, "manifest.json", "limit not a number", []op{set("/limits/max_summary_kb", "5")}, "/limits/max_summary_kb"},
		{Manifest, "manifest.json", "missing limit", []op{del("/limits/max_review_iterations")}, "/limits"},
		{Manifest, "manifest.json", "missing path key", []op{del("/artifacts/paths/pivot_file")}, "/artifacts/paths"},
		{Manifest, "manifest.json", "metrics not an object", []op{set("/metrics", []any{})}, "/metrics"},
		{Manifest, "manifest.json", "failures not an array", []op{set("/failures", map[string]any{})}, "/failures"},
		{Manifest, "manifest.json", "agents absent (unchecked)", []op{del("/agents")}, "-"},
		{Manifest, "manifest.json", "extra fields allowed", []op{set("/extra", true), set("/query/extra", 1)}, "-"},
		{Manifest, "manifest.json", "deepest of two violations", []op{del("/run_id"), set("/query/sensitivity", "bogus")}, "/query/sensitivity"},

		// citation.v1
		{Citation, "citation.json", "status outside enum", []op{set("/status", "ok")}, "/status"},
		{Citation, "citation.json", "uppercase cid", []op{set("/cid", strings.ToUpper(validCID[:4])+validCID[4:])}, "/cid"},
		{Citation, "citation.json", "uppercase cid hex", []op{set("/cid", "cid_"+strings.ToUpper(validCID[4:]))}, "/cid"},
		{Citation, "citation.json", "short cid", []op{set("/cid", validCID[:60])}, "/cid"},
		{Citation, "citation.json", "unknown field", []op{set("/claim", "x")}, ""},
		{Citation, "citation.json", "missing notes", []op{del("/notes")}, ""},
		{Citation, "citation.json", "blank normalized_url", []op{set("/normalized_url", "  ")}, "/normalized_url"},
		{Citation, "citation.json", "wave 3", []op{set("/found_by/1/wave", json.Number("3"))}, "/found_by/1/wave"},
		{Citation, "citation.json", "wave as string", []op{set("/found_by/0/wave", "1")}, "/found_by/0/wave"},
		{Citation, "citation.json", "found_by entry unknown field", []op{set("/found_by/0/claim", "x")}, "/found_by/0"},
		{Citation, "citation.json", "found_by entry missing agent_type", []op{del("/found_by/0/agent_type")}, "/found_by/0"},
		{Citation, "citation.json", "fractional http_status", []op{set("/http_status", json.Number("200.5"))}, "/http_status"},
		{Citation, "citation.json", "null title (spec examples)", []op{set("/title", nil), set("/publisher", nil), set("/evidence_snippet", nil)}, "-"},
		{Citation, "citation.json", "null http_status", []op{set("/http_status", nil)}, "/http_status"},
		{Citation, "citation.json", "optional fields absent", []op{del("/http_status"), del("/title"), del("/publisher"), del("/evidence_snippet")}, "-"},

		// gates.v1
		{Gates, "gates.json", "hard gate warns", []op{set("/gates/C/status", "warn")}, "/gates/C/status"},
		{Gates, "gates.json", "soft gate warns", []op{set("/gates/C/class", "soft"), set("/gates/C/status", "warn")}, "-"},
		{Gates, "gates.json", "status outside enum", []op{set("/gates/A/status", "skipped")}, "/gates/A/status"},
		{Gates, "gates.json", "id under wrong key", []op{set("/gates/B/id", "C")}, "/gates/B/id"},
		{Gates, "gates.json", "renamed gate", []op{set("/gates/D/name", "Summary")}, "/gates/D/name"},
		{Gates, "gates.json", "missing gate", []op{del("/gates/F")}, "/gates"},
		{Gates, "gates.json", "extra gate", []op{set("/gates/G", map[string]any{})}, "/gates"},
		{Gates, "gates.json", "passed without checked_at", []op{set("/gates/A/checked_at", nil)}, "/gates/A/checked_at"},
		{Gates, "gates.json", "not_run with checked_at", []op{set("/gates/F/checked_at", "2026-02-14T12:30:00.000Z")}, "-"},
		{Gates, "gates.json", "non-string artifact", []op{set("/gates/C/artifacts/1", json.Number("1"))}, "/gates/C/artifacts/1"},
		{Gates, "gates.json", "unknown gate field", []op{set("/gates/C/retry", json.Number("1"))}, "/gates/C"},
		{Gates, "gates.json", "revision 0", []op{set("/revision", json.Number("0"))}, "/revision"},

		// url_map.v1
		{URLMap, fixtures + "validate/url-map.json", "bad cid", []op{set("/items/0/cid", "cid_xyz")}, "/items/0/cid"},
		{URLMap, fixtures + "validate/url-map.json", "empty url_original", []op{set("/items/1/url_original", "")}, "/items/1/url_original"},
		{URLMap, fixtures + "validate/url-map.json", "missing run_id", []op{del("/run_id")}, ""},

		// found_by.v1
		{FoundBy, "found-by.json", "wave outside enum", []op{set("/items/0/wave", "wave-3")}, "/items/0/wave"},
		{FoundBy, "found-by.json", "ordinal 0", []op{set("/items/1/ordinal", json.Number("0"))}, "/items/1/ordinal"},
		{FoundBy, "found-by.json", "absolute artifact_path", []op{set("/items/2/artifact_path", "/tmp/wave-2/p3.md")}, "/items/2/artifact_path"},

		// fixtures.v1
		{Fixtures, fixtures + "validate/url-checks.json", "http_status as string", []op{set("/items/2/http_status", "404")}, "/items/2/http_status"},
		{Fixtures, fixtures + "validate/url-checks.json", "entry not an object", []op{set("/items/1", "paywalled")}, "/items/1"},
		{Fixtures, fixtures + "validate/url-checks.json", "extra entry field", []op{set("/items/0/extra", true)}, "-"},

		// run_config.v1
		{RunConfig, "run-config.json", "mode outside enum", []op{set("/effective/citations/mode", "live")}, "/effective/citations/mode"},
		{RunConfig, "run-config.json", "tier outside enum", []op{set("/effective/flags/citation_validation_tier", "max")}, "/effective/flags/citation_validation_tier"},
		{RunConfig, "run-config.json", "tier under citations", []op{set("/effective/citations/validation_tier", "thorough")}, "-"},
		{RunConfig, "run-config.json", "endpoint not a string", []op{set("/effective/citations/endpoints/apify", json.Number("1"))}, "/effective/citations/endpoints/apify"},
		{RunConfig, "run-config.json", "no effective block", []op{del("/effective")}, "-"},

		// run_policy.v1
		{RunPolicy, "policy.json", "policy value not a number", []op{set("/citations_ladder_policy_v1/max_redirects", "5")}, "/citations_ladder_policy_v1/max_redirects"},
		{RunPolicy, "policy.json", "wrong schema_version", []op{set("/schema_version", "run_policy.v2")}, "/schema_version"},

		// online_fixtures.v1
		{OnlineFixtures, "online-fixtures.json", "offline mode", []op{set("/effective_config/mode", "offline")}, "/effective_config/mode"},
		{OnlineFixtures, "online-fixtures.json", "item status outside enum", []op{set("/items/1/status", "ok")}, "/items/1/status"},
		{OnlineFixtures, "online-fixtures.json", "policy key missing", []op{del("/effective_config/citations_ladder_policy_v1/backoff_max_ms")}, "/effective_config/citations_ladder_policy_v1"},
		{OnlineFixtures, "online-fixtures.json", "policy value out of range", []op{set("/effective_config/citations_ladder_policy_v1/max_redirects", json.Number("21"))}, "/effective_config/citations_ladder_policy_v1/max_redirects"},
		{OnlineFixtures, "online-fixtures.json", "policy value zero", []op{set("/effective_config/citations_ladder_policy_v1/direct_fetch_max_attempts", json.Number("0"))}, "/effective_config/citations_ladder_policy_v1/direct_fetch_max_attempts"},
		{OnlineFixtures, "online-fixtures.json", "endpoint source unknown", []op{set("/effective_config/endpoint_sources/apify", "env")}, "/effective_config/endpoint_sources/apify"},

		// blocked_urls.v1
		{BlockedURLs, "blocked-urls.json", "status not blocked", []op{set("/items/0/status", "valid")}, "/items/0/status"},
		{BlockedURLs, "blocked-urls.json", "unknown action", []op{set("/items/0/action", "Retry later.")}, "/items/0/action"},
		{BlockedURLs, "blocked-urls.json", "found_by wave 0", []op{set("/items/0/found_by/1/wave", json.Number("0"))}, "/items/0/found_by/1/wave"},
	}
	for _, tc := range tests {
		t.Run(string(tc.name)+"/"+tc.desc, func(t *testing.T) {
			path := tc.sample
			if !strings.Contains(path, "/") {
				path = filepath.Join("testdata", path)
			}
			doc := decodeFile(t, path)
			for _, edit := range tc.edits {
				edit(t, doc)
			}
			err := Validate(tc.name, doc)
			if tc.want == "-" {
				if err != nil {
					t.Errorf("Validate = %v, want valid", err)
				}
				return
			}
			var se *Error
			if !errors.As(err, &se) {
				t.Fatalf("Validate = %v, want *Error", err)
			}
			if se.Pointer != tc.want || se.Schema != tc.name || se.Message == "" {
				t.Errorf("Validate = %+v, want pointer %q", se, tc.want)
			}
		})
	}
}

func TestFixturesForms(t *testing.T) {
	entry := map[string]any{"normalized_url": "https://example.com/a", "status": "valid", "http_status": json.Number("200")}
	tests := []struct {
		desc string
		doc  any
		want string // "-" = valid
	}{
		{"array form", []any{entry}, "-"},
		{"items form", map[string]any{"items": []any{entry}}, "-"},
		{"map of entries", map[string]any{"https://example.com/a": entry}, "-"},
		{"map of statuses", map[string]any{"https://example.com/a": "valid"}, "-"},
		{"empty object", map[string]any{}, "-"},
		{"number", json.Number("5"), ""},
		{"string", "valid", ""},
		{"array of strings", []any{"valid"}, "/0"},
		{"map value a number", map[string]any{"https://example.com/a": json.Number("5")}, "/https:~1~1example.com~1a"},
		{"map key needing escapes", map[string]any{"a/b~c%d e": true}, "/a~1b~0c%d e"},
		{"items entry bad", map[string]any{"items": []any{map[string]any{"status": json.Number("1")}}}, "/items/0/status"},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			err := Validate(Fixtures, tc.doc)
			if tc.want == "-" {
				if err != nil {
					t.Errorf("Validate = %v, want valid", err)
				}
				return
			}
			var se *Error
			if !errors.As(err, &se) || se.Pointer != tc.want {
				t.Errorf("Validate = %v, want violation at %q", err, tc.want)
			}
		})
	}
}

func TestValidateJSON(t *testing.T) {
	rec := jsonlRecords(t, fixtures+"render/citations.jsonl")[0]
	doc, err := ValidateJSON(Citation, rec)
	if err != nil {
		t.Fatal(err)
	}
	if m, ok := doc.(map[string]any); !ok || m["status"] != "valid" {
		t.Errorf("decoded %v", doc)
	}

	for _, bad := range []string{``, `{`, `{"a":1} x`, `{} {}`, `[1,]`, "\xff"} {
		if _, err := ValidateJSON(Citation, []byte(bad)); !errors.Is(err, ErrInvalidJSON) {
			t.Errorf("ValidateJSON(%q) = %v, want ErrInvalidJSON", bad, err)
		}
	}
	if _, err := ValidateJSON(Citation, append(bytes.Clone(rec), " \n\t"...)); err != nil {
		t.Errorf("trailing whitespace rejected: %v", err)
	}

	_, err = ValidateJSON(Citation, []byte(`{"schema_version":"citation.v1"}`))
	var se *Error
	if !errors.As(err, &se) || se.Pointer != "" || !strings.Contains(se.Message, "normalized_url") {
		t.Errorf("ValidateJSON = %v, want missing-properties violation at the root", err)
	}
	if !strings.Contains(err.Error(), "citation.v1") {
		t.Errorf("error text %q does not name the schema", err)
	}

	// Decoding with json.Number keeps the fraction that float64 would round away.
	gates, err := os.ReadFile("testdata/gates.json")
	if err != nil {
		t.Fatal(err)
	}
	gates = bytes.Replace(gates, []byte(`"revision": 3`), []byte(`"revision": 12345678901234567890.5`), 1)
	if _, err = ValidateJSON(Gates, gates); !errors.As(err, &se) || se.Pointer != "/revision" {
		t.Errorf("ValidateJSON = %v, want violation at /revision", err)
	}
}

func TestValidateRejectsNonJSONValues(t *testing.T) {
	tests := []struct {
		desc string
		doc  any
	}{
		{"NaN revision", map[string]any{"schema_version": "gates.v1", "revision": math.NaN()}},
		{"infinite revision", map[string]any{"schema_version": "gates.v1", "revision": math.Inf(1)}},
		{"malformed json.Number", map[string]any{"schema_version": "gates.v1", "revision": json.Number("1x")}},
		{"Go map type", map[string]string{"schema_version": "gates.v1"}},
		{"channel", make(chan int)},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			if err := Validate(Gates, tc.doc); !errors.Is(err, ErrInvalidJSON) {
				t.Errorf("Validate = %v, want ErrInvalidJSON", err)
			}
		})
	}
}

func TestValidateUnknownSchema(t *testing.T) {
	err := Validate("nope.v1", map[string]any{})
	var se *Error
	if err == nil || errors.As(err, &se) || errors.Is(err, ErrInvalidJSON) {
		t.Errorf("Validate(unknown) = %v", err)
	}
}

// benchRecord is testdata/citation.json: a record with every optional field
// and two found_by entries.
func benchRecord(b *testing.B) map[string]any {
	data, err := os.ReadFile("testdata/citation.json")
	if err != nil {
		b.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var rec map[string]any
	if err := dec.Decode(&rec); err != nil {
		b.Fatal(err)
	}
	return rec
}

// The common case: a valid record, accepted by the fast path.
func BenchmarkValidateCitation(b *testing.B) {
	rec := benchRecord(b)
	b.ReportAllocs()
	for b.Loop() {
		if err := Validate(Citation, rec); err != nil {
			b.Fatal(err)
		}
	}
}

// A valid record checked by the general validator alone, for comparison.
func BenchmarkValidateCitationSchemaOnly(b *testing.B) {
	rec := benchRecord(b)
	schemas, err := compiled()
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := schemas[Citation].Validate(rec); err != nil {
			b.Fatal(err)
		}
	}
}

// An invalid record: the fast path declines, the schema finds the violation.
func BenchmarkValidateCitationInvalid(b *testing.B) {
	rec := benchRecord(b)
	rec["status"] = "ok"
	b.ReportAllocs()
	for b.Loop() {
		if err := Validate(Citation, rec); err == nil {
			b.Fatal("invalid record accepted")
		}
	}
}

// A found-by.json at the pipeline's upper bound, 50,000 items.
func BenchmarkValidateFoundBy50k(b *testing.B) {
	doc := foundByDoc(b, 50000)
	b.ReportAllocs()
	for b.Loop() {
		if err := Validate(FoundBy, doc); err != nil {
			b.Fatal(err)
		}
	}
}

// A typical large url-map.json, 25,000 items.
func BenchmarkValidateURLMap25k(b *testing.B) {
	doc := urlMapDoc(b, 25000)
	b.ReportAllocs()
	for b.Loop() {
		if err := Validate(URLMap, doc); err != nil {
			b.Fatal(err)
		}
	}
}

// A large offline fixtures file in the map form, 20,000 entries, accepted by
// the fast path.
func BenchmarkValidateFixtures20k(b *testing.B) {
	doc := fixturesDoc(b, 20000, "map")
	b.ReportAllocs()
	for b.Loop() {
		if err := Validate(Fixtures, doc); err != nil {
			b.Fatal(err)
		}
	}
}

// The same document checked by the general validator alone, for comparison.
func BenchmarkValidateFixtures20kSchemaOnly(b *testing.B) {
	doc := fixturesDoc(b, 20000, "map")
	schemas, err := compiled()
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := schemas[Fixtures].Validate(doc); err != nil {
			b.Fatal(err)
		}
	}
}
