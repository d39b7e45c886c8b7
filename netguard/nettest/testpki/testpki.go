// Package testpki builds the certificates of TLS tests: a private root, an
// intermediate under it, and leaves with whatever flaw a test needs
// (expired, not yet valid, self-signed, another name, an AIA URL), so that
// a test can serve every real-world certificate failure from loopback
// without the internet. Nothing outside tests uses it.
package testpki

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"math/big"
	"sync/atomic"
	"time"
)

var serial atomic.Int64

// Authority is a certificate that signs others, with its key.
type Authority struct {
	Cert *x509.Certificate
	Key  *ecdsa.PrivateKey
}

// NewRoot returns a self-signed root named cn.
func NewRoot(cn string) *Authority {
	return sign(nil, &x509.Certificate{Subject: pkix.Name{CommonName: cn}, IsCA: true,
		BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageCRLSign})
}

// Intermediate returns a CA named cn signed by a. aia, if set, is the
// intermediate's own CA-Issuers URL.
func (a *Authority) Intermediate(cn, aia string) *Authority {
	tmpl := &x509.Certificate{Subject: pkix.Name{CommonName: cn}, IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageCRLSign}
	if aia != "" {
		tmpl.IssuingCertificateURL = []string{aia}
	}
	return sign(a, tmpl)
}

// Pool is a pool holding a's certificate only, for a client's roots.
func (a *Authority) Pool() *x509.CertPool {
	p := x509.NewCertPool()
	p.AddCert(a.Cert)
	return p
}

// LeafOptions describe a server certificate.
type LeafOptions struct {
	// Names are its DNS names.
	Names []string
	// NotBefore and NotAfter default to an hour ago and a day ahead.
	NotBefore, NotAfter time.Time
	// AIA is its CA-Issuers URL ("" for none).
	AIA string
}

// Leaf returns a server certificate signed by a, or self-signed when a is
// nil.
func (a *Authority) Leaf(o LeafOptions) *Authority {
	tmpl := &x509.Certificate{Subject: pkix.Name{CommonName: first(o.Names)}, DNSNames: o.Names,
		NotBefore: o.NotBefore, NotAfter: o.NotAfter, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	if o.AIA != "" {
		tmpl.IssuingCertificateURL = []string{o.AIA}
	}
	return sign(a, tmpl)
}

// Chain is the tls.Certificate a server presents: leaf's certificate, then
// the given intermediates, with leaf's key.
func (a *Authority) Chain(intermediates ...*Authority) tls.Certificate {
	c := tls.Certificate{Certificate: [][]byte{a.Cert.Raw}, PrivateKey: a.Key, Leaf: a.Cert}
	for _, i := range intermediates {
		c.Certificate = append(c.Certificate, i.Cert.Raw)
	}
	return c
}

func first(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[0]
}

// sign completes tmpl (serial, key, default dates) and signs it with
// parent's key, or its own when parent is nil. It panics on failure: the
// inputs are the tests' own.
func sign(parent *Authority, tmpl *x509.Certificate) *Authority {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		panic(err)
	}
	tmpl.SerialNumber = big.NewInt(serial.Add(1))
	if tmpl.NotBefore.IsZero() {
		tmpl.NotBefore = time.Now().Add(-time.Hour)
	}
	if tmpl.NotAfter.IsZero() {
		tmpl.NotAfter = time.Now().Add(24 * time.Hour)
	}
	issuer, signer := tmpl, key
	if parent != nil {
		issuer, signer = parent.Cert, parent.Key
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, issuer, &key.PublicKey, signer)
	if err != nil {
		panic(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		panic(err)
	}
	return &Authority{Cert: cert, Key: key}
}

// PKCS7 wraps certificates in a certs-only PKCS#7 SignedData (.p7c), the
// other format CA-Issuers URLs serve.
func PKCS7(certs ...*x509.Certificate) []byte {
	var raw []byte
	for _, c := range certs {
		raw = append(raw, c.Raw...)
	}
	sd, err := asn1.Marshal(struct {
		Version          int
		DigestAlgorithms asn1.RawValue
		ContentInfo      struct{ ContentType asn1.ObjectIdentifier }
		Certificates     asn1.RawValue
		SignerInfos      asn1.RawValue
	}{
		Version:          1,
		DigestAlgorithms: asn1.RawValue{Class: asn1.ClassUniversal, Tag: asn1.TagSet, IsCompound: true},
		ContentInfo:      struct{ ContentType asn1.ObjectIdentifier }{asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 7, 1}},
		Certificates:     asn1.RawValue{Class: asn1.ClassContextSpecific, Tag: 0, IsCompound: true, Bytes: raw},
		SignerInfos:      asn1.RawValue{Class: asn1.ClassUniversal, Tag: asn1.TagSet, IsCompound: true},
	})
	if err != nil {
		panic(err)
	}
	out, err := asn1.Marshal(struct {
		ContentType asn1.ObjectIdentifier
		Content     asn1.RawValue
	}{asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 7, 2},
		asn1.RawValue{Class: asn1.ClassContextSpecific, Tag: 0, IsCompound: true, Bytes: sd}})
	if err != nil {
		panic(err)
	}
	return out
}
