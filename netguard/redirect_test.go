package netguard

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// redirectServer answers every request with code and Location loc (in
// which "{port}" stands for the server's own port), except /ok, which says
// "ok". An empty loc sends no Location.
func redirectServer(t *testing.T, code int, loc string) int {
	t.Helper()
	var port int
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/ok" {
			fmt.Fprint(w, "ok")
			return
		}
		if loc != "" {
			w.Header().Set("Location", strings.ReplaceAll(loc, "{port}", strconv.Itoa(port)))
		}
		w.WriteHeader(code)
	}))
	t.Cleanup(srv.Close)
	port = portOf(t, srv.Listener.Addr().String())
	return port
}

// TestRedirectRefused covers ssrf.md §3 R1-R7, R12, R13 and R15: a
// redirect to a target the policy refuses fails with ErrRedirectBlocked
// and the hop's own refusal, and the refused hop is never dialled.
func TestRedirectRefused(t *testing.T) {
	rows := []struct {
		id   string
		code int
		loc  string
		want error
	}{
		{"R1", 302, "file:///etc/passwd", ErrScheme},
		{"R2", 302, "gopher://127.0.0.1:70/_x", ErrScheme},
		{"R2", 302, "javascript:alert(1)", ErrScheme},
		{"R2", 302, "data:text/html,<script>alert(1)</script>", ErrScheme},
		{"R3", 307, "http://169.254.169.254/latest/meta-data/?token=SECRET", ErrBlockedAddress},
		{"R3", 302, "http://10.0.0.1/?token=SECRET", ErrBlockedAddress},
		{"R4", 308, "http://[::ffff:127.0.0.3]:{port}/", ErrBlockedAddress},
		{"R5", 302, "//127.0.0.2:{port}/ok", ErrBlockedAddress},
		{"R6", 302, "http://user:SECRET@news.example.com:{port}/ok", ErrUserinfo},
		{"R7", 302, "http://internal.example.com:{port}/ok?token=SECRET", ErrBlockedAddress},
		{"R7", 302, "http://internal6.example.com:{port}/ok", ErrBlockedAddress},
		{"R7", 302, "http://localhost:{port}/ok", ErrBlockedHost},
		{"R12", 302, "http://[::1", ErrMalformed},
		// Go would keep /\host/ on the same host as an escaped path;
		// browsers (and so Fetch, which resolves like WHATWG) go to
		// 127.0.0.2. Either way the target is checked.
		{"R13", 302, `/\127.0.0.2/ok`, ErrBlockedAddress},
		{"R15", 302, "http://news.example.com:6379/?token=SECRET", ErrBlockedPort},
		// The same loopback address, but a port the rig does not admit.
		{"R15", 302, "http://127.0.0.1:1/ok", ErrBlockedPort},
	}
	for _, row := range rows {
		t.Run(row.id+" "+row.loc, func(t *testing.T) {
			port := redirectServer(t, row.code, row.loc)
			r := newRig(t, port)
			r.res.set("internal.example.com", "10.0.0.5")
			r.res.set("internal6.example.com", "::1")
			resp, err := r.g.Fetch(context.Background(), Request{URL: r.base + "/start?token=SECRET"})
			if !errors.Is(err, ErrRedirectBlocked) || !errors.Is(err, row.want) {
				t.Fatalf("Fetch = %v, want ErrRedirectBlocked and %v", err, row.want)
			}
			if !IsRefusal(err) || !strings.HasPrefix(Reason(err), "redirect blocked: ") {
				t.Errorf("IsRefusal = %v, Reason = %q", IsRefusal(err), Reason(err))
			}
			if d := r.dial.dials(); len(d) != 1 {
				t.Errorf("dials = %v, want only the first hop", d)
			}
			if resp == nil || resp.StatusCode != row.code || resp.Hops[0].Status != row.code {
				t.Fatalf("Response = %+v, want the redirect recorded", resp)
			}
			last := resp.Hops[len(resp.Hops)-1]
			if row.id != "R12" && (len(resp.Hops) != 2 || last.Status != 0) {
				t.Errorf("hops = %+v, want the refused hop last with status 0", resp.Hops)
			}
			for _, s := range append([]string{err.Error(), resp.FinalURL, resp.Header.Get("Location")}, hopURLs(resp)...) {
				if strings.Contains(s, "SECRET") {
					t.Errorf("secret leaked: %q", s)
				}
			}
		})
	}
}

func hopURLs(resp *Response) []string {
	var out []string
	for _, h := range resp.Hops {
		out = append(out, h.URL)
	}
	return out
}

// chainServer redirects /n to /n+1 until /last, which answers "done".
// It records every request it sees.
type chainServer struct {
	mu   sync.Mutex
	reqs []*http.Request
}

func (c *chainServer) start(t *testing.T, code, last int) int {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.mu.Lock()
		c.reqs = append(c.reqs, r.Clone(context.Background()))
		c.mu.Unlock()
		n, _ := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/"))
		http.SetCookie(w, &http.Cookie{Name: "session", Value: "SECRET"})
		if n >= last {
			w.Header().Set("Content-Type", "text/plain")
			fmt.Fprint(w, "done")
			return
		}
		w.Header().Set("Location", fmt.Sprintf("/%d?token=SECRET%d", n+1, n+1))
		w.WriteHeader(code)
	}))
	t.Cleanup(srv.Close)
	return portOf(t, srv.Listener.Addr().String())
}

func (c *chainServer) requests() []*http.Request {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.reqs
}

// ssrf.md §3 R9, R10: five redirects are allowed, the sixth is not.
func TestRedirectLimit(t *testing.T) {
	var five chainServer
	r := newRig(t, five.start(t, 302, 5))
	resp, err := r.g.Fetch(context.Background(), Request{URL: r.base + "/0"})
	if err != nil || string(resp.Body) != "done" || len(resp.Hops) != 6 {
		t.Fatalf("chain of 5: %+v, %v", resp, err)
	}
	if !strings.Contains(resp.FinalURL, "/5?token=") || strings.Contains(resp.FinalURL, "SECRET") {
		t.Errorf("FinalURL = %q, want the redacted last hop", resp.FinalURL)
	}

	var six chainServer
	r = newRig(t, six.start(t, 302, 6))
	resp, err = r.g.Fetch(context.Background(), Request{URL: r.base + "/0"})
	if !errors.Is(err, ErrRedirectLimit) || IsRefusal(err) {
		t.Fatalf("chain of 6: %v, want ErrRedirectLimit", err)
	}
	if resp == nil || len(resp.Hops) != 6 || resp.StatusCode != 302 || len(six.requests()) != 6 {
		t.Errorf("chain of 6: %+v, %d requests; want 6 hops, the 6th redirect not followed", resp, len(six.requests()))
	}

	// The limit is configurable.
	var two chainServer
	r = newRig(t, two.start(t, 302, 3), WithLimits(Limits{HopTimeout: testLimits.HopTimeout, MaxRedirects: 2}))
	if _, err := r.g.Fetch(context.Background(), Request{URL: r.base + "/0"}); !errors.Is(err, ErrRedirectLimit) {
		t.Errorf("MaxRedirects 2, chain of 3: %v", err)
	}
}

// Limits.MaxRedirects at its boundaries: NoRedirects (policy.json's
// max_redirects 0) requests the first URL only and never its Location; zero
// is the default; n follows n redirects and refuses the next.
func TestRedirectLimitBoundaries(t *testing.T) {
	rows := []struct {
		name      string
		max       int
		followed  int // redirects followed before the limit
		chainLast int // the chain ends after this many redirects
	}{
		{"NoRedirects", NoRedirects, 0, 1},
		{"any negative is none", -7, 0, 1},
		{"zero is the default", 0, DefaultMaxRedirects, DefaultMaxRedirects + 1},
		{"one", 1, 1, 2},
		{"twenty", 20, 20, 21},
	}
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			var chain chainServer
			r := newRig(t, chain.start(t, http.StatusFound, row.chainLast),
				WithLimits(Limits{HopTimeout: testLimits.HopTimeout, MaxRedirects: row.max}))
			resp, err := r.g.Fetch(context.Background(), Request{URL: r.base + "/0"})
			if !errors.Is(err, ErrRedirectLimit) {
				t.Fatalf("chain of %d: %v, want ErrRedirectLimit", row.chainLast, err)
			}
			want := fmt.Sprintf("more than %d redirects", row.followed)
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error %q does not say %q", err, want)
			}
			// Every request is one the limit allowed: the first URL and
			// each redirect followed, never the Location beyond.
			if got := len(chain.requests()); got != row.followed+1 {
				t.Errorf("%d requests, want %d", got, row.followed+1)
			}
			if resp == nil || len(resp.Hops) != row.followed+1 || resp.StatusCode != http.StatusFound {
				t.Errorf("response %+v, want %d hops ending in the unfollowed 302", resp, row.followed+1)
			}
		})
	}
	// No redirect to follow: NoRedirects does not get in the way.
	var direct chainServer
	r := newRig(t, direct.start(t, http.StatusFound, 0), WithLimits(Limits{HopTimeout: testLimits.HopTimeout, MaxRedirects: NoRedirects}))
	if resp, err := r.g.Fetch(context.Background(), Request{URL: r.base + "/0"}); err != nil || string(resp.Body) != "done" {
		t.Errorf("NoRedirects, no redirect: %+v, %v", resp, err)
	}
}

// ssrf.md §3 R8: a URL already fetched in the chain is a loop, whatever
// the fragment says.
func TestRedirectLoop(t *testing.T) {
	for _, loc := range []string{"/start?token=SECRET", "/b", "/start?token=SECRET#again"} {
		var port int
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/b" {
				http.Redirect(w, r, "/start?token=SECRET", http.StatusFound)
				return
			}
			http.Redirect(w, r, loc, http.StatusMovedPermanently)
		}))
		port = portOf(t, srv.Listener.Addr().String())
		r := newRig(t, port)
		resp, err := r.g.Fetch(context.Background(), Request{URL: r.base + "/start?token=SECRET"})
		srv.Close()
		if !errors.Is(err, ErrRedirectLoop) || strings.Contains(err.Error(), "SECRET") {
			t.Fatalf("loop via %s: %v", loc, err)
		}
		if resp == nil || resp.Hops[len(resp.Hops)-1].Status != 0 {
			t.Errorf("loop via %s: hops %+v", loc, resp)
		}
	}
}

// ssrf.md §3 R11: a redirect status without Location is a final answer.
func TestRedirectWithoutLocation(t *testing.T) {
	port := redirectServer(t, http.StatusFound, "")
	r := newRig(t, port)
	resp, err := r.g.Fetch(context.Background(), Request{URL: r.base + "/"})
	if err != nil || resp.StatusCode != http.StatusFound || len(resp.Hops) != 1 {
		t.Fatalf("Fetch = %+v, %v", resp, err)
	}
}

// ssrf.md §3 R16, B14: no Referer, no cookies, no credentials on any hop;
// the guard's User-Agent and the caller's safe headers on every hop; all
// recorded URLs redacted.
func TestRedirectHeaders(t *testing.T) {
	var chain chainServer
	r := newRig(t, chain.start(t, 302, 3))
	hdr := http.Header{"Accept-Language": {"de"}, "accept": {"text/html"}}
	resp, err := r.g.Fetch(context.Background(), Request{URL: r.base + "/0?token=SECRET0", Header: hdr})
	if err != nil || string(resp.Body) != "done" {
		t.Fatalf("Fetch = %+v, %v", resp, err)
	}
	reqs := chain.requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests, want 4", len(reqs))
	}
	for i, req := range reqs {
		for _, h := range []string{"Referer", "Cookie", "Authorization", "Proxy-Authorization"} {
			if v := req.Header.Get(h); v != "" {
				t.Errorf("hop %d sent %s: %q", i, h, v)
			}
		}
		if ua := req.Header.Get("User-Agent"); ua != DefaultUserAgent {
			t.Errorf("hop %d User-Agent = %q", i, ua)
		}
		if req.Header.Get("Accept-Language") != "de" || req.Header.Get("Accept") != "text/html" {
			t.Errorf("hop %d lost the caller's headers: %v", i, req.Header)
		}
		if req.Header.Get("Accept-Encoding") != acceptEncoding {
			t.Errorf("hop %d Accept-Encoding = %q", i, req.Header.Get("Accept-Encoding"))
		}
	}
	if resp.Header.Get("Set-Cookie") != "" {
		t.Error("Set-Cookie returned to the caller")
	}
	for _, s := range append(hopURLs(resp), resp.FinalURL) {
		if strings.Contains(s, "SECRET") || !strings.Contains(s, "token=") {
			t.Errorf("recorded URL %q, want the token key kept and its value redacted", s)
		}
	}
}

// Redirects never change the method: Fetch only sends GET and HEAD, and
// 301/302/303 keep both (a browser turns only POST into GET).
func TestRedirectMethods(t *testing.T) {
	for _, code := range []int{301, 302, 303, 307, 308} {
		for _, method := range []string{http.MethodGet, http.MethodHead} {
			var chain chainServer
			r := newRig(t, chain.start(t, code, 2))
			resp, err := r.g.Fetch(context.Background(), Request{Method: method, URL: r.base + "/0"})
			if err != nil || resp.StatusCode != 200 {
				t.Fatalf("%d %s: %+v, %v", code, method, resp, err)
			}
			for i, req := range chain.requests() {
				if req.Method != method {
					t.Errorf("%d %s: hop %d sent %s", code, method, i, req.Method)
				}
			}
			if method == http.MethodHead && len(resp.Body) != 0 {
				t.Errorf("HEAD returned a body")
			}
		}
	}
}

// Each hop is preflighted on its own: an http://127.0.0.1:port hop to a
// listener the policy does not admit is refused, even though the first
// listener on the same address is admitted.
func TestRedirectHopPreflighted(t *testing.T) {
	other := redirectServer(t, 200, "")
	port := redirectServer(t, 302, "http://127.0.0.1:"+strconv.Itoa(other)+"/ok")
	r := newRig(t, port)
	_, err := r.g.Fetch(context.Background(), Request{URL: r.base + "/"})
	if !errors.Is(err, ErrRedirectBlocked) || !errors.Is(err, ErrBlockedPort) {
		t.Fatalf("Fetch = %v, want ErrRedirectBlocked + ErrBlockedPort", err)
	}
	// With AllowPorts for it as well, the same hop goes through.
	r = newRig(t, port, AllowPorts(other))
	resp, err := r.g.Fetch(context.Background(), Request{URL: r.base + "/"})
	if err != nil || string(resp.Body) != "ok" {
		t.Fatalf("both admitted: %+v, %v", resp, err)
	}
	p := strconv.Itoa(other)
	if d := r.dial.dials(); len(d) != 2 || d[1] != "127.0.0.1:"+p {
		t.Errorf("dials = %v", d)
	}
}

// ssrf.md §3 R14: an https to http downgrade is followed (citations move
// between schemes all the time) and visible in Hops.
func TestRedirectDowngrade(t *testing.T) {
	plain := redirectServer(t, 200, "")
	tlsSrv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://news.example.com:"+strconv.Itoa(plain)+"/ok", http.StatusFound)
	}))
	defer tlsSrv.Close()
	tlsPort := portOf(t, tlsSrv.Listener.Addr().String())
	r := newRig(t, plain, AllowPorts(tlsPort), Pin("example.com", tlsPort, loopback), trust(tlsSrv))
	resp, err := r.g.Fetch(context.Background(), Request{URL: "https://example.com:" + strconv.Itoa(tlsPort) + "/"})
	if err != nil || string(resp.Body) != "ok" || len(resp.Hops) != 2 {
		t.Fatalf("Fetch = %+v, %v", resp, err)
	}
	if !strings.HasPrefix(resp.Hops[0].URL, "https://") || !strings.HasPrefix(resp.Hops[1].URL, "http://") {
		t.Errorf("hops = %+v", resp.Hops)
	}
}

// ssrf.md §3 R17: Refresh headers and meta refresh are not redirects.
func TestRefreshNotFollowed(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Refresh", "0; url=http://10.0.0.1/?token=SECRET")
		fmt.Fprint(w, `<meta http-equiv="refresh" content="0; url=http://10.0.0.1/">`)
	}))
	defer srv.Close()
	r := newRig(t, portOf(t, srv.Listener.Addr().String()))
	resp, err := r.g.Fetch(context.Background(), Request{URL: r.base + "/"})
	if err != nil || len(resp.Hops) != 1 || resp.StatusCode != 200 {
		t.Fatalf("Fetch = %+v, %v", resp, err)
	}
	if got := resp.Header.Get("Refresh"); strings.Contains(got, "SECRET") || !strings.Contains(got, "10.0.0.1") {
		t.Errorf("Refresh header = %q, want it kept and redacted", got)
	}
	if d := r.dial.dials(); len(d) != 1 {
		t.Errorf("dials = %v", d)
	}
}

// A Location is resolved against the hop's URL, like a browser would.
func TestRedirectRelative(t *testing.T) {
	var port int
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/a/b":
			w.Header().Set("Location", "../c?x=1")
			w.WriteHeader(http.StatusFound)
		case "/c":
			w.Header().Set("Location", "//news.example.com:"+strconv.Itoa(port)+"/d")
			w.WriteHeader(http.StatusFound)
		default:
			fmt.Fprint(w, r.URL.Path)
		}
	}))
	defer srv.Close()
	port = portOf(t, srv.Listener.Addr().String())
	r := newRig(t, port)
	resp, err := r.g.Fetch(context.Background(), Request{URL: r.base + "/a/b"})
	if err != nil || string(resp.Body) != "/d" || len(resp.Hops) != 3 || resp.Hops[1].URL != r.base+"/c?x=1" {
		t.Fatalf("Fetch = %+v, %v", resp, err)
	}
}
