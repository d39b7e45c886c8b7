// Command onlinebench runs issue 4's online benchmark scenario (the same
// one as engine's BenchmarkOnlineSimulatedWeb, from package scenario) as a
// program, to measure what a benchmark cannot: the peak RSS of one run.
//
// By default the parent process serves the simulated web and starts itself
// again as a child that runs Engine.Run once (online, standard tier) and
// reports its wall time and its own peak RSS (VmHWM from /proc/self/status
// at the end, cross-checked against the child's rusage ru_maxrss). The
// child holds citegate alone: the web's goroutines, pages and sockets are
// in the parent and not counted.
//
//	go run ./engine/internal/onlinebench              # 3 runs, one child each
//	go run ./engine/internal/onlinebench -inproc      # web and run in one process
//	go run ./engine/internal/onlinebench -serve -dir D  # only serve, for other clients
//
// -serve is for external clients (the citegate binary, linkinator; see
// .ci/bench-online): it serves the web, writes two run directories and the
// flags to reach the web, and serves until stdin closes or SIGTERM.
//
//   - D/simweb/manifest.json cites http://h000.bench.sim:PORT/a/0 …, the
//     names citegate reaches through --resolve pins (D/citegate-simweb.flags);
//   - D/ip/manifest.json cites the same 2,000 pages as
//     http://127.0.0.K:IPPORT/a/I (host k on 127.0.0.(k+2)), served by the
//     same handler with the Host header rewritten, for clients that resolve
//     names themselves (D/citegate-ip.flags);
//   - http://127.0.0.1:IPPORT/ (written to D/index.url) is an HTML page
//     linking those 2,000 URLs in citation order, for linkinator;
//   - http://127.0.0.1:IPPORT/stats reports what the IP-addressed front saw
//     since the last /stats?reset (requests by method, requests in flight:
//     maximum, overall and per host, and time-averaged between the first
//     arrival and the last response), so clients can be compared on what
//     they actually sent.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"html"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/citegate/citegate/engine"
	"github.com/citegate/citegate/engine/internal/onlinebench/scenario"
	"github.com/citegate/citegate/engine/simweb"
	"github.com/citegate/citegate/ui"
)

// result is what one measured run reports (the child prints it as JSON).
type result struct {
	WallNS   int64 `json:"wall_ns"`
	VmHWMKB  int64 `json:"vmhwm_kb"`
	MaxRSSKB int64 `json:"maxrss_kb,omitempty"` // from the parent's rusage of the child
	Valid    int   `json:"valid"`
	Unique   int   `json:"unique"`
}

func main() {
	var (
		runs     = flag.Int("runs", 3, "measured runs (one child process each)")
		inproc   = flag.Bool("inproc", false, "serve the web and run citegate in this process (RSS then includes the web)")
		events   = flag.Bool("events", false, "drain an events channel as the CLI's progress printer does (default: nil channel, as the benchmark)")
		serve    = flag.Bool("serve", false, "only serve the web for external clients; see -dir")
		dir      = flag.String("dir", "", "with -serve: where to write the run directories and flag files")
		child    = flag.Bool("child", false, "internal: run citegate once against -port and print the result")
		port     = flag.Int("port", 0, "internal: the simulated web's port (with -child)")
		manifest = flag.String("manifest", "", "internal: the run's manifest (with -child)")
	)
	flag.Parse()
	s := scenario.Issue4
	var err error
	switch {
	case *child:
		err = runChild(s, *port, *manifest, *events)
	case *serve:
		err = runServe(s, *dir)
	default:
		err = runParent(s, *runs, *inproc, *events)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "onlinebench:", err)
		os.Exit(1)
	}
}

// runParent serves the web and measures runs, each in a child process
// unless inproc.
func runParent(s scenario.Spec, runs int, inproc, events bool) error {
	w, err := simweb.Start(simweb.Options{Latency: s.Latency})
	if err != nil {
		return err
	}
	defer w.Close()
	s.AddHosts(w)
	dir, err := os.MkdirTemp("", "citegate-onlinebench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	manifest, err := s.WriteRun(dir, s.SimwebLinks(w))
	if err != nil {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	var results []result
	for i := range max(1, runs) {
		var r result
		if inproc {
			r, err = measure(s, w.Port(), manifest, events)
		} else {
			r, err = spawn(self, w.Port(), manifest, events)
		}
		if err != nil {
			return fmt.Errorf("run %d: %w", i+1, err)
		}
		if r.Valid != s.URLs() || r.Unique != s.URLs() {
			return fmt.Errorf("run %d: %d unique URLs, %d valid; want %d of each", i+1, r.Unique, r.Valid, s.URLs())
		}
		results = append(results, r)
		fmt.Printf("run %d: wall %.3f s (%.3f× ideal), peak RSS %.1f MB (VmHWM)%s\n", i+1,
			time.Duration(r.WallNS).Seconds(), float64(r.WallNS)/float64(s.Ideal()), float64(r.VmHWMKB)/1024, maxrssNote(r))
	}
	slices.SortFunc(results, func(a, b result) int { return int(a.WallNS - b.WallNS) })
	med := results[len(results)/2]
	peak := slices.MaxFunc(results, func(a, b result) int { return int(a.VmHWMKB - b.VmHWMKB) })
	where := "child process, citegate only"
	if inproc {
		where = "one process, web included"
	}
	fmt.Printf("scenario: %d URLs over %d hosts, %v latency, global %d, per-host %d, host interval 0; ideal %v\n",
		s.URLs(), s.Hosts, s.Latency, s.Concurrency, s.PerHost, s.Ideal())
	fmt.Printf("wall: median %.3f s over %d runs = %.3f× ideal (target ≤ 1.2×)\n",
		time.Duration(med.WallNS).Seconds(), len(results), float64(med.WallNS)/float64(s.Ideal()))
	fmt.Printf("peak RSS: %.1f MB (max VmHWM over runs, %s; target < 200 MB)\n", float64(peak.VmHWMKB)/1024, where)
	return nil
}

func maxrssNote(r result) string {
	if r.MaxRSSKB == 0 {
		return ""
	}
	return fmt.Sprintf(", ru_maxrss %.1f MB", float64(r.MaxRSSKB)/1024)
}

// spawn runs one measurement in a child process.
func spawn(self string, port int, manifest string, events bool) (result, error) {
	cmd := exec.Command(self, "-child", "-port", strconv.Itoa(port), "-manifest", manifest, "-events="+strconv.FormatBool(events))
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return result{}, err
	}
	var r result
	if err := json.Unmarshal(out, &r); err != nil {
		return result{}, fmt.Errorf("child said %q: %w", out, err)
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		r.MaxRSSKB = ru.Maxrss // kilobytes on Linux
	}
	return r, nil
}

// runChild measures one run and prints the result as JSON.
func runChild(s scenario.Spec, port int, manifest string, events bool) error {
	r, err := measure(s, port, manifest, events)
	if err != nil {
		return err
	}
	return json.NewEncoder(os.Stdout).Encode(r)
}

// measure runs Engine.Run once against the web on port, the way
// BenchmarkOnlineSimulatedWeb does, and reads this process's peak RSS.
func measure(s scenario.Spec, port int, manifest string, events bool) (result, error) {
	e := engine.New()
	e.BoundHeap = ui.BoundHeap // as citegate does: the RSS measured is the command's
	e.GuardOptions = s.GuardOptions(port)
	e.Net = engine.Network{Concurrency: s.Concurrency, PerHost: s.PerHost, HostInterval: 0}
	var ch chan engine.Event
	drained := make(chan struct{})
	if events {
		ch = make(chan engine.Event, 256)
		go func() {
			defer close(drained)
			for range ch {
			}
		}()
	} else {
		close(drained)
	}
	start := time.Now()
	sum, err := e.Run(context.Background(), engine.RunArgs{ManifestPath: manifest}, ch)
	wall := time.Since(start)
	<-drained
	if err != nil {
		return result{}, err
	}
	hwm, err := vmHWM()
	if err != nil {
		return result{}, err
	}
	return result{WallNS: int64(wall), VmHWMKB: hwm, Valid: sum.Counts.Valid, Unique: sum.UniqueNormalized}, nil
}

// vmHWM is the process's peak resident set size in kB.
func vmHWM() (int64, error) {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			return strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
		}
	}
	return 0, errors.New("no VmHWM in /proc/self/status")
}

// runServe serves the web for external clients until stdin closes or a
// signal arrives.
func runServe(s scenario.Spec, dir string) error {
	if dir == "" {
		return errors.New("-serve needs -dir")
	}
	w, err := simweb.Start(simweb.Options{Latency: s.Latency})
	if err != nil {
		return err
	}
	defer w.Close()
	s.AddHosts(w)

	// The IP-addressed front: host k on 127.0.0.(k+2), all on one port,
	// answering through the same simweb handler with Host rewritten.
	lns, ipPort, err := listenIPs(s.Hosts)
	if err != nil {
		return err
	}
	ipLink := func(k int, path string) string { return fmt.Sprintf("http://%s:%d%s", ipOf(k), ipPort, path) }
	ipLinks := s.Links(ipLink)
	index := indexPage(ipLinks)
	st := newStats()
	front := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		host, _, _ := net.SplitHostPort(r.Host)
		if host == "127.0.0.1" {
			switch r.URL.Path {
			case "/":
				rw.Header().Set("Content-Type", "text/html; charset=utf-8")
				_, _ = rw.Write(index)
			case "/stats":
				st.report(rw, r.URL.Query().Has("reset"))
			default:
				http.NotFound(rw, r)
			}
			return
		}
		k, ok := hostIndex(host, s.Hosts)
		if !ok {
			http.Error(rw, "onlinebench: unknown host", http.StatusMisdirectedRequest)
			return
		}
		r.Host = s.Host(k)
		st.enter(r.Method, host)
		defer st.leave(host)
		w.ServeHTTP(rw, r)
	})}
	for _, ln := range lns {
		go func() { _ = front.Serve(ln) }()
	}
	defer front.Close()

	simRun, err := s.WriteRun(filepath.Join(dir, "simweb"), s.SimwebLinks(w))
	if err != nil {
		return err
	}
	ipRun, err := s.WriteRun(filepath.Join(dir, "ip"), ipLinks)
	if err != nil {
		return err
	}
	limits := strings.Join(s.LimitFlags(), " ")
	files := map[string]string{
		"citegate-simweb.flags": limits + " " + strings.Join(s.ResolveFlags(w.Port()), " ") + "\n",
		"citegate-ip.flags":     fmt.Sprintf("%s --allow-cidr 127.0.0.0/24 --allow-port %d\n", limits, ipPort),
		"index.url":             fmt.Sprintf("http://127.0.0.1:%d/\n", ipPort),
		"ideal.s":               fmt.Sprintf("%.3f\n", s.Ideal().Seconds()),
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			return err
		}
	}
	fmt.Printf("ready simweb_port=%d ip_port=%d simweb_manifest=%s ip_manifest=%s\n", w.Port(), ipPort, simRun, ipRun)

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		_, _ = bufio.NewReader(os.Stdin).ReadString(0) // returns at EOF
		stop()
	}()
	<-ctx.Done()
	return nil
}

// ipOf is host k's address on the IP-addressed front.
func ipOf(k int) string { return fmt.Sprintf("127.0.0.%d", k+2) }

// hostIndex maps an address of the IP-addressed front back to k.
func hostIndex(host string, hosts int) (int, bool) {
	last, ok := strings.CutPrefix(host, "127.0.0.")
	n, err := strconv.Atoi(last)
	if !ok || err != nil || n < 2 || n-2 >= hosts {
		return 0, false
	}
	return n - 2, true
}

// listenIPs listens on 127.0.0.1 and on 127.0.0.2 … 127.0.0.(hosts+1), all
// on one free port (Linux routes the whole of 127.0.0.0/8 to lo).
func listenIPs(hosts int) ([]net.Listener, int, error) {
	if hosts > 253 {
		return nil, 0, errors.New("at most 253 hosts fit in 127.0.0.2-254")
	}
	for try := 0; try < 20; try++ {
		first, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, 0, err
		}
		addr, ok := first.Addr().(*net.TCPAddr)
		if !ok {
			_ = first.Close()
			return nil, 0, fmt.Errorf("listener on %s is not TCP", first.Addr())
		}
		port := addr.Port
		lns := []net.Listener{first}
		for k := range hosts {
			ln, err := net.Listen("tcp", net.JoinHostPort(ipOf(k), strconv.Itoa(port)))
			if err != nil {
				break
			}
			lns = append(lns, ln)
		}
		if len(lns) == hosts+1 {
			return lns, port, nil
		}
		for _, ln := range lns {
			_ = ln.Close()
		}
	}
	return nil, 0, errors.New("cannot bind 127.0.0.2… on one port (is 127.0.0.0/8 routed to lo?)")
}

// indexPage is an HTML page linking every URL once, with its title.
func indexPage(links []scenario.Link) []byte {
	var b strings.Builder
	b.WriteString("<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>onlinebench index</title></head><body>\n<ul>\n")
	for _, l := range links {
		fmt.Fprintf(&b, "<li><a href=\"%s\">%s</a></li>\n", html.EscapeString(l.URL), html.EscapeString(l.Text))
	}
	b.WriteString("</ul>\n</body></html>\n")
	return []byte(b.String())
}

// stats watches the IP-addressed front.
type stats struct {
	mu          sync.Mutex
	methods     map[string]int
	n, max      int
	host        map[string]int
	maxHost     int
	first, last time.Time
	mark        time.Time
	area        time.Duration // ∫ in-flight dt
}

func newStats() *stats { return &stats{methods: map[string]int{}, host: map[string]int{}} }

// step moves the in-flight count by d (under mu).
func (s *stats) step(host string, d int) {
	now := time.Now()
	if !s.mark.IsZero() {
		s.area += time.Duration(s.n) * now.Sub(s.mark)
	}
	s.mark = now
	s.n += d
	s.host[host] += d
	s.max, s.maxHost = max(s.max, s.n), max(s.maxHost, s.host[host])
	if d > 0 && s.first.IsZero() {
		s.first = now
	}
	if d < 0 {
		s.last = now
	}
}

func (s *stats) enter(method, host string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.methods[method]++
	s.step(host, +1)
}

func (s *stats) leave(host string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.step(host, -1)
}

func (s *stats) report(rw http.ResponseWriter, reset bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	span := s.last.Sub(s.first)
	mean := 0.0
	if span > 0 {
		mean = float64(s.area) / float64(span)
	}
	rw.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(rw).Encode(map[string]any{"requests": s.methods, "inflight_max": s.max,
		"inflight_mean": mean, "perhost_max": s.maxHost, "span_s": span.Seconds()})
	if reset {
		s.methods, s.host = map[string]int{}, map[string]int{}
		s.n, s.max, s.maxHost, s.area = 0, 0, 0, 0
		s.first, s.last, s.mark = time.Time{}, time.Time{}, time.Time{}
	}
}
