package netguard

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// RedactText redacts free text, such as a markdown source line or an error
// message from net/http (which embeds the full URL): every http or https URL
// in it, with RedactURL's rules; the credentials of an Authorization header
// (Authorization: Bearer <any token>, "Authorization": "Basic …"), of a bare
// "Bearer <token>" or "Basic <base64 user:password>", and of curl's user
// option (curl -u admin:<password>); and every other word that is a secret
// by itself — a key=value pair with a sensitive key (password=…, api_key=…)
// or a credential-shaped token (ghp_…, AKIA…, xoxb-…, a JWT). Everything
// else is left byte for byte.
//
// A URL runs from "http://" or "https://" (any case) to the first white
// space, control character, one of <>"'` or an unbalanced closing bracket.
// Sentence punctuation at the very end (.,:;!?) is left outside the URL.
func RedactText(s string) string {
	return redactWords(redactPhrases(redactTextURLs(s, "", "")))
}

// RedactTextKnown is RedactText for text in which the caller has already
// redacted one URL: where raw stands in s as a URL, redacted — which must be
// RedactURL(raw)'s result — is used instead of redacting it again. A source
// line usually holds exactly the URL its link was read from, and the
// extract stage redacts both.
func RedactTextKnown(s, raw, redacted string) string {
	return redactWords(redactPhrases(redactTextURLs(s, raw, redacted)))
}

// redactTextURLs redacts the URLs inside s (raw, if there, as redacted).
func redactTextURLs(s, raw, redacted string) string {
	var b strings.Builder
	done := 0
	for i := 0; i < len(s); i++ {
		if s[i] != 'h' && s[i] != 'H' {
			continue
		}
		rest := s[i:]
		if !hasPrefixFold(rest, "http://") && !hasPrefixFold(rest, "https://") {
			continue
		}
		end := i + urlLen(rest)
		red := redacted
		if raw == "" || s[i:end] != raw {
			red, _ = RedactURL(s[i:end])
		}
		if red != s[i:end] {
			if b.Len() == 0 {
				b.Grow(len(s))
			}
			b.WriteString(s[done:i])
			b.WriteString(red)
			done = end
		}
		i = end - 1
	}
	if done == 0 {
		return s
	}
	b.WriteString(s[done:])
	return b.String()
}

// redactWords redacts the white-space separated words of s that are
// secrets by themselves; words holding a URL were handled by redactTextURLs.
func redactWords(s string) string {
	var b strings.Builder
	done := 0
	for i := 0; i < len(s); {
		if isSpaceByte(s[i]) {
			i++
			continue
		}
		end := i
		for end < len(s) && !isSpaceByte(s[end]) {
			end++
		}
		if w := s[i:end]; !strings.Contains(w, "://") && wordMaySecret(w) {
			if red := redactPairs(w, 0); red != w {
				if b.Len() == 0 {
					b.Grow(len(s))
				}
				b.WriteString(s[done:i])
				b.WriteString(red)
				done = end
			}
		}
		i = end
	}
	if done == 0 {
		return s
	}
	b.WriteString(s[done:])
	return b.String()
}

// wordMaySecret is a cheap filter before a word is examined as a query:
// only a key=value pair or a credential shape can change.
func wordMaySecret(w string) bool {
	return strings.IndexByte(w, '=') >= 0 || indexFold(w, "%3d") >= 0 || shapeSecret(w)
}

func isSpaceByte(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

// urlByte marks the ASCII bytes that continue a URL without further
// thought: printable, not white space, not one of <>"'` and not a bracket.
var urlByte = func() (t [utf8.RuneSelf]bool) {
	for c := 0x21; c < 0x7f; c++ {
		t[c] = !strings.ContainsRune("<>\"'`()[]", rune(c))
	}
	return t
}()

// urlLen returns the length of the URL at the start of s.
func urlLen(s string) int {
	parens, brackets := 0, 0
	end := len(s)
scan:
	for i, r := range s {
		if r < utf8.RuneSelf && urlByte[r] {
			continue // the common case: a byte that neither ends nor nests
		}
		switch {
		case unicode.IsSpace(r) || unicode.IsControl(r) || r == utf8.RuneError:
			end = i
			break scan
		case strings.ContainsRune("<>\"'`", r):
			end = i
			break scan
		case r == '(':
			parens++
		case r == '[':
			brackets++
		case r == ')' || r == ']':
			depth := &parens
			if r == ']' {
				depth = &brackets
			}
			if *depth == 0 {
				end = i
				break scan
			}
			*depth--
		}
	}
	return len(strings.TrimRight(s[:end], ".,:;!?"))
}
