package netguard

import "strings"

// redactedLabel replaces every host label that holds a credential. A label
// keeps the URL parseable ("https://REDACTED.example.com/x"); the normalized
// URL lower-cases it like any host, so such a citation's normalized_url and
// cid are those of "https://redacted.example.com/x".
const redactedLabel = "REDACTED"

// Host labels are read with the same credential formats as path segments
// (credShapes), never by entropy alone: CDN shards (d1a2b3c4d5e6f7.cloudfront.net),
// regions (s3-eu-west-1) and hashes are ordinary labels. Hosts are
// case-insensitive, and every canonical URL lower-cases them before
// redaction sees them, so a host is read with case folded (see
// credShape.fold): it holds a secret or not whatever its case, and the
// strict reading's case tests are replaced by tests that do without case.

// hostSecret reports whether a host (without userinfo or port) holds a
// credential. RedactURL runs it on every URL: a clean host costs one table
// lookup per byte and one more per word start, and it does not allocate
// unless a percent escape hides a token byte.
func hostSecret(host string) bool {
	if strings.IndexByte(host, '%') >= 0 && hasTokenEscape(host) {
		host = pathDecode(host)
	}
	prevAlnum := false
	for i := 0; i < len(host); i++ {
		alnum := alnumSet.in[host[i]]
		if alnum && !prevAlnum && mayStartShapeFold(host, i) && foldPrefixAt(host, i) {
			return hostSecretFrom(host, i)
		}
		prevAlnum = alnum
	}
	return false
}

// foldPrefixAt reports whether a credential prefix starts at s[i], ASCII
// case ignored: "doi.org" passes the two-byte gate (dop_v1_) but not this.
func foldPrefixAt(s string, i int) bool {
	for _, p := range prefixesByFirstFold[lowerTable[s[i]]] {
		if len(s)-i < len(p) {
			continue
		}
		j := 1
		for j < len(p) && lowerTable[s[i+j]] == p[j] {
			j++
		}
		if j == len(p) {
			return true
		}
	}
	return false
}

// prefixesByFirstFold lists the lower-cased credential prefixes by their
// first byte.
var prefixesByFirstFold = func() (idx [256][]string) {
	for _, c := range credShapes {
		for _, p := range c.prefixes {
			lp := strings.ToLower(p)
			idx[lp[0]] = append(idx[lp[0]], lp)
		}
	}
	return idx
}()

// hostSecretFrom is hostSecret from the first candidate on, i: one memo for
// every candidate, so that a host made of candidates ("sk-sk-sk-…") costs
// time linear in its length.
func hostSecretFrom(host string, i int) bool {
	m := runMemo{s: host}
	for ; i < len(host); i++ {
		if alnumSet.in[host[i]] && (i == 0 || !alnumSet.in[host[i-1]]) {
			if _, ok := m.hostTokenAt(i); ok {
				return true
			}
		}
	}
	return false
}

// hostTokenAt reports whether a credential starts at m.s[i] (a word start
// of a host) and where it ends.
func (m *runMemo) hostTokenAt(i int) (int, bool) {
	if mayStartShapeFold(m.s, i) {
		return m.shapeEnd(i, readFolded)
	}
	return i, false
}

// redactHost returns an authority without userinfo (host[:port]) with
// every host label that holds a credential, or is part of one (a JWT spans
// three), replaced by "REDACTED", and a port that is a credential (no port
// is: the URL does not parse, but a text may still quote it) likewise; the
// other labels stay. A host whose token hides behind percent escapes is
// replaced whole. hostport itself is returned when nothing changes, without
// allocating.
func redactHost(hostport string) string {
	// One pass over the whole authority settles the common case: a token
	// in the host or the port is found there too, as ":" ends every token.
	if !hostSecret(hostport) {
		return hostport
	}
	host, port := cutPort(hostport)
	newHost, newPort := host, port
	if len(port) > 1 && hostSecret(port[1:]) {
		newPort = ":" + redactedLabel
	}
	if !strings.HasPrefix(host, "[") && hostSecret(host) { // an IPv6 literal is hex
		newHost = redactLabels(host)
	}
	if newHost == host && newPort == port {
		return hostport
	}
	return newHost + newPort
}

// cutPort cuts an authority without userinfo before its port: at the
// first ":", or after the "]" of an IPv6 literal.
func cutPort(hostport string) (host, port string) {
	if strings.HasPrefix(hostport, "[") {
		if i := strings.IndexByte(hostport, ']'); i >= 0 {
			return hostport[:i+1], hostport[i+1:]
		}
		return hostport, ""
	}
	if i := strings.IndexByte(hostport, ':'); i >= 0 {
		return hostport[:i], hostport[i:]
	}
	return hostport, ""
}

// redactLabels replaces the labels of host that hold or are part of a
// credential (hostSecret(host) is true).
func redactLabels(host string) string {
	if hasTokenEscape(host) {
		return redactedLabel // labels are not told apart behind escapes
	}
	var b strings.Builder
	b.Grow(len(host))
	m := runMemo{s: host}
	done := 0 // host[:done] is in b
	for i := 0; i < len(host); i++ {
		if (i > 0 && isAlnum(host[i-1])) || !isAlnum(host[i]) {
			continue
		}
		end, ok := m.hostTokenAt(i)
		if !ok {
			continue
		}
		start := strings.LastIndexByte(host[:i], '.') + 1
		stop := len(host)
		if j := strings.IndexByte(host[end:], '.'); j >= 0 {
			stop = end + j
		}
		b.WriteString(host[done:start])
		b.WriteString(redactedLabel)
		done, i = stop, stop
	}
	b.WriteString(host[done:])
	return b.String()
}
