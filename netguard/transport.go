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
// false, which turns off keep-alives (so every hop resolves, classifies and
// dials afresh, a name is never trusted past one request, a hostile server
// cannot park idle connections in the pool, and a redirect body can be
// abandoned by closing the connection instead of draining it) and HTTP/2
// (whose multiplexing buys nothing on single-use connections, whose framing
// is more attack surface, and whose header-cap failures Go reports as a bare
// COMPRESSION_ERROR, indistinguishable from corrupt data).
func (g *Guard) newTransport(api bool) *http.Transport {
	var protocols http.Protocols
	protocols.SetHTTP1(true)
	protocols.SetHTTP2(api)
	return &http.Transport{
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
		DisableKeepAlives:      !api,
		MaxIdleConns:           16,
		MaxIdleConnsPerHost:    2,
		IdleConnTimeout:        30 * time.Second,
	}
}
