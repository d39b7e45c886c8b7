package mcp

import (
	"encoding/json"
	"slices"

	"github.com/google/jsonschema-go/jsonschema"
)

// singleTypes gives every optional property one type: the inferred
// ["null", T] of a pointer or slice field becomes T. A client that maps tool
// schemas onto a single-type dialect (Gemini's function declarations, the
// OpenAPI subset) would otherwise reject the tool; a null argument is still
// accepted, read as absent (dropNulls).
func singleTypes(s *jsonschema.Schema) {
	for _, p := range s.Properties {
		if len(p.Types) == 2 && slices.Contains(p.Types, "null") {
			p.Type = p.Types[0]
			if p.Type == "null" {
				p.Type = p.Types[1]
			}
			p.Types = nil
		}
		singleTypes(p)
	}
	if s.Items != nil {
		singleTypes(s.Items)
	}
}

// dropNulls removes the top-level arguments whose value is null: null means
// "as if absent", the default.
func dropNulls(raw json.RawMessage, doc any) (json.RawMessage, error) {
	m, ok := doc.(map[string]any)
	if !ok {
		return raw, nil
	}
	n := len(m)
	for k, v := range m {
		if v == nil {
			delete(m, k)
		}
	}
	if len(m) == n {
		return raw, nil
	}
	return json.Marshal(m)
}
