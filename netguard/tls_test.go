package netguard

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"
)

// expiredCert is a self-signed certificate for news.example.com that
// expired an hour ago.
func expiredCert(t *testing.T) (tls.Certificate, *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "news.example.com"},
		DNSNames:              []string{"news.example.com"},
		NotBefore:             time.Now().Add(-2 * time.Hour),
		NotAfter:              time.Now().Add(-time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	parsed, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(parsed)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, pool
}

func okHandler(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "ok") }

// TestTLS covers ssrf.md §3 T1-T6. The certificate names the host, never
// the address: T7 (an internal name's certificate on a public IP) is not
// an SSRF question, because DialContext decides by IP.
func TestTLS(t *testing.T) {
	selfSigned := httptest.NewTLSServer(http.HandlerFunc(okHandler))
	defer selfSigned.Close()

	cert, expiredPool := expiredCert(t)
	expired := httptest.NewUnstartedServer(http.HandlerFunc(okHandler))
	expired.TLS = &tls.Config{Certificates: []tls.Certificate{cert}}
	expired.StartTLS()
	defer expired.Close()

	old := httptest.NewUnstartedServer(http.HandlerFunc(okHandler))
	old.TLS = &tls.Config{MinVersion: tls.VersionTLS10, MaxVersion: tls.VersionTLS11}
	old.StartTLS()
	defer old.Close()

	plain := httptest.NewServer(http.HandlerFunc(okHandler))
	defer plain.Close()

	resetInHandshake := rawServer(t, func(c net.Conn) {
		io.ReadFull(c, make([]byte, 5)) // the ClientHello's record header
		c.(*net.TCPConn).SetLinger(0)
		c.Close()
	})

	port := func(s *httptest.Server) int { return portOf(t, s.Listener.Addr().String()) }
	rows := []struct {
		id    string
		name  string
		port  int
		host  string
		extra []Option
		want  error
	}{
		{"T1", "self-signed, untrusted", port(selfSigned), "news.example.com", nil, ErrTLS},
		{"T2", "expired", port(expired), "news.example.com", []Option{withRootCAs(expiredPool)}, ErrTLS},
		// The test certificate covers example.com and *.example.com.
		{"T3", "hostname mismatch", port(selfSigned), "news.example.org", []Option{trust(selfSigned)}, ErrTLS},
		{"T3", "control: matching name", port(selfSigned), "example.com", []Option{trust(selfSigned)}, nil},
		{"T4", "TLS 1.1 only", port(old), "example.com", []Option{trust(old)}, ErrTLS},
		{"T5", "https to a plain HTTP port", port(plain), "news.example.com", nil, ErrTLS},
		{"T6", "reset mid-handshake", resetInHandshake, "news.example.com", nil, ErrTLS},
		// T6's other half, a handshake that never starts, is S5 in TestHostile.
	}
	for _, row := range rows {
		t.Run(row.id+" "+row.name, func(t *testing.T) {
			opts := append([]Option{Pin(row.host, row.port, loopback)}, row.extra...)
			r := newRig(t, row.port, opts...)
			start := time.Now()
			resp, err := r.g.Fetch(context.Background(), Request{URL: "https://" + row.host + ":" + strconv.Itoa(row.port) + "/?token=SECRET"})
			within(t, start, testLimits.HopTimeout+2*time.Second)
			if row.want == nil {
				if err != nil || string(resp.Body) != "ok" {
					t.Fatalf("Fetch = %+v, %v", resp, err)
				}
				return
			}
			if !errors.Is(err, row.want) || resp != nil {
				t.Fatalf("Fetch = %v, %v; want %v", resp, err, row.want)
			}
			if strings.Contains(err.Error(), "SECRET") || Reason(err) != "TLS failure" {
				t.Errorf("error %q, reason %q", err, Reason(err))
			}
		})
	}
}

// Transport is the same guard for authenticated API clients.
func TestTransport(t *testing.T) {
	_, port := okServer(t)
	r := newRig(t, port)
	tr := r.g.Transport()
	defer tr.CloseIdleConnections()
	switch {
	case tr.Proxy != nil:
		t.Error("Proxy is set: environment proxies would bypass the dialer")
	case tr.DialTLSContext != nil || tr.DialTLS != nil: //nolint:staticcheck // the deprecated hook would bypass the guard too
		t.Error("a TLS dialer would bypass DialContext for https")
	case tr.TLSClientConfig == nil || tr.TLSClientConfig.MinVersion != tls.VersionTLS12 || tr.TLSClientConfig.InsecureSkipVerify:
		t.Errorf("TLS config %+v", tr.TLSClientConfig)
	case tr.MaxResponseHeaderBytes != testLimits.MaxHeaderBytes:
		t.Errorf("MaxResponseHeaderBytes = %d", tr.MaxResponseHeaderBytes)
	case tr.TLSHandshakeTimeout != testLimits.HopTimeout || tr.ResponseHeaderTimeout != testLimits.HopTimeout:
		t.Error("handshake and header waits are unbounded")
	case tr.DisableKeepAlives || tr.MaxIdleConnsPerHost == 0:
		t.Error("an API transport should pool connections")
	}
	client := &http.Client{Transport: tr, Timeout: time.Second}
	resp, err := client.Get(r.base + "/x")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(body) != "ok" {
		t.Errorf("body %q", body)
	}
	r.res.set("api.example.com", "10.0.0.7")
	get := func(u string) error {
		resp, err := client.Get(u)
		if err == nil {
			resp.Body.Close()
		}
		return err
	}
	if err := get("http://api.example.com:" + strconv.Itoa(port) + "/"); !errors.Is(err, ErrBlockedAddress) {
		t.Errorf("Get via a private answer = %v, want ErrBlockedAddress", err)
	}
	if err := get("http://127.0.0.1:22/"); !errors.Is(err, ErrBlockedPort) {
		t.Errorf("Get to :22 = %v, want ErrBlockedPort", err)
	}
}

// Fetch and Transport speak HTTP/2 to a server that offers it, and
// HTTP/1.1 to one that offers nothing else; Response.Proto says which.
func TestProtocols(t *testing.T) {
	for _, h2 := range []bool{true, false} {
		srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprint(w, r.Proto)
		}))
		srv.EnableHTTP2 = h2
		srv.StartTLS()
		defer srv.Close()
		want := map[bool]string{true: "HTTP/2.0", false: "HTTP/1.1"}[h2]
		port := portOf(t, srv.Listener.Addr().String())
		r := newRig(t, port, Pin("example.com", port, loopback), trust(srv))
		u := "https://example.com:" + strconv.Itoa(port) + "/"
		resp, err := r.g.Fetch(context.Background(), Request{URL: u})
		if err != nil || string(resp.Body) != want || resp.Proto != want {
			t.Fatalf("h2 %v: Fetch = %+v, %v; want %s", h2, resp, err, want)
		}
		tr := r.g.Transport()
		defer tr.CloseIdleConnections()
		got, err := (&http.Client{Transport: tr}).Get(u)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(got.Body)
		got.Body.Close()
		if string(body) != want {
			t.Errorf("h2 %v: Transport spoke %s, want %s", h2, body, want)
		}
	}
}
