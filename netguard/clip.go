package netguard

import "unicode/utf8"

// Clip returns s cut to at most maxBytes bytes at a character boundary and
// followed by "…" when anything was cut, or s itself when it fits. It is the
// one cap for untrusted text repeated in a message (an error's echoed path,
// a page's status text): whatever a client or a site sends, what is repeated
// stays short. Redact or scrub before clipping, so that a cut cannot leave
// half a secret behind.
func Clip(s string, maxBytes int) string {
	if len(s) <= maxBytes {
		return s
	}
	cut := max(maxBytes, 0)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
