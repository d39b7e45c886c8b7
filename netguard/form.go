package netguard

import (
	"strings"
	"unicode/utf8"

	"golang.org/x/text/encoding/unicode"
)

// FormDecode is the WHATWG application/x-www-form-urlencoded decoding of
// one name or value: '+' is a space, %XX a byte, a malformed escape stays as
// it is, and the result is valid UTF-8 (one U+FFFD per ill-formed sequence).
// It allocates only when there is something to decode. Redaction decodes
// query keys and values with it, and parse's normalization rewrites queries
// with it, so both read a query the same way.
// The whatwg-url library's SearchParams percent-decodes before turning '+'
// into a space, which would turn "%2B" into a space too; the standard
// replaces '+' first.
func FormDecode(s string) string {
	// Two byte scans: ContainsAny builds a byte set on every call, and
	// every query key and value of a run comes through here.
	if strings.IndexByte(s, '+') < 0 && strings.IndexByte(s, '%') < 0 && utf8.ValidString(s) {
		return s
	}
	b := percentDecode(s, true)
	if utf8.Valid(b) {
		return string(b)
	}
	// The standard's UTF-8 decoder emits one U+FFFD per maximal ill-formed
	// subsequence; Go's own decoding emits one per byte, and
	// strings.ToValidUTF8 one per run. x/text's decoder follows the standard.
	// Its error is always nil, because it replaces rather than rejects.
	d, _ := unicode.UTF8.NewDecoder().Bytes(b)
	return string(d)
}

// percentDecode turns each %XX escape into its byte, and '+' into a space
// when plusIsSpace (form encoding); a malformed escape stays as it is.
func percentDecode(s string, plusIsSpace bool) []byte {
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '+' && plusIsSpace:
			b = append(b, ' ')
		case c == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]):
			b = append(b, unhex(s[i+1])<<4|unhex(s[i+2]))
			i += 2
		default:
			b = append(b, c)
		}
	}
	return b
}
