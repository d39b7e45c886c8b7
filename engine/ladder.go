package engine

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/citegate/citegate/engine/classify"
	"github.com/citegate/citegate/engine/providers"
	"github.com/citegate/citegate/netguard"
	"github.com/citegate/citegate/parse"
)

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
	// MaxRetryWait caps a Retry-After the ladder will honour.
	MaxRetryWait time.Duration
	// CacheDir enables the result cache; CacheTTL is how long an entry lives.
	CacheDir string
	CacheTTL time.Duration
	// DOIResolver is where verify resolves DOIs; default https://doi.org.
	DOIResolver string
}

// Polite defaults: a run of a few hundred citations finishes in seconds
// without ever sending more than two concurrent requests, four per second,
// to one site.
const (
	DefaultConcurrency  = 16
	DefaultPerHost      = 2
	DefaultHostInterval = 250 * time.Millisecond
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
	if n.HostInterval < 0 {
		n.HostInterval = 0
	}
	if n.MaxRetryWait <= 0 {
		n.MaxRetryWait = DefaultMaxRetryWait
	}
	if n.CacheTTL <= 0 {
		n.CacheTTL = DefaultCacheTTL
	}
	return n
}

// liveItem is one URL the ladder must check.
type liveItem struct {
	index int
	w     workItem
	// fetch is the URL the direct rung requests: the original as the wave
	// wrote it, secrets included, held in memory only.
	fetch string
	// credentialed marks a URL that carried credentials: it is never sent
	// to a third party.
	credentialed bool
	citation     classify.Citation
}

// rungProvider is a third-party rung: its name, client, attempts, and why
// it is skipped ("" when it runs).
type rungProvider struct {
	name     string
	fetcher  providers.Fetcher
	attempts int
	skip     string
}

// ladder runs the direct → Bright Data → Apify escalation for live URLs.
type ladder struct {
	guard     *netguard.Guard
	gate      *hostGate
	tier      classify.Tier
	policy    LadderPolicy
	net       Network
	rungs     []rungProvider
	thirdOK   string // "" when third parties may be used; else why not
	emit      func(Event) error
	now       func() time.Time
	endpointT time.Duration
	probes    siteProbes
	// warnings are provider configurations that can never work, found
	// when the ladder is built.
	warnings []string
}

// newLadder builds the rungs from the environment and run config.
func (e *Engine) newLadder(run *Run, cfg *citationConfig, guard *netguard.Guard, emit func(Event) error) *ladder {
	n := e.Net.withDefaults()
	getenv := n.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	l := &ladder{guard: guard, gate: newHostGate(n.PerHost, n.HostInterval), tier: classify.Tier(cfg.tier),
		policy: cfg.policy, net: n, emit: emit, now: e.Now,
		endpointT: time.Duration(cfg.policy.EndpointTimeoutMS) * time.Millisecond}
	if strings.TrimSpace(run.Manifest.Query.Sensitivity) == "restricted" {
		l.thirdOK = "restricted sensitivity: direct fetch only"
	}
	client := &http.Client{Transport: guard.Transport()}
	bd := providers.BrightDataFromEnv(getenv, n.BrightDataURL, client)
	ap := providers.ApifyFromEnv(getenv, n.ApifyURL, client)
	l.rungs = []rungProvider{
		pickProvider("bright_data", bd, bd.APIKey != "" && bd.Zone != "", cfg.endpoints.BrightData, client,
			cfg.policy.BrightDataMaxAttempts, "no credentials: set BRIGHTDATA_API_KEY and BRIGHTDATA_UNLOCKER_ZONE, or configure an endpoint"),
		pickProvider("apify", ap, ap.Token != "", cfg.endpoints.Apify, client,
			cfg.policy.ApifyMaxAttempts, "no credentials: set APIFY_TOKEN, or configure an endpoint"),
	}
	// A configuration that can never work (credentials and a plain-http
	// remote URL, say) is said once here, and the rung is skipped with the
	// same reason instead of failing on every URL.
	for i, check := range []func() error{bd.Check, ap.Check} {
		r := &l.rungs[i]
		if r.skip != "" || r.fetcher == nil {
			continue
		}
		if _, api := r.fetcher.(*providers.Adapter); api {
			continue
		}
		if err := check(); err != nil {
			r.skip = "misconfigured: " + providerReason(err)
			l.warnings = append(l.warnings, r.name+" is never used: "+providerReason(err))
		}
	}
	return l
}

// pickProvider prefers the real API when its credentials are set, else an
// operator adapter endpoint, else a skipped rung with a clear note.
func pickProvider(name string, api providers.Fetcher, hasCreds bool, endpoint *string, client *http.Client, attempts int, noCreds string) rungProvider {
	switch {
	case hasCreds:
		return rungProvider{name: name, fetcher: api, attempts: attempts}
	case endpoint != nil && *endpoint != "":
		return rungProvider{name: name, fetcher: &providers.Adapter{Endpoint: *endpoint, Step: name, Client: client}, attempts: attempts}
	}
	return rungProvider{name: name, skip: noCreds}
}

// attemptLog renders the reference's blocked trail: step=outcome(detail).
type attemptLog []string

func (a *attemptLog) add(step, outcome, detail string) {
	*a = append(*a, fmt.Sprintf("%s=%s(%s)", step, outcome, detail))
}

// check runs the ladder for one URL.
func (l *ladder) check(ctx context.Context, it liveItem) decision {
	var log attemptLog
	d, ok, lastStatus := l.direct(ctx, it, &log)
	if ok {
		return d
	}
	for _, r := range l.rungs {
		switch {
		case ctx.Err() != nil:
			log.add(r.name, "skipped", "cancelled")
		case l.thirdOK != "":
			log.add(r.name, "skipped", l.thirdOK)
		case it.credentialed:
			log.add(r.name, "skipped", "URL carried credentials; never sent to a third party")
		case r.skip != "":
			log.add(r.name, "skipped", r.skip)
		default:
			if d, ok := l.provider(ctx, it, r, &log); ok {
				return d
			}
		}
	}
	blocked := decision{Verdict: Verdict{Status: StatusBlocked, Notes: "online ladder blocked: " + strings.Join(log, "; "), URL: it.w.rep.NormalizedURL}, rung: "ladder"}
	if lastStatus != 0 {
		// The record keeps what the site itself answered last.
		blocked.HTTPStatus = &lastStatus
	}
	return blocked
}

// fromVerdict turns a classifier verdict into a decision.
func fromVerdict(v classify.Verdict, rung, finalURL string) decision {
	st := map[classify.Outcome]Status{classify.Valid: StatusValid, classify.Paywalled: StatusPaywalled,
		classify.Invalid: StatusInvalid, classify.Mismatch: StatusMismatch}[v.Outcome]
	notes := "online ladder: " + rung
	if v.Reason != "" {
		notes += "; " + v.Reason
	}
	d := decision{Verdict: Verdict{Status: st, Notes: notes, URL: finalURL, Title: v.Title, Publisher: v.Publisher, EvidenceSnippet: v.Snippet}, rung: rung}
	if v.HTTPStatus != 0 {
		code := v.HTTPStatus
		d.HTTPStatus = &code
	}
	return d
}

// retryable reports transport failures worth another attempt.
func retryable(err error) bool {
	for _, e := range []error{netguard.ErrTimeout, netguard.ErrConnReset, netguard.ErrConnRefused, netguard.ErrNetwork,
		netguard.ErrIncompleteBody, netguard.ErrResolve} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// backoff is the policy's exponential delay before attempt+1.
func (l *ladder) backoff(attempt int) time.Duration {
	d := float64(l.policy.BackoffInitialMS)
	for i := 1; i < attempt; i++ {
		d *= l.policy.BackoffMultiplier
	}
	return min(time.Duration(d)*time.Millisecond, time.Duration(l.policy.BackoffMaxMS)*time.Millisecond)
}

// wait sleeps before a retry, telling the event stream why.
func (l *ladder) wait(ctx context.Context, it liveItem, rung string, attempt int, d time.Duration, why string) error {
	if err := l.emit(Event{Kind: EventRetryWait, Index: it.index, URL: it.w.rep.NormalizedURL, CID: it.w.rep.CID,
		Rung: rung, Attempt: attempt, Wait: d, Detail: why}); err != nil {
		return err
	}
	return sleep(ctx, d)
}

// direct is the first rung: the SSRF-safe fetch of the original URL, with
// retries on timeouts, resets, 429 and 5xx. ok=false means escalate;
// lastStatus is the HTTP status of the last attempt (0 if none answered).
func (l *ladder) direct(ctx context.Context, it liveItem, log *attemptLog) (d decision, ok bool, lastStatus int) {
	attempts := max(1, l.policy.DirectFetchMaxAttempts)
	for a := 1; a <= attempts; a++ {
		if err := l.emit(Event{Kind: EventAttempt, Index: it.index, URL: it.w.rep.NormalizedURL, CID: it.w.rep.CID,
			Rung: "direct_fetch", Attempt: a}); err != nil {
			log.add("direct_fetch", "failed", fmt.Sprintf("attempt %d/%d: cancelled", a, attempts))
			return decision{}, false, lastStatus
		}
		o := l.directAttempt(ctx, it, a)
		if o.status != 0 {
			lastStatus = o.status
		}
		done := Event{Kind: EventAttemptDone, Index: it.index, URL: it.w.rep.NormalizedURL, CID: it.w.rep.CID,
			Rung: "direct_fetch", Attempt: a, Elapsed: o.elapsed, Detail: o.detail, HTTPStatus: o.status}
		if o.settled {
			done.Detail = o.d.Notes
		}
		if err := l.emit(done); err != nil {
			return decision{}, false, lastStatus
		}
		if o.settled {
			if o.probe == nil {
				return o.d, true, lastStatus
			}
			// A valid page: compare it with the site's answer to a URL
			// that cannot exist (probe.go).
			soft, esc := l.checkAgainstProbe(ctx, it, hostOf(it.fetch), *o.probe, o.d)
			switch {
			case soft != nil:
				return *soft, true, lastStatus
			case esc != "":
				log.add("direct_fetch", "failed", fmt.Sprintf("attempt %d/%d: %s", a, attempts, esc))
				return decision{}, false, lastStatus
			}
			return o.d, true, lastStatus
		}
		if o.again && a < attempts && l.wait(ctx, it, "direct_fetch", a, max(o.retryAfter, l.backoff(a)), o.detail) == nil {
			continue
		}
		log.add("direct_fetch", "failed", fmt.Sprintf("attempt %d/%d: %s", a, attempts, o.detail))
		return decision{}, false, lastStatus
	}
	return decision{}, false, lastStatus
}

// attemptOutcome is what one direct attempt came to.
type attemptOutcome struct {
	settled    bool // d is final
	d          decision
	detail     string // why it did not settle
	again      bool   // worth another attempt
	retryAfter time.Duration
	status     int
	elapsed    time.Duration
	// probe is the page of a valid outcome read with GET, to compare with
	// the site's answer to a URL that cannot exist.
	probe *classify.Page
}

func (l *ladder) directAttempt(ctx context.Context, it liveItem, a int) (o attemptOutcome) {
	host := hostOf(it.fetch)
	started := time.Now()
	defer func() { o.elapsed = time.Since(started) }()
	resp, head, err := l.fetch(ctx, host, it.fetch, l.tier == classify.Basic)
	if resp != nil {
		o.status = resp.StatusCode
	}
	switch {
	case err != nil && (netguard.IsRefusal(err) || errors.Is(err, netguard.ErrNoSuchHost)):
		// A disallowed target or a name that does not exist is a definitive
		// answer, not a reason to ask a third party.
		o.settled = true
		o.d = decision{Verdict: Verdict{Status: StatusInvalid, Notes: "online ladder: direct_fetch; " + netguard.Reason(err), URL: it.w.rep.NormalizedURL}, rung: "direct_fetch", redirects: redirectsOf(resp)}
	case err != nil && ctx.Err() != nil:
		o.detail = "cancelled"
	case err != nil:
		o.detail, o.again = netguard.Reason(err), retryable(err)
	default:
		page := pageFrom(it, resp, head)
		v := classify.Classify(page, it.citation, l.tier)
		if v.Outcome != classify.Escalate {
			o.settled = true
			o.d = fromVerdict(v, "direct_fetch", orDefault(resp.FinalURL, it.w.rep.NormalizedURL))
			o.d.redirects = redirectsOf(resp)
			if v.Outcome == classify.Valid && !head {
				o.probe = &page
			}
			return o
		}
		o.detail = v.Reason
		// A bot wall or a 403 is not fixed by asking again; 429 and 5xx
		// may be.
		code := resp.StatusCode
		o.again = code == http.StatusTooManyRequests || code >= 500
		o.retryAfter = min(resp.RetryAfter, l.net.MaxRetryWait)
		if code == http.StatusTooManyRequests {
			l.gate.pause(host, time.Now().Add(max(o.retryAfter, l.backoff(a))))
		}
	}
	return o
}

// redirectsOf lists the redacted hop URLs before the final one.
func redirectsOf(r *netguard.Response) []string {
	if r == nil || len(r.Hops) < 2 {
		return nil
	}
	out := make([]string, 0, len(r.Hops)-1)
	for _, h := range r.Hops[:len(r.Hops)-1] {
		out = append(out, h.URL)
	}
	return out
}

// fetch does one direct request under the host gate. With headFirst (the
// basic tier) it asks with HEAD first and falls back to GET when the server
// does not answer HEAD usefully (seed 004); head reports that the response
// is a HEAD response.
func (l *ladder) fetch(ctx context.Context, host, url string, headFirst bool) (resp *netguard.Response, head bool, err error) {
	release, err := l.gate.acquire(ctx, host)
	if err != nil {
		return nil, false, err
	}
	defer release()
	hdr := http.Header{"Accept": {"text/html,application/xhtml+xml,application/pdf;q=0.9,*/*;q=0.8"}}
	if headFirst {
		resp, err := l.guard.Fetch(ctx, netguard.Request{Method: http.MethodHead, URL: url, Header: hdr})
		if err == nil && resp.StatusCode >= 200 && resp.StatusCode < 400 {
			return resp, true, nil
		}
		if err != nil && (netguard.IsRefusal(err) || errors.Is(err, netguard.ErrNoSuchHost)) {
			return resp, true, err
		}
	}
	resp, err = l.guard.Fetch(ctx, netguard.Request{Method: http.MethodGet, URL: url, Header: hdr})
	return resp, false, err
}

// pageFrom is what the direct rung hands the classifier.
func pageFrom(it liveItem, r *netguard.Response, head bool) classify.Page {
	p := classify.Page{RequestedURL: it.w.rep.NormalizedURL, FinalURL: r.FinalURL, StatusCode: r.StatusCode,
		Header: r.Header, Body: r.Body, Truncated: r.Truncated, ContentType: r.Header.Get("Content-Type"), HEAD: head}
	for i, h := range r.Hops {
		if i < len(r.Hops)-1 {
			p.Redirects = append(p.Redirects, h.URL)
		}
	}
	return p
}

// provider runs one third-party rung with its own retries.
func (l *ladder) provider(ctx context.Context, it liveItem, r rungProvider, log *attemptLog) (decision, bool) {
	attempts := max(1, r.attempts)
	for a := 1; a <= attempts; a++ {
		if err := l.emit(Event{Kind: EventAttempt, Index: it.index, URL: it.w.rep.NormalizedURL, CID: it.w.rep.CID,
			Rung: r.name, Attempt: a}); err != nil {
			return decision{}, false
		}
		started := time.Now()
		cctx, cancel := context.WithTimeout(ctx, l.endpointT)
		c, err := r.fetcher.Fetch(cctx, it.fetch)
		cancel()
		var (
			d       decision
			settled bool
			detail  string
			status  int
		)
		switch {
		case err == nil && c.Verdict != nil:
			d, settled = adapterDecision(c.Verdict, r.name, it), true
		case err == nil:
			status = c.StatusCode
			v := classify.Classify(classify.Page{RequestedURL: it.w.rep.NormalizedURL, FinalURL: c.FinalURL,
				StatusCode: c.StatusCode, Body: c.Body, Truncated: c.Truncated, ContentType: c.ContentType, Title: c.Title},
				it.citation, l.tier)
			if v.Outcome != classify.Escalate {
				d, settled = fromVerdict(v, r.name, orDefault(netguard.RedactText(c.FinalURL), it.w.rep.NormalizedURL)), true
			}
			detail = v.Reason
		default:
			detail = providerReason(err)
		}
		done := Event{Kind: EventAttemptDone, Index: it.index, URL: it.w.rep.NormalizedURL, CID: it.w.rep.CID,
			Rung: r.name, Attempt: a, Elapsed: time.Since(started), Detail: detail, HTTPStatus: status}
		if settled {
			done.Detail = d.Notes
		}
		if err := l.emit(done); err != nil {
			return decision{}, false
		}
		if settled {
			return d, true
		}
		retry := errors.Is(err, providers.ErrQuota) || errors.Is(err, providers.ErrProviderTimeout)
		if a < attempts && retry && ctx.Err() == nil {
			d := l.backoff(a)
			if ra, ok := providers.RetryAfter(err); ok {
				d = max(d, min(ra, l.net.MaxRetryWait))
			}
			if l.wait(ctx, it, r.name, a, d, detail) == nil {
				continue
			}
		}
		log.add(r.name, "failed", fmt.Sprintf("attempt %d/%d: %s", a, attempts, detail))
		return decision{}, false
	}
	return decision{}, false
}

// providerReason says, without secrets, why a provider attempt failed: the
// kind of failure, then what the provider API answered (its HTTP status,
// error code and sanitized message) so that an operator can act on it —
// "provider refused the credentials (401 from bright_data: invalid key)".
func providerReason(err error) string {
	what := "provider failed"
	for _, k := range []struct {
		err  error
		what string
	}{
		{providers.ErrNoCredentials, "no credentials"}, {providers.ErrUnauthorized, "provider refused the credentials"},
		{providers.ErrQuota, "provider quota or rate limit"}, {providers.ErrProviderBlocked, "provider could not unlock the page"},
		{providers.ErrProviderTimeout, "provider timeout"}, {providers.ErrInvalidTarget, "URL not accepted for a third party"},
	} {
		if errors.Is(err, k.err) {
			what = k.what
			break
		}
	}
	var pe *providers.Error
	if !errors.As(err, &pe) {
		return what
	}
	var parts []string
	if pe.HTTPStatus != 0 && (pe.HTTPStatus < 200 || pe.HTTPStatus > 299) {
		parts = append(parts, strconv.Itoa(pe.HTTPStatus)+" from "+pe.Provider)
	}
	if pe.Code != "" && !strings.Contains(pe.Detail, pe.Code) {
		parts = append(parts, pe.Code)
	}
	if pe.Detail != "" {
		parts = append(parts, pe.Detail)
	}
	if len(parts) == 0 {
		return what
	}
	return what + " (" + netguard.RedactText(strings.Join(parts, ": ")) + ")"
}

// adapterDecision maps an operator adapter's verdict (the reference contract).
func adapterDecision(v *providers.AdapterVerdict, rung string, it liveItem) decision {
	notes := strings.TrimSpace(v.Notes)
	if notes == "" {
		notes = "online ladder endpoint status=" + v.Status
	}
	d := decision{Verdict: Verdict{Status: Status(v.Status), Notes: notes + "; online ladder: " + rung, URL: orDefault(v.URL, it.w.rep.NormalizedURL), Title: v.Title, Publisher: v.Publisher, EvidenceSnippet: v.EvidenceSnippet}, rung: rung}
	if !d.Status.Known() {
		d.Status = StatusInvalid
	}
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

// runLadder checks the live items with a bounded worker pool; done is
// called (from the workers) as each URL is settled.
func (l *ladder) runLadder(ctx context.Context, items []liveItem, done func(liveItem, decision, string)) {
	// Host-aware dispatch: a worker only takes a URL whose host is below
	// PerHost, so no worker (global slot) ever parks in the host gate while
	// other hosts have work. Hosts take turns (FIFO ready ring); URLs of a
	// host keep their order.
	type hostQ struct {
		items    []liveItem
		next     int
		inFlight int
		queued   bool
	}
	hosts := map[string]*hostQ{}
	var ready []*hostQ
	for _, it := range items {
		h := hostOf(it.fetch)
		q := hosts[h]
		if q == nil {
			q = &hostQ{}
			hosts[h] = q
		}
		q.items = append(q.items, it)
	}
	for _, it := range items { // first-seen host order
		if q := hosts[hostOf(it.fetch)]; !q.queued {
			q.queued = true
			ready = append(ready, q)
		}
	}
	var mu sync.Mutex
	cond := sync.NewCond(&mu)
	left := len(items)
	stop := context.AfterFunc(ctx, func() { mu.Lock(); cond.Broadcast(); mu.Unlock() })
	defer stop()
	perHost := l.gate.perHost
	var wg sync.WaitGroup
	for range min(l.net.Concurrency, len(items)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				for len(ready) == 0 && left > 0 && ctx.Err() == nil {
					cond.Wait()
				}
				if left == 0 || ctx.Err() != nil {
					mu.Unlock()
					return
				}
				q := ready[0]
				ready = ready[1:]
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

				d := l.check(ctx, it)
				done(it, d, l.now().UTC().Format("2006-01-02T15:04:05.000Z"))

				mu.Lock()
				q.inFlight--
				if !q.queued && q.next < len(q.items) {
					q.queued = true
					ready = append(ready, q)
					cond.Signal()
				}
				if left == 0 {
					cond.Broadcast()
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
}
