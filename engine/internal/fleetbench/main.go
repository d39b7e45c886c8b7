// Command fleetbench measures issue 28's fleet: N citegate engines in N
// processes started at once on the same simulated workload (issue 4's
// 2,000 URLs over 200 hosts, 100 ms answers, per-host limit 4), first
// without a fleet and then sharing one Redis (--fleet), against one lone
// process. The simulated web, served by this process, counts what every
// process sent: requests for cited pages, site probes, and the per-host
// in-flight peak.
//
//	go run ./engine/internal/fleetbench            # 8 processes
//	go run ./engine/internal/fleetbench -procs 16 -host-interval 50ms
//
// It needs redis-server on PATH (the Debian package); it starts its own on
// a loopback port and stops it.
package main

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/citegate/citegate/engine"
	"github.com/citegate/citegate/engine/fleet/fleettest"
	"github.com/citegate/citegate/engine/internal/onlinebench/scenario"
	"github.com/citegate/citegate/engine/simweb"
)

// childResult is what one process reports.
type childResult struct {
	WallNS int64  `json:"wall_ns"`
	Digest string `json:"digest"` // of its citations.jsonl (normalized_url, status) pairs
	Valid  int    `json:"valid"`
	Warned int    `json:"warned"`
}

// phase is what one phase of the benchmark measured.
type phase struct {
	name          string
	procs         int
	wall          time.Duration // first start to last exit
	pages, probes int
	peak          int
	digests       map[string]int
	redisOps      int64
	valid         int
	maxChild      time.Duration
	redisCPU      float64 // seconds of the server's CPU (user + system)
}

// redisCPU is used_cpu_user + used_cpu_sys from INFO cpu.
func redisCPU(info string) float64 {
	var t float64
	for _, line := range strings.Split(info, "\n") {
		for _, k := range []string{"used_cpu_user:", "used_cpu_sys:"} {
			if v, ok := strings.CutPrefix(strings.TrimSpace(line), k); ok {
				f, _ := strconv.ParseFloat(v, 64)
				t += f
			}
		}
	}
	return t
}

func main() {
	var (
		procs    = flag.Int("procs", 8, "processes started at once")
		interval = flag.Duration("host-interval", 0, "per-host spacing between starts (the scenario's is 0)")
		child    = flag.Bool("child", false, "internal: run one engine")
		port     = flag.Int("port", 0, "internal: the simulated web's port")
		manifest = flag.String("manifest", "", "internal: the run's manifest")
		redisURL = flag.String("fleet", "", "internal: the fleet's Redis")
	)
	flag.Parse()
	s := scenario.Issue4
	var err error
	if *child {
		err = runChild(s, *port, *manifest, *redisURL, *interval)
	} else {
		err = runParent(s, *procs, *interval)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "fleetbench:", err)
		os.Exit(1)
	}
}

func runParent(s scenario.Spec, procs int, interval time.Duration) error {
	bin, err := fleettest.Binary()
	if err != nil {
		return fmt.Errorf("redis-server not found: %w", err)
	}
	dir, err := os.MkdirTemp("", "citegate-fleetbench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if err := os.Mkdir(filepath.Join(dir, "redis"), 0o755); err != nil {
		return err
	}
	srv, err := fleettest.Start(bin, filepath.Join(dir, "redis"), "")
	if err != nil {
		return err
	}
	defer srv.Stop()
	w, err := simweb.Start(simweb.Options{Latency: s.Latency})
	if err != nil {
		return err
	}
	defer w.Close()
	s.AddHosts(w)
	self, err := os.Executable()
	if err != nil {
		return err
	}
	b := bench{s: s, w: w, self: self, dir: dir, interval: interval, srv: srv}
	var phases []phase
	for _, p := range []struct {
		name        string
		procs       int
		fleet, warm bool
	}{{"lone process", 1, false, false}, {fmt.Sprintf("%d processes, no fleet", procs), procs, false, false},
		{fmt.Sprintf("%d processes, --fleet", procs), procs, true, false},
		{fmt.Sprintf("%d again, warm cache", procs), procs, true, true}} {
		ph, err := b.run(p.name, p.procs, p.fleet, p.warm)
		if err != nil {
			return fmt.Errorf("%s: %w", p.name, err)
		}
		phases = append(phases, ph)
	}
	report(s, interval, phases[:3])
	warm := phases[3]
	fmt.Printf("warm cache (the fleet's verdicts kept): %d page requests, %.2f Redis commands per URL per process, wall %.2fs, Redis CPU %.2fs\n",
		warm.pages, float64(warm.redisOps)/float64(s.URLs()*warm.procs), warm.wall.Seconds(), warm.redisCPU)
	return b.redisMemory()
}

type bench struct {
	s        scenario.Spec
	w        *simweb.Web
	srv      *fleettest.Server
	self     string
	dir      string
	interval time.Duration
}

// run starts procs children at once and reads what they and the web saw.
func (b *bench) run(name string, procs int, fleet, warm bool) (phase, error) {
	b.w.Reset()
	rc := b.srv.Client()
	defer rc.Close()
	ctx := context.Background()
	if !warm {
		if err := rc.FlushAll(ctx).Err(); err != nil {
			return phase{}, err
		}
	}
	cpu0 := redisCPU(rc.Info(ctx, "cpu").Val())
	if err := rc.ConfigResetStat(ctx).Err(); err != nil {
		return phase{}, err
	}
	fleetURL := ""
	if fleet {
		fleetURL = b.srv.URL()
	}
	var cmds []*exec.Cmd
	var outs []*strings.Builder
	for i := range procs {
		m, err := b.s.WriteRun(filepath.Join(b.dir, strings.ReplaceAll(name, " ", "_"), strconv.Itoa(i)), b.s.SimwebLinks(b.w))
		if err != nil {
			return phase{}, err
		}
		cmd := exec.Command(b.self, "-child", "-port", strconv.Itoa(b.w.Port()), "-manifest", m, "-fleet", fleetURL,
			"-host-interval", b.interval.String())
		out := &strings.Builder{}
		cmd.Stdout, cmd.Stderr = out, os.Stderr
		cmds, outs = append(cmds, cmd), append(outs, out)
	}
	start := time.Now()
	for _, c := range cmds {
		if err := c.Start(); err != nil {
			return phase{}, err
		}
	}
	ph := phase{name: name, procs: procs, digests: map[string]int{}}
	for i, c := range cmds {
		if err := c.Wait(); err != nil {
			return phase{}, fmt.Errorf("process %d: %w", i, err)
		}
		var r childResult
		if err := json.Unmarshal([]byte(outs[i].String()), &r); err != nil {
			return phase{}, fmt.Errorf("process %d said %q: %w", i, outs[i], err)
		}
		ph.digests[r.Digest]++
		ph.valid = max(ph.valid, r.Valid)
		ph.maxChild = max(ph.maxChild, time.Duration(r.WallNS))
		if r.Warned > 0 {
			return phase{}, fmt.Errorf("process %d warned (%d)", i, r.Warned)
		}
	}
	ph.wall = time.Since(start)
	for k := range b.s.Hosts {
		h := b.s.Host(k)
		ph.probes += b.w.Probes(h)
		ph.pages += b.w.Requests(h) // cited pages only: simweb counts probes apart
		ph.peak = max(ph.peak, b.w.PeakInFlight(h))
	}
	ph.redisCPU = redisCPU(rc.Info(ctx, "cpu").Val()) - cpu0
	stats := rc.Info(ctx, "commandstats").Val()
	ph.redisOps = commandCalls(stats)
	if os.Getenv("FLEETBENCH_STATS") != "" {
		fmt.Fprintln(os.Stderr, stats)
	}
	return ph, nil
}

// commandCalls sums calls= over INFO commandstats (scripts' inner calls
// included, as the server counts them).
func commandCalls(info string) int64 {
	var n int64
	for _, line := range strings.Split(info, "\n") {
		_, rest, ok := strings.Cut(line, "calls=")
		if !ok || strings.HasPrefix(line, "cmdstat_info") || strings.HasPrefix(line, "cmdstat_config") ||
			strings.HasPrefix(line, "cmdstat_flushall") {
			continue
		}
		v, _, _ := strings.Cut(rest, ",")
		c, _ := strconv.ParseInt(v, 10, 64)
		n += c
	}
	return n
}

func report(s scenario.Spec, interval time.Duration, phases []phase) {
	u := s.URLs()
	fmt.Printf("workload: %d URLs over %d hosts, %v answers, per process: concurrency %d, per-host %d, host interval %v (standard tier)\n",
		u, s.Hosts, s.Latency, s.Concurrency, s.PerHost, interval)
	fmt.Printf("%-26s %9s %12s %9s %8s %14s %9s %11s\n", "phase", "wall", "page reqs", "×unique", "probes", "peak/host", "verdicts", "redis ops")
	for _, p := range phases {
		same := "identical"
		if len(p.digests) != 1 {
			same = fmt.Sprintf("%d kinds", len(p.digests))
		}
		fmt.Printf("%-26s %8.2fs %12d %8.2f× %8d %9d (≤%d) %9s %11d\n", p.name, p.wall.Seconds(), p.pages,
			float64(p.pages)/float64(u), p.probes, p.peak, s.PerHost, same, p.redisOps)
	}
	last := phases[len(phases)-1]
	for d := range last.digests {
		_, same := phases[0].digests[d]
		fmt.Printf("fleet statuses the same as the lone process's: %v\n", same && len(last.digests) == 1)
	}
	fmt.Printf("fleet: %.2f Redis commands per unique URL, Redis CPU %.2fs (%.1f µs per command); wall %.2fs vs a lone process %.2fs\n",
		float64(last.redisOps)/float64(u), last.redisCPU, last.redisCPU*1e6/float64(max(last.redisOps, 1)), last.wall.Seconds(), phases[0].wall.Seconds())
}

// redisMemory reports what the shared cache holds per URL after the fleet
// phase.
func (b *bench) redisMemory() error {
	rc := b.srv.Client()
	defer rc.Close()
	ctx := context.Background()
	keys, err := rc.Keys(ctx, "citegate:v1:verdict:*").Result()
	if err != nil || len(keys) == 0 {
		return errors.Join(err, errors.New("no verdicts in Redis after the fleet phase"))
	}
	var total, value int64
	for _, k := range keys {
		total += rc.MemoryUsage(ctx, k).Val()
		value += rc.StrLen(ctx, k).Val()
	}
	fmt.Printf("redis: %d verdicts, MEMORY USAGE %.0f B per verdict on average (value %.0f B of JSON)\n",
		len(keys), float64(total)/float64(len(keys)), float64(value)/float64(len(keys)))
	return nil
}

// runChild runs one engine and prints its result.
func runChild(s scenario.Spec, port int, manifest, fleetURL string, interval time.Duration) error {
	e := engine.New()
	e.GuardOptions = s.GuardOptions(port)
	e.Net = engine.Network{Concurrency: s.Concurrency, PerHost: s.PerHost, HostInterval: interval, Fleet: fleetURL}
	ch := make(chan engine.Event, 256)
	warned := make(chan int)
	go func() {
		n := 0
		for ev := range ch {
			if ev.Kind == engine.EventWarning {
				fmt.Fprintln(os.Stderr, "warning:", ev.Detail)
				n++
			}
		}
		warned <- n
	}()
	start := time.Now()
	sum, err := e.Run(context.Background(), engine.RunArgs{ManifestPath: manifest}, ch)
	wall := time.Since(start)
	n := <-warned
	if err != nil {
		return err
	}
	digest, err := statusDigest(filepath.Dir(manifest))
	if err != nil {
		return err
	}
	return json.NewEncoder(os.Stdout).Encode(childResult{WallNS: int64(wall), Digest: digest, Valid: sum.Counts.Valid, Warned: n})
}

// statusDigest digests the run's citations.jsonl statuses: the sorted
// "normalized_url status" lines.
func statusDigest(dir string) (string, error) {
	var path string
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Name() == "citations.jsonl" {
			path = p
		}
		return err
	})
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var c struct {
			NormalizedURL string `json:"normalized_url"`
			Status        string `json:"status"`
		}
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			return "", err
		}
		lines = append(lines, c.NormalizedURL+" "+c.Status)
	}
	slices.Sort(lines)
	sum := sha256.Sum256([]byte(strings.Join(lines, "\n")))
	return hex.EncodeToString(sum[:8]), sc.Err()
}
