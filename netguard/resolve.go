package netguard

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"slices"
	"time"
)

// DNS lookups are retried until they earn an answer. A lost UDP packet, a
// SERVFAIL or a REFUSED says nothing about the name; a resolver under a
// burst of queries drops some, and without retries one lost A query with an
// empty AAAA answer read as "no such host", which the ladder reports as a
// citation that does not exist. So:
//
//   - a timeout, SERVFAIL, REFUSED or any other failure is retried with
//     backoff, and if no try answers, the lookup fails with ErrDNSNoAnswer
//     (the citation is blocked, never invalid);
//   - NXDOMAIN is asked again after dnsConfirmPause, and only a second
//     NXDOMAIN is ErrNoSuchHost;
//   - an answer with no address (NODATA) for every family asked is
//     ErrNoAddress: the name exists, so it is not "no such host";
//   - at most MaxLookupsInFlight queries are in flight per Guard.
const (
	// MaxLookupsInFlight bounds the resolver queries one Guard (one run)
	// has in flight (the built-in resolver asks A and AAAA as two). 192
	// workers looking up their hosts at once is the burst that made a
	// resolver drop queries (issue 22); home routers' dnsmasq forwards at
	// most 150 queries at once by default and drops the rest. 32 stays well
	// under that. Against a resolver that loses 20% of queries and delays
	// the rest by up to 1.5 s, a 200-host run took 18.7 s with 32, 25.4 s
	// with 16, 15.6 s with 64 and 15.1 s unbounded (engine's
	// TestLossyResolverChangesNoStatus).
	MaxLookupsInFlight = 32

	// dnsTries is how many times one family is asked before the lookup
	// gives up. Losing 20% of queries, five tries all lost is 1 in 3,125.
	dnsTries = 5
	// dnsConfirmPause is the wait before NXDOMAIN is asked again: long
	// enough that a resolver's transient failure (or a stale negative
	// answer being refreshed) has passed, short enough not to matter.
	dnsConfirmPause = 400 * time.Millisecond
	// dnsFirstBackoff doubles after each failed try, up to dnsMaxBackoff.
	dnsFirstBackoff = 100 * time.Millisecond
	dnsMaxBackoff   = 800 * time.Millisecond
	// dnsDeadlineMargin and dnsMinTry: see tryBudget.
	dnsDeadlineMargin = 100 * time.Millisecond
	dnsMinTry         = 50 * time.Millisecond
)

// dnsTryTimeout bounds one try (attempt counts from 0). The first is above
// the slowest answer a healthy recursive resolver gives for a cold name
// (1–1.5 s); later tries allow more. Go's resolver would otherwise wait
// 5 s for a lost packet (resolv.conf's default timeout).
func dnsTryTimeout(attempt int) time.Duration {
	return []time.Duration{2 * time.Second, 2 * time.Second, 3 * time.Second, 3 * time.Second, 4 * time.Second}[min(attempt, dnsTries-1)]
}

// dnsBackoff is the pause after failed try attempt (from 0).
func dnsBackoff(attempt int) time.Duration {
	return min(dnsFirstBackoff<<attempt, dnsMaxBackoff)
}

// answerKind is what one family's lookup came to.
type answerKind int

const (
	kindAddrs     answerKind = iota // addresses
	kindNoData                      // the name exists, no address of this family
	kindNXDomain                    // the name does not exist
	kindTransient                   // no answer: timeout, SERVFAIL, REFUSED, ...
	kindCanceled                    // the caller gave up
)

// familyAnswer is the outcome of one family's lookup (or of one try).
type familyAnswer struct {
	kind    answerKind
	addrs   []netip.Addr
	ttl     time.Duration // < 0: unknown
	queries int           // resolver calls made
	err     error         // the resolver's last error, if any
}

// resolveName resolves name (lower-case, no trailing dot) for family ("ip",
// "ip4" or "ip6") with retries, and maps the outcome to its sentinel. The
// built-in resolver asks A and AAAA separately, so that a lost query is
// asked again on its own; an injected Resolver is asked for family as is.
func (g *Guard) resolveName(ctx context.Context, family, name string) ([]netip.Addr, time.Duration, error) {
	families := []string{family}
	if g.resolver == nil && family == "ip" {
		families = []string{"ip4", "ip6"}
	}
	answers := make([]familyAnswer, len(families))
	done := make(chan struct{}, len(families))
	for i, f := range families {
		go func() {
			answers[i] = g.resolveFamily(ctx, f, name)
			done <- struct{}{}
		}()
	}
	for range families {
		<-done
	}
	return combine(ctx, name, answers)
}

// combine merges the families' answers. Addresses from one family are used
// even when the other found none or failed: a browser would connect to
// them, and every one is still checked before it is dialled, so an answer
// not seen is an address never dialled.
func combine(ctx context.Context, name string, answers []familyAnswer) ([]netip.Addr, time.Duration, error) {
	var addrs []netip.Addr
	ttl, queries := time.Duration(-1), 0
	kinds := map[answerKind]*familyAnswer{}
	for i := range answers {
		a := &answers[i]
		queries += a.queries
		kinds[a.kind] = a
		addrs = append(addrs, a.addrs...)
		if a.ttl >= 0 && (ttl < 0 || a.ttl < ttl) {
			ttl = a.ttl
		}
	}
	switch {
	case len(addrs) > 0:
		return addrs, ttl, nil
	case kinds[kindCanceled] != nil:
		return nil, 0, fmt.Errorf("netguard: resolve %s: %w: %s", name, failure(ctx, kinds[kindCanceled].err), errText(kinds[kindCanceled].err))
	case kinds[kindTransient] != nil:
		last := kinds[kindTransient].err
		cause := ErrResolve
		if isTimeout(last) {
			cause = ErrTimeout
		}
		wraps := []error{ErrDNSNoAnswer, cause}
		if ctx.Err() != nil {
			wraps = append(wraps, failure(ctx, ctx.Err()))
		}
		return nil, 0, &dnsError{fmt.Sprintf("netguard: resolve %s: DNS: %s (tries: %d): %s", name, ErrDNSNoAnswer, queries, errText(last)), wraps}
	case kinds[kindNoData] != nil:
		return nil, ttl, &dnsError{fmt.Sprintf("netguard: resolve %s: DNS: %s", name, ErrNoAddress), []error{ErrNoAddress, ErrNoSuchHost}}
	}
	return nil, ttl, fmt.Errorf("netguard: resolve %s: %w: %s", name, ErrNoSuchHost, errText(kinds[kindNXDomain].err))
}

// dnsError carries a DNS outcome's text and the sentinels it wraps (a
// refinement and the broader sentinel older callers test for).
type dnsError struct {
	msg       string
	sentinels []error
}

func (e *dnsError) Error() string   { return e.msg }
func (e *dnsError) Unwrap() []error { return e.sentinels }

func errText(err error) string {
	if err == nil {
		return "no answer"
	}
	return RedactText(err.Error())
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout()
}

// resolveFamily asks one family until it earns an answer: addresses, NODATA,
// a confirmed NXDOMAIN, or dnsTries failures. When ctx ends after a failed
// try, the lookup got no answer (kindTransient) rather than being
// cancelled, unless ctx was cancelled outright.
func (g *Guard) resolveFamily(ctx context.Context, family, name string) familyAnswer {
	var failed *familyAnswer // the last try that got no answer
	nx := 0
	for attempt := 0; attempt < dnsTries; attempt++ {
		timeout, ok := tryBudget(ctx, dnsTryTimeout(attempt))
		if !ok {
			return gaveUp(ctx, familyAnswer{kind: kindCanceled, queries: attempt, err: context.DeadlineExceeded}, failed)
		}
		a := g.tryLookup(ctx, family, name, timeout)
		a.queries = attempt + 1
		pause := dnsBackoff(attempt)
		switch a.kind {
		case kindAddrs, kindNoData:
			return a
		case kindCanceled:
			return gaveUp(ctx, a, failed)
		case kindNXDomain:
			if nx++; nx == 2 {
				return a
			}
			pause = dnsConfirmPause
		case kindTransient:
			failed = &a
		}
		if attempt+1 == dnsTries || !roomFor(ctx, pause) {
			// Out of tries (or time) without two NXDOMAINs: no answer
			// to rely on.
			a.kind = kindTransient
			return a
		}
		if Sleep(ctx, pause) != nil {
			return gaveUp(ctx, familyAnswer{kind: kindCanceled, queries: a.queries, err: ctx.Err()}, failed)
		}
	}
	panic("unreachable")
}

// tryBudget is the time one try may take: want, but ending
// dnsDeadlineMargin before ctx's deadline, so that the lookup's own outcome
// reaches the caller before the caller's deadline does (http.Transport
// answers a request whose time is up with its own error, whatever the dial
// was doing). ok is false when that leaves less than dnsMinTry.
func tryBudget(ctx context.Context, want time.Duration) (time.Duration, bool) {
	deadline, has := ctx.Deadline()
	if !has {
		return want, true
	}
	left := time.Until(deadline) - dnsDeadlineMargin
	return min(want, left), left >= dnsMinTry
}

// roomFor reports whether ctx leaves time for a pause and another try.
func roomFor(ctx context.Context, pause time.Duration) bool {
	deadline, has := ctx.Deadline()
	return !has || time.Until(deadline)-dnsDeadlineMargin-pause >= dnsMinTry
}

// gaveUp is the outcome of a lookup whose ctx ended: cancelled, or, when a
// deadline cut retries that were failing, no answer.
func gaveUp(ctx context.Context, a familyAnswer, failed *familyAnswer) familyAnswer {
	if failed == nil || errors.Is(ctx.Err(), context.Canceled) {
		if ctx.Err() == nil && a.kind == kindCanceled {
			a.kind = kindTransient // out of time before any try failed
		}
		return a
	}
	f := *failed
	f.queries = a.queries
	return f
}

// tryLookup is one resolver call, under the in-flight bound and its own
// timeout, classified.
func (g *Guard) tryLookup(ctx context.Context, family, name string, timeout time.Duration) familyAnswer {
	select {
	case g.lookups <- struct{}{}:
	case <-ctx.Done():
		return familyAnswer{kind: kindCanceled, err: ctx.Err()}
	}
	defer func() { <-g.lookups }()
	tctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	seen := &dnsSeen{ttl: -1}
	r := g.resolver
	if r == nil {
		r = g.system
		tctx = context.WithValue(tctx, dnsSeenKey{}, seen)
	}
	// The trailing dot makes the name absolute: a resolver would otherwise
	// try "name.<search domain>" after NXDOMAIN, which leads inward.
	addrs, err := r.LookupNetIP(tctx, family, name+".")
	return classifyAnswer(ctx, addrs, err, seen)
}

// classifyAnswer maps one resolver call's result to its kind. An injected
// Resolver says NODATA with an empty answer and no error; Go's resolver
// reports NXDOMAIN and NODATA alike (IsNotFound), so the built-in one tells
// them apart by the response code it saw (dnsSeen).
func classifyAnswer(ctx context.Context, addrs []netip.Addr, err error, seen *dnsSeen) familyAnswer {
	a := familyAnswer{addrs: slices.Clone(addrs), ttl: seen.ttl, err: err}
	var dnsErr *net.DNSError
	switch {
	case err == nil && len(addrs) > 0:
		a.kind = kindAddrs
	case err == nil:
		a.kind = kindNoData
	case ctx.Err() != nil:
		a.kind = kindCanceled
	case errors.As(err, &dnsErr) && dnsErr.IsNotFound:
		a.kind = kindNXDomain
		if seen.noError && !seen.nxDomain {
			a.kind = kindNoData
		}
	default:
		a.kind = kindTransient
	}
	return a
}

// Sleep waits d or until ctx is done, whichever comes first: the one wait
// of every retry and backoff here, in the ladder and in the judges, so that
// no wait outlives a cancelled run.
func Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
