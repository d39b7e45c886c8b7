package netguard

import (
	"context"
	"crypto/x509"
	"errors"
	"strconv"
	"strings"
	"time"
)

// TLSError says precisely why a TLS handshake failed, when the cause is the
// server's certificate or its protocol versions: the page exists, only the
// server's configuration is broken. It wraps ErrTLS. Rule is a stable code
// (cert-expired, cert-not-yet-valid, cert-self-signed, cert-wrong-name,
// cert-unknown-authority, cert-missing-intermediate, cert-invalid,
// old-protocol); Note gives the evidence: the name asked for, the dates,
// the names the certificate covers, the version the server offers. Note
// holds no URL part other than the host, and any text taken from the
// certificate is reduced to host-name characters.
type TLSError struct {
	Rule string
	Note string
}

func (e *TLSError) Error() string { return "tls [" + e.Rule + "]: " + e.Note }

// Unwrap makes every TLSError an ErrTLS.
func (e *TLSError) Unwrap() error { return ErrTLS }

// TLSDetail returns the precise note of a TLS failure ("tls [cert-expired]:
// certificate for \"a.example\" expired 2024-01-31"), or "" when err carries
// none.
func TLSDetail(err error) string {
	var te *TLSError
	if errors.As(err, &te) {
		return te.Error()
	}
	return ""
}

// maxAIAFetches bounds the issuer certificates one verification fetches.
const maxAIAFetches = 3

// verifyServer is the whole verification of a server's certificates for
// host (see clientTLSConfig): the chain the server sent, checked against
// the guard's roots (the system's unless WithRootCAs), with the server
// name, the validity dates and the server-auth key usage. When that fails
// only for want of an issuer, the certificates named by the AIA
// extensions are fetched, one at a time, and the chain is verified again
// with each added as an intermediate.
func (g *Guard) verifyServer(ctx context.Context, host string, certs []*x509.Certificate) error {
	if len(certs) == 0 {
		return &TLSError{Rule: "cert-invalid", Note: "server " + strconv.Quote(host) + " sent no certificate"}
	}
	opts := x509.VerifyOptions{
		DNSName:       host,
		Roots:         g.rootCAs,
		Intermediates: x509.NewCertPool(),
		CurrentTime:   time.Now(),
	}
	for _, c := range certs[1:] {
		opts.Intermediates.AddCert(c)
	}
	_, err := certs[0].Verify(opts)
	var unknown x509.UnknownAuthorityError
	if err == nil || !errors.As(err, &unknown) {
		return certFailure(host, certs, err, "")
	}
	urls := aiaURLs(certs)
	if len(urls) == 0 {
		return certFailure(host, certs, err, "")
	}
	var fetchErr error
	for n := 0; n < len(urls) && n < maxAIAFetches; n++ {
		issuers, ferr := g.aia.get(ctx, g, urls[n])
		if ferr != nil {
			fetchErr = ferr
			continue
		}
		for _, c := range issuers {
			opts.Intermediates.AddCert(c)
			urls = appendNew(urls, c.IssuingCertificateURL...)
		}
		if _, err = certs[0].Verify(opts); err == nil || !errors.As(err, &unknown) {
			return certFailure(host, certs, err, "")
		}
	}
	why := "the issuer fetched from its AIA URL does not lead to a trusted root"
	if fetchErr != nil {
		why = "its AIA URL gave no issuer certificate: " + aiaReason(fetchErr)
	}
	return certFailure(host, certs, err, why)
}

// aiaURLs lists the http CA-Issuers URLs of the certificates the server
// sent, the leaf's first. Only http is followed: an https AIA URL would
// need a verification of its own, and RFC 5280 §4.2.2.1 expects http.
func aiaURLs(certs []*x509.Certificate) []string {
	var out []string
	for _, c := range certs {
		for _, u := range c.IssuingCertificateURL {
			if strings.HasPrefix(strings.ToLower(u), "http://") {
				out = appendNew(out, u)
			}
		}
	}
	return out
}

func appendNew(list []string, items ...string) []string {
	for _, s := range items {
		if !strings.HasPrefix(strings.ToLower(s), "http://") {
			continue
		}
		found := false
		for _, t := range list {
			found = found || t == s
		}
		if !found {
			list = append(list, s)
		}
	}
	return list
}

// certFailure turns a verification error into a TLSError with evidence;
// nil stays nil. aiaWhy, when set, says why an unknown authority could not
// be completed through AIA.
func certFailure(host string, certs []*x509.Certificate, err error, aiaWhy string) error {
	if err == nil {
		return nil
	}
	leaf := certs[0]
	q := strconv.Quote(host)
	var (
		invalid  x509.CertificateInvalidError
		hostname x509.HostnameError
		unknown  x509.UnknownAuthorityError
	)
	switch {
	case errors.As(err, &hostname):
		return &TLSError{Rule: "cert-wrong-name", Note: "certificate for " + certNames(leaf) + " does not cover " + q}
	case errors.As(err, &invalid) && invalid.Reason == x509.Expired:
		return validityFailure(q, leaf, invalid.Cert)
	case errors.As(err, &invalid):
		return &TLSError{Rule: "cert-invalid", Note: "certificate chain for " + q + " is not valid: " + invalidReason(invalid.Reason)}
	case errors.As(err, &unknown) && len(certs) == 1 && selfSigned(leaf):
		return &TLSError{Rule: "cert-self-signed", Note: "certificate for " + q + " is self-signed"}
	case errors.As(err, &unknown) && aiaWhy != "":
		return &TLSError{Rule: "cert-missing-intermediate", Note: "server for " + q + " did not send the issuer of its certificate; " + aiaWhy}
	case errors.As(err, &unknown):
		return &TLSError{Rule: "cert-unknown-authority", Note: "certificate for " + q + " is not issued by a trusted authority"}
	}
	return &TLSError{Rule: "cert-invalid", Note: "certificate for " + q + " could not be verified"}
}

// validityFailure says which certificate is outside its validity period
// and the date it ended or starts (UTC), so the note is the same whenever
// the run happens.
func validityFailure(q string, leaf, bad *x509.Certificate) error {
	if bad == nil {
		bad = leaf
	}
	whose := "certificate for " + q
	if bad != leaf {
		whose = "an issuer certificate in the chain for " + q
	}
	if time.Now().Before(bad.NotBefore) {
		return &TLSError{Rule: "cert-not-yet-valid", Note: whose + " is not valid before " + bad.NotBefore.UTC().Format(time.DateOnly)}
	}
	return &TLSError{Rule: "cert-expired", Note: whose + " expired " + bad.NotAfter.UTC().Format(time.DateOnly)}
}

func invalidReason(r x509.InvalidReason) string {
	switch r {
	case x509.NotAuthorizedToSign:
		return "an issuer is not allowed to sign certificates"
	case x509.CANotAuthorizedForThisName:
		return "an issuer is not allowed to sign for this name"
	case x509.TooManyIntermediates:
		return "too many intermediates"
	case x509.IncompatibleUsage:
		return "the certificate is not for server authentication"
	case x509.NameMismatch:
		return "issuer and subject names do not match"
	}
	return "reason " + strconv.Itoa(int(r))
}

// selfSigned reports whether c signed itself (whatever its CA flags say,
// which CheckSignatureFrom would insist on).
func selfSigned(c *x509.Certificate) bool {
	return string(c.RawIssuer) == string(c.RawSubject) &&
		c.CheckSignature(c.SignatureAlgorithm, c.RawTBSCertificate, c.Signature) == nil
}

// certNames lists the names a certificate covers (at most three, then a
// count), quoted, reduced to host-name characters: the text comes from the
// server and goes into artifact notes.
func certNames(c *x509.Certificate) string {
	names := make([]string, 0, len(c.DNSNames)+len(c.IPAddresses))
	names = append(names, c.DNSNames...)
	for _, ip := range c.IPAddresses {
		names = append(names, ip.String())
	}
	if len(names) == 0 && c.Subject.CommonName != "" {
		names = append(names, c.Subject.CommonName)
	}
	if len(names) == 0 {
		return "no name"
	}
	var b strings.Builder
	for i, n := range names {
		if i == 3 {
			b.WriteString(" and " + strconv.Itoa(len(names)-3) + " more")
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Quote(hostChars(n)))
	}
	return b.String()
}

// hostChars keeps the characters a host name or address can hold, at most
// 80 of them.
func hostChars(s string) string {
	var b strings.Builder
	for _, r := range s {
		if b.Len() == 80 {
			break
		}
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune(".-*:_", r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}
