package netguard

import (
	"slices"
	"strings"
)

// Credential shapes: secrets recognisable by their text alone, wherever they
// stand. Each format is defined once, in credShapes, and read in one of two
// contexts:
//
//   - a value (a query or fragment value, a path parameter, a word of free
//     text): the place already suggests data, and over-redaction is accepted
//     (the spec's own key rule redacts ?author=), so the bare format is
//     enough;
//   - a path segment or a fragment anchor (strict): ordinary slugs, commit
//     hashes, UUIDs and base64 image names live there, and some share a
//     prefix with a credential (sk-learn-…, xoxo-…, ASIAPACIFIC…). A format
//     whose prefix an ordinary word can start with must then also look
//     random: mixed case, digits, long unbroken runs.

// charset is a set of bytes, with an index for runMemo.
type charset struct {
	in [256]bool
	id int
}

// Character-set ids; runMemo keeps one measured run per set.
const (
	setAlnum = iota
	setAlnumUnder
	setBase64URL
	setSlack
	setUpperDigit
	setHex
	setToken
	setCredentialEnd
	numSets
)

// newCharset builds a set from ranges ("a-z", between letters or digits)
// and lists of bytes ("_-.").
func newCharset(id int, ranges ...string) *charset {
	c := charset{id: id}
	for _, r := range ranges {
		if len(r) == 3 && r[1] == '-' && isAlnum(r[0]) && isAlnum(r[2]) {
			for b := int(r[0]); b <= int(r[2]); b++ {
				c.in[b] = true
			}
			continue
		}
		for i := 0; i < len(r); i++ {
			c.in[r[i]] = true
		}
	}
	return &c
}

var (
	alnumSet      = newCharset(setAlnum, "a-z", "A-Z", "0-9")
	alnumUnder    = newCharset(setAlnumUnder, "a-z", "A-Z", "0-9", "_")
	base64URLSet  = newCharset(setBase64URL, "a-z", "A-Z", "0-9", "_-")
	slackSet      = newCharset(setSlack, "a-z", "A-Z", "0-9", "-")
	upperDigitSet = newCharset(setUpperDigit, "A-Z", "0-9")
	hexSet        = newCharset(setHex, "a-f", "A-F", "0-9")
	// tokenByte marks bytes that some credential format is made of. An
	// escape decoding to anything else ends a token as the escape itself
	// does, so the raw text reads the same as the decoded one.
	tokenByte = newCharset(setToken, "a-z", "A-Z", "0-9", "_-.")
)

// runMemo is a string being searched for credentials, with the last run
// measured per character set. Candidates can start every few bytes of one
// long run ("sk-sk-sk-…", "eyJa-eyJa-…"), and all of them end where it
// ends: remembering that keeps the search linear in the string's length.
type runMemo struct {
	s    string
	runs [numSets]struct{ start, end int }
}

// end returns where the run of bytes in c that starts at from ends.
func (m *runMemo) end(c *charset, from int) int {
	r := &m.runs[c.id]
	if from >= r.start && from < r.end {
		return r.end // inside the run measured last: same end
	}
	e := from
	for e < len(m.s) && c.in[m.s[e]] {
		e++
	}
	r.start, r.end = from, e
	return e
}

// classes is a set of character classes a token's tail must contain.
type classes uint8

const (
	hasDigit classes = 1 << iota
	hasUpper
	hasLower
)

func classesOf(s string) classes {
	var c classes
	for i := 0; i < len(s); i++ {
		switch b := s[i]; {
		case isDigit(b):
			c |= hasDigit
		case isUpper(b):
			c |= hasUpper
		case isLower(b):
			c |= hasLower
		}
	}
	return c
}

// longestAlnumRun is the longest stretch of letters and digits in s. Slugs
// are words between dashes; random tokens have long unbroken stretches.
func longestAlnumRun(s string) int {
	best, cur := 0, 0
	for i := 0; i < len(s); i++ {
		if isAlnum(s[i]) {
			cur++
			best = max(best, cur)
		} else {
			cur = 0
		}
	}
	return best
}

// strictWindow bounds how much of a tail the strict tests read, so that a
// hostile run of candidates costs a bounded amount each. Every real token's
// character mix shows within it.
const strictWindow = 256

// credShape is one credential format: one of prefixes, then a tail of bytes
// from tail, at least min long (and at most max, when max > 0: a longer run
// is not this format), unless form names a structure to test instead.
// strict, when set, must also accept the tail in a path segment or an
// anchor; it sees the tail's first strictWindow bytes and its full length.
//
// fold, when set, must accept the tail in a host read with case folded
// (hostSecret): canonical URLs lower-case the host, so the case classes the
// strict tests rely on are gone there, and a prefix an ordinary label can
// start with ("asia", "sk-", "aiza") needs a test that does without them.
type credShape struct {
	name     string
	prefixes []string
	form     form
	tail     *charset
	min, max int
	strict   func(window string, n int) bool
	fold     func(window string, n int) bool
}

// reading is the context a token is looked for in (see the top of the file
// and hostSecret).
type reading uint8

const (
	readValue  reading = iota // a value: the bare format
	readStrict                // a path segment or an anchor: strict tests
	readFolded                // a host label, case ignored: fold tests
)

// form is the structure of what follows a prefix.
type form uint8

const (
	tailRun    form = iota // a run of tail bytes (min, max)
	slackIDs               // digits first, then ids and a secret: [0-9][0-9A-Za-z-]{7,}
	sendGridID             // <id>.<secret>: base64url, at least 16 and 30 long
	jwtParts               // <header>.eyJ<payload>: base64url, at least 4 each
)

// structure tests a non-tailRun form at m.s[at:] and returns where the
// token's last part ends.
func (m *runMemo) structure(f form, at int, fold bool) (int, bool) {
	switch f {
	case slackIDs:
		e := m.end(slackSet, at)
		return e, e-at >= 8 && isDigit(m.s[at])
	case sendGridID:
		id := m.end(base64URLSet, at)
		if id-at < 16 || id >= len(m.s) || m.s[id] != '.' {
			return id, false
		}
		secret := m.end(base64URLSet, id+1)
		return secret, secret-(id+1) >= 30
	case jwtParts:
		header := m.end(base64URLSet, at)
		if header-at < 4 || !(strings.HasPrefix(m.s[header:], ".eyJ") || fold && hasPrefixFold(m.s[header:], ".eyj")) {
			return header, false
		}
		payload := m.end(base64URLSet, header+4)
		if payload-(header+4) < 4 {
			return payload, false
		}
		// The signature is part of the token: where the token is cut out
		// of a host, its label must go too.
		if payload+1 < len(m.s) && m.s[payload] == '.' && base64URLSet.in[m.s[payload+1]] {
			return m.end(base64URLSet, payload+1), true
		}
		return payload, true
	case tailRun:
		// Not a structure: the caller measures the run of tail bytes.
	}
	return at, false
}

// needs returns a strict test: the tail is at least minLen long, holds
// every class in want and, if minRun > 0, an unbroken run of letters and
// digits that long.
func needs(want classes, minLen, minRun int) func(string, int) bool {
	return func(w string, n int) bool {
		return n >= minLen && classesOf(w)&want == want && (minRun == 0 || longestAlnumRun(w) >= minRun)
	}
}

// credShapes are the known credential formats. Minimum lengths sit below the
// real ones (which vary by issuer and era) but above ordinary words that
// share the prefix.
var credShapes = []credShape{
	// GitHub classic tokens: prefix and 36 base62 characters.
	{name: "github", prefixes: []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_"}, tail: alnumSet, min: 16},
	// GitHub fine-grained tokens: github_pat_<22>_<59>.
	{name: "github-fine-grained", prefixes: []string{"github_pat_"}, tail: alnumUnder, min: 16,
		strict: needs(hasDigit|hasUpper|hasLower, 40, 0), fold: foldNeeds(40, 0)},
	// GitLab personal, deploy, runner, trigger and OAuth tokens.
	{name: "gitlab", prefixes: []string{"glpat-", "gldt-", "glrt-", "glptt-", "gloas-"}, tail: base64URLSet, min: 16,
		strict: needs(hasUpper|hasLower, 16, 0), fold: foldNeeds(16, 0)},
	// AWS access key ids: a four-letter type and exactly 16 base32 characters.
	// Lower-cased ("asiapacificforum2026"), only the base32 alphabet and a
	// digit tell one from a word.
	{name: "aws-access-key-id", prefixes: []string{"AKIA", "ASIA", "ABIA", "ACCA"}, tail: upperDigitSet, min: 16, max: 16,
		fold: base32WithDigit},
	// Google API keys: AIza and 35 more.
	{name: "google-api-key", prefixes: []string{"AIza"}, tail: base64URLSet, min: 35, fold: foldNeeds(35, 0)},
	// Slack tokens (bot, user, app, refresh, legacy, rotation, client):
	// the tail starts with the numeric team or user id.
	{name: "slack", prefixes: []string{"xoxb-", "xoxp-", "xoxa-", "xoxr-", "xoxs-", "xoxo-", "xoxe-", "xoxc-"},
		form: slackIDs,
		strict: func(w string, _ int) bool {
			return leadingDigits(w) >= 6 && classesOf(w)&(hasUpper|hasLower) != 0
		},
		fold: func(w string, _ int) bool {
			return leadingDigits(w) >= 6 && classesOf(w)&(hasUpper|hasLower) != 0
		}},
	// Slack app-level tokens: xapp-1-A0123…-…
	{name: "slack-app", prefixes: []string{"xapp-"}, tail: slackSet, min: 20, strict: needs(hasDigit|hasUpper, 20, 0),
		fold: foldNeeds(20, 0)},
	// Stripe secret and restricted keys, live and test.
	{name: "stripe", prefixes: []string{"sk_live_", "sk_test_", "rk_live_", "rk_test_"}, tail: alnumSet, min: 8,
		strict: needs(0, 20, 0), fold: needs(0, 20, 0)},
	// Stripe webhook signing secrets.
	{name: "stripe-webhook", prefixes: []string{"whsec_"}, tail: alnumSet, min: 24},
	// OpenAI (sk-…, sk-proj-…, sk-svcacct-…) and Anthropic (sk-ant-…) keys.
	// "sk-" starts slugs (sk-learn-…) and locales (sk-SK), hence the
	// strict test: long, mixed, with a long unbroken stretch.
	{name: "openai-anthropic", prefixes: []string{"sk-"}, tail: base64URLSet, min: 20,
		strict: needs(hasDigit|hasUpper|hasLower, 32, 16), fold: foldNeeds(32, 16)},
	// npm access tokens: npm_ and 36 base62 characters.
	{name: "npm", prefixes: []string{"npm_"}, tail: alnumSet, min: 36},
	// PyPI API tokens: a macaroon whose base64 starts with "pypi.org".
	{name: "pypi", prefixes: []string{"pypi-AgEIcHlwaS5vcmc"}, tail: base64URLSet, min: 16},
	// Hugging Face access tokens: hf_ and 34 letters.
	// Hugging Face tokens are letters only: folded, one unbroken run.
	{name: "huggingface", prefixes: []string{"hf_"}, tail: alnumSet, min: 30, strict: needs(hasUpper|hasLower, 30, 0),
		fold: needs(0, 30, 30)},
	// Shopify access tokens and shared secrets: 32 hex digits.
	{name: "shopify", prefixes: []string{"shpat_", "shpca_", "shppa_", "shpss_"}, tail: hexSet, min: 32, max: 32},
	// DigitalOcean personal, OAuth and refresh tokens: 64 hex digits.
	{name: "digitalocean", prefixes: []string{"dop_v1_", "doo_v1_", "dor_v1_"}, tail: hexSet, min: 64, max: 64},
	// SendGrid API keys: SG.<22>.<43>.
	{name: "sendgrid", prefixes: []string{"SG."}, form: sendGridID, fold: foldNeeds(0, 12)},
	// A JWT: base64url JSON header, ".", base64url JSON payload, and
	// (unless it is unsigned) "." and a signature. A single base64 JSON
	// part, as image CDNs put in paths, is not one.
	{name: "jwt", prefixes: []string{"eyJ"}, form: jwtParts},
}

// foldNeeds is needs for a lower-cased host: case classes are gone, so the
// tail must hold a digit and a letter instead (a random token of 16 or more
// characters almost always does; a word-like label rarely).
func foldNeeds(minLen, minRun int) func(string, int) bool {
	return func(w string, n int) bool {
		c := classesOf(w)
		return n >= minLen && c&hasDigit != 0 && c&(hasUpper|hasLower) != 0 && (minRun == 0 || longestAlnumRun(w) >= minRun)
	}
}

// base32WithDigit: an AWS key id's tail is base32 (A-Z, 2-7).
func base32WithDigit(w string, _ int) bool {
	digit := false
	for i := 0; i < len(w); i++ {
		switch c := w[i]; {
		case c >= '2' && c <= '7':
			digit = true
		case !isUpper(c) && !isLower(c):
			return false
		}
	}
	return digit
}

func leadingDigits(s string) int {
	n := 0
	for n < len(s) && isDigit(s[n]) {
		n++
	}
	return n
}

// shapePairs is the set of the first two bytes of every prefix (all are at
// least two long), so that the scan of a clean URL costs one bit test per
// word start: "sk" and "gh" pass, "so" and "gi" do not.
var shapePairs = func() (set [1 << 16 / 64]uint64) {
	for _, s := range credShapes {
		for _, p := range s.prefixes {
			k := uint16(p[0])<<8 | uint16(p[1])
			set[k>>6] |= 1 << (k & 63)
		}
	}
	return set
}()

// mayStartShape reports whether a prefix may start at s[i].
func mayStartShape(s string, i int) bool {
	if i+1 >= len(s) {
		return false
	}
	k := uint16(s[i])<<8 | uint16(s[i+1])
	return shapePairs[k>>6]&(1<<(k&63)) != 0
}

// shapePairsFold is shapePairs with both bytes lower-cased, for hosts.
var shapePairsFold = func() (set [1 << 16 / 64]uint64) {
	for _, s := range credShapes {
		for _, p := range s.prefixes {
			k := uint16(lowerByte(p[0]))<<8 | uint16(lowerByte(p[1]))
			set[k>>6] |= 1 << (k & 63)
		}
	}
	return set
}()

// mayStartShapeFold is mayStartShape with ASCII case ignored.
func mayStartShapeFold(s string, i int) bool {
	if i+1 >= len(s) {
		return false
	}
	k := uint16(lowerTable[s[i]])<<8 | uint16(lowerTable[s[i+1]])
	return shapePairsFold[k>>6]&(1<<(k&63)) != 0
}

// lowerTable maps each byte to its ASCII lower case.
var lowerTable = func() (t [256]byte) {
	for i := range t {
		t[i] = lowerByte(byte(i))
	}
	return t
}()

// shapesByFirstFold indexes credShapes by the lower-cased first byte of
// their prefixes.
var shapesByFirstFold = func() (idx [256][]int) {
	for i, s := range credShapes {
		for _, p := range s.prefixes {
			if b := lowerByte(p[0]); !slices.Contains(idx[b], i) {
				idx[b] = append(idx[b], i)
			}
		}
	}
	return idx
}()

func lowerByte(c byte) byte {
	if isUpper(c) {
		return c + 'a' - 'A'
	}
	return c
}

// shapesByFirst indexes credShapes by the first byte of their prefixes.
var shapesByFirst = func() (idx [256][]int) {
	for i, s := range credShapes {
		for _, p := range s.prefixes {
			if !slices.Contains(idx[p[0]], i) {
				idx[p[0]] = append(idx[p[0]], i)
			}
		}
	}
	return idx
}()

// shapeAt reports whether m.s[i:] starts with a credential, read strictly
// or not.
func (m *runMemo) shapeAt(i int, strict bool) bool {
	r := readValue
	if strict {
		r = readStrict
	}
	_, ok := m.shapeEnd(i, r)
	return ok
}

// shapeEnd reports whether m.s[i:] starts with a credential in reading r,
// and where it ends.
func (m *runMemo) shapeEnd(i int, r reading) (int, bool) {
	first := m.s[i]
	if r == readFolded {
		first = lowerByte(first)
	}
	idx := &shapesByFirst
	if r == readFolded {
		idx = &shapesByFirstFold
	}
	for _, k := range idx[first] {
		if end, ok := credShapes[k].matchEnd(m, i, r); ok {
			return end, true
		}
	}
	return i, false
}

// match reports whether m.s[i:] starts with a credential of this format.
func (c *credShape) match(m *runMemo, i int, strict bool) bool {
	r := readValue
	if strict {
		r = readStrict
	}
	_, ok := c.matchEnd(m, i, r)
	return ok
}

// matchEnd reports whether m.s[i:] starts with a credential of this format
// in reading r, and where it ends.
func (c *credShape) matchEnd(m *runMemo, i int, r reading) (int, bool) {
	s := m.s
	fold := r == readFolded
	for _, p := range c.prefixes {
		if !strings.HasPrefix(s[i:], p) && !(fold && hasPrefixFold(s[i:], p)) {
			continue
		}
		at := i + len(p)
		var end int
		if c.form != tailRun {
			e, ok := m.structure(c.form, at, fold)
			if !ok {
				continue
			}
			end = e
		} else {
			tail := c.tail
			if fold && tail == upperDigitSet {
				tail = alnumSet // a lower-cased AWS key id
			}
			end = m.end(tail, at)
			n := end - at
			if n < c.min || (c.max > 0 && n > c.max) {
				continue
			}
			if c.max > 0 && end < len(s) && isAlnum(s[end]) {
				continue // a fixed-length format runs on into letters: not it
			}
		}
		window, n := s[at:min(end, at+strictWindow)], end-at
		switch {
		case r == readStrict && c.strict != nil && !c.strict(window, n):
			continue
		case fold && c.fold != nil && !c.fold(window, n):
			continue
		}
		return end, true
	}
	return i, false
}

// wordStart reports whether a token may begin at s[i]: at the start, after a
// byte that is not a letter or digit, or after a percent escape (which
// decodes to such a byte unless hasTokenEscape says otherwise).
func wordStart(s string, i int) bool {
	if i == 0 || !isAlnum(s[i-1]) {
		return true
	}
	return i >= 3 && s[i-3] == '%' && isHex(s[i-2]) && isHex(s[i-1])
}

// shapeSecret reports whether a value contains a credential recognisable by
// its format alone, starting at a word boundary: a credShapes format, or
// one that phraseSecret finds.
func shapeSecret(v string) bool {
	if phraseSecret(v) {
		return true
	}
	m := runMemo{s: v}
	for i := 0; i < len(v); i++ {
		if (i == 0 || !isAlnum(v[i-1])) && mayStartShape(v, i) && m.shapeAt(i, false) {
			return true
		}
	}
	return false
}

// phraseSecret reports whether a decoded value holds a PEM block or
// "Bearer " and a token (an Authorization value in a query or fragment).
func phraseSecret(v string) bool {
	if strings.Contains(v, "-----BEGIN") {
		return true
	}
	for i := 0; i+7 < len(v); i++ {
		if (v[i] == 'b' || v[i] == 'B') && (i == 0 || !isAlnum(v[i-1])) && strings.EqualFold(v[i:i+7], "bearer ") &&
			tailLen(v[i+7:], "-._~+/=") >= 8 {
			return true
		}
	}
	return false
}

// strictSecret reports whether a path segment or an anchor holds a
// credential (strict reading). It does not allocate unless an escape hides
// a byte a token could be made of (ghp%5F…), when it reads the decoded
// text.
func strictSecret(s string) bool {
	if hasTokenEscape(s) {
		s = pathDecode(s)
	}
	m := runMemo{s: s}
	for i := 0; i < len(s); i++ {
		if mayStartShape(s, i) && wordStart(s, i) && m.shapeAt(i, true) {
			return true
		}
	}
	return false
}

// hasTokenEscape reports whether s has a percent escape of a token byte.
func hasTokenEscape(s string) bool {
	for i := strings.IndexByte(s, '%'); i >= 0 && i+2 < len(s); {
		if isHex(s[i+1]) && isHex(s[i+2]) && tokenByte.in[unhex(s[i+1])<<4|unhex(s[i+2])] {
			return true
		}
		j := strings.IndexByte(s[i+1:], '%')
		if j < 0 {
			return false
		}
		i += j + 1
	}
	return false
}

// pathDecode decodes %XX escapes; "+" stays "+", as in a path.
func pathDecode(s string) string { return string(percentDecode(s, false)) }

// tailLen counts the leading ASCII letters, digits and extra bytes of s.
func tailLen(s, extra string) int {
	n := 0
	for n < len(s) && (isAlnum(s[n]) || strings.IndexByte(extra, s[n]) >= 0) {
		n++
	}
	return n
}
