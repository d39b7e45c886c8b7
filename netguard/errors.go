package netguard

import (
	"errors"
	"slices"
)

// Sentinel errors. Every error returned by this package wraps one of them,
// so callers can tell a policy decision from a malformed input from a
// network failure with errors.Is. A refused redirect wraps two: the
// ErrRedirectBlocked sentinel and the reason the hop was refused. Their
// texts are the stable phrases Reason returns; changing one changes what
// artifacts say.
//
// The first group are refusals: the target is not allowed, whatever the
// network would have said (IsRefusal). The rest are failures to get an
// answer, which say nothing about whether the target is acceptable.
var (
	// ErrMalformed reports input that is not a usable absolute http(s) URL:
	// unparsable, control characters, over-long, empty host, IPv6 zone
	// identifiers, unbracketed colons, invalid host names, or a bad port.
	ErrMalformed = errors.New("malformed URL")

	// ErrScheme reports a scheme other than http or https, including a
	// missing scheme on a scheme-relative reference ("//host/"), or a
	// network other than TCP handed to DialContext.
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

	// ErrBlockedAddress reports an IP address (a literal in the URL, a
	// resolver answer, or a pinned address) inside a special-purpose range.
	ErrBlockedAddress = errors.New("private/local target blocked by SSRF policy")

	// ErrBlockedPort reports a port outside the port policy (AllowPorts).
	ErrBlockedPort = errors.New("port not allowed by SSRF policy")
)

// Redirect outcomes.
var (
	// ErrRedirectBlocked reports a redirect to a target the policy refuses.
	// The error also wraps the refusal for that hop (ErrScheme,
	// ErrBlockedAddress, ...), whether Preflight or the dialer refused it.
	ErrRedirectBlocked = errors.New("redirect blocked")

	// ErrRedirectLimit reports a chain longer than Limits.MaxRedirects.
	ErrRedirectLimit = errors.New("too many redirects")

	// ErrRedirectLoop reports a redirect back to a URL already fetched in
	// the same chain; without cookies, the server would answer the same.
	ErrRedirectLoop = errors.New("redirect loop")
)

// Failures: no usable answer was obtained. None of them is evidence that a
// citation is wrong, except ErrNoSuchHost: a name that does not exist.
var (
	// ErrRequest reports a Fetch request the guard will not send: a method
	// other than GET or HEAD, or a header outside the safe set.
	ErrRequest = errors.New("request method or header not allowed")

	// ErrNoSuchHost reports that the name does not exist: NXDOMAIN, asked
	// twice. An error that also wraps ErrNoAddress is a name that exists
	// but has no address.
	ErrNoSuchHost = errors.New("no such host")

	// ErrNoAddress reports a name that exists but has no address (NODATA
	// for every family asked), or none of the family a dial needs. Such an
	// error also wraps ErrNoSuchHost, which used to cover both.
	ErrNoAddress = errors.New("no address for the name")

	// ErrDNSNoAnswer reports a lookup that got no answer to rely on after
	// its retries: every try timed out or met SERVFAIL, REFUSED or another
	// failure. It says nothing about the name. Such an error also wraps
	// ErrTimeout (the last try timed out) or ErrResolve.
	ErrDNSNoAnswer = errors.New("no answer from the resolver")

	// ErrResolve reports any other DNS failure (SERVFAIL, refused, ...).
	ErrResolve = errors.New("DNS resolution failed")

	// ErrTimeout reports a hop that ran out of time at any stage: DNS,
	// connect, TLS, headers or body.
	ErrTimeout = errors.New("timed out")

	// ErrCanceled reports that the caller's context was canceled.
	ErrCanceled = errors.New("fetch canceled")

	// ErrConnRefused reports a refused connection.
	ErrConnRefused = errors.New("connection refused")

	// ErrConnReset reports a connection the server reset or closed before
	// the response was complete enough to parse.
	ErrConnReset = errors.New("connection reset by server")

	// ErrNetwork reports any other transport failure.
	ErrNetwork = errors.New("network error")

	// ErrTLS reports a failed TLS handshake: an untrusted, expired or
	// mismatched certificate, an obsolete protocol version, or a server
	// that does not speak TLS at all. When the certificate or the version
	// is the cause, the error also holds a *TLSError saying which
	// (TLSDetail).
	ErrTLS = errors.New("TLS failure")

	// ErrProtocol reports a response that is not valid HTTP (garbage
	// status line, conflicting Content-Length headers, bad chunking).
	ErrProtocol = errors.New("malformed HTTP response")

	// ErrHeaderTooLarge reports response headers (with any interim 1xx
	// responses) larger than Limits.MaxHeaderBytes.
	ErrHeaderTooLarge = errors.New("response headers too large")

	// ErrBodyTooLarge reports a decoded body larger than
	// Limits.MaxBodyBytes; the Response holds the first MaxBodyBytes.
	ErrBodyTooLarge = errors.New("response body too large")

	// ErrIncompleteBody reports a body that ended before its declared
	// length or its final chunk.
	ErrIncompleteBody = errors.New("response body incomplete")

	// ErrEncoding reports a Content-Encoding the guard cannot decode
	// (unknown, stacked, or corrupt).
	ErrEncoding = errors.New("undecodable content encoding")
)

// refusals are the sentinels IsRefusal accepts.
var refusals = []error{
	ErrMalformed, ErrScheme, ErrUserinfo, ErrNonCanonicalIP,
	ErrBlockedHost, ErrNotAllowlisted, ErrBlockedAddress, ErrBlockedPort,
}

// sentinels lists every sentinel for Reason, ErrRedirectBlocked first
// because it is the only one that travels with another.
var sentinels = slices.Concat([]error{ErrRedirectBlocked}, refusals, []error{
	ErrRedirectLimit, ErrRedirectLoop, ErrRequest,
	ErrNoAddress, ErrDNSNoAnswer, ErrNoSuchHost, ErrResolve, ErrTimeout, ErrCanceled,
	ErrConnRefused, ErrConnReset, ErrNetwork, ErrTLS, ErrProtocol,
	ErrHeaderTooLarge, ErrBodyTooLarge, ErrIncompleteBody, ErrEncoding,
})

// IsRefusal reports whether err is a policy refusal: the URL, or a redirect
// it led to, names a target the policy does not allow. The engine records
// such a citation as invalid; a failure (timeout, reset, TLS) is not
// evidence either way.
func IsRefusal(err error) bool {
	for _, s := range refusals {
		if errors.Is(err, s) {
			return true
		}
	}
	return false
}

// Reason maps an error to a short, stable phrase for artifact notes: the
// text of the sentinel it wraps, e.g. "private/local target blocked by SSRF
// policy" or "timed out", and for a refused redirect "redirect blocked: "
// followed by the hop's reason. The phrase never contains any part of the
// URL, so it cannot leak a secret or carry attacker-chosen text into an
// artifact. Reason returns "" for nil and "unclassified error" for errors
// that wrap no sentinel of this package.
func Reason(err error) string {
	if err == nil {
		return ""
	}
	if errors.Is(err, ErrRedirectBlocked) {
		if inner := reason(err, sentinels[1:]); inner != "" {
			return ErrRedirectBlocked.Error() + ": " + inner
		}
	}
	if r := reason(err, sentinels); r != "" {
		return r
	}
	return "unclassified error"
}

func reason(err error, among []error) string {
	for _, s := range among {
		if errors.Is(err, s) {
			return s.Error()
		}
	}
	return ""
}
