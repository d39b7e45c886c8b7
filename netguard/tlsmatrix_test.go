package netguard

import (
	"context"
	"crypto/tls"
	"encoding/pem"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/citegate/citegate/netguard/nettest/testpki"
)

// pki is one test's certificate world: a trusted root, an intermediate
// under it, and an untrusted root with its own intermediate.
type pki struct {
	root, inter         *testpki.Authority
	rogueRoot, rogueInt *testpki.Authority
}

func newPKI() *pki {
	p := &pki{root: testpki.NewRoot("citegate test root")}
	p.inter = p.root.Intermediate("citegate test intermediate", "")
	p.rogueRoot = testpki.NewRoot("untrusted root")
	p.rogueInt = p.rogueRoot.Intermediate("untrusted intermediate", "")
	return p
}

// aiaServer serves issuer certificates over plain http, counting requests
// per path.
type aiaServer struct {
	srv  *httptest.Server
	port int
	mu   sync.Mutex
	hits map[string]int
}

func newAIAServer(t *testing.T, files map[string][]byte) *aiaServer {
	a := &aiaServer{hits: map[string]int{}}
	a.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a.mu.Lock()
		a.hits[r.URL.Path]++
		a.mu.Unlock()
		if r.URL.Path == "/to-https" {
			http.Redirect(w, r, "https://news.example.com/int.cer", http.StatusFound)
			return
		}
		body, ok := files[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/pkix-cert")
		_, _ = w.Write(body)
	}))
	t.Cleanup(a.srv.Close)
	a.port = portOf(t, a.srv.Listener.Addr().String())
	return a
}

func (a *aiaServer) url(path string) string {
	return "http://aia.example.com:" + strconv.Itoa(a.port) + path
}

func (a *aiaServer) count(path string) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.hits[path]
}

// tlsServer serves okHandler over TLS with cert; mod adjusts the server's
// configuration (versions, HTTP/2).
func tlsServer(t *testing.T, cert tls.Certificate, mod func(*httptest.Server)) int {
	s := httptest.NewUnstartedServer(http.HandlerFunc(okHandler))
	s.TLS = &tls.Config{Certificates: []tls.Certificate{cert}}
	if mod != nil {
		mod(s)
	}
	s.StartTLS()
	t.Cleanup(s.Close)
	return portOf(t, s.Listener.Addr().String())
}

// closedPort is a loopback port nothing listens on.
func closedPort(t *testing.T) int {
	s := httptest.NewServer(http.NotFoundHandler())
	port := portOf(t, s.Listener.Addr().String())
	s.Close()
	return port
}

// TestTLSMatrix: each real-world certificate failure fails with ErrTLS and
// a TLSError saying what was wrong; a leaf whose intermediate the server
// left out is completed through AIA; and a chain that does not end at a
// trusted root is refused however it was completed.
func TestTLSMatrix(t *testing.T) {
	p := newPKI()
	dead := closedPort(t)
	deadAIA := "http://aia.example.com:" + strconv.Itoa(dead) + "/int.cer"
	pemInter := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: p.inter.Cert.Raw})
	aia := newAIAServer(t, map[string][]byte{
		"/int.cer": p.inter.Cert.Raw, "/int.pem": pemInter, "/int.p7c": testpki.PKCS7(p.inter.Cert),
		"/rogue.cer": p.rogueInt.Cert.Raw, "/junk.cer": []byte("<html>not a certificate</html>"),
	})
	name := []string{"news.example.com"}
	leaf := func(o testpki.LeafOptions, by *testpki.Authority) *testpki.Authority {
		o.Names = append(o.Names, name...)
		return by.Leaf(o)
	}
	day := func(s string) time.Time { d, _ := time.Parse(time.DateOnly, s); return d }
	rows := []struct {
		name      string
		cert      tls.Certificate
		mod       func(*httptest.Server)
		wantRule  string // "" means success
		wantNote  string // substring of the note
		wantProto string
	}{
		{name: "valid chain", cert: leaf(testpki.LeafOptions{}, p.inter).Chain(p.inter), wantProto: "HTTP/1.1"},
		{name: "valid chain over HTTP/2", cert: leaf(testpki.LeafOptions{}, p.inter).Chain(p.inter),
			mod: func(s *httptest.Server) { s.EnableHTTP2 = true }, wantProto: "HTTP/2.0"},
		{name: "leaf only, AIA serves DER", cert: leaf(testpki.LeafOptions{AIA: aia.url("/int.cer")}, p.inter).Chain(), wantProto: "HTTP/1.1"},
		{name: "leaf only, AIA serves PEM", cert: leaf(testpki.LeafOptions{AIA: aia.url("/int.pem")}, p.inter).Chain(), wantProto: "HTTP/1.1"},
		{name: "leaf only, AIA serves PKCS#7", cert: leaf(testpki.LeafOptions{AIA: aia.url("/int.p7c")}, p.inter).Chain(), wantProto: "HTTP/1.1"},
		{name: "leaf only, dead AIA", cert: leaf(testpki.LeafOptions{AIA: deadAIA}, p.inter).Chain(),
			wantRule: "cert-missing-intermediate", wantNote: `server for "news.example.com" did not send the issuer of its certificate; its AIA URL gave no issuer certificate: connection refused`},
		{name: "leaf only, AIA answers 404", cert: leaf(testpki.LeafOptions{AIA: aia.url("/gone.cer")}, p.inter).Chain(),
			wantRule: "cert-missing-intermediate", wantNote: "HTTP status 404"},
		{name: "leaf only, AIA answers junk", cert: leaf(testpki.LeafOptions{AIA: aia.url("/junk.cer")}, p.inter).Chain(),
			wantRule: "cert-missing-intermediate", wantNote: "the answer is not a certificate"},
		// The AIA fetch runs inside a handshake and never needs one.
		{name: "leaf only, AIA redirects to https", cert: leaf(testpki.LeafOptions{AIA: aia.url("/to-https")}, p.inter).Chain(),
			wantRule: "cert-missing-intermediate", wantNote: "redirect blocked: disallowed protocol"},
		{name: "leaf only, no AIA", cert: leaf(testpki.LeafOptions{}, p.inter).Chain(),
			wantRule: "cert-unknown-authority", wantNote: `certificate for "news.example.com" is not issued by a trusted authority`},
		// An invalid chain stays invalid: AIA completes it up to a root
		// nobody trusts.
		{name: "untrusted chain completed through AIA", cert: leaf(testpki.LeafOptions{AIA: aia.url("/rogue.cer")}, p.rogueInt).Chain(),
			wantRule: "cert-missing-intermediate", wantNote: "does not lead to a trusted root"},
		// An AIA answer that is a real intermediate, but not this leaf's
		// issuer, does not help either.
		{name: "AIA serves another CA's intermediate", cert: leaf(testpki.LeafOptions{AIA: aia.url("/int.cer")}, p.rogueInt).Chain(),
			wantRule: "cert-missing-intermediate", wantNote: "does not lead to a trusted root"},
		{name: "untrusted chain sent whole", cert: leaf(testpki.LeafOptions{}, p.rogueInt).Chain(p.rogueInt),
			wantRule: "cert-unknown-authority"},
		{name: "expired", cert: leaf(testpki.LeafOptions{NotBefore: day("2023-01-01"), NotAfter: day("2024-01-31")}, p.inter).Chain(p.inter),
			wantRule: "cert-expired", wantNote: `certificate for "news.example.com" expired 2024-01-31`},
		{name: "not yet valid", cert: leaf(testpki.LeafOptions{NotBefore: time.Now().AddDate(1, 0, 0).Truncate(24 * time.Hour).Add(12 * time.Hour)}, p.inter).Chain(p.inter),
			wantRule: "cert-not-yet-valid", wantNote: `certificate for "news.example.com" is not valid before ` + time.Now().AddDate(1, 0, 0).UTC().Format(time.DateOnly)},
		{name: "self-signed", cert: leaf(testpki.LeafOptions{}, nil).Chain(),
			wantRule: "cert-self-signed", wantNote: `certificate for "news.example.com" is self-signed`},
		{name: "wrong name", cert: p.inter.Leaf(testpki.LeafOptions{Names: []string{"www.example.org", "example.org"}}).Chain(p.inter),
			wantRule: "cert-wrong-name", wantNote: `certificate for "www.example.org", "example.org" does not cover "news.example.com"`},
		{name: "TLS 1.0 only", cert: leaf(testpki.LeafOptions{}, p.inter).Chain(p.inter),
			mod:      func(s *httptest.Server) { s.TLS.MinVersion, s.TLS.MaxVersion = tls.VersionTLS10, tls.VersionTLS10 },
			wantRule: "old-protocol", wantNote: `server for "news.example.com" offers only TLS 1.0`},
		{name: "TLS 1.1 only", cert: leaf(testpki.LeafOptions{}, p.inter).Chain(p.inter),
			mod:      func(s *httptest.Server) { s.TLS.MinVersion, s.TLS.MaxVersion = tls.VersionTLS11, tls.VersionTLS11 },
			wantRule: "old-protocol", wantNote: `offers only TLS 1.1 or older`},
	}
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			port := tlsServer(t, row.cert, row.mod)
			g := New(AllowCIDR(netip.PrefixFrom(loopback, 32)), AllowPorts(port, aia.port, dead),
				Pin("news.example.com", port, loopback), Pin("aia.example.com", aia.port, loopback), Pin("aia.example.com", dead, loopback),
				WithResolver(newStubResolver(t)), WithDialContext((&dialRecorder{t: t}).dial), WithLimits(testLimits),
				WithRootCAs(p.root.Pool()))
			resp, err := g.Fetch(context.Background(), Request{URL: "https://news.example.com:" + strconv.Itoa(port) + "/?token=SECRET"})
			if row.wantRule == "" {
				if err != nil || string(resp.Body) != "ok" || resp.Proto != row.wantProto || resp.Hops[0].Proto != row.wantProto {
					t.Fatalf("Fetch = %+v, %v; want ok over %s", resp, err, row.wantProto)
				}
				return
			}
			var te *TLSError
			if !errors.Is(err, ErrTLS) || !errors.As(err, &te) || resp != nil {
				t.Fatalf("Fetch = %v, %v; want a TLSError", resp, err)
			}
			if te.Rule != row.wantRule || !strings.Contains(te.Note, row.wantNote) {
				t.Errorf("TLSError %q; want rule %s, note containing %q", te, row.wantRule, row.wantNote)
			}
			if d := TLSDetail(err); d != te.Error() || strings.Contains(err.Error(), "SECRET") || Reason(err) != "TLS failure" || Unreached(err) {
				t.Errorf("detail %q, error %q, reason %q, unreached %v", d, err, Reason(err), Unreached(err))
			}
		})
	}
}

// An issuer fetched through AIA is fetched once per run, however many
// connections need it.
func TestAIACachedPerRun(t *testing.T) {
	p := newPKI()
	aia := newAIAServer(t, map[string][]byte{"/int.cer": p.inter.Cert.Raw})
	port := tlsServer(t, p.inter.Leaf(testpki.LeafOptions{Names: []string{"news.example.com"}, AIA: aia.url("/int.cer")}).Chain(), nil)
	g := New(AllowCIDR(netip.PrefixFrom(loopback, 32)), AllowPorts(port, aia.port), NoConnReuse(),
		Pin("news.example.com", port, loopback), Pin("aia.example.com", aia.port, loopback),
		WithResolver(newStubResolver(t)), WithDialContext((&dialRecorder{t: t}).dial), WithLimits(testLimits),
		WithRootCAs(p.root.Pool()))
	var wg sync.WaitGroup
	for i := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := g.Fetch(context.Background(), Request{URL: "https://news.example.com:" + strconv.Itoa(port) + "/" + strconv.Itoa(i)})
			if err != nil || string(resp.Body) != "ok" {
				t.Errorf("Fetch %d = %v, %v", i, resp, err)
			}
		}()
	}
	wg.Wait()
	if n := aia.count("/int.cer"); n != 1 {
		t.Errorf("the issuer was fetched %d times, want once", n)
	}
}

// The AIA fetch is an untrusted fetch like any other: a URL naming a
// private address is refused before anything is dialled, and the
// handshake fails with the refusal in its note.
func TestAIAUnderThePolicy(t *testing.T) {
	p := newPKI()
	for _, aiaURL := range []string{"http://10.0.0.1/int.cer", "http://169.254.169.254/latest/meta-data/", "http://aia.example.com:22/int.cer"} {
		port := tlsServer(t, p.inter.Leaf(testpki.LeafOptions{Names: []string{"news.example.com"}, AIA: aiaURL}).Chain(), nil)
		rec := &dialRecorder{t: t}
		g := New(AllowCIDR(netip.PrefixFrom(loopback, 32)), AllowPorts(port), Pin("news.example.com", port, loopback),
			Pin("aia.example.com", 22, loopback), WithResolver(newStubResolver(t)), WithDialContext(rec.dial),
			WithLimits(testLimits), WithRootCAs(p.root.Pool()))
		_, err := g.Fetch(context.Background(), Request{URL: "https://news.example.com:" + strconv.Itoa(port) + "/"})
		var te *TLSError
		if !errors.As(err, &te) || te.Rule != "cert-missing-intermediate" || !strings.Contains(te.Note, "SSRF policy") {
			t.Errorf("AIA %s: Fetch error %v; want a refused AIA fetch", aiaURL, err)
		}
		for _, a := range rec.dials() {
			if !strings.HasSuffix(a, ":"+strconv.Itoa(port)) {
				t.Errorf("AIA %s: dialled %s", aiaURL, a)
			}
		}
	}
}

// The certificate names a wrong-name note quotes come from the server:
// only host-name characters reach the artifact, and at most three names.
func TestCertNamesSanitised(t *testing.T) {
	leaf := (*testpki.Authority)(nil).Leaf(testpki.LeafOptions{Names: []string{"a.example.org", "b.example.org", "c.example.org", "d.example.org"}})
	if got, want := certNames(leaf.Cert), `"a.example.org", "b.example.org", "c.example.org" and 1 more`; got != want {
		t.Errorf("certNames = %s, want %s", got, want)
	}
	if got := hostChars("evil\"\n<script>.example"); got != "evilscript.example" {
		t.Errorf("hostChars = %q", got)
	}
}

func TestParseIssuers(t *testing.T) {
	p := newPKI()
	two := append(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: p.inter.Cert.Raw}),
		pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: p.root.Cert.Raw})...)
	for name, tc := range map[string]struct {
		in   []byte
		want int
	}{
		"DER": {p.inter.Cert.Raw, 1}, "PEM": {two, 2}, "PKCS#7": {testpki.PKCS7(p.inter.Cert, p.root.Cert), 2},
		"HTML": {[]byte("<html></html>"), 0}, "empty": {nil, 0}, "truncated DER": {p.inter.Cert.Raw[:100], 0},
	} {
		certs, err := parseIssuers(tc.in)
		if len(certs) != tc.want || (tc.want == 0) != (err != nil) {
			t.Errorf("%s: %d certificates, %v; want %d", name, len(certs), err, tc.want)
		}
	}
}
