// Package jsonx writes JSON byte-for-byte the way the reference implementation's
// JavaScript JSON.stringify does, and computes the canonical digests
// ("inputs_digest") that the reference records in its artifacts.
//
// encoding/json differs from JSON.stringify in three observable ways: it escapes
// < > & (HTML escaping), it escapes U+2028 and U+2029, and it prints negative
// zero as -0 where JavaScript prints 0. Artifacts and digests must match the
// reference byte for byte, so every JSON byte citegate writes goes through this
// package instead of calling encoding/json directly.
package jsonx

import (
	"bytes"
	"encoding/json"
)

// Marshal encodes v compactly, as JSON.stringify(v) would: no HTML escaping of
// < > &, U+2028 and U+2029 emitted raw, negative zero printed as 0, and struct
// fields in declaration order (the order of keys in the output is the order of
// the fields, so declare them in the order the artifact needs). Map keys come
// out sorted by bytes, as encoding/json sorts them, not in insertion order as
// in JavaScript, so artifacts whose key order matters use structs.
//
// Values JSON.stringify would print as null (NaN, ±Inf) are an error here, as
// in encoding/json, because an artifact should never contain them.
func Marshal(v any) ([]byte, error) {
	return encode(v, false)
}

// MarshalFile encodes v the way artifact JSON files are written: indented with
// two spaces, as JSON.stringify(v, null, 2) does, followed by a single "\n".
func MarshalFile(v any) ([]byte, error) {
	return encode(v, true)
}

func encode(v any, indent bool) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if indent {
		enc.SetIndent("", "  ")
	}
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	out := jsify(buf.Bytes())
	if !indent {
		// Encoder.Encode terminates every value with a newline; compact output has none.
		out = bytes.TrimSuffix(out, []byte("\n"))
	}
	return out, nil
}

// jsify rewrites valid JSON produced by encoding/json into what JSON.stringify
// prints for the same value: the \u2028 and \u2029 escapes become the raw runes
// and the number -0 becomes 0. b is returned unchanged when it contains
// neither; otherwise the result is a new slice.
//
// Only the encoder's own escapes are touched: inside a string every backslash
// starts a two-character escape, so scanning escapes pairwise never mistakes an
// escaped backslash followed by "u2028" (the text \u2028 literally in a string,
// encoded as \\u2028) for an escape of the rune.
func jsify(b []byte) []byte {
	if !bytes.Contains(b, []byte(`\u202`)) && !mayHaveNegativeZero(b) {
		return b
	}
	out := make([]byte, 0, len(b))
	inString := false
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case inString && c == '\\':
			if i+5 < len(b) && b[i+1] == 'u' && string(b[i+2:i+5]) == "202" && (b[i+5] == '8' || b[i+5] == '9') {
				// U+2028 is E2 80 A8 in UTF-8, U+2029 is E2 80 A9.
				out = append(out, 0xE2, 0x80, 0xA8+b[i+5]-'8')
				i += 5
				continue
			}
			out = append(out, c, b[i+1])
			i++
		case c == '"':
			inString = !inString
			out = append(out, c)
		case !inString && c == '-' && i+1 < len(b) && b[i+1] == '0' && (i+2 == len(b) || !isNumberByte(b[i+2])):
			// Drop the sign of a bare -0; -0.5 or -0e1 keep theirs.
		default:
			out = append(out, c)
		}
	}
	return out
}

// isNumberByte reports whether c can continue a JSON number after its first digit.
// mayHaveNegativeZero is a cheap pre-check for jsify: "-0" inside strings is
// common (dates, slugs), but a number -0 can only follow a value separator.
func mayHaveNegativeZero(b []byte) bool {
	for i := 0; ; {
		j := bytes.Index(b[i:], []byte("-0"))
		if j < 0 {
			return false
		}
		i += j
		if i == 0 || bytes.IndexByte([]byte(":[, \n"), b[i-1]) >= 0 {
			return true
		}
		i += 2
	}
}

func isNumberByte(c byte) bool {
	return c >= '0' && c <= '9' || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-'
}
