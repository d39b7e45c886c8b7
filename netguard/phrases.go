package netguard

import (
	"encoding/base64"
	"strings"
)

// Credentials in free text that no format gives away, only the words in
// front of them: an HTTP Authorization header written out in a log or a
// snippet (Authorization: Bearer <opaque>, "Authorization": "Basic …"), a
// bare "Bearer <token>" or "Basic <base64 of user:password>", and curl's
// user option (curl -u admin:<password>, --user=…). Such a credential can be
// any string, so the phrase is what is recognised, and only the credential
// itself is replaced.

// authSchemes are the Authorization schemes whose credentials follow them
// after white space. Digest, AWS4-HMAC-SHA256 and OAuth 1 carry key=value
// lists instead, which the key rule already handles.
var authSchemes = []string{"bearer", "basic", "token", "bot", "apikey", "api-key", "key", "sso-key",
	"negotiate", "ntlm", "jwt", "dpop", "pat"}

// redactPhrases replaces the credentials of the phrases above with the
// placeholder. It returns s itself when there are none.
func redactPhrases(s string) string {
	p := &phraseScan{s: s}
	var spans [][2]int // credentials to replace, in order
	curl := false      // a curl command was seen on this line
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\n':
			curl = false
			i++
			continue
		case c == '-' && curl && (i == 0 || isSpaceByte(s[i-1])):
			if sp, next, ok := curlUser(s, i); ok {
				spans = append(spans, sp)
				i = next
				continue
			}
		case isAlpha(c) && (i == 0 || !isAlnum(s[i-1])):
			end := i + keywordLen(s[i:])
			// Only words of a keyword's length and first letter are
			// compared: a source line is mostly URL words, and five
			// EqualFolds per word showed.
			word := s[i:end]
			if n, c := len(word), word[0]|0x20; (n != len("curl") || c != 'c') && (n != len("basic") || c != 'b') &&
				(n != len("bearer") || c != 'b') && (n != len("authorization") || c != 'a') &&
				(n != len("proxy-authorization") || c != 'p') {
				i = end
				continue
			}
			switch {
			case strings.EqualFold(word, "authorization") || strings.EqualFold(word, "proxy-authorization"):
				if sp, next, ok := p.authorizationValue(end); ok {
					spans = append(spans, sp)
					end = next
				}
			case strings.EqualFold(word, "bearer"):
				if sp, ok := p.followingCredential(end); ok && opaqueToken(s[sp[0]:sp[1]]) {
					spans = append(spans, sp)
					end = sp[1]
				}
			case strings.EqualFold(word, "basic"):
				if sp, ok := p.followingCredential(end); ok && basicCredentials(s[sp[0]:sp[1]]) {
					spans = append(spans, sp)
					end = sp[1]
				}
			case strings.EqualFold(word, "curl") && (end == len(s) || !isAlnum(s[end]) && s[end] != '-' && s[end] != '_'):
				curl = true
			}
			i = end
			continue
		}
		i++
	}
	if len(spans) == 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	done := 0
	for _, sp := range spans {
		b.WriteString(s[done:sp[0]])
		b.WriteString(redactedValue)
		done = sp[1]
	}
	b.WriteString(s[done:])
	return b.String()
}

func isAlpha(c byte) bool { return isLower(c) || isUpper(c) }

// keywordLen is the length of the run of letters and inner dashes at the
// start of s (Proxy-Authorization is one keyword).
func keywordLen(s string) int {
	n := 0
	for n < len(s) && (isAlpha(s[n]) || s[n] == '-' && n+1 < len(s) && isAlpha(s[n+1])) {
		n++
	}
	return n
}

// skipQuotes skips quote characters.
func skipQuotes(s string, i int) int {
	for i < len(s) && (s[i] == '"' || s[i] == '\'' || s[i] == '`') {
		i++
	}
	return i
}

func skipBlanks(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return i
}

// credentialEnd marks bytes that end a credential written in text: white
// space, quotes, and the punctuation that closes a JSON value, an argument
// list or a sentence clause.
var credentialEnd = newCharset(setCredentialEnd, " \t\r\n\f\v\"'`,;)]}>")

// phraseScan is the text being scanned, with the one run of credential
// bytes last measured: text such as "Authorization:Authorization:…" asks
// for the end of the same long run at every keyword, and remembering it
// keeps the scan linear.
type phraseScan struct {
	s                string
	runStart, runEnd int
}

// credentialAt returns the credential starting at s[i]: up to white space,
// a quote or closing punctuation, without a trailing full stop or colon. It
// must start with a letter or digit, so placeholders ($TOKEN, <token>,
// {token}, ***, …) and the redaction placeholder itself are left alone.
func (p *phraseScan) credentialAt(i int) ([2]int, bool) {
	s := p.s
	if i >= len(s) || !isAlnum(s[i]) {
		return [2]int{}, false
	}
	if i < p.runStart || i >= p.runEnd {
		end := i
		for end < len(s) && !credentialEnd.in[s[end]] {
			end++
		}
		p.runStart, p.runEnd = i, end
	}
	end := p.runEnd
	if end > i+1 && (s[end-1] == '.' || s[end-1] == ':') {
		end--
	}
	return [2]int{i, end}, true
}

// followingCredential is the credential after white space at s[i:] (the
// word after "Bearer" or "Basic").
func (p *phraseScan) followingCredential(i int) ([2]int, bool) {
	j := skipBlanks(p.s, i)
	if j == i {
		return [2]int{}, false
	}
	return p.credentialAt(j)
}

// authorizationValue reads the value of an Authorization header whose name
// ends at s[i]: optional quote, ":" or "=", optional quote, then a scheme
// and its credentials, or bare credentials. With a known scheme the
// credentials are taken whatever they look like; otherwise only what looks
// like an opaque token is, so that prose ("Authorization: a guide") stays.
func (p *phraseScan) authorizationValue(i int) (span [2]int, next int, ok bool) {
	s := p.s
	j := skipBlanks(s, skipQuotes(s, i))
	if j >= len(s) || (s[j] != ':' && s[j] != '=') {
		return span, i, false
	}
	j = skipQuotes(s, skipBlanks(s, j+1))
	scheme := s[j : j+keywordLen(s[j:])]
	afterScheme := j + len(scheme)
	known := false
	for _, a := range authSchemes {
		known = known || strings.EqualFold(scheme, a)
	}
	if scheme != "" && (afterScheme == len(s) || credentialEnd.in[s[afterScheme]]) {
		if sp, ok := p.followingCredential(afterScheme); ok && (known || opaqueToken(s[sp[0]:sp[1]])) {
			return sp, sp[1], true
		}
		if known {
			return span, afterScheme, false
		}
	}
	if sp, ok := p.credentialAt(j); ok && opaqueToken(s[sp[0]:sp[1]]) {
		return sp, sp[1], true
	}
	return span, i, false
}

// opaqueToken reports whether a word standing where a token may stand looks
// like one rather than like a word: token68 characters only, at least 8
// long, with letters and digits, and either long or in mixed case.
func opaqueToken(w string) bool {
	n := tailLen(w, "-._~+/")
	for n < len(w) && w[n] == '=' {
		n++
	}
	if n != len(w) || len(w) < 8 {
		return false
	}
	cl := classesOf(w)
	if cl&hasDigit == 0 || cl&(hasUpper|hasLower) == 0 {
		return false
	}
	return len(w) >= 16 || cl&(hasUpper|hasLower) == hasUpper|hasLower
}

// basicCredentials reports whether w is HTTP Basic credentials: base64 of
// printable "user:password".
func basicCredentials(w string) bool {
	if len(w) < 8 {
		return false
	}
	enc := base64.StdEncoding
	if !strings.HasSuffix(w, "=") && len(w)%4 != 0 {
		enc = base64.RawStdEncoding
	}
	dec, err := enc.DecodeString(w)
	if err != nil || !strings.Contains(string(dec), ":") {
		return false
	}
	for _, c := range dec {
		if c < 0x20 || c > 0x7e {
			return false
		}
	}
	return true
}

// curlBoolFlags are curl's short options without an argument, which may
// precede -u in one cluster (-sSLu user:pw).
const curlBoolFlags = "sSLkfviIgNq#"

// curlUser reads a curl user option starting at s[i] ("-u", "-U",
// "--user", "--proxy-user", a short-option cluster ending in u or U, each
// followed by its argument after white space or, for the short forms,
// attached; "--user=" and "--proxy-user=" with it after "="), and returns
// the part of "user:password" to redact: the password, or the user when the
// password is empty (an API key passed as the user name).
func curlUser(s string, i int) (span [2]int, next int, ok bool) {
	end := i
	for end < len(s) && !isSpaceByte(s[end]) {
		end++
	}
	opt := s[i:end]
	var arg int // where the argument starts
	switch {
	case opt == "--user" || opt == "--proxy-user":
		arg = skipBlanks(s, end)
	case strings.HasPrefix(opt, "--user=") || strings.HasPrefix(opt, "--proxy-user="):
		arg = i + strings.IndexByte(opt, '=') + 1
	case len(opt) >= 2 && opt[1] != '-':
		k := 1
		for k < len(opt) && strings.IndexByte(curlBoolFlags, opt[k]) >= 0 {
			k++
		}
		if k == len(opt) || (opt[k] != 'u' && opt[k] != 'U') {
			return span, i, false
		}
		if arg = i + k + 1; arg == end {
			arg = skipBlanks(s, end)
		}
	default:
		return span, i, false
	}
	a := skipQuotes(s, arg)
	argEnd := a
	for argEnd < len(s) && !isSpaceByte(s[argEnd]) && s[argEnd] != '"' && s[argEnd] != '\'' && s[argEnd] != '`' {
		argEnd++
	}
	user, password, found := strings.Cut(s[a:argEnd], ":")
	switch {
	case !found:
		return span, i, false // curl asks for the password
	case password != "":
		if !isAlnum(password[0]) && !strings.ContainsRune("!#&()*+-./=?@^_~", rune(password[0])) {
			return span, i, false // $PASSWORD, %5BREDACTED%5D, <password>
		}
		return [2]int{a + len(user) + 1, argEnd}, argEnd, true
	case user != "" && isAlnum(user[0]):
		return [2]int{a, a + len(user)}, argEnd, true
	}
	return span, i, false
}
