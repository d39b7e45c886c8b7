package engine

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"

	"github.com/citegate/citegate/engine/fsx"
	"github.com/citegate/citegate/engine/jsonx"
	"github.com/citegate/citegate/engine/schema"
)

// fixtureEntry is one offline or online fixture, with absent fields omitted
// (its JSON form feeds the fixture digest, as in the reference).
type fixtureEntry struct {
	NormalizedURL   string `json:"normalized_url,omitempty"`
	URLOriginal     string `json:"url_original,omitempty"`
	CID             string `json:"cid,omitempty"`
	Status          string `json:"status,omitempty"`
	URL             string `json:"url,omitempty"`
	HTTPStatus      *int   `json:"http_status,omitempty"`
	Title           string `json:"title,omitempty"`
	Publisher       string `json:"publisher,omitempty"`
	EvidenceSnippet string `json:"evidence_snippet,omitempty"`
	Notes           string `json:"notes,omitempty"`
	CheckedAt       string `json:"checked_at,omitempty"`
}

// fixtureSet indexes fixtures three ways; later entries win, as in the reference.
type fixtureSet struct {
	entries        []fixtureEntry
	byNormalized   map[string]*fixtureEntry
	byOriginal     map[string]*fixtureEntry
	byCID          map[string]*fixtureEntry
	digest         string
	sourcePath     string
	loadedFromFile bool
}

func (f *fixtureSet) lookup(it URLMapItem) *fixtureEntry {
	if f == nil {
		return nil
	}
	if e := f.byNormalized[it.NormalizedURL]; e != nil {
		return e
	}
	if e := f.byOriginal[it.URLOriginal]; e != nil {
		return e
	}
	return f.byCID[it.CID]
}

type fixtureDigest struct {
	Schema string         `json:"schema"`
	Items  []fixtureEntry `json:"items"`
}

// loadFixtures reads a fixtures file in any of the reference's three shapes:
// an array of entries, {"items":[…]}, or a map normalized_url → entry|status.
// kind is "offline" or "online" and only shapes the messages.
func loadFixtures(path, kind string) (*fixtureSet, error) {
	data, err := fsx.ReadLimited(path, maxJSONBytes)
	if err != nil {
		return nil, readError(kind+" fixtures", path, kind+"_fixtures_path missing", err)
	}
	doc, err := schema.ValidateJSON(schema.Fixtures, data)
	if err != nil {
		return nil, schemaError(kind+" fixtures", path, kind+" fixtures unreadable JSON", err)
	}
	var raw []any
	switch v := doc.(type) {
	case []any:
		raw = v
	case map[string]any:
		if items, ok := v["items"].([]any); ok {
			raw = items
		} else {
			// A map's order is its key order in the file, which Go maps lose.
			for _, k := range objectKeys(data) {
				switch e := v[k].(type) {
				case map[string]any:
					m := map[string]any{"normalized_url": k}
					for ek, ev := range e {
						m[ek] = ev
					}
					if s, ok := e["normalized_url"].(string); ok {
						m["normalized_url"] = s
					}
					raw = append(raw, m)
				case string:
					raw = append(raw, map[string]any{"normalized_url": k, "status": e})
				}
			}
		}
	}
	return newFixtureSet(path, raw)
}

func newFixtureSet(path string, raw []any) (*fixtureSet, error) {
	f := &fixtureSet{
		byNormalized: map[string]*fixtureEntry{}, byOriginal: map[string]*fixtureEntry{}, byCID: map[string]*fixtureEntry{},
		sourcePath: path, loadedFromFile: path != "",
	}
	for _, r := range raw {
		m, _ := r.(map[string]any)
		f.entries = append(f.entries, fixtureFrom(m))
	}
	if f.entries == nil {
		f.entries = []fixtureEntry{}
	}
	for i := range f.entries {
		e := &f.entries[i]
		if e.NormalizedURL != "" {
			f.byNormalized[e.NormalizedURL] = e
		}
		if e.URLOriginal != "" {
			f.byOriginal[e.URLOriginal] = e
		}
		if e.CID != "" {
			f.byCID[e.CID] = e
		}
	}
	d, err := jsonx.Digest(fixtureDigest{Schema: "citations_validate.offline_fixtures.v1", Items: f.entries})
	if err != nil {
		return nil, err
	}
	f.digest = d
	return f, nil
}

func fixtureFrom(m map[string]any) fixtureEntry {
	str := func(k string) string {
		s, _ := m[k].(string)
		return strings.TrimSpace(s)
	}
	e := fixtureEntry{
		NormalizedURL: str("normalized_url"), URLOriginal: str("url_original"), CID: str("cid"),
		Status: str("status"), URL: str("url"), Title: str("title"), Publisher: str("publisher"),
		EvidenceSnippet: str("evidence_snippet"), Notes: str("notes"), CheckedAt: str("checked_at"),
	}
	var f float64
	switch n := m["http_status"].(type) {
	case json.Number:
		f, _ = n.Float64()
	case float64:
		f = n
	default:
		return e
	}
	if !math.IsInf(f, 0) && !math.IsNaN(f) && math.Abs(f) < 1e9 {
		code := int(math.Trunc(f))
		e.HTTPStatus = &code
	}
	return e
}

// objectKeys returns the top-level keys of a JSON object in file order.
func objectKeys(data []byte) []string {
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	var keys []string
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return keys
		}
		k, _ := t.(string)
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return keys
		}
		keys = append(keys, k)
	}
	return keys
}
