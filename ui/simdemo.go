package ui

import (
	"context"
	"fmt"
	"io/fs"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/citegate/citegate/engine"
	"github.com/citegate/citegate/engine/simweb"
	"github.com/citegate/citegate/netguard"
)

// Credentials of the simulated provider APIs. They are demo values, not
// read from the environment, and only the in-process fakes accept them.
const (
	simBrightDataKey  = "sim-brightdata-key"
	simBrightDataZone = "sim_unlocker"
	simApifyToken     = "sim-apify-token"
)

// simHosts serve the demo's ordinary articles, beside the simulated web's
// scripted scenarios.
var simHosts = []string{"www.energy-data.sim", "stats.transport.sim", "research.grid.sim",
	"www.climate-review.sim", "data.cities.sim", "www.materials-news.sim"}

// simDemo is the online demo: the embedded run pointed at a simulated web
// started in this process on loopback.
type simDemo struct {
	web  *simweb.Web
	run  DemoRun
	opts []netguard.Option
	net  engine.Network
}

// startSimDemo copies the demo run, replaces its wave files with ones citing
// the simulated web, and builds the guard rules that admit exactly that web:
// every simulated name pinned to 127.0.0.1, and port 80 dialled on the
// simulator's port, so the cited URLs read like real ones.
func startSimDemo(demo fs.FS, dir string) (*simDemo, error) {
	run, err := CopyDemo(demo, dir)
	if err != nil {
		return nil, err
	}
	web, err := simweb.Start(simweb.Options{Latency: 40 * time.Millisecond,
		BrightDataKey: simBrightDataKey, BrightDataZone: simBrightDataZone, ApifyToken: simApifyToken})
	if err != nil {
		return nil, err
	}
	sd := &simDemo{web: web, run: run}
	if err := sd.writeRun(); err != nil {
		web.Close()
		return nil, err
	}
	loopback := netip.MustParseAddr("127.0.0.1")
	sd.opts = web.GuardOptions()
	for _, h := range web.Hosts() {
		sd.opts = append(sd.opts, netguard.Pin(h, 80, loopback))
	}
	port := strconv.Itoa(web.Port())
	var d net.Dialer
	sd.opts = append(sd.opts, netguard.WithDialContext(func(ctx context.Context, network, addr string) (net.Conn, error) {
		if host, p, err := net.SplitHostPort(addr); err == nil && host == "127.0.0.1" && p == "80" {
			addr = net.JoinHostPort(host, port)
		}
		return d.DialContext(ctx, network, addr)
	}))
	creds := map[string]string{"BRIGHTDATA_API_KEY": simBrightDataKey, "BRIGHTDATA_UNLOCKER_ZONE": simBrightDataZone, "APIFY_TOKEN": simApifyToken}
	sd.net = engine.Network{Getenv: func(k string) string { return creds[k] }, BrightDataURL: web.LoopbackBaseURL(),
		ApifyURL: web.LoopbackBaseURL(), PerHost: 2, HostInterval: 20 * time.Millisecond, Registries: web.RegistryBases()}
	return sd, nil
}

// writeRun cites every scripted scenario plus enough ordinary articles that
// Gate C passes at its thresholds, spread over four perspectives.
func (sd *simDemo) writeRun() error {
	w := sd.web
	type cite struct{ text, url string }
	var cites []cite
	port := ":" + strconv.Itoa(w.Port())
	bad := 0
	for _, sc := range w.Catalogue() {
		cites = append(cites, cite{sc.LinkText, strings.Replace(sc.URL, port, "", 1)})
		if s := sc.Want[simweb.TierThorough]; s != "valid" && s != "paywalled" {
			bad++
		}
	}
	// Two scholarly citations the registry rung settles against the
	// simulated registries: a DOI that was never registered (invalid) and
	// a real DOI cited for another paper's title (mismatch).
	for _, sc := range simweb.RegistryScenarios() {
		if sc.Name == "doi-fabricated" || sc.Name == "doi-swapped" {
			cites = append(cites, cite{sc.LinkText, sc.URL})
			bad++
		}
	}
	// Gate C needs ≥ 90% citable: add ordinary articles until it holds.
	extra := max(0, 10*bad-len(cites))
	perHost := (extra + len(simHosts) - 1) / len(simHosts)
	for _, h := range simHosts {
		w.AddHost(h, perHost)
		for i := 0; i < perHost; i++ {
			cites = append(cites, cite{simweb.SyntheticTitle(h, i), "http://" + h + "/a/" + strconv.Itoa(i)})
		}
	}
	for _, wave := range []string{"wave-1", "wave-2"} {
		if err := os.RemoveAll(filepath.Join(sd.run.Root, wave)); err != nil {
			return err
		}
	}
	files := map[string]*strings.Builder{}
	names := []string{"wave-1/p1-scenarios.md", "wave-1/p2-energy.md", "wave-1/p3-cities.md", "wave-2/p4-followup.md"}
	for i, c := range cites {
		name := names[i%len(names)]
		b := files[name]
		if b == nil {
			b = &strings.Builder{}
			files[name] = b
			fmt.Fprintf(b, "# %s\n\n## Findings\n\nSimulated findings for the demo.\n\n## Sources\n\n", strings.TrimSuffix(filepath.Base(name), ".md"))
		}
		fmt.Fprintf(b, "- [%s](%s)\n", c.text, c.url)
	}
	for name, b := range files {
		p := filepath.Join(sd.run.Root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			return err
		}
	}
	runConfig := `{
  "schema_version": "run_config.v1",
  "run_id": "dr_demo_ev_batteries",
  "created_at": "2026-11-20T09:00:00.000Z",
  "effective": {
    "sensitivity": "normal",
    "citations": {"mode": "online", "validation_tier": "thorough", "endpoints": {"brightdata": null, "apify": null}}
  }
}
`
	// Short limits so the slow host times out and the demo ends in seconds.
	policy := `{
  "schema_version": "run_policy.v1",
  "citations_ladder_policy_v1": {
    "direct_fetch_timeout_ms": 1200, "endpoint_timeout_ms": 5000, "max_redirects": 5, "max_body_bytes": 2097152,
    "direct_fetch_max_attempts": 2, "bright_data_max_attempts": 1, "apify_max_attempts": 1,
    "backoff_initial_ms": 200, "backoff_multiplier": 2, "backoff_max_ms": 1000
  }
}
`
	if err := os.WriteFile(filepath.Join(sd.run.Root, "run-config.json"), []byte(runConfig), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(sd.run.Root, "run-config", "policy.json"), []byte(policy), 0o644)
}
