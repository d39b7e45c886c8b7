package schema

import (
	"encoding/json"
	"math"
	"strconv"
)

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
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
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
