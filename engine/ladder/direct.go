package ladder

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/citegate/citegate/engine/classify"
	"github.com/citegate/citegate/engine/record"
	"github.com/citegate/citegate/netguard"
)

// rungDirect names the direct rung.
const rungDirect = "direct_fetch"

// direct is the first rung: the SSRF-safe fetch of the original URL
// (fetch.go, under the host gate), retried on timeouts, resets, 429 and
// 5xx (retry.go), classified, and a valid page compared with the site's
// answer to a URL that cannot exist (probe.go). ok=false means escalate;
// lastStatus is the HTTP status of the last attempt (0 if none answered).
func (l *Ladder) direct(ctx context.Context, it *Item, log *attemptLog) (d Decision, ok bool, lastStatus int) {
	r := retrier{attempts: max(1, l.cfg.DirectAttempts), backoff: l.cfg.Backoff, maxRetryWait: l.cfg.MaxRetryWait}
	for a := 1; a <= r.attempts; a++ {
		if err := l.report(Progress{Kind: Attempt, Item: it, Rung: rungDirect, Attempt: a}); err != nil {
			log.add(rungDirect, "failed", fmt.Sprintf("attempt %d/%d: cancelled", a, r.attempts))
			return Decision{}, false, lastStatus
		}
		o := l.directAttempt(ctx, it, a, r)
		if o.status != 0 {
			lastStatus = o.status
		}
		done := Progress{Kind: AttemptDone, Item: it, Rung: rungDirect, Attempt: a, Elapsed: o.elapsed, Detail: o.detail, HTTPStatus: o.status,
			Proto: o.proto}
		if o.settled {
			done.Detail = o.d.Notes
		}
		if err := l.report(done); err != nil {
			return Decision{}, false, lastStatus
		}
		if o.settled {
			if o.probe == nil {
				return o.d, true, lastStatus
			}
			// A valid page: compare it with the site's answer to a URL
			// that cannot exist (probe.go).
			soft, esc := l.checkAgainstProbe(ctx, it, hostOf(it.Fetch), *o.probe, o.d)
			switch {
			case soft != nil:
				return *soft, true, lastStatus
			case esc != "":
				log.add(rungDirect, "failed", fmt.Sprintf("attempt %d/%d: %s", a, r.attempts, esc))
				return Decision{}, false, lastStatus
			}
			return o.d, true, lastStatus
		}
		onWait := func(w time.Duration) error {
			return l.report(Progress{Kind: RetryWait, Item: it, Rung: rungDirect, Attempt: a, Wait: w, Detail: o.detail})
		}
		if r.next(ctx, a, o.again, o.retryAfter, onWait) {
			continue
		}
		log.add(rungDirect, "failed", fmt.Sprintf("attempt %d/%d: %s", a, r.attempts, o.detail))
		return Decision{}, false, lastStatus
	}
	return Decision{}, false, lastStatus
}

// attemptOutcome is what one direct attempt came to.
type attemptOutcome struct {
	settled    bool // d is final
	d          Decision
	detail     string // why it did not settle
	again      bool   // worth another attempt
	retryAfter time.Duration
	status     int
	proto      string // the response's protocol (HTTP/2.0, HTTP/1.1), "" if none
	elapsed    time.Duration
	// probe is the page of a valid outcome read with GET, to compare with
	// the site's answer to a URL that cannot exist; also a deep link
	// redirected to the home page (a mismatch at thorough), which the
	// probe can show to be the site's answer for missing pages.
	probe *classify.Page
}

// directAttempt is one fetch and its classification. A 429 pauses the whole
// host for the retry wait (every worker, not only this one).
func (l *Ladder) directAttempt(ctx context.Context, it *Item, a int, r retrier) (o attemptOutcome) {
	host := hostOf(it.Fetch)
	started := time.Now()
	defer func() { o.elapsed = time.Since(started) }()
	resp, head, err := l.fetch(ctx, host, it.Fetch, l.cfg.Tier == classify.Basic)
	it.reach.note(ctx, resp, err)
	if resp != nil {
		o.status, o.proto = resp.StatusCode, resp.Proto
	}
	switch {
	case err != nil && resp == nil && noSuchHost(err) && ctx.Err() == nil && l.denies(ctx, it):
		_, o.detail = l.resolverDenies(ctx)
	case err != nil && (netguard.IsRefusal(err) || noSuchHost(err)):
		// A disallowed target or a name that does not exist (a confirmed
		// NXDOMAIN) is a definitive answer, not a reason to ask a third
		// party.
		o.settled = true
		o.d = Decision{Verdict: record.Verdict{Status: record.StatusInvalid, Notes: "online ladder: direct_fetch; " + definitiveReason(it, err),
			URL: it.URL}, Rung: rungDirect, Redirects: redirectsOf(resp)}
	case err != nil && ctx.Err() != nil:
		o.detail = "cancelled"
	case err != nil:
		// A certificate or protocol-version failure names its cause
		// (netguard.TLSError): the page exists, the server is
		// misconfigured, and the providers may still read it.
		o.detail, o.again = failureDetail(err), retryable(err)
	default:
		page := pageFrom(it, resp, head)
		v := classify.Classify(page, it.Citation, l.cfg.Tier)
		if v.Outcome != classify.Escalate {
			o.settled = true
			o.d = fromVerdict(v, rungDirect, cmp.Or(resp.FinalURL, it.URL))
			o.d.Redirects = redirectsOf(resp)
			if !head && (v.Outcome == classify.Valid || classify.HomeRedirect(v)) {
				o.probe = &page
			}
			return o
		}
		o.detail = v.Reason
		// A bot wall or a 403 is not fixed by asking again; 429 and 5xx
		// may be.
		code := resp.StatusCode
		o.again = code == http.StatusTooManyRequests || code >= 500
		o.retryAfter = min(resp.RetryAfter, l.cfg.MaxRetryWait)
		if code == http.StatusTooManyRequests {
			until := time.Now().Add(r.wait(a, o.retryAfter))
			l.gate.pause(host, until)
			if l.cfg.Fleet != nil {
				l.cfg.Fleet.Pause(ctx, host, until)
			}
		}
	}
	return o
}

// denies reports a resolver that failed the canary check, and marks the
// item as not having reached anything: its NXDOMAIN is no answer.
func (l *Ladder) denies(ctx context.Context, it *Item) bool {
	denied, _ := l.resolverDenies(ctx)
	if denied {
		it.reach = reach{tried: true}
	}
	return denied
}

// noSuchHost reports a name that does not exist. A name that exists but has
// no address (ErrNoAddress, which also wraps ErrNoSuchHost) is not one: the
// site may be moving or the resolver filtering it, so it is blocked, not
// invalid.
func noSuchHost(err error) bool {
	return errors.Is(err, netguard.ErrNoSuchHost) && !errors.Is(err, netguard.ErrNoAddress)
}

// failureDetail says why a direct attempt failed; DNS outcomes say they
// are ("DNS: no answer from the resolver"), so that a blocked note tells a
// resolver's failure from the site's.
func failureDetail(err error) string {
	if d := netguard.TLSDetail(err); d != "" {
		return d
	}
	if errors.Is(err, netguard.ErrDNSNoAnswer) || errors.Is(err, netguard.ErrNoAddress) {
		return "DNS: " + netguard.Reason(err)
	}
	return netguard.Reason(err)
}

// definitiveReason is the note of a fetch refused by the network policy or
// of a name that does not exist: the rule in brackets and the host as
// evidence, like the classifier's notes.
func definitiveReason(it *Item, err error) string {
	rule := "network-policy"
	if errors.Is(err, netguard.ErrNoSuchHost) {
		rule = "dns-nxdomain"
	}
	return netguard.Reason(err) + " [" + rule + "]: host " + strconv.Quote(hostOf(it.URL))
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

// pageFrom is what the direct rung hands the classifier.
func pageFrom(it *Item, r *netguard.Response, head bool) classify.Page {
	return classify.Page{RequestedURL: it.URL, FinalURL: r.FinalURL, StatusCode: r.StatusCode,
		Header: r.Header, Body: r.Body, Truncated: r.Truncated, ContentType: r.Header.Get("Content-Type"), HEAD: head,
		Redirects: redirectsOf(r)}
}
