package schema

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// Problem is one violation of a schema, with what would fix it: Error lists
// every one (Problems), so that a hand-written file can be fixed in one
// pass instead of one message at a time.
type Problem struct {
	Pointer string `json:"pointer"`
	Message string `json:"message"`
	// Hint says what the schema expects there; for a missing object it
	// names the fields the object needs, so the next attempt does not
	// discover them one level at a time.
	Hint string `json:"hint,omitempty"`
}

var missingProps = regexp.MustCompile(`^missing properties?: (.+)$`)

// problems flattens a validation error tree into its leaves, one problem per
// missing property, sorted by pointer.
func problems(root *jsonschema.ValidationError) []Problem {
	var out []Problem
	for _, e := range leaves(root) {
		at := pointer(e.InstanceLocation)
		if m := missingProps.FindStringSubmatch(e.Message); m != nil {
			sub := schemaAt(e.AbsoluteKeywordLocation)
			for _, q := range strings.Split(m[1], ", ") {
				name := strings.Trim(q, "'")
				out = append(out, Problem{Pointer: at + "/" + escapeToken(name), Message: "missing",
					Hint: expects(sub.doc, child(sub.node, "properties", name), 2)})
			}
			continue
		}
		p := Problem{Pointer: at, Message: e.Message}
		if sub := schemaAt(e.AbsoluteKeywordLocation); sub.node != nil {
			p.Hint = expects(sub.doc, sub.node, 1)
		}
		out = append(out, p)
	}
	slices.SortStableFunc(out, func(a, b Problem) int { return strings.Compare(a.Pointer, b.Pointer) })
	return slices.CompactFunc(out, func(a, b Problem) bool { return a == b })
}

func escapeToken(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// located is a subschema and the document it belongs to (for $ref).
type located struct {
	doc  map[string]any
	node map[string]any
}

// schemaAt finds the subschema that holds the keyword at an absolute
// keyword location (".../name.v1.json#/properties/x/required").
func schemaAt(loc string) located {
	file, frag, ok := strings.Cut(loc, "#")
	if !ok {
		return located{}
	}
	data, err := files.ReadFile("schemas/" + file[strings.LastIndex(file, "/")+1:])
	if err != nil {
		return located{}
	}
	var doc map[string]any
	if json.Unmarshal(data, &doc) != nil {
		return located{}
	}
	tokens := strings.Split(strings.TrimPrefix(frag, "/"), "/")
	if len(tokens) > 0 {
		tokens = tokens[:len(tokens)-1] // the keyword itself
	}
	var node any = doc
	for _, t := range tokens {
		if t == "" {
			continue
		}
		m, _ := node.(map[string]any)
		node = m[strings.ReplaceAll(strings.ReplaceAll(t, "~1", "/"), "~0", "~")]
	}
	n, _ := node.(map[string]any)
	return located{doc: doc, node: n}
}

func child(node map[string]any, keys ...string) map[string]any {
	var cur any = node
	for _, k := range keys {
		m, _ := cur.(map[string]any)
		cur = m[k]
	}
	m, _ := cur.(map[string]any)
	return m
}

// expects says in words what a subschema expects; depth bounds how far an
// object's required fields are spelled out.
func expects(doc, s map[string]any, depth int) string {
	if s == nil {
		return ""
	}
	if ref, ok := s["$ref"].(string); ok && strings.HasPrefix(ref, "#/") {
		return expects(doc, child(doc, strings.Split(strings.TrimPrefix(ref, "#/"), "/")...), depth)
	}
	if c, ok := s["const"]; ok {
		return fmt.Sprintf("must be %s", quote(c))
	}
	if e, ok := s["enum"].([]any); ok {
		var vals []string
		for _, v := range e {
			vals = append(vals, quote(v))
		}
		return "one of " + strings.Join(vals, ", ")
	}
	var parts []string
	switch t := s["type"].(type) {
	case string:
		parts = append(parts, article(t))
	case []any:
		var ts []string
		for _, x := range t {
			ts = append(ts, fmt.Sprint(x))
		}
		parts = append(parts, strings.Join(ts, " or "))
	}
	if p, ok := s["pattern"].(string); ok {
		switch {
		case p == "^/":
			parts = append(parts, "an absolute path")
		case strings.HasPrefix(p, `[^\s`):
			parts = append(parts, "not blank") // the schemas' nonEmpty: some character that is not white space
		default:
			parts = append(parts, "matching "+p)
		}
	}
	if n, ok := s["minLength"].(float64); ok && n >= 1 {
		parts = append(parts, "not empty")
	}
	if n, ok := s["minimum"].(float64); ok {
		parts = append(parts, fmt.Sprintf("at least %v", n))
	}
	if req, ok := s["required"].([]any); ok && len(req) > 0 {
		var fields []string
		for _, r := range req {
			name := fmt.Sprint(r)
			if depth > 1 {
				if sub := expects(doc, child(s, "properties", name), depth-1); sub != "" {
					name += " (" + sub + ")"
				}
			}
			fields = append(fields, name)
		}
		parts = append(parts, "with "+strings.Join(fields, ", "))
	}
	return strings.Join(parts, ", ")
}

func article(t string) string {
	switch t {
	case "object", "array", "integer":
		return "an " + t
	}
	return "a " + t
}

func quote(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
