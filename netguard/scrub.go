package netguard

import (
	"bytes"
	"strings"
	"unicode"
)

// Scrubbed replaces a known secret value wherever a Scrubber finds it.
const Scrubbed = "[REDACTED]"

// Scrubber removes known secret values (an API key, a token, a provider's
// zone name) from text a third party sent back. Redaction (RedactText)
// finds secrets by their shape; a Scrubber finds these exact values, whatever
// they look like. The providers and the LLM judges use it for every error
// detail and every field of an answer.
type Scrubber struct {
	// secrets are replaced wherever they occur.
	secrets []string
	// names are replaced only where they stand as a whole word: a zone may be
	// named like an ordinary word, and a page that merely contains that word
	// inside another must stay readable.
	names []string
}

// NewScrubber scrubs secrets everywhere and names as whole words; blank
// values are ignored.
func NewScrubber(secrets, names []string) Scrubber {
	var s Scrubber
	for _, v := range secrets {
		if v = strings.TrimSpace(v); v != "" {
			s.secrets = append(s.secrets, v)
		}
	}
	for _, v := range names {
		if v = strings.TrimSpace(v); v != "" {
			s.names = append(s.names, v)
		}
	}
	return s
}

// String is s without the secrets and names.
func (sc Scrubber) String(s string) string {
	for _, sec := range sc.secrets {
		if strings.Contains(s, sec) {
			s = strings.ReplaceAll(s, sec, Scrubbed)
		}
	}
	for _, n := range sc.names {
		if strings.Contains(s, n) {
			s = string(replaceWord([]byte(s), []byte(n)))
		}
	}
	return s
}

// Bytes is b without the secrets and names; b itself is returned when there
// is nothing to remove.
func (sc Scrubber) Bytes(b []byte) []byte {
	for _, sec := range sc.secrets {
		if bytes.Contains(b, []byte(sec)) {
			b = bytes.ReplaceAll(b, []byte(sec), []byte(Scrubbed))
		}
	}
	for _, n := range sc.names {
		if bytes.Contains(b, []byte(n)) {
			b = replaceWord(b, []byte(n))
		}
	}
	return b
}

// Detail makes untrusted text safe to quote in an error message: valid
// UTF-8, control characters and runs of white space folded to one space,
// the secrets scrubbed, URLs and key=value secrets redacted (RedactText),
// and the result cut to at most maxBytes bytes (plus "…") at a character
// boundary. Scrubbing comes before the cut, so the cut cannot leave half a
// secret behind.
func (sc Scrubber) Detail(s string, maxBytes int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || unicode.IsSpace(r) {
			return ' '
		}
		return r
	}, s)
	s = strings.Join(strings.Fields(s), " ")
	return Clip(RedactText(sc.String(s)), maxBytes)
}

// replaceWord replaces each occurrence of word in b that has no ASCII letter
// or digit right before or after it: "zone: web_unlocker1",
// "-zone-web_unlocker1-" and "zone_web_unlocker1" lose it, "web_unlocker12"
// and, for a zone named news, "newspaper" do not.
func replaceWord(b, word []byte) []byte {
	var out []byte
	done := 0
	for i := 0; i+len(word) <= len(b); {
		j := bytes.Index(b[i:], word)
		if j < 0 {
			break
		}
		start, end := i+j, i+j+len(word)
		if (start == 0 || !isAlnum(b[start-1])) && (end == len(b) || !isAlnum(b[end])) {
			out = append(out, b[done:start]...)
			out = append(out, Scrubbed...)
			done = end
			i = end
			continue
		}
		i = start + 1
	}
	if out == nil {
		return b
	}
	return append(out, b[done:]...)
}
