// Command dnseval is issue 22's end-to-end DNS evaluation: a real
// `citegate run` checks 200 cited hosts twice, once against a clean name
// server and once against one that loses a share of the queries (20%) and
// delays the others (up to 1.5 s), and every status must come out the
// same. Both servers are internal/dnstest on 127.0.0.1:53, reached the way
// any Go program reaches its resolver (/etc/resolv.conf); the hosts are
// served by one HTTP server on 93.184.216.34:80, and citegate runs with its
// default network policy and no --resolve pin.
//
// hNNN.example.com answers 93.184.216.34, except NNN%10 == 7, which does
// not exist (NXDOMAIN: invalid), and NNN%10 == 8, which exists with no
// address (NODATA: blocked, "DNS: no address for the name").
//
// It must run as root inside private network and mount namespaces, where
// it brings up lo, adds the address to it and bind-mounts its own
// resolv.conf over /etc/resolv.conf (.ci/dns-eval does all of it):
//
//	bin=$(mktemp -d)/citegate && go build -o "$bin" . && go build -o /tmp/dnseval ./engine/internal/dnseval &&
//	  unshare -n -m /tmp/dnseval -bin "$bin" -out dnseval-out
//
// dnseval-out/report.md has the statuses of both runs, every difference,
// the DNS queries per host and the wall time of each run. The exit status
// is 3 when a status differs, 1 when something failed to run.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/citegate/citegate/engine/ladder"

	"github.com/citegate/citegate/netguard/nettest/dnstest"
)

const serveAddr = "93.184.216.34"

type config struct {
	bin, out, tier string
	hosts          int
	loss           float64
	delay, timeout time.Duration
	seed           uint64
}

func main() {
	var c config
	flag.StringVar(&c.bin, "bin", "", "path to a built citegate binary (required)")
	flag.StringVar(&c.out, "out", "dnseval-out", "output directory")
	flag.StringVar(&c.tier, "tier", "standard", "validation tier")
	flag.IntVar(&c.hosts, "hosts", 200, "cited hosts")
	flag.Float64Var(&c.loss, "loss", 0.2, "share of DNS queries lost")
	flag.DurationVar(&c.delay, "delay", 1500*time.Millisecond, "longest delay of an answer")
	flag.Uint64Var(&c.seed, "seed", 22, "seed of which queries are lost and how long answers wait")
	flag.DurationVar(&c.timeout, "timeout", 10*time.Minute, "limit for one citegate run")
	flag.Parse()
	if c.bin == "" {
		fail(2, errors.New("-bin is required"))
	}
	differ, err := run(c)
	if err != nil {
		fail(1, err)
	}
	if differ {
		os.Exit(3)
	}
}

func fail(code int, err error) {
	fmt.Fprintln(os.Stderr, "dnseval:", err)
	os.Exit(code)
}

func run(c config) (bool, error) {
	out, err := filepath.Abs(c.out)
	if err != nil {
		return false, err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return false, err
	}
	if err := setupNamespace(out); err != nil {
		return false, err
	}
	stopWeb, err := serveWeb()
	if err != nil {
		return false, err
	}
	defer stopWeb()
	names := hostNames(c.hosts)
	clean, err := pass(c, out, "clean", &dnstest.Server{})
	if err != nil {
		return false, err
	}
	lossy, err := pass(c, out, "lossy", &dnstest.Server{Loss: c.loss, MaxDelay: c.delay, Seed: c.seed})
	if err != nil {
		return false, err
	}
	report, differ := render(c, names, clean, lossy)
	if err := os.WriteFile(filepath.Join(out, "report.md"), []byte(report), 0o644); err != nil {
		return false, err
	}
	fmt.Print(report)
	return differ, nil
}

func hostNames(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("h%03d.example.com", i)
	}
	return out
}

// zone is the name server's table for names.
func zone(names []string) map[string]dnstest.Host {
	addr := netip.MustParseAddr(serveAddr)
	z := map[string]dnstest.Host{}
	for i, n := range names {
		switch i % 10 {
		case 7: // not in the zone: NXDOMAIN
		case 8:
			z[n] = dnstest.Host{}
		default:
			z[n] = dnstest.Host{A: []netip.Addr{addr}}
		}
	}
	// The names citegate checks its resolver with before it trusts an
	// NXDOMAIN exist in this world as they do on the internet.
	for _, c := range ladder.DefaultDNSCanaries {
		z[c] = dnstest.Host{A: []netip.Addr{addr}}
	}
	return z
}

// passResult is one citegate run.
type passResult struct {
	status, notes map[string]string // by host
	queries       map[string]int
	total, lost   int
	wall          time.Duration
	exit          int
}

// pass serves DNS with srv on 127.0.0.1:53 and runs citegate once.
func pass(c config, out, name string, srv *dnstest.Server) (*passResult, error) {
	names := hostNames(c.hosts)
	srv.Hosts, srv.TTL = zone(names), 300
	pc, err := net.ListenPacket("udp", "127.0.0.1:53")
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = srv.Serve(ctx, pc) }()
	defer func() { cancel(); <-done }()
	res, err := runCitegate(c, filepath.Join(out, name), names)
	if err != nil {
		return nil, err
	}
	res.queries = map[string]int{}
	for _, n := range names {
		res.queries[n] = srv.Queries(n)
	}
	res.total, res.lost = srv.Totals()
	return res, nil
}

// serveWeb serves every host's /article on serveAddr:80; other paths are
// 404, so the site probe sees real missing pages.
func serveWeb() (func(), error) {
	ln, err := net.Listen("tcp", serveAddr+":80")
	if err != nil {
		return nil, err
	}
	srv := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/article" {
			http.NotFound(w, r)
			return
		}
		host, _, _ := strings.Cut(r.Host, ":")
		fmt.Fprintf(w, "<!doctype html><html><head><title>Field notes from %s</title></head><body><h1>Field notes from %s</h1><p>%s</p></body></html>",
			host, host, strings.Repeat("A long report on rivers, sediment and the seasons. ", 40))
	})}
	go func() { _ = srv.Serve(ln) }()
	return func() { _ = srv.Close() }, nil
}

// setupNamespace brings lo up with serveAddr on it and points
// /etc/resolv.conf at 127.0.0.1, refusing to do either outside private
// network and mount namespaces.
func setupNamespace(out string) error {
	if err := checkPrivate(); err != nil {
		return err
	}
	for _, args := range [][]string{{"link", "set", "lo", "up"}, {"addr", "add", serveAddr + "/32", "dev", "lo"}} {
		if b, err := command("ip", args...); err != nil && !strings.Contains(b, "File exists") {
			return fmt.Errorf("ip %s: %w: %s", strings.Join(args, " "), err, b)
		}
	}
	conf := filepath.Join(out, "resolv.conf")
	if err := os.WriteFile(conf, []byte("nameserver 127.0.0.1\n"), 0o644); err != nil {
		return err
	}
	if err := syscall.Mount(conf, "/etc/resolv.conf", "", syscall.MS_BIND, ""); err != nil {
		return fmt.Errorf("bind-mount resolv.conf: %w", err)
	}
	return nil
}

// checkPrivate refuses a namespace shared with the machine: the address is
// a public one, and the resolv.conf mount would redirect every program's
// DNS.
func checkPrivate() error {
	raw, err := os.ReadFile("/proc/net/dev")
	if err != nil {
		return err
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if name, _, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(name) != "lo" {
			return fmt.Errorf("this network namespace has interface %s besides lo: run under `unshare -n -m` as root", strings.TrimSpace(name))
		}
	}
	// unshare execs this program, so its parent is the shell outside.
	self, err1 := os.Readlink("/proc/self/ns/mnt")
	parent, err2 := os.Readlink(fmt.Sprintf("/proc/%d/ns/mnt", os.Getppid()))
	if err1 != nil || err2 != nil || self == parent {
		return errors.New("not in a private mount namespace: run under `unshare -n -m` as root")
	}
	return nil
}
