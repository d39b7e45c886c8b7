package parse

import "github.com/nlnwa/whatwg-url/url"

// Href returns the WHATWG serialization of an absolute URL of any scheme —
// what JavaScript's new URL(raw).toString() gives: scheme and a special
// URL's host lowercased, IDN to punycode, default port dropped, dot
// segments resolved, percent-encoding per WHATWG; userinfo, query and
// fragment kept. ok is false when raw does not parse, where the reference
// keeps its input unchanged.
//
// The reference writes every url of a citation record in this form (its
// redaction step parses and re-serializes it), so a hand-written fixture
// url "https://Example.COM/a" is recorded as "https://example.com/a".
func Href(raw string) (href string, ok bool) {
	if s, ok := fastCanonical(raw); ok {
		return s, true
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "", false
	}
	href = u.Href(false)
	// As in parseHTTP: an href the parser cannot read back is no URL.
	if !isASCII(raw) {
		if _, err := url.Parse(href); err != nil {
			return "", false
		}
	}
	return href, true
}
