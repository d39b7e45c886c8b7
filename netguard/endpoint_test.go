package netguard

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestEndpointTransportReachesOnlyTheEndpoint: the operator's endpoint on
// loopback, on a port outside the port policy, is reachable through
// EndpointTransport, by IP and by "localhost"; another listener on
// loopback, and the same host:port under another scheme, are not; and the
// Guard itself still refuses the endpoint, so a cited URL naming it is
// never fetched (issue 23).
func TestEndpointTransportReachesOnlyTheEndpoint(t *testing.T) {
	model := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "model server") }))
	defer model.Close()
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "other") }))
	defer other.Close()
	_, port, _ := net.SplitHostPort(model.Listener.Addr().String())

	g := New()
	for _, base := range []string{model.URL, "http://localhost:" + port + "/v1"} {
		rt, err := g.EndpointTransport(base)
		if err != nil {
			t.Fatal(err)
		}
		c := &http.Client{Transport: rt}
		host := strings.TrimPrefix(strings.TrimSuffix(base, "/v1"), "http://")
		resp, err := c.Get("http://" + host + "/v1/chat/completions")
		if err != nil {
			t.Fatalf("%s: endpoint not reached: %v", base, err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(body) != "model server" {
			t.Errorf("%s: got %q", base, body)
		}
		for _, u := range []string{other.URL + "/", "https://" + host + "/"} {
			resp, err := c.Get(u)
			if err == nil {
				resp.Body.Close()
				t.Errorf("%s: %s reached", base, u)
			} else if !IsRefusal(err) {
				t.Errorf("%s: %s: %v, want a refusal", base, u, err)
			}
		}
	}

	// The guard, the one sources are fetched through, still refuses it.
	for _, u := range []string{model.URL + "/page", "http://localhost:" + port + "/page"} {
		if _, err := g.Fetch(context.Background(), Request{URL: u}); err == nil || !IsRefusal(err) {
			t.Errorf("Fetch(%s) = %v, want a refusal", u, err)
		}
	}
	// Even with the port opened, loopback stays closed to sources.
	if _, err := New(AllowPorts(atoi(port))).Fetch(context.Background(), Request{URL: model.URL + "/page"}); !errors.Is(err, ErrBlockedAddress) {
		t.Errorf("Fetch with the port allowed: %v, want %v", err, ErrBlockedAddress)
	}
}

func atoi(s string) int { return portNumber(s) }
