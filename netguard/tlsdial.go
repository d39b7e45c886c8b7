package netguard

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http/httptrace"
	"strings"
)

// fetchALPN is what Fetch offers in the TLS handshake: HTTP/2 first, as
// browsers do (a client that speaks only HTTP/1.1 stands out to bot
// defences), and HTTP/1.1 for servers that offer nothing else.
var fetchALPN = []string{"h2", "http/1.1"}

// dialTLS is Fetch's DialTLSContext. It opens the connection through
// DialContext (resolution, classification, the connect-time check: nothing
// about the guard changes for https) and does the TLS handshake itself,
// because only here are the server name and the hop's context both known:
// the verification (verifyServer) needs the name to check the certificate
// against, and the context to bound an AIA fetch. The transport reads the
// negotiated protocol from the returned *tls.Conn and speaks HTTP/2 on it
// when the server chose "h2".
//
// The handshake is bounded by the hop (Limits.HopTimeout). A failure wraps
// ErrTLS — with a *TLSError saying what was wrong when the certificate or
// the protocol version is the cause — or ErrTimeout/ErrCanceled when the
// hop ran out first.
func (g *Guard) dialTLS(ctx context.Context, network, addr string) (net.Conn, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("netguard: dial %q: want host:port: %w", clip(addr), ErrMalformed)
	}
	raw, err := g.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	hctx, cancel := g.handshakeContext(ctx)
	defer cancel()
	trace := httptrace.ContextClientTrace(ctx)
	if trace != nil && trace.TLSHandshakeStart != nil {
		trace.TLSHandshakeStart()
	}
	conn := tls.Client(raw, g.clientTLSConfig(hctx, host))
	if err := conn.HandshakeContext(hctx); err != nil {
		raw.Close()
		if trace != nil && trace.TLSHandshakeDone != nil {
			trace.TLSHandshakeDone(tls.ConnectionState{}, err)
		}
		return nil, g.handshakeFailure(hctx, network, addr, host, err)
	}
	return conn, nil
}

// handshakeContext bounds a handshake by the hop it serves (see hopKey) and
// by HopTimeout.
func (g *Guard) handshakeContext(ctx context.Context) (context.Context, context.CancelFunc) {
	if hop, ok := ctx.Value(hopKey{}).(context.Context); ok {
		ctx = hop
	}
	return context.WithTimeout(ctx, g.limits.HopTimeout)
}

// clientTLSConfig is the configuration of one handshake with host.
//
// InsecureSkipVerify is set only because crypto/tls offers no other way to
// replace its verifier; verification is never skipped. VerifyConnection
// (verifyServer) runs on every handshake, resumed ones included, and does
// the whole x509 verification itself — chain to a trusted root, validity
// dates, key usage, the server name — exactly as crypto/tls would, with one
// addition: when the server left out an intermediate certificate, the
// issuer named in the certificate's AIA extension is fetched (aia.go) and
// offered as an intermediate, as browsers do. A fetched certificate is only
// ever a candidate link: a chain that does not end at a trusted root is
// refused as before. crypto/tls still checks the server's proof of
// possession of the leaf's key.
func (g *Guard) clientTLSConfig(ctx context.Context, host string) *tls.Config {
	return &tls.Config{
		MinVersion:         tls.VersionTLS12,
		ServerName:         host,
		NextProtos:         fetchALPN,
		InsecureSkipVerify: true, // replaced by VerifyConnection, which always verifies
		VerifyConnection: func(cs tls.ConnectionState) error {
			return g.verifyServer(ctx, host, cs.PeerCertificates)
		},
	}
}

// handshakeFailure classifies a failed handshake with host.
func (g *Guard) handshakeFailure(ctx context.Context, network, addr, host string, err error) error {
	var te *TLSError
	switch {
	case errors.As(err, &te):
		return fmt.Errorf("netguard: tls %s: %w", clip(host), te)
	case ctx.Err() != nil:
		return fmt.Errorf("netguard: tls %s: %w: %s", clip(host), failure(ctx, err), RedactText(err.Error()))
	case oldProtocol(err):
		return fmt.Errorf("netguard: tls %s: %w", clip(host), g.probeVersion(ctx, network, addr, host))
	}
	return fmt.Errorf("netguard: tls %s: %w: %s", clip(host), ErrTLS, RedactText(err.Error()))
}

// oldProtocol recognises a server that refused every version offered
// (TLS 1.2 and 1.3): its protocol_version alert, or a ServerHello with an
// older version. crypto/tls gives neither a type of its own.
func oldProtocol(err error) bool {
	s := err.Error()
	return strings.Contains(s, "protocol version not supported") ||
		strings.Contains(s, "server selected unsupported protocol version")
}
