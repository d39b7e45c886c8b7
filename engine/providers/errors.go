package providers

import (
	"errors"
	"strings"
	"time"
)

// Sentinel errors. Every error returned by a Fetch is an *Error wrapping
// exactly one of them.
var (
	// ErrNoCredentials means the rung is not configured (no key, zone,
	// token or endpoint); it is skipped and no request was made.
	ErrNoCredentials = errors.New("provider not configured")
	// ErrInvalidTarget means the target is not an absolute http(s) URL
	// that may be handed to a third party; no request was made.
	ErrInvalidTarget = errors.New("target not sendable to provider")
	// ErrUnauthorized means the provider API itself answered 401 or 403
	// (or Bright Data reported 407): the key is wrong or lacks permission.
	ErrUnauthorized = errors.New("provider rejected credentials")
	// ErrQuota means the provider is out of credit or rate-limited the
	// caller (402, 429, Bright Data sr_rate_limit or client_10100);
	// Error.RetryAfter carries the Retry-After header when sent.
	ErrQuota = errors.New("provider quota exhausted or rate-limited")
	// ErrProviderBlocked means the provider reached for the target but
	// says it could not get it: the target blocked the unlocker, the
	// provider's policy refuses the site, the crawl failed, or the Actor
	// produced no item.
	ErrProviderBlocked = errors.New("provider could not retrieve the target")
	// ErrProviderTimeout means the context deadline expired, the HTTP
	// client timed out, or the provider reported a timeout (408/504, an
	// Actor run that timed out).
	ErrProviderTimeout = errors.New("provider timed out")
	// ErrProviderFailed is every other failure: 5xx, malformed or
	// oversized JSON, unexpected statuses, redirects, cancellation.
	ErrProviderFailed = errors.New("provider failed")
)

// Error describes a failed Fetch. All of its strings are safe to log and
// store: URLs are redacted and the provider's key is scrubbed.
type Error struct {
	Provider     string        // as in Content.Provider
	Kind         error         // one of the sentinels
	Target       string        // the target URL, redacted
	HTTPStatus   int           // status of the provider API response; 0 if none
	TargetStatus int           // the target's status as the provider reported it; 0 if unknown
	Code         string        // provider error code (x-brd-error-code, x-brd-err-code, Apify error type)
	RetryAfter   time.Duration // from Retry-After on ErrQuota; 0 if not sent
	Detail       string        // sanitized explanation
	cause        error         // context.Canceled or context.DeadlineExceeded, never a raw transport error
}

// Error renders "<provider>: fetch <redacted target>: <kind>: <detail>".
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Provider)
	if e.Target != "" {
		b.WriteString(": fetch ")
		b.WriteString(e.Target)
	}
	b.WriteString(": ")
	b.WriteString(e.kind().Error())
	if e.Detail != "" {
		b.WriteString(": ")
		b.WriteString(e.Detail)
	}
	if e.RetryAfter > 0 {
		b.WriteString(" (retry after ")
		b.WriteString(e.RetryAfter.String())
		b.WriteString(")")
	}
	return b.String()
}

// Unwrap returns the sentinel and, for context errors, the context's error,
// so errors.Is(err, context.DeadlineExceeded) also works.
func (e *Error) Unwrap() []error {
	if e.cause != nil {
		return []error{e.kind(), e.cause}
	}
	return []error{e.kind()}
}

func (e *Error) kind() error {
	if e.Kind == nil {
		return ErrProviderFailed
	}
	return e.Kind
}

// RetryAfter returns the delay a provider asked for with Retry-After, if err
// is an *Error that carries one.
func RetryAfter(err error) (time.Duration, bool) {
	var pe *Error
	if errors.As(err, &pe) && pe.RetryAfter > 0 {
		return pe.RetryAfter, true
	}
	return 0, false
}
