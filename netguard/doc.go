// Package netguard is the safety layer between citegate and the network.
//
// Every URL citegate handles was written by a language model, and the text the
// model read (search results, web pages, documents) can be chosen by an
// attacker. A citation is therefore attacker-chosen input: it can point at
// 127.0.0.1, at a cloud metadata service, at a host on the operator's private
// network, or it can carry somebody's credentials that must never end up in an
// artifact or a log. This package holds the rules that keep both from
// happening, so that no other package has to get them right on its own:
//
//   - Redaction (RedactURL, RedactText, SensitiveKey) removes userinfo, secret
//     query and fragment values, and webhook secrets from any string before it
//     is stored or logged. It never fails and works on unparsable input.
//   - Preflight (Guard.Preflight) checks a URL string without any network
//     access: scheme, userinfo, ports, host-name spelling, local and internal
//     names, and IP literals. Numeric hosts that only look like an address
//     after some resolver or parser reinterprets them (127.1, 2130706433,
//     0x7f000001, fullwidth digits) are rejected outright, so the outcome never
//     depends on which resolver the platform happens to use.
//   - Address classification (Guard.CheckAddr) decides whether an IP address
//     may be contacted. Preflight uses it for literals; the connect-time dialer
//     will use the same function on every address it is about to connect to,
//     which is the only place a name that resolves to a private address (or
//     rebinds to one) can be caught.
//
// All rejections wrap one of the package's sentinel errors, so callers can
// classify them with errors.Is, and Reason turns any of them into a short,
// stable phrase that is safe to write into an artifact.
//
// The package imports nothing from the rest of citegate, so it can be reviewed
// and tested on its own.
package netguard
