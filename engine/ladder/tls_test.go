package ladder

import (
	"context"
	"crypto/tls"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/citegate/citegate/engine/classify"
	"github.com/citegate/citegate/engine/record"
	"github.com/citegate/citegate/netguard"
	"github.com/citegate/citegate/netguard/nettest/testpki"
)

// TestTLSMatrix runs issue 22's TLS matrix through the ladder, against
// local servers with certificates from a test CA: a valid chain and a leaf
// completed through a working AIA URL are valid; a dead AIA URL, an
// expired, self-signed or wrong-name certificate and a TLS 1.0-only server
// are blocked with a note saying what was wrong — never invalid — after a
// single attempt (a certificate does not change between attempts), the
// providers' rungs given their turn. Verification is never skipped: the
// guard trusts the test root only, through WithRootCAs.
func TestTLSMatrix(t *testing.T) {
	root := testpki.NewRoot("ladder test root")
	inter := root.Intermediate("ladder test intermediate", "")
	const host = "news.example.com"
	names := []string{host}

	aiaSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/int.cer" {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write(inter.Cert.Raw)
	}))
	defer aiaSrv.Close()
	aiaPort := portOfURL(aiaSrv.URL)
	deadSrv := httptest.NewServer(http.NotFoundHandler())
	deadPort := portOfURL(deadSrv.URL)
	deadSrv.Close()
	aia := func(port int) string { return "http://aia.example.com:" + strconv.Itoa(port) + "/int.cer" }
	day := func(s string) time.Time { d, _ := time.Parse(time.DateOnly, s); return d }

	rows := []struct {
		name    string
		cert    tls.Certificate
		maxTLS  uint16
		want    record.Status
		wantTLS string // the note's TLS part
	}{
		{name: "valid", cert: inter.Leaf(testpki.LeafOptions{Names: names}).Chain(inter), want: record.StatusValid},
		{name: "leaf only, working AIA", cert: inter.Leaf(testpki.LeafOptions{Names: names, AIA: aia(aiaPort)}).Chain(), want: record.StatusValid},
		{name: "leaf only, dead AIA", cert: inter.Leaf(testpki.LeafOptions{Names: names, AIA: aia(deadPort)}).Chain(), want: record.StatusBlocked,
			wantTLS: `tls [cert-missing-intermediate]: server for "news.example.com" did not send the issuer of its certificate; its AIA URL gave no issuer certificate: connection refused`},
		{name: "expired", cert: inter.Leaf(testpki.LeafOptions{Names: names, NotBefore: day("2023-01-01"), NotAfter: day("2024-01-31")}).Chain(inter),
			want: record.StatusBlocked, wantTLS: `tls [cert-expired]: certificate for "news.example.com" expired 2024-01-31`},
		{name: "self-signed", cert: (*testpki.Authority)(nil).Leaf(testpki.LeafOptions{Names: names}).Chain(), want: record.StatusBlocked,
			wantTLS: `tls [cert-self-signed]: certificate for "news.example.com" is self-signed`},
		{name: "wrong name", cert: inter.Leaf(testpki.LeafOptions{Names: []string{"other.example.org"}}).Chain(inter), want: record.StatusBlocked,
			wantTLS: `tls [cert-wrong-name]: certificate for "other.example.org" does not cover "news.example.com"`},
		{name: "TLS 1.0 only", cert: inter.Leaf(testpki.LeafOptions{Names: names}).Chain(inter), maxTLS: tls.VersionTLS10, want: record.StatusBlocked,
			wantTLS: `tls [old-protocol]: server for "news.example.com" offers only TLS 1.0`},
	}
	for _, tier := range []classify.Tier{classify.Basic, classify.Standard} {
		for _, row := range rows {
			t.Run(string(tier)+" "+row.name, func(t *testing.T) {
				srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if r.URL.Path != "/2025/report" {
						http.NotFound(w, r)
						return
					}
					_, _ = w.Write([]byte(articleHTML("Grid storage report")))
				}))
				srv.TLS = &tls.Config{Certificates: []tls.Certificate{row.cert}}
				if row.maxTLS != 0 {
					srv.TLS.MinVersion, srv.TLS.MaxVersion = row.maxTLS, row.maxTLS
				}
				srv.StartTLS()
				defer srv.Close()
				port := portOfURL(srv.URL)
				lo := netip.MustParseAddr("127.0.0.1")
				guard := netguard.New(netguard.AllowCIDR(netip.PrefixFrom(lo, 32)), netguard.AllowPorts(port, aiaPort, deadPort),
					netguard.Pin(host, port, lo), netguard.Pin("aia.example.com", aiaPort, lo), netguard.Pin("aia.example.com", deadPort, lo),
					netguard.WithRootCAs(root.Pool()), netguard.WithLimits(netguard.Limits{HopTimeout: 2 * time.Second}))
				u := "https://" + host + ":" + strconv.Itoa(port) + "/2025/report"
				var mu sync.Mutex
				var attempts []Progress
				l := New(Config{Guard: guard, Tier: tier, Concurrency: 1, PerHost: 1, DirectAttempts: 3,
					Backoff: Backoff{InitialMS: 1, Multiplier: 1, MaxMS: 1}, MaxRetryWait: time.Second, Now: time.Now,
					Report: func(p Progress) error {
						mu.Lock()
						defer mu.Unlock()
						if p.Kind == AttemptDone {
							attempts = append(attempts, p)
						}
						return nil
					}})
				var got Decision
				l.Run(context.Background(), []Item{{URL: u, Fetch: u, Citation: classify.Citation{LinkText: "Grid storage report"}}},
					func(_ *Item, d Decision, _ string) { got = d })
				if got.Status != row.want {
					t.Fatalf("status %s (%q), want %s", got.Status, got.Notes, row.want)
				}
				if row.want == record.StatusValid {
					if len(attempts) == 0 || attempts[0].Proto != "HTTP/1.1" {
						t.Errorf("attempts %+v; want the protocol reported", attempts)
					}
					return
				}
				wantNotes := "online ladder blocked: direct_fetch=failed(attempt 1/3: " + row.wantTLS + "); bright_data=skipped("
				if !strings.HasPrefix(got.Notes, wantNotes) || got.Rung != "ladder" || !got.Reached || got.Unreached {
					t.Errorf("decision %+v;\nwant notes starting %q", got, wantNotes)
				}
				if len(attempts) != 1 || attempts[0].Detail != row.wantTLS {
					t.Errorf("attempts %+v; want one, detailed %q", attempts, row.wantTLS)
				}
			})
		}
	}
}

func portOfURL(u string) int {
	p, _ := strconv.Atoi(u[strings.LastIndexByte(u, ':')+1:])
	return p
}
