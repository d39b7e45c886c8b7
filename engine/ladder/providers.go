package ladder

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/citegate/citegate/engine/classify"
	"github.com/citegate/citegate/engine/providers"
	"github.com/citegate/citegate/engine/record"
	"github.com/citegate/citegate/netguard"
)

// ProviderConfig is where the third-party rungs come from: credentials
// from the environment only, the API base URLs, the operator's adapter
// endpoints (nil: unset) and the policy's attempts.
type ProviderConfig struct {
	Getenv                            func(string) string
	BrightDataURL, ApifyURL           string
	BrightDataEndpoint, ApifyEndpoint *string
	BrightDataAttempts, ApifyAttempts int
}

// rungProvider is a third-party rung: its name, client, attempts, and why
// it is skipped ("" when it runs).
type rungProvider struct {
	name     string
	fetcher  providers.Fetcher
	attempts int
	skip     string
}

// buildRungs picks each provider and says which configurations can never
// work (credentials with a plain-http remote URL, say): such a rung is
// skipped with that reason instead of failing on every URL.
func buildRungs(pc ProviderConfig, client *http.Client) ([]rungProvider, []string) {
	getenv := pc.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	bd := providers.BrightDataFromEnv(getenv, pc.BrightDataURL, client)
	ap := providers.ApifyFromEnv(getenv, pc.ApifyURL, client)
	rungs := []rungProvider{
		pickProvider("bright_data", bd, bd.APIKey != "" && bd.Zone != "", pc.BrightDataEndpoint, client,
			pc.BrightDataAttempts, "no credentials: set BRIGHTDATA_API_KEY and BRIGHTDATA_UNLOCKER_ZONE, or configure an endpoint"),
		pickProvider("apify", ap, ap.Token != "", pc.ApifyEndpoint, client,
			pc.ApifyAttempts, "no credentials: set APIFY_TOKEN, or configure an endpoint"),
	}
	var warnings []string
	for i, check := range []func() error{bd.Check, ap.Check} {
		r := &rungs[i]
		if r.skip != "" || r.fetcher == nil {
			continue
		}
		if _, api := r.fetcher.(*providers.Adapter); api {
			continue
		}
		if err := check(); err != nil {
			r.skip = "misconfigured: " + providerReason(err)
			warnings = append(warnings, r.name+" is never used: "+providerReason(err))
		}
	}
	return rungs, warnings
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

// provider runs one third-party rung with its own retries (quota and
// timeouts are worth another attempt; retry.go).
func (l *Ladder) provider(ctx context.Context, it *Item, r rungProvider, log *attemptLog) (Decision, bool) {
	rt := retrier{attempts: max(1, r.attempts), backoff: l.cfg.Backoff, maxRetryWait: l.cfg.MaxRetryWait}
	for a := 1; a <= rt.attempts; a++ {
		if err := l.report(Progress{Kind: Attempt, Item: it, Rung: r.name, Attempt: a}); err != nil {
			return Decision{}, false
		}
		started := time.Now()
		cctx, cancel := context.WithTimeout(ctx, l.cfg.EndpointTimeout)
		c, err := r.fetcher.Fetch(cctx, it.Fetch)
		cancel()
		var (
			d       Decision
			settled bool
			detail  string
			status  int
		)
		switch {
		case err == nil && c.Verdict != nil:
			d, settled = adapterDecision(c.Verdict, r.name, it), true
		case err == nil:
			status = c.StatusCode
			v := classify.Classify(classify.Page{RequestedURL: it.URL, FinalURL: c.FinalURL,
				StatusCode: c.StatusCode, Body: c.Body, Truncated: c.Truncated, ContentType: c.ContentType, Title: c.Title},
				it.Citation, l.cfg.Tier)
			if v.Outcome != classify.Escalate {
				d, settled = fromVerdict(v, r.name, cmp.Or(netguard.RedactText(c.FinalURL), it.URL)), true
			}
			detail = v.Reason
		default:
			detail = providerReason(err)
		}
		done := Progress{Kind: AttemptDone, Item: it, Rung: r.name, Attempt: a, Elapsed: time.Since(started), Detail: detail, HTTPStatus: status}
		if settled {
			done.Detail = d.Notes
		}
		if err := l.report(done); err != nil {
			return Decision{}, false
		}
		if settled {
			return d, true
		}
		again := errors.Is(err, providers.ErrQuota) || errors.Is(err, providers.ErrProviderTimeout)
		retryAfter, _ := providers.RetryAfter(err)
		onWait := func(w time.Duration) error {
			return l.report(Progress{Kind: RetryWait, Item: it, Rung: r.name, Attempt: a, Wait: w, Detail: detail})
		}
		if rt.next(ctx, a, again, retryAfter, onWait) {
			continue
		}
		log.add(r.name, "failed", fmt.Sprintf("attempt %d/%d: %s", a, rt.attempts, detail))
		return Decision{}, false
	}
	return Decision{}, false
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
func adapterDecision(v *providers.AdapterVerdict, rung string, it *Item) Decision {
	notes := strings.TrimSpace(v.Notes)
	if notes == "" {
		notes = "online ladder endpoint status=" + v.Status
	}
	d := Decision{Verdict: record.Verdict{Status: record.Status(v.Status), Notes: notes + "; online ladder: " + rung,
		URL: cmp.Or(v.URL, it.URL), Title: v.Title, Publisher: v.Publisher, EvidenceSnippet: v.EvidenceSnippet}, Rung: rung}
	if !d.Status.Known() {
		d.Status = record.StatusInvalid
	}
	if v.HTTPStatus != 0 {
		code := v.HTTPStatus
		d.HTTPStatus = &code
	}
	return d
}
