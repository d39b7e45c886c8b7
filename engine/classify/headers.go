package classify

import (
	"net/http"
	"strings"
)

// header is a case-insensitive header lookup that also copes with maps a
// rung built without canonical keys.
func header(h http.Header, name string) string {
	if h == nil {
		return ""
	}
	if v := h.Get(name); v != "" {
		return strings.TrimSpace(v)
	}
	for k, vs := range h {
		if strings.EqualFold(k, name) && len(vs) > 0 {
			return strings.TrimSpace(vs[0])
		}
	}
	return ""
}

// hasHeaderPrefix reports a header whose name starts with prefix (any case).
func hasHeaderPrefix(h http.Header, prefix string) bool {
	for k := range h {
		if hasPrefixFold(k, prefix) {
			return true
		}
	}
	return false
}

// cookieNamed reports a Set-Cookie whose name has one of the prefixes.
func cookieNamed(h http.Header, prefixes ...string) bool {
	for k, vs := range h {
		if !strings.EqualFold(k, "Set-Cookie") {
			continue
		}
		for _, v := range vs {
			name, _, _ := strings.Cut(strings.TrimSpace(v), "=")
			for _, p := range prefixes {
				if hasPrefixFold(name, p) {
					return true
				}
			}
		}
	}
	return false
}
