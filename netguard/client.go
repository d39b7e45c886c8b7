package netguard

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptrace"
	"strings"
	"sync/atomic"
	"time"

	whatwg "github.com/nlnwa/whatwg-url/url"
)

// Request is one fetch of an untrusted URL.
type Request struct {
	// Method is GET (the default when empty) or HEAD; nothing that could
	// change state on the far side is ever sent.
	Method string
	// URL is the untrusted URL, exactly as found; Fetch preflights it.
	URL string
	// Header holds optional caller-chosen headers: Accept and
	// Accept-Language only. Any other header, Authorization, Cookie and
	// Referer included, makes Fetch fail with ErrRequest before any network
	// access: a credential in an untrusted fetch goes to whoever the URL (or
	// a redirect) names.
	Header http.Header
}

// Hop is one request of a redirect chain.
type Hop struct {
	// URL is the requested URL, redacted (RedactURL).
	URL string
	// Status is the response status, or 0 if the hop got no response
	// (refused, or failed before the status line).
	Status int
	// Elapsed is the hop's duration, from DNS to the end of the body.
	Elapsed time.Duration
	// Proto is the protocol the response came in ("HTTP/2.0",
	// "HTTP/1.1"), "" if none arrived.
	Proto string
}

// Response is what Fetch learned.
type Response struct {
	// FinalURL is the redacted URL of the last response received.
	FinalURL string
	// Hops lists every request in order, including a refused last one.
	Hops []Hop
	// StatusCode is the status of the last response received.
	StatusCode int
	// Proto is the protocol of the last response received: "HTTP/2.0"
	// when the server chose HTTP/2 in the TLS handshake, else "HTTP/1.1"
	// (or "HTTP/1.0").
	Proto string
	// Header is the header of the last response received, without
	// cookies, with URLs in Location, Content-Location, Link and Refresh
	// redacted, and without Content-Encoding and Content-Length once the
	// body has been decoded.
	Header http.Header
	// Body is the decoded body, at most Limits.MaxBodyBytes long. It is
	// empty for HEAD and for redirects that were not followed.
	Body []byte
	// Truncated reports that Body is not the whole body: it hit the cap
	// (ErrBodyTooLarge), or the read failed part-way (the returned error
	// says why). A truncated body is never a complete success.
	Truncated bool
	// RetryAfter is the parsed Retry-After header, capped at
	// Limits.MaxRetryAfter; 0 when absent or unparsable.
	RetryAfter time.Duration
	// Elapsed is the duration of the whole Fetch.
	Elapsed time.Duration
}

// Fetch retrieves an untrusted URL under the guard's policy and limits. It
// follows redirects itself, at most Limits.MaxRedirects of them, and treats
// each hop as a new untrusted URL: the Location is resolved the way a
// browser would, the result is preflighted (scheme, userinfo, names,
// literals, DomainAllowlist, ports), a URL already visited is a loop, and
// the connection goes through DialContext, so a name that resolves or
// rebinds to a blocked address is refused before a packet is sent. Every
// hop gets its own Limits.HopTimeout covering DNS, connect, TLS, headers
// and body. No cookie jar, no Referer, no credentials and no proxy are
// ever involved, and the User-Agent names citegate.
//
// Fetch returns a non-nil Response whenever at least one response arrived,
// also together with an error: a refused or failed redirect keeps the hops
// that led to it, and a body that could not be read completely keeps the
// status, headers and partial body with Truncated set. Check err first.
// Every error wraps a sentinel (see Reason and IsRefusal); a refused
// redirect wraps ErrRedirectBlocked and the hop's refusal. Error texts
// carry redacted URLs only.
func (g *Guard) Fetch(ctx context.Context, req Request) (*Response, error) {
	return g.fetchCapped(ctx, req, g.limits.MaxBodyBytes, false)
}

// fetchCapped is Fetch with its own body cap, and, with httpOnly, no hop
// over https: the AIA fetch runs inside a TLS handshake and must not need
// one itself (a redirect to https could lead back to the same handshake).
func (g *Guard) fetchCapped(ctx context.Context, req Request, maxBody int64, httpOnly bool) (*Response, error) {
	start := time.Now()
	method := req.Method
	if method == "" {
		method = http.MethodGet
	}
	if method != http.MethodGet && method != http.MethodHead {
		return nil, fmt.Errorf("netguard: method %q: %w", clip(method), ErrRequest)
	}
	header, err := g.requestHeader(req.Header)
	if err != nil {
		return nil, err
	}
	res := &Response{}
	seen := map[string]bool{}
	next := req.URL
	for n := 0; ; n++ {
		t, err := g.Preflight(next)
		if err == nil && httpOnly && !strings.HasPrefix(t.URL, "http:") {
			err = fmt.Errorf("netguard: %s: https not followed here: %w", redacted(t.URL), ErrScheme)
		}
		if err != nil {
			if n > 0 {
				res.Hops = append(res.Hops, Hop{URL: redacted(next)})
			}
			return finish(res, n, start, err)
		}
		// The fragment never reaches the server, so it cannot make a
		// request different.
		key, _, _ := strings.Cut(t.URL, "#")
		if seen[key] {
			res.Hops = append(res.Hops, Hop{URL: redacted(t.URL)})
			return finish(res, n, start, fmt.Errorf("netguard: %s: %w", redacted(t.URL), ErrRedirectLoop))
		}
		seen[key] = true

		hopStart := time.Now()
		h := g.hop(ctx, method, t.URL, header, maxBody)
		res.Hops = append(res.Hops, Hop{URL: redacted(t.URL), Status: h.status, Elapsed: time.Since(hopStart), Proto: h.proto})
		if h.status != 0 {
			res.FinalURL, res.StatusCode, res.Header, res.Proto = redacted(t.URL), h.status, h.header, h.proto
		}
		if h.location == "" {
			res.Body, res.RetryAfter = h.body, h.retryAfter
			res.Truncated = h.err != nil && h.status != 0 // only a body read fails after the status
			return finish(res, n, start, h.err)
		}
		if limit := max(g.limits.MaxRedirects, 0); n == limit { // NoRedirects: none
			return finish(res, n, start, fmt.Errorf("netguard: more than %d redirects: %w", limit, ErrRedirectLimit))
		}
		u, err := whatwg.ParseRef(t.URL, h.location)
		if err != nil {
			return finish(res, n+1, start, fmt.Errorf("netguard: unparsable Location: %w", ErrMalformed))
		}
		next = u.Href(false)
	}
}

// finish completes a Fetch: it marks a refusal on a redirect hop as a
// refused redirect, and drops the Response if nothing ever answered.
func finish(res *Response, n int, start time.Time, err error) (*Response, error) {
	res.Elapsed = time.Since(start)
	if n > 0 && IsRefusal(err) {
		err = fmt.Errorf("netguard: redirect %d: %w: %w", n, ErrRedirectBlocked, err)
	}
	if len(res.Hops) == 0 || res.Hops[0].Status == 0 {
		return nil, err
	}
	return res, err
}

func redacted(u string) string {
	r, _ := RedactURL(u)
	return r
}

// hopResult is the outcome of one request.
type hopResult struct {
	status     int
	proto      string
	location   string // set when the response is a redirect to follow
	header     http.Header
	body       []byte
	retryAfter time.Duration
	err        error
}

// hop performs one request under its own deadline, which also covers the
// body. A redirect's body is not read: without keep-alives, closing it
// just closes the connection.
func (g *Guard) hop(ctx context.Context, method, target string, header http.Header, maxBody int64) hopResult {
	ctx, cancel := context.WithTimeout(ctx, g.limits.HopTimeout)
	defer cancel()
	var tr hopTrace
	traced := httptrace.WithClientTrace(context.WithValue(ctx, hopKey{}, ctx), tr.clientTrace())
	req, err := http.NewRequestWithContext(traced, method, target, nil)
	if err != nil {
		return hopResult{err: fmt.Errorf("netguard: %s: %w", redacted(target), ErrMalformed)}
	}
	req.Header = header.Clone()
	resp, err := g.fetch.RoundTrip(req)
	if err != nil {
		err = fmt.Errorf("netguard: %s %s: %w", method, redacted(target), sendFailure(ctx, &tr, err))
		return hopResult{err: markUnreached(err, tr.connected.Load())}
	}
	defer resp.Body.Close()

	h := hopResult{status: resp.StatusCode, proto: resp.Proto}
	if loc, ok := redirectLocation(resp); ok {
		h.location, h.header = loc, responseHeader(resp.Header, false)
		return h
	}
	h.retryAfter = retryAfter(resp.Header, time.Now(), g.limits.MaxRetryAfter)
	codings := resp.Header.Values("Content-Encoding")
	if method != http.MethodHead {
		h.body, err = readBody(ctx, resp.Body, codings, maxBody)
		if err != nil {
			h.err = fmt.Errorf("netguard: %s %s: body: %w", method, redacted(target), err)
		}
	}
	h.header = responseHeader(resp.Header, method != http.MethodHead && len(codings) > 0)
	return h
}

// redirectLocation returns the Location of a redirect Fetch follows. A
// redirect status without a Location is an ordinary final response
// (ssrf.md R11), as 300 and 304 always are.
func redirectLocation(resp *http.Response) (string, bool) {
	switch resp.StatusCode {
	case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther,
		http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
		loc := resp.Header.Get("Location")
		return loc, loc != ""
	}
	return "", false
}

// hopTrace records what the transport got through before an error, which
// is what tells a TLS failure and a protocol violation from the rest. The
// transport calls it from its own goroutines.
type hopTrace struct {
	firstByte atomic.Bool
	tlsFailed atomic.Bool
	// connected is set once a connection opened (see Unreached).
	connected atomic.Bool
}

func (t *hopTrace) clientTrace() *httptrace.ClientTrace {
	return &httptrace.ClientTrace{
		GotFirstResponseByte: func() { t.firstByte.Store(true); t.connected.Store(true) },
		GotConn:              func(httptrace.GotConnInfo) { t.connected.Store(true) },
		TLSHandshakeStart:    func() { t.connected.Store(true) },
		TLSHandshakeDone: func(_ tls.ConnectionState, err error) {
			if err != nil {
				t.tlsFailed.Store(true)
			}
		},
	}
}

// sendFailure maps a RoundTrip error to its sentinel. Errors from
// DialContext already carry one.
func sendFailure(ctx context.Context, tr *hopTrace, err error) error {
	if Reason(err) != "unclassified error" {
		return err
	}
	f := failure(ctx, err)
	switch {
	case errors.Is(f, ErrTimeout) || errors.Is(f, ErrCanceled):
		// Once the hop's time is up, whatever else broke is a consequence.
	case isHeaderOverflow(err):
		f = ErrHeaderTooLarge
	case isHTTP2Violation(err):
		f = ErrProtocol
	case tr.tlsFailed.Load():
		f = ErrTLS
	case tr.firstByte.Load() && errors.Is(f, ErrNetwork):
		// The server answered, but not with parsable HTTP.
		f = ErrProtocol
	}
	return fmt.Errorf("%w: %s", f, RedactText(err.Error()))
}

// isHTTP2Violation recognises an HTTP/2 connection or stream the client
// closed because the server broke the protocol. A header block far over
// Limits.MaxHeaderBytes ends this way too (the HTTP/2 client stops
// decoding it and closes the connection with PROTOCOL_ERROR rather than
// reporting the cap), so under HTTP/2 the header cap holds but may be
// reported as ErrProtocol.
func isHTTP2Violation(err error) bool {
	s := err.Error()
	return !strings.Contains(s, "received from peer") &&
		(strings.Contains(s, "PROTOCOL_ERROR") || strings.Contains(s, "COMPRESSION_ERROR"))
}

// isHeaderOverflow recognises the transports' header-cap errors, which
// have no type of their own: HTTP/1's, and HTTP/2's for a header list
// over the limit it advertised.
func isHeaderOverflow(err error) bool {
	s := err.Error()
	return strings.Contains(s, "server response headers exceeded") ||
		strings.Contains(s, "response header list larger than advertised limit")
}
