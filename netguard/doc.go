// Package netguard is the safety layer between citegate and the network.
//
// Every URL citegate handles was written by a language model, and the text the
// model read (search results, web pages, documents) can be chosen by an
// attacker. A citation is therefore attacker-chosen input: it can point at
// 127.0.0.1, at a cloud metadata service, at a host on the operator's private
// network, at a server built to hang or flood whoever fetches from it, or it
// can carry somebody's credentials that must never end up in an artifact or a
// log. This package holds the rules that keep all of that from happening, so
// that no other package has to get them right on its own:
//
//   - Redaction (RedactURL, RedactText, SensitiveKey) removes userinfo, secret
//     query and fragment values, webhook secrets, credential-shaped tokens in
//     any URL component (a GitHub token as a path segment, a JWT in the
//     fragment), and, in free text, the credentials of Authorization headers
//     and of curl's user option, from any string before it is stored or
//     logged. It never fails and works on unparsable input.
//   - Preflight (Guard.Preflight) checks a URL string without any network
//     access: scheme, userinfo, ports, host-name spelling, local and internal
//     names, and IP literals. Numeric hosts that only look like an address
//     after some resolver or parser reinterprets them (127.1, 2130706433,
//     0x7f000001, fullwidth digits) are rejected outright, so the outcome never
//     depends on which resolver the platform happens to use.
//   - Address classification (Guard.CheckAddr) decides whether an IP address
//     may be contacted.
//   - The guarded dialer (Guard.DialContext) is where a name is finally
//     judged: a name that resolves, or rebinds, to a private address can
//     only be caught on the addresses actually being dialled. It resolves
//     once (or takes the answer shared by ShareLookups), classifies every
//     answer, dials only the checked literals, and checks each socket's
//     address again just before connect. A lookup earns its outcome
//     (resolve.go): failures are retried, NXDOMAIN is confirmed, NODATA is
//     told apart from it, and a bounded number of queries is in flight.
//     Guard.Transport
//     puts it under an http.Transport for third-party API clients.
//   - The fetcher (Guard.Fetch) is the only way citegate should retrieve an
//     untrusted URL. It follows redirects itself so that every hop is a new
//     untrusted URL (preflighted, resolved, classified), and bounds every
//     hop in time and the decoded body in size, so a hostile server costs a
//     few seconds and a few megabytes at most. It never sends credentials,
//     cookies or a Referer, never uses a proxy, and names itself honestly in
//     its User-Agent.
//   - TLS (tlsdial.go, tlsverify.go, aia.go) is verified in full on every
//     handshake — chain to a trusted root, dates, key usage, server name —
//     and never skipped. Fetch does the verification itself so that it can
//     do what browsers do with a server that left out its intermediate
//     certificate (fetch the issuer from the leaf's AIA URL, through the
//     same policy, capped and cached per Guard) and so that a failure says
//     precisely what was wrong (TLSError, TLSDetail). It offers HTTP/2 and
//     HTTP/1.1 by ALPN and speaks what the server chooses; TLS 1.2 is the
//     minimum.
//
// Every rejection and failure wraps one of the package's sentinel errors, so
// callers can classify them with errors.Is; IsRefusal separates "this target
// is not allowed" from "no answer was obtained", and Reason turns any of them
// into a short, stable phrase that is safe to write into an artifact. Error
// texts embed URLs only in redacted form.
//
// Tests reach loopback servers only through explicit allow rules for their
// own listener (AllowCIDR plus AllowPorts), a Pin for the name they use, and
// stub resolvers and dialers (WithResolver, WithDialContext), so no test
// depends on DNS or leaves the machine.
//
// The package imports nothing from the rest of citegate, so it can be reviewed
// and tested on its own.
package netguard
