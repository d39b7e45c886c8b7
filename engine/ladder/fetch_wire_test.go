package ladder

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/citegate/citegate/netguard"
)

// TestFetchTellsTheGateHowTheHostAnswered drives fetch against a loopback
// server admitted by an explicit allow rule: a 429 slows the host down, a
// run of ordinary answers speeds it back up.
func TestFetchTellsTheGateHowTheHostAnswered(t *testing.T) {
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 1 {
			w.Header().Set("Retry-After", "0")
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		_, _ = w.Write([]byte("<html><title>ok</title><p>fine</p></html>"))
	}))
	defer srv.Close()
	u, _ := url.Parse(srv.URL)
	port, _ := strconv.Atoi(u.Port())
	guard := netguard.New(netguard.AllowCIDR(netip.MustParsePrefix("127.0.0.1/32")), netguard.AllowPorts(port))
	l := &Ladder{cfg: Config{Guard: guard, MaxRetryWait: time.Second}, gate: newHostGate(2, 0)}
	host := hostOf(srv.URL)

	resp, _, err := l.fetch(context.Background(), host, srv.URL+"/a", false)
	if err != nil || resp.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("first fetch: %v %v", resp, err)
	}
	if got := l.gate.spacingOf(host); got != minSlowSpacing {
		t.Fatalf("after a 429 the host's spacing is %v, want %v", got, minSlowSpacing)
	}
	for range recoverAfter {
		if _, _, err := l.fetch(context.Background(), host, srv.URL+"/b", false); err != nil {
			t.Fatal(err)
		}
	}
	if got := l.gate.spacingOf(host); got != 0 {
		t.Errorf("after %d ordinary answers the spacing is %v, want back to 0", recoverAfter, got)
	}
}
