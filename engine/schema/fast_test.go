package schema

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
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

// mutate applies value at ptr when the parent exists; it reports whether it did.
func mutate(doc any, ptr string, value any) bool {
	tokens := strings.Split(ptr, "/")[1:]
	cur := doc
	for _, tok := range tokens[:len(tokens)-1] {
		switch c := cur.(type) {
		case map[string]any:
			cur = c[tok]
		case []any:
			if len(c) == 0 {
				return false
			}
			cur = c[0]
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
		if _, ok := value.(deleteValue); ok || len(c) == 0 {
			return false
		}
		c[0] = value
		return true
	}
	return false
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
				if mutate(doc, p, v) {
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
			if mutate(doc, p, v) {
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
