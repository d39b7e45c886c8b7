package netguard

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
)

// EndpointTransport returns a RoundTripper for a client that talks to one
// endpoint the operator configured (a judge's --base-url): requests whose
// scheme, host and port are exactly the endpoint's are dialled without the
// address policy, so an operator's model server on loopback or a private
// address (Ollama on 127.0.0.1:11434, vLLM on a LAN host) is reachable on
// whatever port it listens; every other request goes through the guard as
// Transport's do. The exception lives in the returned value only: the
// Guard itself, and so every fetch of a cited URL, still refuses that
// host and port. Pins (Pin) still apply to the endpoint's name.
func (g *Guard) EndpointTransport(base string) (http.RoundTripper, error) {
	e, err := parseEndpoint(base)
	if err != nil {
		return nil, err
	}
	trusted := g.newTransport(true)
	trusted.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		host, port, err := net.SplitHostPort(addr)
		if err != nil || pinHost(host) != e.host || port != e.port {
			return nil, fmt.Errorf("netguard: dial %q: not the operator's endpoint: %w", clip(addr), ErrBlockedHost)
		}
		if a, ok := g.pins[pinKey{e.host, portNumber(port)}]; ok {
			addr = net.JoinHostPort(a.String(), port)
		}
		d := net.Dialer{Timeout: g.limits.HopTimeout}
		return d.DialContext(ctx, network, addr)
	}
	return &endpointTransport{e: e, trusted: trusted, guarded: g.Transport()}, nil
}

// endpoint is the operator's scheme, host (as pinHost maps it) and port.
type endpoint struct{ scheme, host, port string }

type endpointTransport struct {
	e                endpoint
	trusted, guarded *http.Transport
}

func (t *endpointTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	port := r.URL.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[strings.ToLower(r.URL.Scheme)]
	}
	if strings.EqualFold(r.URL.Scheme, t.e.scheme) && pinHost(r.URL.Hostname()) == t.e.host && port == t.e.port {
		return t.trusted.RoundTrip(r)
	}
	return t.guarded.RoundTrip(r)
}

// CloseIdleConnections closes both transports' idle connections.
func (t *endpointTransport) CloseIdleConnections() {
	t.trusted.CloseIdleConnections()
	t.guarded.CloseIdleConnections()
}

func portNumber(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		return -1
	}
	return n
}
