package ladder

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/citegate/citegate/engine/classify"
	"github.com/citegate/citegate/engine/record"
	"github.com/citegate/citegate/engine/registry"
	"github.com/citegate/citegate/netguard"
	"github.com/citegate/citegate/parse"
)

// Item is one URL the ladder must check.
type Item struct {
	// Index is the URL's position in the engine's work list.
	Index int
	// URL is the normalized URL (redacted), CID its cid.
	URL, CID string
	// Fetch is the URL the direct rung requests: the original as the wave
	// wrote it, secrets included, held in memory only.
	Fetch string
	// Credentialed marks a URL that carried credentials: it is never sent
	// to a third party.
	Credentialed bool
	// Citation is how the wave cited the URL (the classifier's mismatch
	// rule and soft-404 guard read it).
	Citation classify.Citation
	// Scholar is the DOI, arXiv, PubMed or PMC id the citation carries
	// (registry.Recognize; zero when none): the registry rung checks it.
	Scholar registry.ID
	// reach is what the direct attempts came to on the network.
	reach reach
}

// Decision is how the ladder settled an item.
type Decision struct {
	record.Verdict
	// Rung names what decided: direct_fetch, bright_data, apify, or ladder
	// (every rung failed: blocked).
	Rung string
	// Redirects are the redacted hops before the final URL of the direct
	// fetch.
	Redirects []string
	// Reached marks an item a server answered (a direct fetch, DNS with
	// NXDOMAIN, or a provider); Unreached one whose direct fetches were
	// sent and all failed before any server answered (DNS or connect;
	// netguard.Unreached) and that no provider settled. An item refused
	// before any request is neither. A run whose live items include
	// unreached ones and no reached one had no network.
	Reached, Unreached bool
	// RegistryRequests counts the registry requests this item took (a
	// batch request counts for the first item of its batch).
	RegistryRequests int
}

// Config is everything the ladder needs from the engine.
type Config struct {
	Guard *netguard.Guard
	Tier  classify.Tier
	// DNSCanaries are names that exist on the public internet, resolved
	// once per run before an NXDOMAIN counts as evidence (dnscanary.go);
	// none (tests with their own resolvers) makes every NXDOMAIN count.
	DNSCanaries []string
	// DirectAttempts and Backoff are the policy's direct_fetch_max_attempts
	// and backoff_* keys; EndpointTimeout bounds one provider call.
	DirectAttempts  int
	Backoff         Backoff
	EndpointTimeout time.Duration
	// Concurrency bounds URLs in flight; PerHost requests in flight to one
	// host, and HostInterval spaces their starts. MaxRetryWait caps a
	// Retry-After the ladder will honour.
	Concurrency int
	PerHost     int
	// PerAddress bounds requests in flight to one server address, whatever
	// host names lead there (addrs.go); ≤ 0 means no such limit.
	PerAddress   int
	HostInterval time.Duration
	MaxRetryWait time.Duration
	// NoThirdParty, when not "", is why no URL may go to a provider (a
	// restricted run).
	NoThirdParty string
	Providers    ProviderConfig
	// Registry turns the registry rung on; nil leaves it off.
	Registry *RegistryConfig
	// Fleet and Flight, when set, share the per-host budget and single
	// flight with other processes (fleet.go).
	Fleet        FleetGate
	Flight       SingleFlight
	SharedProbes SharedProbes
	// Report receives the progress of every item; an error stops that item.
	Report func(Progress) error
	// Now stamps checked_at.
	Now func() time.Time
}

// Ladder runs the direct → Bright Data → Apify escalation.
type Ladder struct {
	cfg    Config
	gate   *hostGate
	addrs  *addrGate
	rungs  []rungProvider
	probes siteProbes
	// reg is the registry rung's client (nil: off); batched holds the
	// batch APIs' answers, written by prefetch before any worker starts.
	reg     *registry.Client
	batched map[registry.ID]registry.Answer
	// canary is the run's check that its resolver tells real names from
	// missing ones.
	canary *dnsCanary
	// warnings are provider configurations that can never work, found when
	// the ladder is built.
	warnings []string
}

// New builds a ladder; its providers come from cfg.Providers.
func New(cfg Config) *Ladder {
	l := &Ladder{cfg: cfg, gate: newHostGate(cfg.PerHost, cfg.HostInterval)}
	if cfg.Guard != nil {
		l.addrs = newAddrGate(cfg.PerAddress, cfg.Guard.Address)
	}
	l.rungs, l.warnings = buildRungs(cfg.Providers, &http.Client{Transport: cfg.Guard.Transport()})
	l.reg = l.newRegistry()
	return l
}

// Warnings are the provider configurations that can never work (said once,
// before any URL is checked); such a rung is skipped with the same reason.
func (l *Ladder) Warnings() []string { return l.warnings }

// attemptLog renders the reference's blocked trail: step=outcome(detail).
type attemptLog []string

func (a *attemptLog) add(step, outcome, detail string) {
	*a = append(*a, fmt.Sprintf("%s=%s(%s)", step, outcome, detail))
}

// check runs the registry rung, then, at the thorough tier or when no
// registry decided, the ladder for one URL.
func (l *Ladder) check(ctx context.Context, it *Item) Decision {
	reg, note, n := l.registryRung(ctx, it)
	if reg != nil && (l.cfg.Tier != classify.Thorough || reg.Status != record.StatusValid) {
		return *reg
	}
	d := withRegistry(reg, note, l.escalate(ctx, it))
	d.RegistryRequests = n
	return d
}

// escalate runs the direct → providers ladder for one URL.
func (l *Ladder) escalate(ctx context.Context, it *Item) Decision {
	var log attemptLog
	d, ok, lastStatus := l.direct(ctx, it, &log)
	if ok {
		d.Reached = it.reach.reached
		return d
	}
	for _, r := range l.rungs {
		switch {
		case ctx.Err() != nil:
			log.add(r.name, "skipped", "cancelled")
		case l.cfg.NoThirdParty != "":
			log.add(r.name, "skipped", l.cfg.NoThirdParty)
		case it.Credentialed:
			log.add(r.name, "skipped", "URL carried credentials; never sent to a third party")
		case r.skip != "":
			log.add(r.name, "skipped", r.skip)
		default:
			if d, ok := l.provider(ctx, it, r, &log); ok {
				d.Reached = true
				return d
			}
		}
	}
	blocked := Decision{Verdict: record.Verdict{Status: record.StatusBlocked, Notes: "online ladder blocked: " + strings.Join(log, "; "),
		URL: it.URL}, Rung: "ladder", Reached: it.reach.reached, Unreached: it.reach.unreached()}
	if lastStatus != 0 {
		// The record keeps what the site itself answered last.
		blocked.HTTPStatus = &lastStatus
	}
	return blocked
}

// fromVerdict turns a classifier verdict into a decision.
func fromVerdict(v classify.Verdict, rung, finalURL string) Decision {
	st := map[classify.Outcome]record.Status{classify.Valid: record.StatusValid, classify.Paywalled: record.StatusPaywalled,
		classify.Invalid: record.StatusInvalid, classify.Mismatch: record.StatusMismatch}[v.Outcome]
	notes := "online ladder: " + rung
	if v.Reason != "" {
		notes += "; " + v.Reason
	}
	d := Decision{Verdict: record.Verdict{Status: st, Notes: notes, URL: finalURL, Title: v.Title, Publisher: v.Publisher,
		EvidenceSnippet: v.Snippet}, Rung: rung}
	if v.HTTPStatus != 0 {
		code := v.HTTPStatus
		d.HTTPStatus = &code
	}
	return d
}

// hostOf returns the host of a URL for the politeness gate.
func hostOf(raw string) string {
	if c, err := parse.Canonical(raw); err == nil {
		raw = c
	}
	rest := raw[strings.Index(raw, "://")+3:]
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		rest = rest[:i]
	}
	if i := strings.LastIndexByte(rest, '@'); i >= 0 {
		rest = rest[i+1:]
	}
	return rest
}

// Run checks the items with a bounded worker pool; done is called (from the
// workers, concurrently) as each item is settled, with its checked_at.
func (l *Ladder) Run(ctx context.Context, items []Item, done func(*Item, Decision, string)) {
	// Host-aware dispatch: a worker only takes a URL whose host is below
	// PerHost and whose next start time (interval, pause, adaptive backoff)
	// has come, so no worker (global slot) ever sleeps in the host gate while
	// another host could use it. Hosts take turns (FIFO ready ring); URLs of
	// a host keep their order.
	type hostQ struct {
		host     string
		items    []*Item
		next     int
		inFlight int
		queued   bool
	}
	hosts := map[string]*hostQ{}
	var ready []*hostQ
	for i := range items {
		h := hostOf(items[i].Fetch)
		q := hosts[h]
		if q == nil {
			q = &hostQ{host: h}
			hosts[h] = q
		}
		q.items = append(q.items, &items[i])
	}
	for i := range items { // first-seen host order
		if q := hosts[hostOf(items[i].Fetch)]; !q.queued {
			q.queued = true
			ready = append(ready, q)
		}
	}
	l.canary = newDNSCanary(items)
	l.prefetch(ctx, items)
	var mu sync.Mutex
	cond := sync.NewCond(&mu)
	left := len(items)
	stop := context.AfterFunc(ctx, func() { mu.Lock(); cond.Broadcast(); mu.Unlock() })
	defer stop()
	// wake is the one timer that wakes the workers when the earliest
	// waiting host's start time comes (armed at most once at a time).
	var wake *time.Timer
	var wakeAt time.Time
	armWake := func(at time.Time) { // mu held
		if wake != nil && !wakeAt.After(at) {
			return
		}
		if wake != nil {
			wake.Stop()
		}
		wakeAt = at
		wake = time.AfterFunc(time.Until(at), func() {
			mu.Lock()
			wake = nil
			cond.Signal() // the worker that takes a host passes the baton on
			mu.Unlock()
		})
	}
	defer func() {
		mu.Lock()
		if wake != nil {
			wake.Stop()
		}
		mu.Unlock()
	}()
	// take removes and returns the first ready host whose start time has
	// come; otherwise it arms the wake timer for the earliest one.
	take := func() *hostQ { // mu held
		now := time.Now()
		var earliest time.Time
		for i, q := range ready {
			if l.addrs.busy(q.host) {
				continue // a finishing request at that address signals
			}
			at := l.gate.readyAt(q.host)
			if !at.After(now) {
				ready = append(ready[:i], ready[i+1:]...)
				return q
			}
			if earliest.IsZero() || at.Before(earliest) {
				earliest = at
			}
		}
		if !earliest.IsZero() {
			armWake(earliest)
		}
		return nil
	}
	perHost := l.gate.perHost
	var wg sync.WaitGroup
	for range min(l.cfg.Concurrency, len(items)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				var q *hostQ
				for left > 0 && ctx.Err() == nil {
					if q = take(); q != nil {
						break
					}
					cond.Wait()
				}
				if q == nil {
					mu.Unlock()
					return
				}
				// Another host may be ready as well: wake one more worker,
				// which takes it or arms the timer. One at a time, because
				// waking them all would have each scan every host.
				cond.Signal()
				it := q.items[q.next]
				q.next++
				left--
				q.inFlight++
				if q.next < len(q.items) && q.inFlight < perHost {
					ready = append(ready, q)
				} else {
					q.queued = false
				}
				mu.Unlock()

				l.settle(ctx, it, done)

				mu.Lock()
				q.inFlight--
				if !q.queued && q.next < len(q.items) {
					q.queued = true
					ready = append(ready, q)
				}
				if left == 0 {
					cond.Broadcast() // the run is over: every waiter returns
				} else {
					cond.Signal() // q may be ready again for a waiting worker
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
}
