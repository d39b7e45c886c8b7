package netguard

import (
	"context"
	"crypto/x509"
	"encoding/asn1"
	"encoding/pem"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"sync"
)

// aiaMaxBytes caps an issuer certificate fetched through AIA. Real ones are
// 1-2 KiB; a PKCS#7 bundle of a few is under 10.
const aiaMaxBytes = 64 << 10

// aiaMaxCerts bounds the certificates taken from one AIA answer.
const aiaMaxCerts = 4

// aiaAccept asks for the formats CA-Issuers URLs serve (RFC 5280 §4.2.2.1:
// DER, or a certs-only PKCS#7 bundle); PEM is read too.
const aiaAccept = "application/pkix-cert, application/x-x509-ca-cert, application/pkcs7-mime;q=0.9, */*;q=0.5"

// aiaCache holds the outcome of every AIA URL fetched by one Guard (one
// run): a site whose server omits its intermediate costs one fetch, however
// many of its pages are cited and however many connections open at once
// (the first asks, the others wait for its answer). A failure is kept as
// well; the run does not hammer a dead AIA server.
type aiaCache struct {
	mu      sync.Mutex
	entries map[string]*aiaEntry
}

type aiaEntry struct {
	done  chan struct{}
	certs []*x509.Certificate
	err   error
}

func newAIACache() *aiaCache { return &aiaCache{entries: map[string]*aiaEntry{}} }

// get returns the certificates at url, fetching them through g the first
// time.
func (c *aiaCache) get(ctx context.Context, g *Guard, url string) ([]*x509.Certificate, error) {
	c.mu.Lock()
	e, cached := c.entries[url]
	if !cached {
		e = &aiaEntry{done: make(chan struct{})}
		c.entries[url] = e
	}
	c.mu.Unlock()
	if !cached {
		e.certs, e.err = g.fetchIssuer(ctx, url)
		close(e.done)
	}
	select {
	case <-e.done:
		return e.certs, e.err
	case <-ctx.Done():
		return nil, fmt.Errorf("netguard: AIA: %w", failure(ctx, ctx.Err()))
	}
}

// fetchIssuer fetches url with Fetch's policy — Preflight, the
// DomainAllowlist, the port policy, DialContext's checks, redirects as
// hops (over http only) — under aiaMaxBytes, within ctx's time. It runs inside a TLS
// handshake, so it takes only ctx's deadline and cancellation: the
// handshake's request trace must not see this other request.
func (g *Guard) fetchIssuer(ctx context.Context, url string) ([]*x509.Certificate, error) {
	ctx, cancel := detached(ctx)
	defer cancel()
	resp, err := g.fetchCapped(ctx, Request{URL: url, Header: http.Header{"Accept": {aiaAccept}}}, aiaMaxBytes, true)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, &aiaError{"HTTP status " + strconv.Itoa(resp.StatusCode)}
	}
	certs, err := parseIssuers(resp.Body)
	if err != nil {
		return nil, &aiaError{"the answer is not a certificate"}
	}
	return certs, nil
}

// detached returns a context with ctx's deadline and cancellation but none
// of its values.
func detached(ctx context.Context) (context.Context, context.CancelFunc) {
	out, cancel := context.WithCancel(context.Background())
	if d, ok := ctx.Deadline(); ok {
		var cancelT context.CancelFunc
		out, cancelT = context.WithDeadline(out, d)
		prev := cancel
		cancel = func() { cancelT(); prev() }
	}
	stop := context.AfterFunc(ctx, cancel)
	return out, func() { stop(); cancel() }
}

// aiaError is an AIA answer that holds no usable certificate.
type aiaError struct{ why string }

func (e *aiaError) Error() string { return "netguard: AIA: " + e.why }
func (e *aiaError) Unwrap() error { return ErrProtocol }

// aiaReason is the phrase for a failed AIA fetch in a TLS note.
func aiaReason(err error) string {
	var ae *aiaError
	if errors.As(err, &ae) {
		return ae.why
	}
	return Reason(err)
}

// parseIssuers reads the certificates of an AIA answer: DER, PEM, or a
// certs-only PKCS#7 SignedData, at most aiaMaxCerts of them.
func parseIssuers(b []byte) ([]*x509.Certificate, error) {
	if c, err := x509.ParseCertificate(b); err == nil {
		return []*x509.Certificate{c}, nil
	}
	var certs []*x509.Certificate
	for rest := b; len(certs) < aiaMaxCerts; {
		var blk *pem.Block
		if blk, rest = pem.Decode(rest); blk == nil {
			break
		}
		if blk.Type != "CERTIFICATE" {
			continue
		}
		c, err := x509.ParseCertificate(blk.Bytes)
		if err != nil {
			return nil, err
		}
		certs = append(certs, c)
	}
	if len(certs) > 0 {
		return certs, nil
	}
	certs, err := parsePKCS7Certs(b)
	if err != nil {
		return nil, err
	}
	return certs[:min(len(certs), aiaMaxCerts)], nil
}

var oidSignedData = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 7, 2}

// pkcs7 is the outer ContentInfo of RFC 2315 §7.
type pkcs7 struct {
	ContentType asn1.ObjectIdentifier
	Content     asn1.RawValue `asn1:"explicit,optional,tag:0"`
}

// signedData is RFC 2315 §9.1's SignedData up to its certificates; the
// CRLs and signer infos that follow are not needed.
type signedData struct {
	Version          int
	DigestAlgorithms asn1.RawValue
	ContentInfo      asn1.RawValue
	Certificates     asn1.RawValue `asn1:"optional,tag:0"`
}

// parsePKCS7Certs reads the certificates of a certs-only PKCS#7 bundle
// (.p7c). Nothing in it is trusted: each certificate is only a candidate
// intermediate for x509 verification.
func parsePKCS7Certs(b []byte) ([]*x509.Certificate, error) {
	var ci pkcs7
	if rest, err := asn1.Unmarshal(b, &ci); err != nil || len(rest) > 0 || !ci.ContentType.Equal(oidSignedData) {
		return nil, errors.New("not a PKCS#7 SignedData")
	}
	var sd signedData
	// With explicit tagging, Content.Bytes is the whole SignedData.
	if _, err := asn1.Unmarshal(ci.Content.Bytes, &sd); err != nil {
		return nil, err
	}
	certs, err := x509.ParseCertificates(sd.Certificates.Bytes)
	if err == nil && len(certs) == 0 {
		err = errors.New("PKCS#7 bundle holds no certificate")
	}
	return certs, err
}
