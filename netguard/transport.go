package netguard

import (
	"crypto/tls"
	"net/http"
	"time"
)

// Transport returns a new *http.Transport whose every connection goes
// through DialContext, for clients that talk to third-party APIs with their
// own credentials and still must not be steered inward. It ignores proxy
// environment variables (a proxy would see the destination instead of the
// dialer, so the address check would only ever judge the proxy), leaves
// DialTLSContext unset (it would bypass DialContext for HTTPS), caps response
// headers at Limits.MaxHeaderBytes, requires TLS 1.2 or later, bounds the
// TLS handshake and the wait for headers by Limits.HopTimeout, and keeps a
// small idle pool. The caller owns the result and should bound bodies and
// whole requests itself; Fetch does that for untrusted URLs.
func (g *Guard) Transport() *http.Transport {
	return g.newTransport(true)
}

// newTransport builds Transport's configuration. Fetch uses it with api
// false. Both speak HTTP/2 where the server offers it (ALPN) and HTTP/1.1
// otherwise. Fetch's transport does its TLS itself (dialTLS: the
// connection still comes from DialContext; the handshake verifies the
// certificate fully, completing a chain whose intermediate the server
// left out through AIA, and names the cause of a failure) and reuses
// kept-alive connections (issue 13), which saves a dial — and on the real
// web a TLS handshake — per URL of a site. Reuse keeps the guard's
// promises:
//
//   - a connection is only reused for the same scheme, host and port (the
//     transport's pool key), so it always leads to an address that was
//     checked when that host was dialled, and a redirect to another host
//     dials, and is checked, afresh;
//   - every new connection goes through DialContext: resolved, classified,
//     checked again at connect time;
//   - a response whose body is not read to the end (a redirect, a body over
//     the cap, a deadline) is closed, not drained: over HTTP/1.1 its
//     connection is not reused, over HTTP/2 its stream is reset;
//   - the idle pool is bounded (idlePerHost per host, idleConns in all)
//     and idle connections close after idleTimeout, so a hostile server
//     cannot park connections.
//
// Response headers are capped at Limits.MaxHeaderBytes under both
// protocols (HTTP/2 advertises it as SETTINGS_MAX_HEADER_LIST_SIZE and
// enforces it; isHeaderOverflow knows both errors). NoConnReuse turns reuse
// off (one fresh connection per request, as before issue 13), for
// measurement.
func (g *Guard) newTransport(api bool) *http.Transport {
	var protocols http.Protocols
	protocols.SetHTTP1(true)
	protocols.SetHTTP2(true)
	t := &http.Transport{
		Proxy:       nil,
		DialContext: g.DialContext,
		TLSClientConfig: &tls.Config{
			MinVersion: tls.VersionTLS12,
			RootCAs:    g.rootCAs,
		},
		Protocols:              &protocols,
		TLSHandshakeTimeout:    g.limits.HopTimeout,
		ResponseHeaderTimeout:  g.limits.HopTimeout,
		ExpectContinueTimeout:  time.Second,
		MaxResponseHeaderBytes: g.limits.MaxHeaderBytes,
		DisableKeepAlives:      !api && g.noReuse,
		MaxIdleConns:           idleConns(api),
		MaxIdleConnsPerHost:    idlePerHost(api),
		IdleConnTimeout:        idleTimeout(api),
	}
	if !api {
		t.DialTLSContext = g.dialTLS
	}
	return t
}

// Fetch's idle pool: enough for the ladder's default per-host limit and
// global concurrency, kept briefly.
const (
	fetchIdlePerHost = 10
	fetchIdleConns   = 256
	fetchIdleTimeout = 10 * time.Second
)

func idlePerHost(api bool) int {
	if api {
		return 2
	}
	return fetchIdlePerHost
}

func idleConns(api bool) int {
	if api {
		return 16
	}
	return fetchIdleConns
}

func idleTimeout(api bool) time.Duration {
	if api {
		return 30 * time.Second
	}
	return fetchIdleTimeout
}

// NoConnReuse makes Fetch open a fresh connection for every request (no
// keep-alive): the behaviour before issue 13, kept for benchmarks that
// compare the two.
func NoConnReuse() Option { return func(g *Guard) { g.noReuse = true } }

// CloseIdleConnections closes Fetch's kept-alive connections; the next
// request to any host resolves, checks and dials afresh.
func (g *Guard) CloseIdleConnections() { g.fetch.CloseIdleConnections() }
