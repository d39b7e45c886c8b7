package netguard

import (
	"context"
	"crypto/tls"
	"errors"
	"strconv"
)

// errProbeDone ends a version probe's handshake once the server has said
// which version it speaks.
var errProbeDone = errors.New("netguard: version probe done")

// probeVersion finds out which obsolete version a server that refused TLS
// 1.2 and 1.3 speaks, so the note can say so. It opens one more connection
// through DialContext and starts a handshake offering only TLS 1.0 and
// 1.1 (with the old cipher suites such servers need); the handshake is
// abandoned as soon as the server's certificate arrives, so no request is
// ever sent over the obsolete protocol. The minimum for reading pages stays
// TLS 1.2.
func (g *Guard) probeVersion(ctx context.Context, network, addr, host string) *TLSError {
	te := &TLSError{Rule: "old-protocol", Note: "server for " + quoteHost(host) + " accepts neither TLS 1.2 nor TLS 1.3"}
	raw, err := g.DialContext(ctx, network, addr)
	if err != nil {
		return te
	}
	defer raw.Close()
	var version uint16
	cfg := &tls.Config{
		ServerName:   host,
		MinVersion:   tls.VersionTLS10,
		MaxVersion:   tls.VersionTLS11,
		CipherSuites: legacySuites(),
		// The probe reads no data: it only learns the version, and
		// VerifyConnection aborts the handshake before it completes.
		InsecureSkipVerify: true,
		VerifyConnection: func(cs tls.ConnectionState) error {
			version = cs.Version
			return errProbeDone
		},
	}
	_ = tls.Client(raw, cfg).HandshakeContext(ctx)
	switch version {
	case tls.VersionTLS10:
		te.Note = "server for " + quoteHost(host) + " offers only TLS 1.0"
	case tls.VersionTLS11:
		te.Note = "server for " + quoteHost(host) + " offers only TLS 1.1 or older"
	}
	return te
}

// legacySuites are every TLS 1.0-1.2 suite crypto/tls implements, the
// insecure ones included, for the version probe only.
func legacySuites() []uint16 {
	var ids []uint16
	for _, s := range append(tls.CipherSuites(), tls.InsecureCipherSuites()...) {
		ids = append(ids, s.ID)
	}
	return ids
}

func quoteHost(host string) string { return strconv.Quote(host) }
