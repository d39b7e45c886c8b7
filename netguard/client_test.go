package netguard

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Every refusal in ssrf.md §2 that Preflight decides is also what Fetch
// reports, before any DNS query or socket (the catalogue's harness rule).
func TestFetchRefusesCatalogueOffline(t *testing.T) {
	res := newStubResolver(t) // knows no names: any lookup fails the test
	rec := &dialRecorder{t: t}
	g := New(WithResolver(res), WithDialContext(rec.dial), WithLimits(testLimits))
	for _, row := range catalogue {
		if errors.Is(row.want, accept) {
			continue
		}
		resp, err := g.Fetch(context.Background(), Request{URL: row.url})
		if !errors.Is(err, row.want) || resp != nil {
			t.Errorf("#%s Fetch(%q) = %v, %v; want %v", row.id, row.url, resp, err, row.want)
		}
		if !IsRefusal(err) {
			t.Errorf("#%s: %v is not a refusal", row.id, err)
		}
	}
	if res.total() != 0 || len(rec.dials()) != 0 {
		t.Errorf("%d lookups, dials %v; want none", res.total(), rec.dials())
	}
}

// Errors go into logs and notes. Plant credentials in the URL (userinfo,
// query, fragment, path) of every kind of failure and check that no error
// text, hop URL or final URL carries them.
func TestFetchErrorsCarryNoSecrets(t *testing.T) {
	hangSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hang(r) }))
	defer hangSrv.Close()
	redir := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://10.0.0.1/?access_token=SECRET#id_token=SECRET", http.StatusFound)
	}))
	defer redir.Close()
	tlsSrv := httptest.NewTLSServer(http.HandlerFunc(okHandler))
	defer tlsSrv.Close()

	hangPort, redirPort, tlsPort := portOf(t, hangSrv.Listener.Addr().String()),
		portOf(t, redir.Listener.Addr().String()), portOf(t, tlsSrv.Listener.Addr().String())
	r := newRig(t, hangPort, AllowPorts(redirPort, tlsPort),
		Pin("redirect.example.com", redirPort, loopback), Pin("tls.example.com", tlsPort, loopback))
	r.res.script("nx.example.com", func(context.Context, int) ([]netip.Addr, error) {
		return nil, &net.DNSError{Err: "no such host", Name: "nx.example.com.", IsNotFound: true}
	})
	const q = "/page;jsessionid=SECRET?token=SECRET&sig=SECRET&X-Amz-Signature=SECRET#access_token=SECRET"
	for _, u := range []string{
		"http://user:SECRET@news.example.com" + q,
		"http://:SECRET@news.example.com/",
		"gopher://SECRET@news.example.com/",
		"http://news.example.com:" + strconv.Itoa(hangPort) + q,
		"http://redirect.example.com:" + strconv.Itoa(redirPort) + q,
		"https://tls.example.com:" + strconv.Itoa(tlsPort) + q,
		"http://nx.example.com" + q,
		"http://10.0.0.1" + q,
		"http://news.example.com:6379" + q,
	} {
		resp, err := r.g.Fetch(context.Background(), Request{URL: u})
		if err == nil {
			t.Errorf("Fetch(%s) succeeded", u)
			continue
		}
		texts := []string{err.Error(), Reason(err)}
		if resp != nil {
			texts = append(append(texts, resp.FinalURL), hopURLs(resp)...)
		}
		for _, s := range texts {
			if strings.Contains(s, "SECRET") {
				t.Errorf("Fetch(%s): %q leaks a secret", Reason(err), s)
			}
		}
	}
}

func TestReasonNetwork(t *testing.T) {
	rows := map[error]string{
		ErrNoSuchHost:      "no such host",
		ErrTimeout:         "timed out",
		ErrTLS:             "TLS failure",
		ErrBodyTooLarge:    "response body too large",
		ErrRedirectLimit:   "too many redirects",
		ErrRedirectLoop:    "redirect loop",
		ErrHeaderTooLarge:  "response headers too large",
		ErrBlockedPort:     "port not allowed by SSRF policy",
		ErrRedirectBlocked: "redirect blocked",
		// A refused redirect says why.
		fmt.Errorf("x: %w: %w", ErrRedirectBlocked, fmt.Errorf("y: %w", ErrScheme)): "redirect blocked: disallowed protocol",
	}
	for err, want := range rows {
		if got := Reason(fmt.Errorf("wrapped: %w", err)); got != want {
			t.Errorf("Reason(%v) = %q, want %q", err, got, want)
		}
	}
	for _, s := range sentinels {
		if Reason(s) == "unclassified error" || Reason(s) == "" {
			t.Errorf("sentinel %v has no reason", s)
		}
		if strings.ContainsAny(s.Error(), ":?") {
			t.Errorf("sentinel text %q must be a plain phrase", s)
		}
	}
	for _, s := range []error{ErrTimeout, ErrNoSuchHost, ErrTLS, ErrRedirectLimit, ErrBodyTooLarge, nil} {
		if IsRefusal(s) {
			t.Errorf("IsRefusal(%v) = true", s)
		}
	}
}

// Fetch starts no goroutine of its own, and the transport's end when the
// hop does: after hostile fetches, the count returns to where it was.
func TestFetchLeavesNoGoroutines(t *testing.T) {
	before := runtime.NumGoroutine()
	// A subtest, so that its servers are closed (by Cleanup) before the count.
	t.Run("hostile", func(t *testing.T) {
		hangSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Length", "10")
			w.WriteHeader(200)
			w.(http.Flusher).Flush()
			hang(r)
		}))
		t.Cleanup(hangSrv.Close)
		bombSrv := httptest.NewServer(http.HandlerFunc(serveBomb("gzip", "gzip")))
		t.Cleanup(bombSrv.Close)
		silent := rawServer(t, func(c net.Conn) { readRequest(c); waitClosed(c) })
		for _, port := range []int{portOf(t, hangSrv.Listener.Addr().String()), portOf(t, bombSrv.Listener.Addr().String()), silent} {
			r := newRig(t, port)
			r.res.script("slow.example.com", func(ctx context.Context, _ int) ([]netip.Addr, error) {
				<-ctx.Done()
				return nil, ctx.Err()
			})
			for _, u := range []string{r.base + "/", "http://slow.example.com:" + strconv.Itoa(port) + "/"} {
				if _, err := r.g.Fetch(context.Background(), Request{URL: u}); err == nil {
					t.Errorf("Fetch(%s) succeeded", u)
				}
			}
		}
	})
	deadline := time.Now().Add(3 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		buf := make([]byte, 1<<16)
		t.Errorf("%d goroutines before, %d after:\n%s", before, n, buf[:runtime.Stack(buf, true)])
	}
}

// Fetch's output URLs parse, so the engine can store and compare them.
func TestFetchURLsParse(t *testing.T) {
	var chain chainServer
	r := newRig(t, chain.start(t, 302, 2))
	resp, err := r.g.Fetch(context.Background(), Request{URL: r.base + "/0?token=SECRET"})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range append(hopURLs(resp), resp.FinalURL) {
		if _, err := url.Parse(s); err != nil {
			t.Errorf("%q: %v", s, err)
		}
	}
}
