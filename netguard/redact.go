package netguard

import (
	"iter"
	"slices"
	"strings"
	"unicode/utf8"
)

// Placeholders. They are fixed strings, never derived from the secret, so
// nothing about the secret (not even its length) survives, and they are
// chosen so that redacting them again changes nothing.
const (
	// redactedUserinfo keeps a marker where userinfo was, so a later stage
	// that only sees the stored text still knows the URL carried credentials.
	redactedUserinfo = "REDACTED@"
	// redactedValue is "[REDACTED]" percent-encoded, so the URL stays
	// parseable and the placeholder cannot be mistaken for a real value.
	redactedValue = "%5BREDACTED%5D"
	// redactedPath replaces secret path segments and path parameters.
	redactedPath = "REDACTED"
	// maxNesting bounds how deep values holding URLs or query strings are
	// examined (?next=https://x/?return=/y?token=...). Past it any value
	// that could still hide a key=value pair or userinfo is redacted whole.
	maxNesting = 3
)

// seedWords is the spec's rule (seed 000, "Redaction policy"): a key whose
// lower-cased text contains any of these is sensitive. It is deliberately a
// substring rule, so "author", "keyword", "monkey" and "sessionid" are
// redacted too; the spec accepts that over-redaction.
var seedWords = []string{"token", "key", "auth", "session", "password"}

// secretWords are matched against a key's word parts (ssrf.md §4.2), so that
// "sig" catches X-Sig and connect.sid catches sid without "design" or
// "signup" being hit. "state" and "hash" are left out: they appear in too
// many ordinary URLs and carry no credential on their own.
var secretWords = map[string]bool{
	"secret": true, "secrets": true, "sig": true, "signature": true,
	"credential": true, "credentials": true, "creds": true,
	"passwd": true, "pwd": true, "pass": true, "passphrase": true,
	"otp": true, "ticket": true, "sid": true, "phpsessid": true, "jsessionid": true,
	"csrf": true, "xsrf": true, "hmac": true, "jwt": true, "bearer": true,
	"saml": true, "magic": true, "cookie": true,
}

// longestSecretWord bounds the stack buffer SensitiveKey lower-cases word
// parts into; a longer part cannot be in secretWords.
const longestSecretWord = 16

// secretKeys must equal the whole (lower-cased) key. "code" lives here and
// not in secretWords: the OAuth authorization code is always the key "code"
// (or a *_code key of a grant flow listed here), while zip_code, country_code,
// error_code and status_code are ordinary data that a word-part rule would
// destroy. The others are single words that camelCase splitting would
// otherwise break apart (GoogleAccessId) or not split at all (samlresponse).
var secretKeys = []string{
	"code", "code_verifier", "device_code",
	"googleaccessid", "samlresponse", "samlrequest",
}

// SensitiveKey reports whether the value of a query, fragment or path
// parameter key must be redacted. key is the decoded key (form decoding:
// "+" is a space, %XX a byte). It is true when the key, ignoring case,
// contains token, key, auth, session or password (the spec's rule), equals
// one of a few exact secret keys such as code, or has a word part (split on
// any non-alphanumeric character and at camelCase boundaries) naming a
// secret: secret, sig, signature, credential, passwd, pwd, pass, otp, ticket,
// sid, csrf, xsrf, hmac, jwt, bearer, saml, and similar.
func SensitiveKey(key string) bool {
	lower := strings.ToLower(key)
	for _, w := range seedWords {
		if strings.Contains(lower, w) {
			return true
		}
	}
	if slices.Contains(secretKeys, lower) {
		return true
	}
	var buf [longestSecretWord]byte
	for part := range wordParts(key) {
		if len(part) > len(buf) {
			continue
		}
		for i := 0; i < len(part); i++ {
			c := part[i]
			if isUpper(c) {
				c += 'a' - 'A'
			}
			buf[i] = c
		}
		if secretWords[string(buf[:len(part)])] {
			return true
		}
	}
	return false
}

// wordParts yields the words of key, split at non-alphanumeric ASCII
// characters and at camelCase boundaries ("accessToken" → access, Token;
// "SAMLResponse" → SAML, Response).
func wordParts(key string) iter.Seq[string] {
	return func(yield func(string) bool) {
		start := -1
		for i := 0; i < len(key); i++ {
			c := key[i]
			if !isAlnum(c) && c < utf8.RuneSelf {
				if start >= 0 && !yield(key[start:i]) {
					return
				}
				start = -1
				continue
			}
			if start >= 0 && isUpper(c) {
				prev := key[i-1]
				nextLower := i+1 < len(key) && isLower(key[i+1])
				if isLower(prev) || isDigit(prev) || (isUpper(prev) && nextLower) {
					if !yield(key[start:i]) {
						return
					}
					start = i
				}
			}
			if start < 0 {
				start = i
			}
		}
		if start >= 0 {
			yield(key[start:])
		}
	}
}

// RedactURL returns raw with every secret removed, and whether it carried
// userinfo. It works on any string, parseable or not, and keeps everything
// that is not a secret byte for byte, in order:
//
//   - userinfo becomes "REDACTED@" (and hadUserinfo is true, also for input
//     that was already redacted);
//   - in the query, and in a fragment made of key=value pairs, the value of
//     every sensitive piece becomes "%5BREDACTED%5D": pieces whose key is
//     sensitive (SensitiveKey), whose value looks like a known credential
//     format (JWT, GitHub, AWS, Slack, Stripe/OpenAI, Google, GitLab tokens,
//     PEM blocks), or whose value is itself a URL or query string that holds
//     a secret;
//   - webhook URLs (Slack, Discord, Telegram bot, Office 365, IFTTT) lose the
//     path segments that are the secret, and sensitive path parameters such
//     as ;jsessionid= lose their values;
//   - any host label holding a credential-shaped token (ghp_….example.com)
//     becomes "REDACTED" (see redactHost), read like a path segment but
//     with case ignored, since hosts are case-insensitive;
//   - any path segment holding a credential-shaped token (ghp_…, sk_live_…,
//     AKIA…, xoxb-…, a JWT, …; see credShapes) becomes "REDACTED", and so
//     does a fragment that is such a token or holds one. Path segments and
//     anchors are read strictly, so that slugs, commit hashes, UUIDs and
//     base64 image names that merely resemble a token stay as they are.
//
// Pieces are split on "&", and within a piece on ";", which some servers
// also treat as a separator; once a sensitive part is found, the rest of the
// piece is redacted. A string without "@", "?", "#" or ";" whose host is not
// a webhook host and whose host and path hold no token is returned as is
// without allocating.
func RedactURL(raw string) (redacted string, hadUserinfo bool) {
	if !hasSecretSyntax(raw) {
		_, auth, rest, ok := splitAuthority(raw)
		if !ok {
			if !pathSecret(rest) {
				return raw, false
			}
		} else if pathRule(hostOf(auth)) == nil && !hostSecret(auth) && !pathSecret(rest) {
			return raw, false
		}
	}
	out, had := redactURL(raw, 0)
	if out == raw {
		// Most URLs with a query carry no secret: hand back the caller's
		// string, so the copy is garbage at once and every stage that
		// redacts the same URL again shares one string.
		return raw, had
	}
	return out, had
}

// secretSyntax marks the bytes that can introduce a secret anywhere but in
// a webhook path: userinfo, query, fragment and path parameters.
var secretSyntax = [256]bool{'@': true, '?': true, '#': true, ';': true}

// hasSecretSyntax is strings.IndexAny(s, "@?#;") >= 0 as one table lookup
// per byte, because RedactURL runs on every URL of a run.
func hasSecretSyntax(s string) bool {
	for i := 0; i < len(s); i++ {
		if secretSyntax[s[i]] {
			return true
		}
	}
	return false
}

// redactURL redacts s part by part and builds a new string only when a part
// changed: most URLs with a query or fragment carry no secret, and building
// each one to compare it with the input was most of RedactURL's cost.
func redactURL(s string, depth int) (string, bool) {
	prefix, auth, rest, hasAuth := splitAuthority(s)
	host, had := auth, false
	if hasAuth {
		// The last "@" ends the userinfo, as in both Go and WHATWG, so a
		// password containing "@" is removed whole.
		if at := strings.LastIndexByte(auth, '@'); at >= 0 {
			had, host = true, auth[at+1:]
		}
	}
	newHost := host
	if hasAuth {
		newHost = redactHost(host)
	}
	path, fragment, hasFragment := strings.Cut(rest, "#")
	path, query, hasQuery := strings.Cut(path, "?")
	newPath := path
	if rule := pathRule(hostOf(host)); rule != nil {
		newPath = rule(newPath)
	}
	newPath = redactPathParams(redactSegments(newPath))
	newQuery := query
	if hasQuery {
		newQuery = redactPairs(query, depth)
	}
	newFragment := fragment
	if hasFragment {
		switch {
		case strings.Contains(fragment, "="):
			// OAuth implicit flow: #access_token=...&token_type=...
			newFragment = redactPairs(fragment, depth)
		case strictSecret(fragment) || phraseSecret(FormDecode(fragment)):
			// An anchor is a slug as often as not: token shapes are read
			// strictly.
			newFragment = redactedValue
		}
	}
	if !had && newHost == host && newPath == path && newQuery == query && newFragment == fragment {
		return s, false
	}
	var b strings.Builder
	b.Grow(len(s) + len(redactedValue))
	b.WriteString(prefix)
	if hasAuth {
		if had {
			b.WriteString(redactedUserinfo)
		}
		b.WriteString(newHost)
	}
	b.WriteString(newPath)
	if hasQuery {
		b.WriteByte('?')
		b.WriteString(newQuery)
	}
	if hasFragment {
		b.WriteByte('#')
		b.WriteString(newFragment)
	}
	return b.String(), had
}

// splitAuthority finds the authority of s textually. For the special schemes
// it follows WHATWG, which skips any run of "/" and "\" after "http:" (so
// "http:u:p@host" carries userinfo too); other schemes need "//". The
// authority ends at the first "/", "?" or "#". A backslash does not end it,
// unlike in WHATWG: that only makes more of a hostile URL count as userinfo.
func splitAuthority(s string) (prefix, authority, rest string, ok bool) {
	var start int
	if scheme, after, isURL := splitScheme(s); isURL {
		n := len(s) - len(after)
		slashes := len(after) - len(strings.TrimLeft(after, `/\`))
		switch {
		case isSpecialScheme(scheme):
			start = n + slashes
		case strings.HasPrefix(after, "//"):
			start = n + 2
		default:
			return s[:n], "", after, false
		}
	} else if strings.HasPrefix(s, "//") {
		start = 2
	} else {
		return "", "", s, false
	}
	end := len(s)
	if i := strings.IndexAny(s[start:], "/?#"); i >= 0 {
		end = start + i
	}
	return s[:start], s[start:end], s[end:], true
}

// specialSchemes are the WHATWG special schemes that have an authority
// ("file" has no userinfo to redact).
var specialSchemes = []string{"http", "https", "ws", "wss", "ftp"}

func isSpecialScheme(scheme string) bool {
	return slices.ContainsFunc(specialSchemes, func(sp string) bool { return strings.EqualFold(scheme, sp) })
}

// hostOf returns the host of an authority as written, without userinfo,
// port or trailing dot; "" for IPv6 literals, which no webhook uses.
func hostOf(auth string) string {
	auth = auth[strings.LastIndexByte(auth, '@')+1:]
	if strings.HasPrefix(auth, "[") {
		return ""
	}
	host, _, _ := strings.Cut(auth, ":")
	return strings.TrimSuffix(host, ".")
}

// pathRule returns the redaction for hosts whose URLs carry the secret in
// the path: whoever holds a webhook URL can post as its owner.
func pathRule(host string) func(string) string {
	// Every webhook host is under one of these registered domains; checking
	// that first keeps the common case to a single comparison.
	site := host
	if i := strings.LastIndexByte(host, '.'); i > 0 {
		if j := strings.LastIndexByte(host[:i], '.'); j >= 0 {
			site = host[j+1:]
		}
	}
	if !slices.ContainsFunc(webhookSites, func(w string) bool { return len(w) == len(site) && strings.EqualFold(site, w) }) {
		return nil
	}
	is := func(names ...string) bool {
		return slices.ContainsFunc(names, func(n string) bool { return strings.EqualFold(host, n) })
	}
	under := func(domain string) bool {
		return is(domain) || (len(host) > len(domain) && host[len(host)-len(domain)-1] == '.' &&
			strings.EqualFold(host[len(host)-len(domain):], domain))
	}
	switch {
	case is("hooks.slack.com", "hooks.slack-gov.com"):
		return func(p string) string {
			return redactAfterPrefix(p, "/services/", "/workflows/", "/triggers/")
		}
	case under("discord.com"), under("discordapp.com"):
		// /api/[v10/]webhooks/<id>/<token>: the id is public, the token is not.
		return func(p string) string { return redactSegment(p, "/webhooks/", 1) }
	case is("api.telegram.org"):
		return redactTelegram
	case is("outlook.office.com", "outlook.office365.com"), under("webhook.office.com"):
		return func(p string) string { return redactAfterPrefix(p, "/webhook/", "/webhookb2/") }
	case is("maker.ifttt.com"):
		return func(p string) string {
			if strings.HasPrefix(p, "/use/") {
				return redactSegment(p, "/use/", 0)
			}
			return redactSegment(p, "/key/", 0)
		}
	}
	return nil
}

// webhookSites are the registered domains of every host pathRule knows.
var webhookSites = []string{
	"slack.com", "slack-gov.com", "discord.com", "discordapp.com",
	"telegram.org", "office.com", "office365.com", "ifttt.com",
}

// redactAfterPrefix replaces everything after the first matching prefix.
func redactAfterPrefix(path string, prefixes ...string) string {
	for _, pre := range prefixes {
		if len(path) > len(pre) && strings.EqualFold(path[:len(pre)], pre) {
			return path[:len(pre)] + redactedPath
		}
	}
	return path
}

// redactSegment replaces the path segment that comes skip segments after
// marker.
func redactSegment(path, marker string, skip int) string {
	i := indexFold(path, marker)
	if i < 0 {
		return path
	}
	start := i + len(marker)
	for ; skip > 0; skip-- {
		j := strings.IndexByte(path[start:], '/')
		if j < 0 {
			return path
		}
		start += j + 1
	}
	end := len(path)
	if j := strings.IndexByte(path[start:], '/'); j >= 0 {
		end = start + j
	}
	if start == end {
		return path
	}
	return path[:start] + redactedPath + path[end:]
}

// redactTelegram handles /bot<token>/method and /file/bot<token>/path.
func redactTelegram(path string) string {
	start := 1
	if len(path) > 6 && strings.EqualFold(path[:6], "/file/") {
		start = 6
	}
	seg := path[min(start, len(path)):]
	if len(seg) <= 3 || !strings.EqualFold(seg[:3], "bot") {
		return path
	}
	end := len(path)
	if j := strings.IndexByte(seg, '/'); j >= 0 {
		end = start + j
	}
	if start+3 == end {
		return path
	}
	return path[:start+3] + redactedPath + path[end:]
}

// segmentEnd finds the path segment starting at start: where its name ends
// (at its first ";" parameter) and where the segment ends (at "/").
func segmentEnd(path string, start int) (nameEnd, end int) {
	end = len(path)
	if j := strings.IndexByte(path[start:], '/'); j >= 0 {
		end = start + j
	}
	nameEnd = end
	if j := strings.IndexByte(path[start:end], ';'); j >= 0 {
		nameEnd = start + j
	}
	return nameEnd, end
}

// pathSecret reports whether a segment of path holds a credential-shaped
// token. It reads the path once, byte by byte, and does not allocate for a
// clean path; RedactURL runs it on every URL of a run. No credential format
// spans "/" or ";", so a token found here lies within one segment's name,
// and every format starts with a letter or digit after one that is not.
func pathSecret(path string) bool {
	start := 0                       // where the current segment starts
	inName, prevAlnum := true, false // in the segment's name (before ";"); after a letter or digit
	m := runMemo{s: path}
	for i := 0; i < len(path); i++ {
		c := path[i]
		if alnumSet.in[c] {
			if !prevAlnum && inName && mayStartShape(path, i) && m.shapeAt(i, true) {
				return true
			}
			prevAlnum = true
			continue
		}
		prevAlnum = false
		switch {
		case c == '/':
			start, inName = i+1, true
		case c == ';':
			inName = false
		case c == '%' && inName:
			// Escapes may hide token bytes (ghp%5F…): read the name as
			// strictSecret does, then go on after it.
			nameEnd, _ := segmentEnd(path, start)
			if strictSecret(path[start:nameEnd]) {
				return true
			}
			i, inName = nameEnd-1, false
		}
	}
	return false
}

// redactSegments replaces every path segment that holds a credential-shaped
// token with "REDACTED", keeping its ";" parameters for redactPathParams.
// The whole segment goes: what surrounds a token in it (a file extension,
// a separator) may be part of the secret too.
func redactSegments(path string) string {
	if !pathSecret(path) {
		return path
	}
	var b strings.Builder
	b.Grow(len(path))
	for start := 0; start <= len(path); {
		nameEnd, end := segmentEnd(path, start)
		if name := path[start:nameEnd]; strictSecret(name) {
			b.WriteString(redactedPath)
		} else {
			b.WriteString(name)
		}
		b.WriteString(path[nameEnd:end])
		if end == len(path) {
			break
		}
		b.WriteByte('/')
		start = end + 1
	}
	return b.String()
}

// redactPathParams redacts the values of sensitive ";key=value" path
// parameters (Java's ;jsessionid=) and of those shaped like tokens, and bare
// path parameters that are tokens (read strictly, as path segments are).
func redactPathParams(path string) string {
	if !strings.Contains(path, ";") {
		return path
	}
	var b strings.Builder
	for {
		i := strings.IndexByte(path, ';')
		if i < 0 {
			b.WriteString(path)
			return b.String()
		}
		b.WriteString(path[:i+1])
		path = path[i+1:]
		end := strings.IndexAny(path, ";/")
		if end < 0 {
			end = len(path)
		}
		param := path[:end]
		k, v, hasValue := strings.Cut(param, "=")
		switch {
		case hasValue && v != "" && (SensitiveKey(FormDecode(k)) || shapeSecret(FormDecode(v))):
			b.WriteString(k + "=" + redactedPath)
		case !hasValue && strictSecret(param):
			b.WriteString(redactedPath)
		default:
			b.WriteString(param)
		}
		path = path[end:]
	}
}

// redactPairs returns a query (or key=value fragment) with sensitive values
// redacted, piece by piece, leaving every other byte as it was — re-encoding
// the whole query would change bytes the redaction has no business touching
// — and q itself, not a copy, when no piece changes.
func redactPairs(q string, depth int) string {
	// CloudFront signs Policy together with Key-Pair-Id; alone, "policy"
	// is an ordinary word, so it is only secret in that company.
	cloudFront := indexFold(q, "key-pair-id") >= 0
	var b strings.Builder
	changed, done := false, 0 // done: q[:done] is in b
	for off := 0; ; {
		piece, _, more := strings.Cut(q[off:], "&")
		if red := redactPiece(piece, cloudFront, depth); red != piece {
			if !changed {
				changed = true
				b.Grow(len(q) + len(redactedValue))
			}
			b.WriteString(q[done:off])
			b.WriteString(red)
			done = off + len(piece)
		}
		if !more {
			break
		}
		off += len(piece) + 1
	}
	if !changed {
		return q
	}
	b.WriteString(q[done:])
	return b.String()
}

// redactPiece redacts one "&"-separated piece. Its ";"-separated parts are
// examined in order; from the first sensitive one on, the rest of the piece
// becomes the placeholder, which also covers values that contain ";".
func redactPiece(piece string, cloudFront bool, depth int) string {
	off := 0
	for {
		part := piece[off:]
		end := strings.IndexByte(part, ';')
		if end >= 0 {
			part = part[:end]
		}
		if keyEnd, valStart := cutPair(part); keyEnd >= 0 {
			key := FormDecode(part[:keyEnd])
			if shapeSecret(key) {
				return piece[:off] + redactedValue // a token used as a key
			}
			if SensitiveKey(key) || (cloudFront && strings.EqualFold(key, "policy")) ||
				valueSecret(part[valStart:], depth) {
				if off+valStart == len(piece) {
					return piece // "token=" has nothing to hide
				}
				return piece[:off+valStart] + redactedValue
			}
		} else if shapeSecret(FormDecode(part)) {
			return piece[:off] + redactedValue
		}
		if end < 0 {
			return piece
		}
		off += end + 1
	}
}

// cutPair finds the key/value split of a part: a literal "=", or else an
// encoded "%3D" (a key=value that was percent-encoded as a whole).
func cutPair(part string) (keyEnd, valStart int) {
	if i := strings.IndexByte(part, '='); i >= 0 {
		return i, i + 1
	}
	if i := indexFold(part, "%3d"); i >= 0 {
		return i, i + 3
	}
	return -1, -1
}

// valueSecret reports whether a raw value is a secret whatever its key: a
// known token format, or a nested URL or query string that holds a secret.
func valueSecret(raw string, depth int) bool {
	if raw == "" {
		return false
	}
	v := FormDecode(raw)
	return shapeSecret(v) || nestedSecret(v, depth)
}

// nestedSecret reports whether a decoded value, read as a URL or as a query
// string, would be changed by redaction (?next=/login?session=...).
func nestedSecret(v string, depth int) bool {
	if strings.IndexByte(v, '=') < 0 && strings.IndexByte(v, '@') < 0 {
		return false
	}
	if depth >= maxNesting {
		return true
	}
	if _, _, _, ok := splitAuthority(v); ok {
		r, had := redactURL(v, depth+1)
		return had || r != v
	}
	return redactPairs(v, depth+1) != v
}

// indexFold is the index of the first instance of sub in s, ASCII case
// ignored as strings.EqualFold ignores it; sub is lower-case ASCII. Only
// the positions whose first byte matches are compared.
func indexFold(s, sub string) int {
	if sub == "" {
		return 0
	}
	first := sub[0]
	for i := 0; i+len(sub) <= len(s); i++ {
		if c := s[i]; c == first || isUpper(c) && c+'a'-'A' == first {
			if strings.EqualFold(s[i:i+len(sub)], sub) {
				return i
			}
		}
	}
	return -1
}

func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

func isLower(c byte) bool { return c >= 'a' && c <= 'z' }
func isUpper(c byte) bool { return c >= 'A' && c <= 'Z' }
func isDigit(c byte) bool { return c >= '0' && c <= '9' }
func isAlnum(c byte) bool { return isLower(c) || isUpper(c) || isDigit(c) }
func isHex(c byte) bool   { return isDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

func unhex(c byte) byte {
	switch {
	case isDigit(c):
		return c - '0'
	case c >= 'a':
		return c - 'a' + 10
	default:
		return c - 'A' + 10
	}
}
