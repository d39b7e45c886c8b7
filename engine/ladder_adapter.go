package engine

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"github.com/citegate/citegate/engine/classify"
	"github.com/citegate/citegate/engine/ladder"
	"github.com/citegate/citegate/engine/registry"
	"github.com/citegate/citegate/netguard"
)

// The engine's adapter to engine/ladder: the Network options a caller sets,
// their defaults, and the Ladder built from a run's configuration and guard.

// Network configures live validation: where credentials come from, the
// provider APIs, politeness and the result cache. Zero fields take the
// defaults below.
type Network struct {
	// Getenv reads BRIGHTDATA_API_KEY, BRIGHTDATA_UNLOCKER_ZONE and
	// APIFY_TOKEN; credentials come only from the environment.
	Getenv func(string) string
	// BrightDataURL and ApifyURL are the provider API base URLs.
	BrightDataURL, ApifyURL string
	// Concurrency bounds URLs in flight; PerHost bounds requests in flight
	// to one host, and HostInterval spaces their starts.
	Concurrency  int
	PerHost      int
	HostInterval time.Duration
	// PerAddress bounds requests in flight to one server address, whatever
	// host names lead there; 0 takes DefaultPerAddress, < 0 means no limit.
	PerAddress int
	// MaxRetryWait caps a Retry-After the ladder will honour.
	MaxRetryWait time.Duration
	// CacheDir enables the result cache: a directory, or a redis:// or
	// rediss:// address shared by a fleet of processes (engine/fleet).
	// CacheTTL is how long a valid, paywalled or mismatch entry lives (an
	// invalid one at most a day; see ttlFor).
	CacheDir string
	CacheTTL time.Duration
	// Fleet, a redis:// or rediss:// address, shares the per-host limits
	// and single flight with every process naming the same Redis (and, with
	// no CacheDir, the verdict cache too). Without FleetRequired an
	// unreachable or lost Redis is a warning and local limits; with it, an
	// error. LeaseTTL overrides fleet.DefaultLeaseTTL (tests). These come
	// from the operator's flags only, never from an MCP client or a
	// document.
	Fleet         string
	FleetRequired bool
	LeaseTTL      time.Duration
	// DNSCanaries are the names resolved before an NXDOMAIN counts as
	// evidence (engine/ladder/dnscanary.go); nil is
	// ladder.DefaultDNSCanaries, an empty non-nil list turns the check off
	// (tests whose resolvers know only their own names).
	DNSCanaries []string
	// GuardPolicy describes the operator's network controls (--allow-cidr,
	// --allow-port, --domain-allowlist, --resolve) in one canonical string.
	// They can change a verdict (an allowlist refuses a redirect, a pin
	// reaches another server), so the shared cache's keys cover it and runs
	// with different controls never share a verdict.
	GuardPolicy string
	// DOIResolver is where verify resolves DOIs; default https://doi.org.
	DOIResolver string
	// Registries are the registry API base URLs; empty ones come from
	// CITEGATE_*_BASE (through Getenv), then the public registries.
	// Contact is the operator's e-mail for Crossref's polite pool
	// (default CITEGATE_CONTACT_EMAIL). NoRegistry turns the registry
	// rung off.
	Registries registry.Bases
	Contact    string
	NoRegistry bool
}

// Defaults chosen by measurement (issue 13, BenchmarkOnlineDefaults and
// .ci/bench-online, 2,000 URLs over 200 hosts answering in 100 ms, two
// cores): 192 in flight, 10 per host, 32 per server address, starts to one
// host at least 50 ms apart — so against 100 ms answers no site sees more
// than two or three requests at once, twenty a second — and adaptive
// per-host backoff (engine/ladder/hosts.go): a 429, a 503 or an exhausted
// rate-limit header pauses that host (Retry-After honoured up to
// MaxRetryWait) and doubles its spacing, and a run of ordinary answers
// speeds it back up.
//
// In flight, measured with dispatch that skips hosts still inside their
// interval: 128 took 1.99 s (1.11× its ideal schedule), 192 1.42–1.45 s
// (1.19–1.21×), 224 1.29 s (1.30×), 256 1.18 s (1.31×); linkinator 8 at its
// defaults takes 3.0–3.1 s there. 192 is the largest within 1.25× of its
// own ideal. Per address: without it, 192 in flight overran the realpages-dev
// harness (197 sites behind one Python server with a listen backlog of 5;
// 5 pages lost to connect timeouts); with 32 every page is read and the run
// takes 2.3 s instead of 11.7 s at 128 without the limit.
const (
	DefaultConcurrency  = 192
	DefaultPerHost      = 10
	DefaultPerAddress   = 32
	DefaultHostInterval = 50 * time.Millisecond
	DefaultMaxRetryWait = 30 * time.Second
	DefaultCacheTTL     = 7 * 24 * time.Hour
)

func (n Network) withDefaults() Network {
	if n.Concurrency <= 0 {
		n.Concurrency = DefaultConcurrency
	}
	if n.PerHost <= 0 {
		n.PerHost = DefaultPerHost
	}
	if n.PerAddress == 0 {
		n.PerAddress = DefaultPerAddress
	}
	if n.HostInterval < 0 {
		n.HostInterval = 0
	}
	if n.MaxRetryWait <= 0 {
		n.MaxRetryWait = DefaultMaxRetryWait
	}
	if n.CacheTTL <= 0 {
		n.CacheTTL = DefaultCacheTTL
	}
	if n.DNSCanaries == nil {
		n.DNSCanaries = ladder.DefaultDNSCanaries
	}
	return n
}

// RungProbe names the site probe in events.
const RungProbe = ladder.RungProbe

// newLadder builds the live ladder for a run: the policy, politeness and
// provider configuration, and its progress reported as events through emit.
func (e *Engine) newLadder(run *RunDir, cfg *citationConfig, guard *netguard.Guard, fr *fleetRun, cache verdictCache,
	emit func(Event) error) *ladder.Ladder {
	n := e.Net.withDefaults()
	p := cfg.policy
	lc := ladder.Config{
		Guard: guard, Tier: classify.Tier(cfg.tier), DirectAttempts: p.DirectFetchMaxAttempts,
		Backoff:         ladder.Backoff{InitialMS: p.BackoffInitialMS, Multiplier: p.BackoffMultiplier, MaxMS: p.BackoffMaxMS},
		EndpointTimeout: time.Duration(p.EndpointTimeoutMS) * time.Millisecond,
		Concurrency:     n.Concurrency, PerHost: n.PerHost, HostInterval: n.HostInterval, MaxRetryWait: n.MaxRetryWait,
		PerAddress: n.PerAddress, DNSCanaries: n.DNSCanaries,
		Providers: ladder.ProviderConfig{Getenv: n.Getenv, BrightDataURL: n.BrightDataURL, ApifyURL: n.ApifyURL,
			BrightDataEndpoint: cfg.endpoints.BrightData, ApifyEndpoint: cfg.endpoints.Apify,
			BrightDataAttempts: p.BrightDataMaxAttempts, ApifyAttempts: p.ApifyMaxAttempts},
		Report: func(pr ladder.Progress) error { return emit(progressEvent(pr)) },
		Now:    e.Now,
	}
	if strings.TrimSpace(run.Manifest.Query.Sensitivity) == "restricted" {
		lc.NoThirdParty = "restricted sensitivity: direct fetch only"
	} else if !n.NoRegistry {
		// A registry is a third party too: a restricted run asks none.
		lc.Registry = e.registryConfig(cfg.policy, n)
	}
	fr.ladderFleet(&lc, cache, cfg.tier)
	return ladder.New(lc)
}

// progressEvent is a ladder report as an event of the run's stream.
func progressEvent(p ladder.Progress) Event {
	kind := map[ladder.ProgressKind]EventKind{ladder.Attempt: EventAttempt, ladder.AttemptDone: EventAttemptDone,
		ladder.RetryWait: EventRetryWait}[p.Kind]
	return Event{Kind: kind, Index: p.Item.Index, URL: p.Item.URL, CID: p.Item.CID, Rung: p.Rung, Attempt: p.Attempt,
		Wait: p.Wait, Detail: p.Detail, Elapsed: p.Elapsed, HTTPStatus: p.HTTPStatus, Proto: p.Proto}
}

// registryConfig is the registry rung's configuration: base URLs and
// contact from the Network or the environment, and a guard of its own
// whose User-Agent carries the contact (Crossref's polite pool asks for a
// mailto there) and which trusts the operator's own bases (a mirror on
// loopback or a private address, any port) — that guard fetches registry
// URLs only, so no cited URL can reach them.
func (e *Engine) registryConfig(p LadderPolicy, n Network) *ladder.RegistryConfig {
	getenv := n.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	contact := cmp.Or(strings.TrimSpace(n.Contact), strings.TrimSpace(getenv(registry.EnvContact)))
	ua := netguard.DefaultUserAgent
	if contact != "" && !strings.ContainsAny(contact, "\r\n()") {
		ua = strings.TrimSuffix(ua, ")") + "; mailto:" + contact + ")"
	}
	bases := registry.BasesFromEnv(n.Registries, getenv)
	opts := append(slices.Clone(e.GuardOptions), netguard.WithLimits(p.fetchLimits()), netguard.ShareLookups(0),
		netguard.WithUserAgent(ua), netguard.TrustEndpoints(bases.Operator()...))
	return &ladder.RegistryConfig{Guard: netguard.New(opts...), Bases: bases, Contact: contact}
}
