package schema

import (
	"encoding/json"
	"math"
	"strconv"
	"sync/atomic"
)

// slowValidations counts the documents handed to the general validator, so
// that tests can tell the fast paths are taken.
var slowValidations atomic.Int64

// fastOK reports whether doc is valid against the named schema by one of the
// fast paths. false means only that the general validator must decide.
//
// Kept because a benchmark of the whole tool chain shows it (2,000 wave
// files, 50,000 URLs; medians of three interleaved runs):
// BenchmarkToolChainOffline 1.95 s → 3.01 s without it, from validate
// reading url-map.json and the fixtures and gate-c and render reading
// citations.jsonl back. (BenchmarkRunOffline does not move: run checks its
// typed records before they become documents: each format's schemaOK in
// the engine.) The mutation tests in fast_test.go fail when a
// schema and its fast path disagree.
func fastOK(name Name, doc any) bool {
	switch name {
	case Citation:
		return citationOK(doc)
	case FoundBy:
		return foundByDocOK(doc)
	case URLMap:
		return urlMapDocOK(doc)
	case Fixtures:
		return fixturesDocOK(doc)
	case Manifest, RunConfig, RunPolicy, Gates, OnlineFixtures, BlockedURLs, OperatorDecisions:
		// One small document per run: the general validator's cost does
		// not show, and a second reading of the schema would be a second
		// thing to keep in step with it.
	}
	return false
}

// citationOK is a fast path for the hottest validation, citation.v1 (a run
// validates every record of citations.jsonl, tens of thousands of them): the
// general validator spends over a microsecond per value, this check a few
// nanoseconds.
//
// It is conservative: it may reject a record the schema accepts, in which case
// Validate asks the schema, which remains the only authority; it must never
// accept a record the schema rejects. TestCitationFastPathIsConservative checks
// that over many mutated records, so a change to citation.v1.json that this
// function does not follow fails the tests.
func citationOK(doc any) bool {
	rec, ok := doc.(map[string]any)
	if !ok {
		return false
	}
	required := 0
	for k, v := range rec {
		switch k {
		case "schema_version":
			if v != "citation.v1" {
				return false
			}
		case "normalized_url":
			// Any visible ASCII first character is not whitespace, so the
			// string is not blank; anything else is left to the schema.
			if s, ok := v.(string); !ok || s == "" || s[0] <= ' ' || s[0] >= 0x7f {
				return false
			}
		case "cid":
			if s, ok := v.(string); !ok || !isCID(s) {
				return false
			}
		case "url", "url_original", "checked_at":
			if s, ok := v.(string); !ok || s == "" {
				return false
			}
		case "status":
			switch v {
			case "valid", "paywalled", "blocked", "mismatch", "invalid":
			default:
				return false
			}
		case "found_by":
			entries, ok := v.([]any)
			if !ok {
				return false
			}
			for _, e := range entries {
				if !foundByOK(e) {
					return false
				}
			}
		case "notes":
			if _, ok := v.(string); !ok {
				return false
			}
		case "http_status":
			if !isInteger(v) {
				return false
			}
			continue // optional
		case "title", "publisher", "evidence_snippet":
			if _, ok := v.(string); !ok && v != nil {
				return false
			}
			continue // optional
		default:
			return false
		}
		required++
	}
	return required == 9
}

// foundByOK is citationOK for one found_by entry.
func foundByOK(doc any) bool {
	e, ok := doc.(map[string]any)
	if !ok {
		return false
	}
	required := 0
	for k, v := range e {
		switch k {
		case "wave":
			switch v {
			case json.Number("1"), json.Number("2"), 1.0, 2.0:
			default:
				return false
			}
		case "perspective_id", "agent_type", "artifact_path":
			if s, ok := v.(string); !ok || s == "" {
				return false
			}
		case "source_line":
			if _, ok := v.(string); !ok {
				return false
			}
			continue // optional
		default:
			return false
		}
		required++
	}
	return required == 4
}

// isCID reports whether s is "cid_" and 64 lowercase hex digits.
func isCID(s string) bool {
	if len(s) != 68 || s[:4] != "cid_" {
		return false
	}
	for i := 4; i < len(s); i++ {
		if !lowerHex[s[i]] {
			return false
		}
	}
	return true
}

// lowerHex marks the bytes of lowercase hexadecimal digits.
var lowerHex = [256]bool{
	'0': true, '1': true, '2': true, '3': true, '4': true, '5': true, '6': true, '7': true, '8': true, '9': true,
	'a': true, 'b': true, 'c': true, 'd': true, 'e': true, 'f': true,
}

// isInteger reports whether v is a JSON number that is plainly an integer.
func isInteger(v any) bool {
	switch n := v.(type) {
	case json.Number:
		_, err := strconv.ParseInt(string(n), 10, 64)
		return err == nil
	case float64:
		return n == math.Trunc(n) && math.Abs(n) < 1<<53
	}
	return false
}

// foundByDocOK is the fast path for a whole found_by.v1 document, which
// holds one item per URL occurrence of a run, up to tens of thousands: the
// general validator takes seconds over such a document, this check a few
// milliseconds. Like citationOK it is conservative: it may reject a document
// the schema accepts (Validate then asks the schema), but must never accept
// one the schema rejects; TestDocFastPathsAreConservative checks that.
func foundByDocOK(doc any) bool {
	m, ok := doc.(map[string]any)
	// Exactly the three required properties: additionalProperties is false.
	if !ok || len(m) != 3 || m["schema_version"] != "found_by.v1" || !nonBlank(m["run_id"]) {
		return false
	}
	items, ok := m["items"].([]any)
	if !ok {
		return false
	}
	for _, it := range items {
		if !foundByItemOK(it) {
			return false
		}
	}
	return true
}

// foundByItemOK is foundByDocOK for one item.
func foundByItemOK(doc any) bool {
	item, ok := doc.(map[string]any)
	if !ok {
		return false
	}
	required := 0
	for k, v := range item {
		switch k {
		case "url_original":
			if s, ok := v.(string); !ok || s == "" {
				return false
			}
		case "wave":
			switch v {
			case "wave-1", "wave-2":
			default:
				return false
			}
		case "perspective_id", "source_line":
			if _, ok := v.(string); !ok {
				return false
			}
		case "ordinal":
			if !isPositiveInteger(v) {
				return false
			}
		case "artifact_path":
			// The pattern ^[^/] asks for a first character other than
			// '/'; the first rune of a string is '/' exactly when its
			// first byte is, invalid UTF-8 included.
			if s, ok := v.(string); !ok || s == "" || s[0] == '/' {
				return false
			}
			continue // optional
		default:
			return false
		}
		required++
	}
	return required == 5
}

// urlMapDocOK is the fast path for a whole url_map.v1 document, one item per
// distinct URL of a run; see foundByDocOK. The schema allows unknown
// properties in the document and in its items and says nothing about their
// values, so neither does this check.
func urlMapDocOK(doc any) bool {
	m, ok := doc.(map[string]any)
	if !ok || m["schema_version"] != "url_map.v1" || !nonBlank(m["run_id"]) {
		return false
	}
	items, ok := m["items"].([]any)
	if !ok {
		return false
	}
	for _, it := range items {
		item, ok := it.(map[string]any)
		if !ok || !nonBlank(item["url_original"]) || !nonBlank(item["normalized_url"]) {
			return false
		}
		if s, ok := item["cid"].(string); !ok || !isCID(s) {
			return false
		}
	}
	return true
}

// nonBlank reports whether v is a string holding a visible ASCII character,
// which is not whitespace, so the string matches $defs/nonEmpty (not empty
// after JavaScript's trim). Strings whose only non-blank characters lie
// beyond ASCII are left to the schema.
func nonBlank(v any) bool {
	s, ok := v.(string)
	if !ok {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c > ' ' && c < 0x7f {
			return true
		}
	}
	return false
}

// isPositiveInteger reports whether v is a JSON number that is plainly an
// integer of at least 1: a json.Number of decimal digits without a sign,
// leading zero, fraction or exponent, or a float64 with no fractional part.
func isPositiveInteger(v any) bool {
	switch n := v.(type) {
	case json.Number:
		if n == "" || n[0] < '1' || n[0] > '9' {
			return false
		}
		for i := 1; i < len(n); i++ {
			if n[i] < '0' || n[i] > '9' {
				return false
			}
		}
		return true
	case float64:
		return n >= 1 && n < 1<<53 && n == math.Trunc(n)
	}
	return false
}

// fixturesDocOK is the fast path for a whole fixtures.v1 document, an offline
// or online fixtures file of up to tens of thousands of entries; see
// foundByDocOK. The schema accepts any of three forms (anyOf):
//
//  1. an array of entries;
//  2. an object whose items is an array of entries, whatever else it holds;
//  3. an object every property of which is an entry or a string.
//
// An object with an array under items can only match form 2, since an array
// is neither an entry nor a string; any other object can only match form 3.
//
// The validator evaluates every branch of anyOf, and additionalProperties on
// every property, even once the outcome is known, and it panics (Validate
// then reports ErrInvalidJSON) on a Go type no JSON text decodes to. So a
// document of form 2 is also put through form 3, which looks at the type of
// every other property of the object and, where that is an object, of its
// entry fields; those must be of JSON's types for the schema to accept it.
func fixturesDocOK(doc any) bool {
	switch d := doc.(type) {
	case []any:
		return fixtureEntriesOK(d)
	case map[string]any:
		if items, ok := d["items"].([]any); ok {
			for k, v := range d {
				if k == "items" || isJSONKind(v) && fixtureEntryKindsOK(v) {
					continue
				}
				return false
			}
			return fixtureEntriesOK(items)
		}
		for _, v := range d {
			switch v := v.(type) {
			case string:
			case map[string]any:
				if !fixtureEntryOK(v) {
					return false
				}
			default:
				return false
			}
		}
		return true
	}
	return false
}

// fixtureEntriesOK reports whether every element of a is an entry.
func fixtureEntriesOK(a []any) bool {
	for _, e := range a {
		entry, ok := e.(map[string]any)
		if !ok || !fixtureEntryOK(entry) {
			return false
		}
	}
	return true
}

// fixtureEntryOK is fixturesDocOK for one entry ($defs/entry): every field is
// optional, the known ones are strings (status is free text, not an enum) but
// for http_status, any number, and other properties are allowed with any
// value, which the schema never looks at.
func fixtureEntryOK(entry map[string]any) bool {
	for k, v := range entry {
		// Most values are strings, right for every field but
		// http_status; comparing k's length first spares loading the
		// bytes of the other keys.
		if _, ok := v.(string); ok {
			if k == "http_status" {
				return false
			}
			continue
		}
		switch k {
		case "normalized_url", "url_original", "cid", "status", "url", "title", "publisher", "evidence_snippet", "notes":
			if _, ok := v.(string); !ok {
				return false
			}
		case "http_status":
			if !isNumber(v) {
				return false
			}
		}
	}
	return true
}

// fixtureEntryKindsOK reports whether, if v is an object, its entry fields
// are of JSON's types; see fixturesDocOK.
func fixtureEntryKindsOK(v any) bool {
	entry, ok := v.(map[string]any)
	if !ok {
		return true
	}
	for k, v := range entry {
		switch k {
		case "normalized_url", "url_original", "cid", "status", "url", "title", "publisher", "evidence_snippet", "notes", "http_status":
			if !isJSONKind(v) {
				return false
			}
		}
	}
	return true
}

// isJSONKind reports whether v has one of the Go types encoding/json decodes
// JSON values to.
func isJSONKind(v any) bool {
	switch v.(type) {
	case nil, bool, string, float64, json.Number, []any, map[string]any:
		return true
	}
	return false
}

// isNumber reports whether v is a number as JSON decodes it: a finite float64
// or a json.Number in JSON's number syntax. The schema's "type": "number"
// accepts more (other Go number types, NaN, malformed json.Numbers), which
// are left to it.
func isNumber(v any) bool {
	switch n := v.(type) {
	case float64:
		return !math.IsNaN(n) && !math.IsInf(n, 0)
	case json.Number:
		return isNumberSyntax(string(n))
	}
	return false
}

// isNumberSyntax reports whether s matches JSON's number grammar,
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func isNumberSyntax(s string) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && s[i] >= '1' && s[i] <= '9':
		i = skipDigits(s, i+1)
	default:
		return false
	}
	if i < len(s) && s[i] == '.' {
		j := skipDigits(s, i+1)
		if j == i+1 {
			return false
		}
		i = j
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		j := skipDigits(s, i)
		if j == i {
			return false
		}
		i = j
	}
	return i == len(s)
}

// skipDigits returns the index of the first non-digit of s at or after i.
func skipDigits(s string, i int) int {
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i
}

// NonBlank is the fast paths' conservative reading of the schemas' nonEmpty
// rule (not empty after JavaScript's trim) for a Go string: it may reject a
// string the schema accepts, never the other way round. Typed checks in other
// packages use it so the rule lives here.
func NonBlank(s string) bool { return nonBlank(s) }

// IsCID reports whether s matches the cid pattern ^cid_[0-9a-f]{64}$.
func IsCID(s string) bool { return isCID(s) }
