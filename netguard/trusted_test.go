package netguard

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestTrustEndpointsReachesOnlyTheEndpoints: a Guard given the operator's
// endpoint (a registry mirror on loopback, on a port outside the port
// policy) fetches it, by IP and by "localhost"; another loopback listener,
// the endpoint under another scheme, and a redirect from the endpoint to
// another listener are refused; a Guard without the option refuses the
// endpoint itself, so the exception lives in the one Guard it is given to.
func TestTrustEndpointsReachesOnlyTheEndpoints(t *testing.T) {
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "other") }))
	defer other.Close()
	mirror := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/away" {
			http.Redirect(w, r, other.URL+"/", http.StatusFound)
			return
		}
		_, _ = io.WriteString(w, "mirror")
	}))
	defer mirror.Close()
	_, port, _ := net.SplitHostPort(mirror.Listener.Addr().String())
	ctx := context.Background()

	for _, base := range []string{mirror.URL, "http://localhost:" + port + "/api"} {
		g := New(TrustEndpoints(base, "not a url", "ftp://127.0.0.1:21"))
		host := mirror.URL
		if base != mirror.URL {
			host = "http://localhost:" + port
		}
		r, err := g.Fetch(ctx, Request{URL: host + "/works/10.1/x"})
		if err != nil || string(r.Body) != "mirror" {
			t.Fatalf("%s: endpoint not reached: %v", base, err)
		}
		if _, err := g.Fetch(ctx, Request{URL: other.URL + "/"}); !IsRefusal(err) {
			t.Errorf("%s: another loopback listener: err %v, want a refusal", base, err)
		}
		if _, err := g.Fetch(ctx, Request{URL: "https://127.0.0.1:" + port + "/"}); err == nil {
			t.Errorf("%s: the endpoint under https was fetched", base)
		}
		if _, err := g.Fetch(ctx, Request{URL: host + "/away"}); !errors.Is(err, ErrRedirectBlocked) {
			t.Errorf("%s: redirect from the endpoint to another listener: err %v, want ErrRedirectBlocked", base, err)
		}
	}
	if _, err := New().Fetch(ctx, Request{URL: mirror.URL + "/"}); !IsRefusal(err) {
		t.Errorf("a Guard without TrustEndpoints fetched the endpoint: err %v", err)
	}
	if _, err := New(TrustEndpoints("http://user:pw@127.0.0.1:"+port)).Fetch(ctx, Request{URL: mirror.URL + "/"}); !IsRefusal(err) {
		t.Errorf("an endpoint with userinfo was trusted: err %v", err)
	}
}
