package cli

import (
	"strings"
	"testing"

	"github.com/citegate/citegate/engine"
)

// TestFleetFlags: --fleet and a redis:// --cache reach the engine as given
// (a directory --cache is made absolute, a Redis address is not), and a
// bad address or --fleet-required alone is a usage error that never shows
// the password.
func TestFleetFlags(t *testing.T) {
	const pw = "planted-Cli-pw-42"
	for _, tt := range []struct {
		name             string
		n                NetFlags
		errHas           string
		wantCache, fleet string
	}{
		{name: "fleet and redis cache", n: NetFlags{Fleet: "redis://:" + pw + "@10.0.0.5:6379/0", CacheDir: "rediss://u:" + pw + "@10.0.0.5:6380/1"},
			wantCache: "rediss://u:" + pw + "@10.0.0.5:6380/1", fleet: "redis://:" + pw + "@10.0.0.5:6379/0"},
		{name: "fleet not redis", n: NetFlags{Fleet: "http://u:" + pw + "@10.0.0.5:6379"}, errHas: "--fleet: not a redis://"},
		{name: "bad db", n: NetFlags{Fleet: "redis://:" + pw + "@10.0.0.5:6379/x"}, errHas: "--fleet: Redis address redis://REDACTED@"},
		{name: "bad cache db", n: NetFlags{CacheDir: "redis://:" + pw + "@10.0.0.5:6379/x"}, errHas: "--cache: Redis address"},
		{name: "required alone", n: NetFlags{FleetRequired: true, CacheDir: "/tmp/c"}, errHas: "--fleet-required needs"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			n := tt.n
			n.bound, n.ladder, n.Concurrency, n.PerHost, n.CacheTTL = true, true, 1, 1, engine.DefaultCacheTTL
			_, err := n.Options()
			if tt.errHas != "" {
				if err == nil || !strings.Contains(err.Error(), tt.errHas) || strings.Contains(err.Error(), pw) {
					t.Fatalf("error %v, want one holding %q and no password", err, tt.errHas)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var net engine.Network
			n.Apply(&net)
			if net.CacheDir != tt.wantCache || net.Fleet != tt.fleet {
				t.Errorf("engine got cache %q fleet %q", net.CacheDir, net.Fleet)
			}
		})
	}
}

// TestGuardPolicyReachesTheEngine: the network controls reach the engine as
// one canonical string (order of repeated flags does not matter; no
// controls is ""), which the shared cache's key covers.
func TestGuardPolicyReachesTheEngine(t *testing.T) {
	apply := func(n NetFlags) string {
		n.bound, n.ladder, n.Concurrency, n.PerHost, n.CacheTTL = true, true, 1, 1, engine.DefaultCacheTTL
		var net engine.Network
		n.Apply(&net)
		return net.GuardPolicy
	}
	a := apply(NetFlags{DomainAllowlist: multiFlag{"b.org", "a.org"}, AllowPort: multiFlag{"8080"}})
	b := apply(NetFlags{AllowPort: multiFlag{"8080"}, DomainAllowlist: multiFlag{"a.org", "b.org"}})
	if a != b || a != "allow-port=8080;domain-allowlist=a.org,b.org" {
		t.Errorf("guard policy %q and %q: want one canonical string", a, b)
	}
	if none := apply(NetFlags{}); none != "" {
		t.Errorf("no controls gave %q", none)
	}
	if other := apply(NetFlags{DomainAllowlist: multiFlag{"a.org"}}); other == a {
		t.Errorf("different controls gave the same policy %q", other)
	}
}
