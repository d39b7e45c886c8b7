package engine

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/citegate/citegate/engine/fleet"
	"github.com/citegate/citegate/engine/ladder"
)

// fleetRun is one validation's use of the fleet's Redis (engine/fleet):
// the shared verdict cache (Network.CacheDir = redis://…), the shared
// per-host budget and single flight (Network.Fleet). One store serves both
// when they name the same Redis, so losing it is said once.
type fleetRun struct {
	cache, fleet *fleet.Store
	required     bool
	// cancel ends the run when a required store is lost.
	cancel context.CancelCauseFunc

	mu      sync.Mutex
	pending []string // warnings not yet emitted
	failed  error    // a required store's loss
}

// openFleet connects the stores the network configuration names; none in
// offline mode. A store that cannot be reached is a warning and local
// fallback, or the run's error with FleetRequired.
func (e *Engine) openFleet(ctx context.Context, cfg *citationConfig, cancel context.CancelCauseFunc) (*fleetRun, error) {
	n := e.Net
	fr := &fleetRun{required: n.FleetRequired, cancel: cancel}
	if cfg.mode == ModeOffline {
		return fr, nil
	}
	cacheURL := ""
	if fleet.IsRedisURL(n.CacheDir) {
		cacheURL = n.CacheDir
	} else if n.CacheDir == "" {
		cacheURL = n.Fleet // single flight reads the verdicts the fleet shares
	}
	var err error
	if n.Fleet != "" {
		if fr.fleet, err = fr.open(ctx, n.Fleet, map[bool]string{true: "cache and fleet", false: "fleet"}[cacheURL == n.Fleet]); err != nil {
			return nil, err
		}
		if fr.fleet != nil {
			fr.fleet.LeaseTTL = n.LeaseTTL
		}
	}
	switch cacheURL {
	case "":
	case n.Fleet:
		fr.cache = fr.fleet
	default:
		if fr.cache, err = fr.open(ctx, cacheURL, "cache"); err != nil {
			fr.close()
			return nil, err
		}
	}
	return fr, nil
}

// open connects one store; nil (and a warning) when it cannot be reached
// and is not required.
func (fr *fleetRun) open(ctx context.Context, raw, what string) (*fleet.Store, error) {
	addr, err := fleet.ParseAddr(raw)
	if err != nil {
		return nil, err
	}
	s, err := fleet.Open(ctx, addr, what, fr.warn)
	if err == nil {
		return s, nil
	}
	if fr.required {
		return nil, errors.New(err.Error() + " (--fleet-required)")
	}
	fr.warn(err.Error() + "; " + fleet.Fallback(what))
	return nil, nil
}

// warn records a store's loss: a warning, or with FleetRequired the end of
// the run.
func (fr *fleetRun) warn(msg string) {
	fr.mu.Lock()
	defer fr.mu.Unlock()
	if fr.required {
		if fr.failed == nil {
			fr.failed = errors.New(msg + " (--fleet-required)")
			fr.cancel(fr.failed)
		}
		return
	}
	fr.pending = append(fr.pending, msg)
}

// drain returns the warnings not emitted yet.
func (fr *fleetRun) drain() []string {
	fr.mu.Lock()
	defer fr.mu.Unlock()
	w := fr.pending
	fr.pending = nil
	return w
}

// err is a required store's loss, or nil.
func (fr *fleetRun) err() error {
	fr.mu.Lock()
	defer fr.mu.Unlock()
	return fr.failed
}

func (fr *fleetRun) close() {
	if fr.cache != fr.fleet {
		_ = fr.cache.Close()
	}
	_ = fr.fleet.Close()
}

// verdictCache is the run's cache: the shared one, else the directory.
func (e *Engine) verdictCache(ctx context.Context, fr *fleetRun, cfg *citationConfig) verdictCache {
	ttl := e.Net.withDefaults().CacheTTL
	switch {
	case fr.cache != nil:
		return &redisCache{s: fr.cache, ttl: ttl, now: e.Now, policy: policyDigest(cfg, e.Net.GuardPolicy), ctx: ctx}
	case e.Net.CacheDir == "" || fleet.IsRedisURL(e.Net.CacheDir):
		return nil
	}
	return &resultCache{dir: e.Net.CacheDir, ttl: ttl, now: e.Now}
}

// ladderFleet wires the fleet into the ladder's configuration: the shared
// host budget, and single flight when the verdicts are shared too.
func (fr *fleetRun) ladderFleet(lc *ladder.Config, cache verdictCache, tier string) {
	if fr.fleet == nil {
		return
	}
	lc.Fleet = fleet.NewHosts(fr.fleet, lc.PerHost, lc.HostInterval)
	lc.SharedProbes = sharedProbes{fr.fleet}
	if rc, ok := cache.(*redisCache); ok {
		lc.Flight = flight{lease: fr.fleet, cache: rc, tier: tier}
	}
}

// flight is single flight over the fleet's leases and the shared cache.
type flight struct {
	lease *fleet.Store
	cache *redisCache
	tier  string
}

// Claim waits while another process fetches the same URL under the same
// verdict context, then takes its verdict from the cache; on a miss (the
// other process was blocked, or died) this process fetches it. A URL that
// carried credentials is never cached, so it is never waited for.
func (f flight) Claim(ctx context.Context, it *ladder.Item) (ladder.Decision, string, bool, func()) {
	if it.Credentialed {
		return ladder.Decision{}, "", false, func() {}
	}
	vc := verdictContext(f.tier, it.Citation)
	h := f.cache.hash(it.URL, vc)
	for {
		if release := f.lease.Await(ctx, h); release != nil {
			// Another process may have cached the verdict between this
			// process's look at the cache and its taking the lease.
			if d, at, ok := f.cache.get(it.URL, vc); ok {
				release()
				return ladder.Decision{Verdict: d.Verdict, Rung: d.rung, Reached: true}, at, true, nil
			}
			return ladder.Decision{}, "", false, release
		}
		if d, at, ok := f.cache.get(it.URL, vc); ok {
			return ladder.Decision{Verdict: d.Verdict, Rung: d.rung, Reached: true}, at, true, nil
		}
	}
}

// probeTTL is how long a site probe's answer is shared: long enough for a
// batch of runs, short enough that a redesigned site is probed again.
const probeTTL = time.Hour

// sharedProbes shares site-probe answers on the fleet's store.
type sharedProbes struct{ s *fleet.Store }

func (p sharedProbes) Once(ctx context.Context, key string, run func() ([]byte, bool)) []byte {
	return p.s.Once(ctx, key, probeTTL, run)
}
