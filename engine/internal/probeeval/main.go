// Command probeeval measures citegate's site probe (issue 20) on emulated
// hosts: testdata/probesites/{dev,holdout}.json describe, per host, one
// documented routing behaviour (id routing with canonical redirects,
// slug-ignoring 200s, locale redirects, SPA shells, CDN walls, catch-all
// routes, and soft 404s of many kinds and languages) and the cited URLs,
// each labelled before citegate ran on it. probeeval serves every host on
// one address, has a real `citegate run` check a wave file citing them all,
// and scores the statuses against the labels.
//
// It must run as root inside a private network namespace, where it brings
// up lo, adds the address to it and serves port 80; citegate reaches each
// host through --resolve pins, with its default network policy:
//
//	bin=$(mktemp -d)/citegate && go build -o "$bin" . && go build -o /tmp/probeeval ./engine/internal/probeeval &&
//	  unshare -n /tmp/probeeval -bin "$bin" -set testdata/probesites/dev.json -tiers standard,thorough -out pe-out
//
// pe-out/report.md has, per split and tier, the statuses per behaviour and
// label, every real page called invalid with citegate's notes, every soft
// 404 missed, and the probe requests each host saw; pe-out/requests.jsonl
// logs every request. The exit status is non-zero only when something
// failed to run, never for a bad score.
//
// With -serve it only serves the hosts (on -addr, default 127.0.0.1:8080
// then) until interrupted, to look at them with curl -H 'Host: …'.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"time"
)

const defaultAddr = "93.184.216.34"

func main() {
	bin := flag.String("bin", "", "path to a built citegate binary (required unless -serve)")
	sets := flag.String("set", "testdata/probesites/dev.json", "comma-separated spec files (splits)")
	tiers := flag.String("tiers", "standard,thorough", "comma-separated tiers")
	out := flag.String("out", "probeeval-out", "output directory")
	addr := flag.String("addr", "", "address to serve on (default "+defaultAddr+":80; with -serve 127.0.0.1:8080)")
	seed := flag.Uint64("seed", 0, "seed of the pages' dynamic parts (0: random)")
	timeout := flag.Duration("timeout", 20*time.Minute, "limit for one citegate run")
	serveOnly := flag.Bool("serve", false, "only serve the hosts until interrupted")
	shared := flag.Bool("shared-netns", false, "run although the network namespace has interfaces other than lo (not recommended)")
	flag.Parse()

	specs, err := loadSpecs(*sets)
	if err != nil {
		fail(1, err)
	}
	if *serveOnly {
		if *addr == "" {
			*addr = "127.0.0.1:8080"
		}
		fail(1, serveForever(specs, *addr, *seed))
	}
	if *bin == "" {
		fail(2, "-bin is required")
	}
	if *addr == "" {
		*addr = defaultAddr + ":80"
	}
	cfg := runConfig{bin: *bin, out: *out, addr: *addr, tiers: splitList(*tiers), timeout: *timeout, seed: *seed, shared: *shared}
	if err := run(cfg, specs); err != nil {
		fail(1, err)
	}
}

func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

func loadSpecs(list string) ([]*Spec, error) {
	var specs []*Spec
	for _, p := range splitList(list) {
		s, err := loadSpec(p)
		if err != nil {
			return nil, err
		}
		specs = append(specs, s)
	}
	if len(specs) == 0 {
		return nil, errors.New("no spec file given")
	}
	return specs, nil
}

func fail(code int, v any) {
	fmt.Fprintln(os.Stderr, "probeeval:", v)
	os.Exit(code)
}

// serveForever serves the hosts on addr until SIGINT.
func serveForever(specs []*Spec, addr string, seed uint64) error {
	srv := newServer(specs, seed, os.Stdout)
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "probeeval: serving %d hosts on http://%s (send Host: headers); Ctrl-C stops\n", len(srv.hosts), ln.Addr())
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	go func() { <-ctx.Done(); _ = hs.Close() }()
	if err := hs.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// runConfig is one evaluation's settings.
type runConfig struct {
	bin, out, addr string
	tiers          []string
	timeout        time.Duration
	seed           uint64
	shared         bool
}

// run serves the hosts, runs citegate once per split and tier, and writes
// the report. Runs that fail are reported and make the result an error;
// scores never do.
func run(cfg runConfig, specs []*Spec) error {
	bin, err := filepath.Abs(cfg.bin)
	if err != nil {
		return err
	}
	cfg.bin = bin
	if err := os.MkdirAll(cfg.out, 0o755); err != nil {
		return err
	}
	host, _, err := net.SplitHostPort(cfg.addr)
	if err != nil {
		return err
	}
	if err := setupNetns(host, cfg.shared); err != nil {
		return err
	}
	logf, err := os.Create(filepath.Join(cfg.out, "requests.jsonl"))
	if err != nil {
		return err
	}
	defer logf.Close()
	srv := newServer(specs, cfg.seed, logf)
	ln, err := net.Listen("tcp", cfg.addr)
	if err != nil {
		return fmt.Errorf("listen %s: %w", cfg.addr, err)
	}
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = hs.Serve(ln) }()
	defer hs.Close()

	var results []*tierResult
	var errs []error
	for _, sp := range specs {
		for _, tier := range cfg.tiers {
			srv.setTag(sp.Split + "/" + tier)
			res, err := runTier(cfg, sp, tier, host)
			if err != nil {
				errs = append(errs, fmt.Errorf("%s/%s: %w", sp.Split, tier, err))
				fmt.Fprintf(os.Stderr, "probeeval: %s/%s: %v\n", sp.Split, tier, err)
			}
			if res != nil {
				results = append(results, res)
				fmt.Println(res.headline())
			}
		}
	}
	srv.setTag("")
	if err := writeReport(cfg.out, specs, results); err != nil {
		errs = append(errs, err)
	}
	fmt.Println("report:", filepath.Join(cfg.out, "report.md"))
	return errors.Join(errs...)
}
