package engine

import (
	"context"
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/citegate/citegate/engine/ladder"
	"github.com/citegate/citegate/netguard"
)

// lossyDNS is a resolver that loses a share of the lookups (it never
// answers them: the caller's try times out) and delays the others by up to
// maxDelay. Which lookup is lost and how long one waits follow from the
// seed, the name and how many times the name was asked, so the outcome
// does not depend on how the run's workers interleave. Names are
// hNNN.example.com: NNN%10 == 7 does not exist (NXDOMAIN), == 8 exists with
// no address (NODATA), any other answers 127.0.0.1.
type lossyDNS struct {
	loss     float64
	maxDelay time.Duration
	seed     uint64

	mu    sync.Mutex
	calls map[string]int
}

func (r *lossyDNS) LookupNetIP(ctx context.Context, _, host string) ([]netip.Addr, error) {
	name := strings.TrimSuffix(host, ".")
	r.mu.Lock()
	if r.calls == nil {
		r.calls = map[string]int{}
	}
	call := r.calls[name]
	r.calls[name]++
	r.mu.Unlock()
	wait := time.Duration(r.roll(name, call, 1) * float64(r.maxDelay))
	if r.roll(name, call, 0) < r.loss {
		wait = time.Hour
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
		return nil, &net.DNSError{Err: "i/o timeout", Name: host, IsTimeout: true, IsTemporary: true}
	}
	if slices.Contains(ladder.DefaultDNSCanaries, name) {
		// The public names the ladder checks its resolver with exist.
		return []netip.Addr{netip.MustParseAddr("93.184.216.34")}, nil
	}
	var n int
	if _, err := fmt.Sscanf(name, "h%03d.example.com", &n); err != nil || n%10 == 7 {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	if n%10 == 8 {
		return nil, nil
	}
	return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
}

func (r *lossyDNS) roll(name string, call, salt int) float64 {
	f := fnv.New64a()
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], r.seed)
	f.Write(b[:])
	f.Write([]byte(name))
	binary.BigEndian.PutUint64(b[:], uint64(call)<<8|uint64(salt))
	f.Write(b[:])
	return float64(mix(f.Sum64())>>11) / (1 << 53)
}

// mix is splitmix64's finalizer: FNV alone leaves the high bits nearly
// blind to the last bytes hashed (the call number).
func mix(z uint64) uint64 {
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

func (r *lossyDNS) total() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, c := range r.calls {
		n += c
	}
	return n
}

// Issue 22's done-means: over 200 hosts, a resolver that loses 20% of the
// lookups and delays the others by up to 1.5 s gives every citation the
// status a clean resolver gives it. Only a confirmed NXDOMAIN is invalid;
// a name with no address is blocked, noted as such.
func TestLossyResolverChangesNoStatus(t *testing.T) {
	if testing.Short() {
		t.Skip("takes about 20 s")
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/article" {
			http.NotFound(w, r)
			return
		}
		host, _, _ := strings.Cut(r.Host, ":")
		fmt.Fprintf(w, "<!doctype html><html><head><title>Field notes from %s</title></head><body><h1>Field notes from %s</h1>"+
			"<p>%s</p></body></html>", host, host, strings.Repeat("A long report on rivers, sediment and the seasons. ", 40))
	}))
	defer srv.Close()
	ap := netip.MustParseAddrPort(strings.TrimPrefix(srv.URL, "http://"))

	var cites strings.Builder
	const hosts = 200
	for i := range hosts {
		h := fmt.Sprintf("h%03d.example.com", i)
		fmt.Fprintf(&cites, "- [Field notes from %s](http://%s:%d/article)\n", h, h, ap.Port())
	}
	run := func(res *lossyDNS) (map[string]Citation, time.Duration) {
		r := newRun(t, runSpec{Sensitivity: "normal", RunConfig: runConfig("RUN", "online"), Files: map[string]string{
			"wave-1/p1.md": "# P\n\n## Sources\n" + cites.String(),
		}})
		e := newEngine()
		e.GuardOptions = []netguard.Option{netguard.WithResolver(res), netguard.AllowCIDR(netip.PrefixFrom(ap.Addr(), 32)),
			netguard.AllowPorts(int(ap.Port()))}
		e.Net.Getenv = func(string) string { return "" }
		start := time.Now()
		if _, err := e.Run(bg, RunArgs{ManifestPath: r.Manifest}, nil); err != nil {
			t.Fatal(err)
		}
		wall := time.Since(start)
		out := map[string]Citation{}
		for _, c := range readCitationLines(t, r.cit("citations.jsonl")) {
			out[c.URLOriginal] = c
		}
		if len(out) != hosts {
			t.Fatalf("%d records, want %d", len(out), hosts)
		}
		return out, wall
	}
	clean := &lossyDNS{}
	want, cleanWall := run(clean)
	lossy := &lossyDNS{loss: 0.2, maxDelay: 1500 * time.Millisecond, seed: 22}
	got, lossyWall := run(lossy)

	for u, c := range want {
		var n int
		fmt.Sscanf(strings.TrimPrefix(u, "http://"), "h%03d", &n)
		status, note := map[int]Status{7: StatusInvalid, 8: StatusBlocked}[n%10], map[int]string{7: "no such host [dns-nxdomain]", 8: "DNS: no address for the name"}[n%10]
		if status == "" {
			status = StatusValid
		}
		if c.Status != status || !strings.Contains(c.Notes, note) {
			t.Errorf("clean: %s: %s %q, want %s %q", u, c.Status, c.Notes, status, note)
		}
		if g := got[u]; g.Status != c.Status {
			t.Errorf("lossy: %s: %s %q, clean: %s", u, g.Status, g.Notes, c.Status)
		}
	}
	t.Logf("clean: %d lookups (%.2f per host), %v; lossy: %d lookups (%.2f per host), %v",
		clean.total(), float64(clean.total())/hosts, cleanWall.Round(time.Millisecond),
		lossy.total(), float64(lossy.total())/hosts, lossyWall.Round(time.Millisecond))
}
