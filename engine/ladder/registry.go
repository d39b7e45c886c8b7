package ladder

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/citegate/citegate/engine/classify"
	"github.com/citegate/citegate/engine/record"
	"github.com/citegate/citegate/engine/registry"
	"github.com/citegate/citegate/netguard"
)

// RungRegistry names the registry rung.
const RungRegistry = "registry"

// RegistryConfig turns the registry rung on (online mode, standard and
// thorough tiers): a citation whose URL carries a DOI, arXiv, PubMed or
// PMC id is checked against its registry before any publisher page.
type RegistryConfig struct {
	// Guard fetches registry URLs; its User-Agent carries the operator's
	// contact (Crossref's polite pool).
	Guard   *netguard.Guard
	Bases   registry.Bases
	Contact string
}

// registryAttempts bounds the tries of one registry request (a 429 or 503
// pauses the host and is tried again).
const registryAttempts = 3

// newRegistry builds the rung's client, nil when it is off.
func (l *Ladder) newRegistry() *registry.Client {
	rc := l.cfg.Registry
	if rc == nil || rc.Guard == nil || l.cfg.Tier == classify.Basic {
		return nil
	}
	return &registry.Client{Bases: rc.Bases, Contact: rc.Contact, Get: l.registryGet}
}

// registryGet is one registry request through netguard and the host
// gate: 429/503 and exhausted rate-limit headers pause the host, and
// Crossref's X-Rate-Limit-Limit / X-Rate-Limit-Interval set a floor under
// its spacing.
func (l *Ladder) registryGet(ctx context.Context, url, accept string) (*registry.Response, error) {
	host := hostOf(url)
	var last *netguard.Response
	for a := 1; a <= registryAttempts; a++ {
		release, err := l.gate.acquire(ctx, host)
		if err != nil {
			return nil, err
		}
		r, err := l.cfg.Registry.Guard.Fetch(ctx, netguard.Request{URL: url, Header: http.Header{"Accept": {accept}}})
		release()
		if err != nil {
			return nil, err
		}
		last = r
		if floor := rateFloor(r.Header); floor > 0 {
			l.gate.floor(host, floor)
		}
		until, slow := slowSignal(r.StatusCode, r.RetryAfter, r.Header, time.Now(), l.cfg.MaxRetryWait)
		if !slow {
			l.gate.answered(host)
			break
		}
		l.gate.slowDown(host, until)
		if r.StatusCode != http.StatusTooManyRequests && r.StatusCode != http.StatusServiceUnavailable {
			break
		}
	}
	return &registry.Response{Status: last.StatusCode, Header: last.Header, Body: last.Body}, nil
}

// rateFloor reads Crossref's X-Rate-Limit-Limit (requests) per
// X-Rate-Limit-Interval ("1s"): the spacing that keeps within it.
func rateFloor(h http.Header) time.Duration {
	n, err := strconv.Atoi(strings.TrimSpace(h.Get("X-Rate-Limit-Limit")))
	if err != nil || n <= 0 {
		return 0
	}
	iv, err := time.ParseDuration(strings.TrimSpace(h.Get("X-Rate-Limit-Interval")))
	if err != nil || iv <= 0 {
		return 0
	}
	return iv / time.Duration(n)
}

// prefetch asks the batch APIs (arXiv id_list, esummary comma lists) for
// every arXiv, PubMed and PMC id of the run at once, before the workers
// start; lookup then reads the answers.
func (l *Ladder) prefetch(ctx context.Context, items []Item) {
	if l.reg == nil {
		return
	}
	byKind := map[registry.Kind][]string{}
	seen := map[registry.ID]bool{}
	for _, it := range items {
		id := it.Scholar
		if it.Credentialed || id.Kind == "" || id.Kind == registry.DOI || seen[id] {
			continue
		}
		seen[id] = true
		byKind[id.Kind] = append(byKind[id.Kind], id.Value)
	}
	l.batched = map[registry.ID]registry.Answer{}
	for _, kind := range []registry.Kind{registry.ArXiv, registry.PubMed, registry.PMC} {
		ids := byKind[kind]
		if len(ids) == 0 {
			continue
		}
		var answers map[string]registry.Answer
		if kind == registry.ArXiv {
			answers = l.reg.LookupArXiv(ctx, ids)
		} else {
			answers = l.reg.LookupPubMed(ctx, kind, ids)
		}
		for v, a := range answers {
			l.batched[registry.ID{Kind: kind, Value: v}] = a
		}
	}
}

// lookup answers an id: a batched answer, or a DOI's own lookups.
func (l *Ladder) lookup(ctx context.Context, id registry.ID) registry.Answer {
	if a, ok := l.batched[id]; ok {
		return a
	}
	if id.Kind == registry.DOI {
		return l.reg.LookupDOI(ctx, id.Value)
	}
	return registry.Answer{Err: registry.ErrUnavailable}
}

// registryRung checks an item's identifier. decided is the rung's
// verdict when the registry answered; note says why it did not.
func (l *Ladder) registryRung(ctx context.Context, it *Item) (decided *Decision, note string, requests int) {
	if l.reg == nil || it.Scholar.Kind == "" || it.Credentialed {
		return nil, "", 0
	}
	if err := l.report(Progress{Kind: Attempt, Item: it, Rung: RungRegistry, Attempt: 1}); err != nil {
		return nil, "", 0
	}
	start := time.Now()
	a := l.lookup(ctx, it.Scholar)
	v := registry.Decide(it.Scholar, a, it.Citation.LinkText, it.Citation.SourceLine)
	_ = l.report(Progress{Kind: AttemptDone, Item: it, Rung: RungRegistry, Attempt: 1, Elapsed: time.Since(start), Detail: v.Notes})
	if v.Outcome == registry.Unavailable {
		return nil, v.Notes, a.Requests
	}
	st := map[registry.Outcome]record.Status{registry.Valid: record.StatusValid, registry.Invalid: record.StatusInvalid,
		registry.Mismatch: record.StatusMismatch}[v.Outcome]
	d := Decision{Verdict: record.Verdict{Status: st, Notes: "online ladder: registry; " + strings.TrimPrefix(v.Notes, "registry: "),
		URL: it.URL, Title: v.Title, Publisher: v.Publisher}, Rung: RungRegistry, Reached: true, RegistryRequests: a.Requests}
	return &d, "", a.Requests
}

// withRegistry combines the registry's verdict (reg, nil when it did not
// decide; note why) with the ordinary ladder's at the thorough tier, or
// when the registry could not answer. A publisher page that is valid or
// paywalled settles it; any other leaves the registry's verdict: a work
// the registry holds is never made invalid by its publisher's site.
func withRegistry(reg *Decision, note string, d Decision) Decision {
	switch {
	case reg == nil && note != "":
		d.Notes += "; " + note
	case reg == nil:
	case d.Status == record.StatusValid || d.Status == record.StatusPaywalled:
		d.Notes += "; " + strings.TrimPrefix(reg.Notes, "online ladder: ")
		if d.Title == "" {
			d.Title, d.Publisher = reg.Title, reg.Publisher
		}
	default:
		r := *reg
		r.Notes += "; publisher page " + string(d.Status)
		return r
	}
	return d
}
