package netguard

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"strings"
)

// TrustEndpoints makes a Guard reach API endpoints the operator configured
// (a registry mirror on 127.0.0.1:8080, an internal Crossref proxy):
// requests to exactly an endpoint's scheme, host and port skip the address,
// name, allowlist and port policy, in Preflight and at dial time, the way
// EndpointTransport does for one client. Every other URL, including a
// redirect away from the endpoint, is judged as before. Give it only to a
// Guard that fetches the operator's endpoints, never to one that fetches
// cited URLs: a citation naming the endpoint would reach it. Bases that do
// not parse as http(s) URLs with a host are ignored (they trust nothing).
func TrustEndpoints(bases ...string) Option {
	return func(g *Guard) {
		for _, b := range bases {
			if e, err := parseEndpoint(b); err == nil {
				g.endpoints = append(g.endpoints, e)
			}
		}
	}
}

// parseEndpoint reads an operator's base URL as scheme, host and port.
func parseEndpoint(base string) (endpoint, error) {
	u, err := url.Parse(strings.TrimSpace(base))
	if err != nil || u.Hostname() == "" || u.User != nil {
		return endpoint{}, fmt.Errorf("netguard: endpoint %q: not a URL with a host: %w", clip(base), ErrMalformed)
	}
	scheme := strings.ToLower(u.Scheme)
	if scheme != "http" && scheme != "https" {
		return endpoint{}, fmt.Errorf("netguard: endpoint %q: %w", clip(base), ErrScheme)
	}
	e := endpoint{scheme: scheme, host: pinHost(u.Hostname()), port: u.Port()}
	if e.port == "" {
		e.port = map[string]string{"http": "80", "https": "443"}[scheme]
	}
	return e, nil
}

// trusted reports whether scheme (any, when ""), host and port are one of
// the operator's endpoints.
func (g *Guard) trusted(scheme, host, port string) bool {
	if len(g.endpoints) == 0 {
		return false
	}
	h := pinHost(strings.TrimSuffix(strings.TrimPrefix(host, "["), "]"))
	for _, e := range g.endpoints {
		if e.host == h && e.port == port && (scheme == "" || strings.EqualFold(scheme, e.scheme)) {
			return true
		}
	}
	return false
}

// dialTrusted dials an operator's endpoint without the address policy;
// pins (Pin) still apply to its name.
func (g *Guard) dialTrusted(ctx context.Context, network, host, port string) (net.Conn, error) {
	addr := net.JoinHostPort(host, port)
	if a, ok := g.pins[pinKey{pinHost(host), portNumber(port)}]; ok {
		addr = net.JoinHostPort(a.String(), port)
	}
	d := net.Dialer{Timeout: g.limits.HopTimeout}
	conn, err := d.DialContext(ctx, network, addr)
	if err != nil {
		return nil, fmt.Errorf("netguard: connect %s: %w: %s", clip(host), failure(ctx, err), RedactText(err.Error()))
	}
	return conn, nil
}
