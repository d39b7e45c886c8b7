package ladder

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/citegate/citegate/engine/record"
	"github.com/citegate/citegate/netguard"
)

// dnsScript answers each name's lookups in turn (the last answer repeats)
// and counts them.
type dnsScript struct {
	mu      sync.Mutex
	answers map[string][]func() ([]netip.Addr, error)
	calls   map[string]int
}

func (s *dnsScript) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	name := strings.TrimSuffix(host, ".")
	s.mu.Lock()
	n := s.calls[name]
	s.calls[name]++
	list := s.answers[name]
	s.mu.Unlock()
	if len(list) == 0 {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	return list[min(n, len(list)-1)]()
}

func (s *dnsScript) count(name string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[name]
}

// The direct rung and DNS (issue 22): only a confirmed NXDOMAIN is
// invalid. A lookup that Go's lenient resolver would have read as "no such
// host" once and answered when asked again is read; a name with no address
// and a resolver that never answers are blocked, noted as DNS outcomes; and
// a lookup with no answer is asked again on the rung's next attempt (the
// per-address gate does not remember it) and marks the item unreached.
func TestDirectRungDNSOutcomes(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/report" {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write([]byte(articleHTML("Report")))
	}))
	defer srv.Close()
	u, _ := url.Parse(srv.URL)
	port, _ := strconv.Atoi(u.Port())
	lo := func() ([]netip.Addr, error) { return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil }
	notFound := func() ([]netip.Addr, error) {
		return nil, &net.DNSError{Err: "no such host", Name: "x.", IsNotFound: true}
	}
	servFail := func() ([]netip.Addr, error) {
		return nil, &net.DNSError{Err: "server misbehaving", Name: "x.", IsTemporary: true}
	}
	noData := func() ([]netip.Addr, error) { return nil, nil }
	res := &dnsScript{calls: map[string]int{}, answers: map[string][]func() ([]netip.Addr, error){
		"flaky.example.com": {notFound, lo},
		"empty.example.com": {noData},
		"sick.example.com":  {servFail},
	}}
	guard := netguard.New(netguard.AllowCIDR(netip.MustParsePrefix("127.0.0.1/32")), netguard.AllowPorts(port),
		netguard.WithResolver(res), netguard.ShareLookups(time.Minute))
	rows := []struct {
		host      string
		status    record.Status
		note      string
		unreached bool
	}{
		{"flaky.example.com", record.StatusValid, "", false},
		{"gone.example.com", record.StatusInvalid, `no such host [dns-nxdomain]: host "gone.example.com`, false},
		{"empty.example.com", record.StatusBlocked, "direct_fetch=failed(attempt 1/2: DNS: no address for the name)", false},
		{"sick.example.com", record.StatusBlocked, "direct_fetch=failed(attempt 2/2: DNS: no answer from the resolver)", true},
	}
	var items []Item
	for i, row := range rows {
		target := "http://" + row.host + ":" + strconv.Itoa(port) + "/report"
		items = append(items, Item{Index: i, URL: target, Fetch: target})
	}
	l := New(Config{Guard: guard, Concurrency: 4, PerHost: 4, PerAddress: 32, DirectAttempts: 2,
		Backoff: Backoff{InitialMS: 1, Multiplier: 1, MaxMS: 1}, MaxRetryWait: time.Second, Now: time.Now})
	got := map[int]Decision{}
	var mu sync.Mutex
	l.Run(context.Background(), items, func(it *Item, d Decision, _ string) {
		mu.Lock()
		got[it.Index] = d
		mu.Unlock()
	})
	for i, row := range rows {
		d := got[i]
		if d.Status != row.status || !strings.Contains(d.Notes, row.note) || d.Unreached != row.unreached {
			t.Errorf("%s: %s %q (unreached %v); want %s with %q (unreached %v)", row.host, d.Status, d.Notes,
				d.Unreached, row.status, row.note, row.unreached)
		}
	}
	// Each of the two attempts asked the sick name again, with retries.
	if n := res.count("sick.example.com"); n < 4 {
		t.Errorf("sick.example.com asked %d times, want the lookup retried on each attempt", n)
	}
	if n := res.count("empty.example.com"); n != 1 {
		t.Errorf("empty.example.com asked %d times; NODATA is an answer, shared for the run", n)
	}
}
