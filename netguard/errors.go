package netguard

import "errors"

// Sentinel errors. Every error returned by this package wraps exactly one of
// them, so callers can tell a policy decision from a malformed input with
// errors.Is. Their texts are the stable phrases Reason returns; changing one
// changes what artifacts say.
var (
	// ErrMalformed reports input that is not a usable absolute http(s) URL:
	// unparsable, control characters, over-long, empty host, IPv6 zone
	// identifiers, unbracketed colons, invalid host names, or a bad port.
	ErrMalformed = errors.New("malformed URL")

	// ErrScheme reports a scheme other than http or https, including a
	// missing scheme on a scheme-relative reference ("//host/").
	ErrScheme = errors.New("disallowed protocol")

	// ErrUserinfo reports a URL with a userinfo component, even an empty one.
	// This also catches authority confusion such as example.com@127.0.0.1,
	// where the real host is the part after the "@".
	ErrUserinfo = errors.New("userinfo not allowed")

	// ErrNonCanonicalIP reports a host that some parser or resolver would read
	// as an IPv4 address although it is not written as a canonical dotted quad
	// (127.1, 2130706433, 0x7f000001, 0177.0.0.1, fullwidth digits, ...).
	// Such hosts are rejected before any DNS query because their meaning
	// depends on the platform resolver.
	ErrNonCanonicalIP = errors.New("non-canonical IP literal")

	// ErrBlockedHost reports a host name that names the local machine or a
	// private network: localhost and its variants, single-label names, and
	// internal suffixes such as .local or .internal.
	ErrBlockedHost = errors.New("blocked host name")

	// ErrNotAllowlisted reports a host outside the operator's DomainAllowlist.
	ErrNotAllowlisted = errors.New("host not in domain allowlist")

	// ErrBlockedAddress reports an IP address (a literal in the URL, or later
	// a resolved address) inside a special-purpose range.
	ErrBlockedAddress = errors.New("private/local target blocked by SSRF policy")
)

// sentinels lists every sentinel for Reason. They are distinct values, so
// at most one of them is in any error's chain.
var sentinels = []error{
	ErrMalformed, ErrScheme, ErrUserinfo, ErrNonCanonicalIP,
	ErrBlockedHost, ErrNotAllowlisted, ErrBlockedAddress,
}

// Reason maps an error to a short, stable phrase for artifact notes: the
// text of the sentinel it wraps, e.g. "private/local target blocked by SSRF
// policy" or "disallowed protocol". The phrase never contains any part of
// the URL, so it cannot leak a secret or carry attacker-chosen text into an
// artifact. Reason returns "" for nil and "unclassified error" for errors
// that wrap no sentinel of this package.
func Reason(err error) string {
	if err == nil {
		return ""
	}
	for _, s := range sentinels {
		if errors.Is(err, s) {
			return s.Error()
		}
	}
	return "unclassified error"
}
