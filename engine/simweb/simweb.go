// Package simweb is a simulated web for citegate's tests, benchmark and demo:
// one HTTP server on 127.0.0.1 that answers for many public-looking host
// names (news.example.com, www.energyreport.sim, …) by routing on the Host
// header, plus fake Bright Data Web Unlocker and Apify rag-web-browser APIs
// on api.brightdata.sim and api.apify.sim. Online validation can then be
// exercised end to end, ladder included, without the internet.
//
// Nothing here resolves a name. Callers reach the simulated hosts through a
// netguard.Guard built with GuardOptions, which allows 127.0.0.1, the
// server's port and a Pin for every simulated name (the guard refuses
// loopback without all three), or, in simweb's own tests, through a client
// whose dialer sends every connection to the server's port.
//
// Catalogue lists the scripted scenarios (a news article, paywalls, bot
// walls only a provider gets past, dead links, soft 404s, redirects, rate
// limits, …) with the verdict a correct validator must reach at each tier.
// AddHost adds plain synthetic hosts for load tests.
package simweb

import (
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/citegate/citegate/engine/classify"
	"github.com/citegate/citegate/netguard"
)

// Names of the fake provider API hosts.
const (
	BrightDataHost = "api.brightdata.sim"
	ApifyHost      = "api.apify.sim"
)

// loopback is the only address simweb listens on and pins names to.
var loopback = netip.MustParseAddr("127.0.0.1")

// Options configures Start.
type Options struct {
	// Latency is added to every response, provider APIs included
	// (default 0).
	Latency time.Duration
	// BrightDataKey and BrightDataZone are the API key and Web Unlocker
	// zone the fake Bright Data API accepts; ApifyToken is the token the
	// fake Apify API accepts. An empty credential makes that fake refuse
	// every request with 401.
	BrightDataKey, BrightDataZone, ApifyToken string
	// TLS serves the web over https with certificates from a test CA that
	// GuardOptions makes the guard trust (the benchmarks' TLS variant, so
	// a handshake per connection shows).
	TLS bool
}

// Web is a running simulated web: one loopback HTTP server routing by Host
// header. All methods are safe for concurrent use.
type Web struct {
	opts   Options
	port   int
	srv    *http.Server
	ca     *testCA       // set when Options.TLS
	served chan struct{} // closed when Serve returns
	done   chan struct{} // closed by Close; wakes sleeping handlers

	scripted map[string]*site // fixed after Start
	remotes  map[string]remote

	mu        sync.RWMutex
	closed    bool
	active    sync.WaitGroup // handlers in flight; Add only under mu while !closed
	synthetic map[string]int // host -> number of /a/{i} pages
	counts    map[string]int
	probes    map[string]int // requests for a citegate site probe, by host
	inFlight  map[string]int // requests being answered now, by host
	peak      map[string]int // the most inFlight ever reached, by host
	targets   []string
	closeOnce sync.Once
}

// Start listens on 127.0.0.1 (a free port) and serves the simulated web
// until Close.
func Start(opts Options) (*Web, error) {
	// Binding a free loopback port does not block, so there is no context
	// to honour here; Close stops the server.
	ln, err := net.Listen("tcp", "127.0.0.1:0") //nolint:noctx // see above
	if err != nil {
		return nil, fmt.Errorf("simweb: listen: %w", err)
	}
	addr, ok := ln.Addr().(*net.TCPAddr)
	if !ok {
		_ = ln.Close()
		return nil, fmt.Errorf("simweb: listener on %s is not TCP", ln.Addr())
	}
	w := &Web{
		opts:      opts,
		port:      addr.Port,
		served:    make(chan struct{}),
		done:      make(chan struct{}),
		synthetic: map[string]int{},
		counts:    map[string]int{},
		probes:    map[string]int{},
		inFlight:  map[string]int{},
		peak:      map[string]int{},
	}
	w.scripted, w.remotes = w.script()
	w.srv = &http.Server{
		Handler:           w,
		ReadHeaderTimeout: 10 * time.Second,
	}
	if opts.TLS {
		if w.ca, err = newTestCA(); err != nil {
			_ = ln.Close()
			return nil, fmt.Errorf("simweb: test CA: %w", err)
		}
		w.srv.TLSConfig = &tls.Config{GetCertificate: w.ca.certificate, MinVersion: tls.VersionTLS12}
		ln = tls.NewListener(ln, w.srv.TLSConfig)
	}
	go func() {
		defer close(w.served)
		_ = w.srv.Serve(ln) // returns http.ErrServerClosed after Close
	}()
	return w, nil
}

// Close stops the server, interrupts slow and delayed responses, and waits
// until every handler and the accept loop have returned. It is idempotent.
func (w *Web) Close() {
	w.closeOnce.Do(func() {
		w.mu.Lock()
		w.closed = true
		w.mu.Unlock()
		close(w.done)
		_ = w.srv.Close() // closes the listener and every connection
		<-w.served
		w.active.Wait()
	})
}

// Port is the server's TCP port on 127.0.0.1.
func (w *Web) Port() int { return w.port }

// URL returns http://<host>:<port><path> (https:// with Options.TLS) for a
// simulated host. path may
// carry a query; a missing leading "/" is added. Nothing is escaped.
func (w *Web) URL(host, path string) string {
	if !strings.HasPrefix(path, "/") {
		path = "/" + path
	}
	return w.base(host) + path
}

// BrightDataBaseURL is the base URL of the fake Bright Data API; POST
// {base}/request is the Web Unlocker Direct API.
func (w *Web) BrightDataBaseURL() string { return w.base(BrightDataHost) }

// ApifyBaseURL is the base URL of the fake Apify API; POST
// {base}/v2/acts/apify~rag-web-browser/run-sync-get-dataset-items runs
// the rag-web-browser Actor.
func (w *Web) ApifyBaseURL() string { return w.base(ApifyHost) }

// LoopbackBaseURL is http://127.0.0.1:<port>, where both fake provider
// APIs also answer (routed by path: /request is Bright Data, /v2/… is
// Apify). Use it for clients that refuse to send credentials over plain
// http to anything but a loopback address, as engine/providers does; the
// named base URLs are refused there.
func (w *Web) LoopbackBaseURL() string { return w.base(loopback.String()) }

// base is http://host:port, without a trailing slash.
func (w *Web) base(host string) string {
	scheme := "http://"
	if w.ca != nil {
		scheme = "https://"
	}
	return scheme + host + ":" + strconv.Itoa(w.port)
}

// Hosts lists every simulated host name, scripted, synthetic, the two
// provider API hosts and the registry hosts, sorted.
func (w *Web) Hosts() []string {
	w.mu.RLock()
	defer w.mu.RUnlock()
	hosts := make([]string, 0, len(w.scripted)+len(w.synthetic)+2)
	for h := range w.scripted {
		hosts = append(hosts, h)
	}
	for h := range w.synthetic {
		hosts = append(hosts, h)
	}
	hosts = append(hosts, BrightDataHost, ApifyHost)
	hosts = append(hosts, registryHosts...)
	slices.Sort(hosts)
	return hosts
}

// GuardOptions admit exactly this web: an allow rule for 127.0.0.1/32, the
// server's port, and a Pin of every simulated host name (provider API
// hosts included) to 127.0.0.1 on that port. Hosts added later with
// AddHost need a fresh call.
func (w *Web) GuardOptions() []netguard.Option {
	hosts := w.Hosts()
	opts := make([]netguard.Option, 0, len(hosts)+2)
	opts = append(opts,
		netguard.AllowCIDR(netip.PrefixFrom(loopback, 32)),
		netguard.AllowPorts(w.port))
	for _, h := range hosts {
		opts = append(opts, netguard.Pin(h, w.port, loopback))
	}
	if w.ca != nil {
		opts = append(opts, netguard.WithRootCAs(w.ca.pool))
	}
	return opts
}

// Requests returns how many requests host received since Start or the
// last Reset, site probes (see Probes) not included. Requests to a
// provider API count under its host name (BrightDataHost, ApifyHost).
func (w *Web) Requests(host string) int {
	w.mu.RLock()
	defer w.mu.RUnlock()
	return w.counts[normHost(host)]
}

// Probes returns how many site-probe requests (a path containing
// classify.ProbeName) host received since Start or the last Reset.
func (w *Web) Probes(host string) int {
	w.mu.RLock()
	defer w.mu.RUnlock()
	return w.probes[normHost(host)]
}

// TotalProbes is the number of site-probe requests over every host.
func (w *Web) TotalProbes() int {
	w.mu.RLock()
	defer w.mu.RUnlock()
	n := 0
	for _, c := range w.probes {
		n += c
	}
	return n
}

// PeakInFlight is the most requests host was answering at once since
// Start or the last Reset, site probes included: the server's own count of
// a client's per-host concurrency.
func (w *Web) PeakInFlight(host string) int {
	w.mu.RLock()
	defer w.mu.RUnlock()
	return w.peak[normHost(host)]
}

// Reset zeroes every request counter and forgets the provider targets.
// Scenario state hangs on the counters, so the rate-limited and flaky
// hosts fail their first request again after a Reset.
func (w *Web) Reset() {
	w.mu.Lock()
	defer w.mu.Unlock()
	clear(w.counts)
	clear(w.probes)
	clear(w.peak)
	w.targets = nil
}

// ProviderTargets returns, in order of arrival, every target URL the fake
// provider APIs were asked for (Bright Data's "url", Apify's "query"),
// including requests they then refused for bad credentials: whatever
// reached them was sent to a third party.
func (w *Web) ProviderTargets() []string {
	w.mu.RLock()
	defer w.mu.RUnlock()
	return slices.Clone(w.targets)
}

// AddHost registers a synthetic host with n article pages /a/0 … /a/{n-1},
// each titled SyntheticTitle(host, i); other paths answer 404. Calling it
// again for the same host replaces n. Names of scripted and provider
// hosts are left alone.
func (w *Web) AddHost(host string, n int) {
	host = normHost(host)
	if _, ok := w.scripted[host]; ok || host == BrightDataHost || host == ApifyHost || host == "" {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.synthetic[host] = max(n, 0)
}

// ServeHTTP routes one request by its Host header.
func (w *Web) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	host := normHost(r.Host)
	if host == loopback.String() {
		// A client may address the fake APIs by IP literal (some refuse
		// to send credentials over plain http to anything else).
		switch {
		case r.URL.Path == brightDataPath:
			host = BrightDataHost
		case strings.HasPrefix(r.URL.Path, "/v2/"):
			host = ApifyHost
		}
	}
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		http.Error(rw, "simweb: closed", http.StatusServiceUnavailable)
		return
	}
	w.active.Add(1)
	// A site probe (classify.ProbeName) is counted on its own, so that
	// scripted hosts' request ordinals stay those of the citations.
	var n int
	if strings.Contains(r.URL.Path, classify.ProbeName) {
		w.probes[host]++
	} else {
		w.counts[host]++
		n = w.counts[host]
	}
	w.inFlight[host]++
	w.peak[host] = max(w.peak[host], w.inFlight[host])
	pages, synthetic := w.synthetic[host]
	w.mu.Unlock()
	defer w.active.Done()
	defer func() {
		w.mu.Lock()
		w.inFlight[host]--
		w.mu.Unlock()
	}()

	if !w.sleep(r, w.opts.Latency) {
		return
	}
	switch {
	case host == BrightDataHost:
		w.serveBrightData(rw, r)
	case host == ApifyHost:
		w.serveApify(rw, r)
	case slices.Contains(registryHosts, host):
		w.serveRegistry(rw, r, host)
	case w.scripted[host] != nil:
		w.scripted[host].serve(rw, r, n)
	case synthetic:
		w.serveSynthetic(rw, r, host, pages)
	default:
		rw.Header().Set("Content-Type", "text/plain; charset=utf-8")
		rw.WriteHeader(http.StatusMisdirectedRequest)
		_, _ = fmt.Fprintf(rw, "simweb: no simulated host %q\n", host)
	}
}

// sleep waits d, or until the request is abandoned or the web closes; it
// reports whether the handler should go on.
func (w *Web) sleep(r *http.Request, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.Context().Done():
	case <-w.done:
	}
	return false
}

// normHost lower-cases a host, drops a port and a trailing dot.
func normHost(h string) string {
	h = strings.ToLower(strings.TrimSpace(h))
	if host, _, err := net.SplitHostPort(h); err == nil {
		h = host
	}
	return strings.TrimSuffix(h, ".")
}
