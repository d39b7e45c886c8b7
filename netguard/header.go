package netguard

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"golang.org/x/net/http/httpguts"
)

// callerHeaders are the request headers a caller may choose. Everything
// else is either set by the guard (User-Agent, Accept-Encoding) or must
// never be sent to an attacker-chosen host: credentials (Authorization,
// Cookie) would be handed to whoever the URL names, and Referer would leak
// where the citation came from.
var callerHeaders = map[string]bool{"Accept": true, "Accept-Language": true}

// defaultAccept prefers what a citation can be checked against.
const defaultAccept = "text/html,application/xhtml+xml,application/pdf;q=0.9,*/*;q=0.8"

// requestHeader builds the header sent on every hop: the caller's safe
// headers, then the guard's own.
func (g *Guard) requestHeader(h http.Header) (http.Header, error) {
	out := http.Header{"Accept": {defaultAccept}}
	for key, values := range h {
		canon := http.CanonicalHeaderKey(key)
		if !callerHeaders[canon] {
			return nil, fmt.Errorf("netguard: request header %q: %w", clip(key), ErrRequest)
		}
		for _, v := range values {
			if !httpguts.ValidHeaderFieldValue(v) {
				return nil, fmt.Errorf("netguard: request header %s: invalid value: %w", canon, ErrRequest)
			}
		}
		if len(values) > 0 {
			out[canon] = append([]string(nil), values...)
		}
	}
	out.Set("User-Agent", g.userAgent)
	out.Set("Accept-Encoding", acceptEncoding)
	return out, nil
}

// responseHeader is the header Fetch returns: cookies removed (there is no
// jar, and a stored cookie is a stored credential), URLs in the headers
// that carry them redacted, and, when the body was decoded, the encoding
// and length headers removed because they describe bytes nobody sees.
func responseHeader(h http.Header, decoded bool) http.Header {
	out := h.Clone()
	if out == nil {
		out = http.Header{}
	}
	out.Del("Set-Cookie")
	out.Del("Set-Cookie2")
	for _, key := range []string{"Location", "Content-Location", "Link", "Refresh"} {
		for i, v := range out[key] {
			out[key][i] = RedactText(v)
		}
	}
	if decoded {
		out.Del("Content-Encoding")
		out.Del("Content-Length")
	}
	return out
}

// retryAfter parses Retry-After (delta-seconds or an HTTP-date) relative to
// now and caps it at limit. Absent, unparsable or past values give 0;
// absurd ones (999999, year 9999) give limit, so the engine can tell "asked
// to wait" from "did not ask" without ever waiting longer than it allows.
func retryAfter(h http.Header, now time.Time, limit time.Duration) time.Duration {
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	var d time.Duration
	if secs, err := strconv.ParseUint(v, 10, 64); err == nil || errors.Is(err, strconv.ErrRange) {
		if err != nil || secs > uint64(limit/time.Second) {
			return limit
		}
		d = time.Duration(secs) * time.Second
	} else if t, err := http.ParseTime(v); err == nil {
		d = t.Sub(now)
	}
	return min(max(d, 0), limit)
}
