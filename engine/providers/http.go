package providers

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"math"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/citegate/citegate/netguard"
)

const (
	// errorBodyCap bounds how much of an error response is read.
	errorBodyCap = 8 << 10
	// jsonOverhead is added to the JSON envelope cap for the fields
	// around the content.
	jsonOverhead = 64 << 10
	// maxDetail bounds provider-supplied text quoted in an error message.
	maxDetail = 240
	// maxTargetShown bounds the redacted target in an error message.
	maxTargetShown = 2048
)

func effectiveMaxBody(n int64) int64 {
	if n <= 0 {
		return DefaultMaxBody
	}
	return n
}

// call carries what every failure message needs: who, which target, and the
// secrets that must be scrubbed from anything the provider sends back.
type call struct {
	provider string
	target   string // as given; only ever shown redacted
	// scrubber removes the API keys and tokens, and the Bright Data zone
	// (as a whole word), from everything the provider sends back.
	scrubber netguard.Scrubber
}

// newCall prepares a call; empty secrets and names are ignored.
func newCall(provider, target string, secrets, names []string) *call {
	return &call{provider: provider, target: target, scrubber: netguard.NewScrubber(secrets, names)}
}

func (c *call) fail(kind error, detail string) *Error {
	target := c.scrub(netguard.RedactText(c.target))
	if len(target) > maxTargetShown {
		cut := maxTargetShown
		for cut > 0 && !utf8.RuneStart(target[cut]) {
			cut--
		}
		target = target[:cut] + "…"
	}
	return &Error{
		Provider: c.provider,
		Kind:     kind,
		Target:   target,
		Detail:   detail,
	}
}

// failStatus is fail for an HTTP answer of the provider API.
func (c *call) failStatus(kind error, status int, detail string) *Error {
	e := c.fail(kind, detail)
	e.HTTPStatus = status
	return e
}

// scrubContent removes the secret from every string field of ct.
func (c *call) scrubContent(ct *Content) *Content {
	ct.FinalURL = c.scrub(ct.FinalURL)
	ct.ContentType = c.scrub(ct.ContentType)
	ct.Charset = c.scrub(ct.Charset)
	ct.Title = c.scrub(ct.Title)
	ct.Body = c.scrubber.Bytes(ct.Body)
	if v := ct.Verdict; v != nil {
		v.Status, v.Notes, v.URL = c.scrub(v.Status), c.scrub(v.Notes), c.scrub(v.URL)
		v.Title, v.Publisher, v.EvidenceSnippet = c.scrub(v.Title), c.scrub(v.Publisher), c.scrub(v.EvidenceSnippet)
	}
	return ct
}

// scrub removes the secrets and names from s.
func (c *call) scrub(s string) string { return c.scrubber.String(s) }

// sanitize makes provider- or transport-supplied text safe to put in an
// error (netguard.Scrubber.Detail), cut to maxDetail bytes.
func (c *call) sanitize(s string) string { return c.scrubber.Detail(s, maxDetail) }

// checkTarget refuses targets that must not be handed to a third party.
func (c *call) checkTarget() *Error {
	t := c.target
	if t == "" {
		return c.fail(ErrInvalidTarget, "empty URL")
	}
	if strings.IndexFunc(t, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) >= 0 {
		return c.fail(ErrInvalidTarget, "URL contains white space or control characters")
	}
	u, err := url.Parse(t)
	if err != nil {
		return c.fail(ErrInvalidTarget, "malformed URL")
	}
	if s := strings.ToLower(u.Scheme); s != "http" && s != "https" {
		return c.fail(ErrInvalidTarget, "not an http(s) URL")
	}
	if u.Host == "" || u.Hostname() == "" {
		return c.fail(ErrInvalidTarget, "URL has no host")
	}
	if u.User != nil {
		return c.fail(ErrInvalidTarget, "URL carries userinfo")
	}
	return nil
}

// endpoint joins base (or def when base is empty) and path; an empty path
// means base is the full endpoint and is used as given. When the request
// will carry a secret, base must be https, or http on a loopback host.
func (c *call) endpoint(base, def, path string, carriesSecret bool) (string, *Error) {
	if strings.TrimSpace(base) == "" {
		base = def
	}
	u, err := url.Parse(strings.TrimSpace(base))
	if err != nil || u.Host == "" {
		return "", c.fail(ErrProviderFailed, "invalid provider base URL")
	}
	if u.User != nil {
		return "", c.fail(ErrProviderFailed, "provider base URL carries userinfo")
	}
	switch strings.ToLower(u.Scheme) {
	case "https":
	case "http":
		if carriesSecret && !isLoopbackHost(u.Hostname()) {
			return "", c.fail(ErrProviderFailed, "refusing to send credentials over plain http to http://"+c.sanitize(u.Host))
		}
	default:
		return "", c.fail(ErrProviderFailed, "provider base URL is not http(s)")
	}
	if path == "" {
		return strings.TrimSpace(base), nil // a full endpoint, used as given
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return "", c.fail(ErrProviderFailed, "provider base URL has a query or fragment")
	}
	return strings.TrimRight(u.String(), "/") + path, nil
}

func isLoopbackHost(h string) bool {
	if strings.EqualFold(h, "localhost") {
		return true
	}
	a, err := netip.ParseAddr(h)
	return err == nil && a.Unmap().IsLoopback()
}

// post sends body as JSON and returns the response. The caller's client is
// used for its transport, jar and timeout, but redirects are never followed:
// a redirect would carry the Authorization header and the body elsewhere.
func (c *call) post(ctx context.Context, client *http.Client, endpoint string, header http.Header, body any) (*http.Response, *Error) {
	payload, err := json.Marshal(body)
	if err != nil {
		return nil, c.fail(ErrProviderFailed, "encoding request")
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, bytes.NewReader(payload))
	if err != nil {
		return nil, c.fail(ErrProviderFailed, "building request: "+c.sanitize(err.Error()))
	}
	for k, vs := range header {
		req.Header[k] = vs
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := noRedirects(client).Do(req)
	if err != nil {
		return nil, c.transportError(ctx, err)
	}
	return resp, nil
}

func noRedirects(client *http.Client) *http.Client {
	var cl http.Client
	if client != nil {
		cl = *client
	}
	cl.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &cl
}

// transportError classifies a failed request or body read. The raw error is
// never kept: its text is sanitized into Detail, and only the context's own
// error is kept for errors.Is.
func (c *call) transportError(ctx context.Context, err error) *Error {
	var ne net.Error
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded) || errors.Is(err, context.DeadlineExceeded):
		e := c.fail(ErrProviderTimeout, "context deadline exceeded")
		e.cause = context.DeadlineExceeded
		return e
	case errors.Is(ctx.Err(), context.Canceled) || errors.Is(err, context.Canceled):
		e := c.fail(ErrProviderFailed, "canceled")
		e.cause = context.Canceled
		return e
	case errors.As(err, &ne) && ne.Timeout():
		return c.fail(ErrProviderTimeout, c.sanitize(err.Error()))
	default:
		return c.fail(ErrProviderFailed, c.sanitize(err.Error()))
	}
}

// readCapped reads at most limit bytes of r and reports whether more was
// available. Read errors, including the context expiring mid-body, are
// classified like request errors.
func (c *call) readCapped(ctx context.Context, r io.Reader, limit int64) ([]byte, bool, *Error) {
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, false, c.transportError(ctx, err)
	}
	if int64(len(b)) > limit {
		return b[:limit], true, nil
	}
	return b, false, nil
}

// errorSnippet reads the start of an error response and sanitizes it.
func (c *call) errorSnippet(ctx context.Context, r io.Reader) string {
	b, _, err := c.readCapped(ctx, r, errorBodyCap)
	if err != nil {
		return ""
	}
	return c.sanitize(string(b))
}

// statusKind maps a non-success status of a provider API to a sentinel.
func statusKind(status int) error {
	switch status {
	case http.StatusUnauthorized, http.StatusForbidden, http.StatusProxyAuthRequired:
		return ErrUnauthorized
	case http.StatusPaymentRequired, http.StatusTooManyRequests:
		return ErrQuota
	case http.StatusRequestTimeout, http.StatusGatewayTimeout:
		return ErrProviderTimeout
	default:
		return ErrProviderFailed
	}
}

// statusDetail names an unexpected status; redirects get their own words
// because they are refused on purpose.
func statusDetail(status int) string {
	if status >= 300 && status < 400 {
		return "unexpected redirect (http " + strconv.Itoa(status) + "), not followed"
	}
	return "http " + strconv.Itoa(status)
}

// parseRetryAfter reads a Retry-After value: delay-seconds or an HTTP date.
func parseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		switch {
		case n <= 0:
			return 0
		case n > math.MaxInt64/int64(time.Second):
			return time.Duration(math.MaxInt64)
		}
		return time.Duration(n) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// mediaType splits a Content-Type header into a lower-case media type and
// its charset.
func mediaType(h string) (typ, charset string) {
	if strings.TrimSpace(h) == "" {
		return "", ""
	}
	mt, params, err := mime.ParseMediaType(h)
	if err != nil {
		mt, _, _ = strings.Cut(h, ";")
		return strings.ToLower(strings.TrimSpace(mt)), ""
	}
	return mt, strings.ToLower(params["charset"])
}

// cutUTF8 cuts s to at most limit bytes without splitting a rune, and
// reports whether anything was cut.
func cutUTF8(s string, limit int64) ([]byte, bool) {
	if int64(len(s)) <= limit {
		return []byte(s), false
	}
	cut := int(limit)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return []byte(s[:cut]), true
}
