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
