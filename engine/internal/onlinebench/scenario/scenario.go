// Package scenario is the issue-4 online benchmark's workload, shared by
// engine's BenchmarkOnlineSimulatedWeb and the onlinebench command: a
// simulated web of Hosts × Articles pages answering after Latency, and a
// run directory whose wave files cite every page once.
//
// It does not import engine (engine's own tests import it); callers turn
// Concurrency and PerHost into an engine.Network themselves.
package scenario

import (
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/citegate/citegate/engine/internal/corpus"
	"github.com/citegate/citegate/engine/simweb"
	"github.com/citegate/citegate/netguard"
)

// Spec sizes the workload and the politeness limits it runs under.
type Spec struct {
	Hosts    int           // synthetic hosts
	Articles int           // pages per host (/a/0 … /a/{Articles-1})
	Files    int           // wave files; the citations are spread evenly
	Latency  time.Duration // server delay added to every response
	// Concurrency is the global limit (Network.Concurrency) and PerHost
	// the per-host limit (Network.PerHost); HostInterval is always 0.
	Concurrency, PerHost int
}

// Issue4 is the workload issue 4 names: 2,000 URLs over 200 hosts, 100 ms
// per response, per-host 4, global 64, cited by 80 files × 25 URLs.
var Issue4 = Spec{Hosts: 200, Articles: 10, Files: 80, Latency: 100 * time.Millisecond, Concurrency: 64, PerHost: 4}

// URLs is the number of distinct URLs cited.
func (s Spec) URLs() int { return s.Hosts * s.Articles }

// Host is the name of synthetic host k.
func (s Spec) Host(k int) string { return fmt.Sprintf("h%03d.bench.sim", k) }

// Ideal is the best wall time any scheduler can reach under the limits,
// when every request costs exactly Latency and local work is free.
//
// Two bounds hold at once. The global limit lets at most Concurrency
// requests overlap, so the URLs() requests need at least
// ceil(URLs/Concurrency) latency-long rounds. The per-host limit lets at
// most PerHost requests to one host overlap, so a host's Articles requests
// need at least ceil(Articles/PerHost) rounds, whatever else runs. The
// larger bound is reachable here: interleaving hosts keeps all Concurrency
// slots busy while no host exceeds PerHost (64 slots over 200 hosts is
// under one slot per host), so
//
//	ideal = max(ceil(URLs/G), ceil(Articles/P)) × L
//	      = max(ceil(2000/64), ceil(10/4)) × 100 ms = max(32, 3) × 100 ms = 3.2 s.
func (s Spec) Ideal() time.Duration {
	rounds := max(ceilDiv(s.URLs(), s.Concurrency), ceilDiv(s.Articles, s.PerHost))
	return time.Duration(rounds) * s.Latency
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }

// AddHosts registers the synthetic hosts on a simulated web.
func (s Spec) AddHosts(w *simweb.Web) {
	for k := range s.Hosts {
		w.AddHost(s.Host(k), s.Articles)
	}
}

// Link is one citation: the URL and its link text.
type Link struct{ URL, Text string }

// Links lists every page once, in citation order, with the page's title as
// link text (so the standard tier's title check passes). urlFor(k, path)
// gives the URL of path on host k. Consecutive citations cycle through the
// hosts, as a file citing many sources would.
func (s Spec) Links(urlFor func(k int, path string) string) []Link {
	links := make([]Link, 0, s.URLs())
	for n := range s.URLs() {
		k, i := n%s.Hosts, n/s.Hosts
		links = append(links, Link{URL: urlFor(k, fmt.Sprintf("/a/%d", i)), Text: simweb.SyntheticTitle(s.Host(k), i)})
	}
	return links
}

// SimwebLinks are the links of a simulated web populated by AddHosts.
func (s Spec) SimwebLinks(w *simweb.Web) []Link {
	return s.Links(func(k int, path string) string { return w.URL(s.Host(k), path) })
}

// PortLinks are the same links for a simulated web listening on port in
// another process.
func (s Spec) PortLinks(port int) []Link {
	return s.Links(func(k int, path string) string { return fmt.Sprintf("http://%s:%d%s", s.Host(k), port, path) })
}

// GuardOptions admit the synthetic hosts of a simulated web on
// 127.0.0.1:port, like simweb's GuardOptions, for a process that has only
// the port.
func (s Spec) GuardOptions(port int) []netguard.Option {
	lo := netip.MustParseAddr("127.0.0.1")
	opts := []netguard.Option{netguard.AllowCIDR(netip.PrefixFrom(lo, 32)), netguard.AllowPorts(port)}
	for k := range s.Hosts {
		opts = append(opts, netguard.Pin(s.Host(k), port, lo))
	}
	return opts
}

// ResolveFlags are the citegate CLI flags equivalent to GuardOptions(port).
func (s Spec) ResolveFlags(port int) []string {
	flags := []string{"--allow-cidr", "127.0.0.1/32", "--allow-port", fmt.Sprint(port)}
	for k := range s.Hosts {
		flags = append(flags, "--resolve", fmt.Sprintf("%s:%d:127.0.0.1", s.Host(k), port))
	}
	return flags
}

// LimitFlags are the citegate CLI flags for the spec's politeness limits.
func (s Spec) LimitFlags() []string {
	return []string{"--concurrency", fmt.Sprint(s.Concurrency), "--per-host", fmt.Sprint(s.PerHost), "--host-interval", "0s"}
}

// WriteRun writes a run directory at dir citing links (manifest.json,
// run-config.json selecting online mode at the standard tier, and the wave
// files, alternating wave-1 and wave-2) and returns the manifest path.
func (s Spec) WriteRun(dir string, links []Link) (string, error) {
	files := max(1, s.Files)
	per := ceilDiv(len(links), files)
	for f := range files {
		lo, hi := min(f*per, len(links)), min((f+1)*per, len(links))
		var b strings.Builder
		fmt.Fprintf(&b, "# Perspective p%02d\n\n## Findings\n\nSee the sources below.\n\n## Sources\n\n", f)
		for _, l := range links[lo:hi] {
			fmt.Fprintf(&b, "- [%s](%s)\n", l.Text, l.URL)
		}
		p := filepath.Join(dir, fmt.Sprintf("wave-%d", 1+f%2), fmt.Sprintf("p%03d.md", f))
		if err := writeFile(p, b.String()); err != nil {
			return "", err
		}
	}
	if err := writeFile(filepath.Join(dir, "run-config.json"), runConfig); err != nil {
		return "", err
	}
	mp := filepath.Join(dir, "manifest.json")
	return mp, writeFile(mp, corpus.Manifest(dir, "dr_online_bench", "online benchmark", "normal"))
}

func writeFile(path, content string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(content), 0o644)
}

// runConfig selects live online validation at the standard tier with no
// provider endpoints; the ladder policy keeps its defaults.
const runConfig = `{
  "schema_version": "run_config.v1",
  "run_id": "dr_online_bench",
  "created_at": "2026-01-01T00:00:00.000Z",
  "effective": {
    "sensitivity": "normal",
    "citations": {"mode": "online", "validation_tier": "standard", "endpoints": {"brightdata": null, "apify": null}}
  }
}
`
