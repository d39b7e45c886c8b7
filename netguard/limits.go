package netguard

import "time"

// Defaults for Limits, matching the seed's citations_ladder_policy_v1
// (direct_fetch_timeout_ms 5000, max_redirects 5, max_body_bytes 2097152).
const (
	DefaultHopTimeout     = 5 * time.Second
	DefaultMaxRedirects   = 5
	DefaultMaxBodyBytes   = 2 << 20
	DefaultMaxHeaderBytes = 64 << 10
	DefaultMaxRetryAfter  = 60 * time.Second
)

// DefaultUserAgent says who is fetching and why, so that a site operator who
// sees citegate in a log can find out what it is instead of guessing.
const DefaultUserAgent = "citegate/0.1 (+https://github.com/citegate/citegate; citation validator)"

// NoRedirects, as Limits.MaxRedirects, makes Fetch follow no redirect at
// all: a redirect answer fails with ErrRedirectLimit and its Location is
// never requested. It exists because zero already means "the default".
const NoRedirects = -1

// Limits bounds what one Fetch may cost. The engine fills it from
// run-config/policy.json (citations_ladder_policy_v1); a zero or negative
// field means its default, except MaxRedirects, where a negative value is
// NoRedirects.
type Limits struct {
	// HopTimeout bounds each request of a redirect chain from the start
	// of DNS resolution to the last byte of the body, so a server cannot
	// stretch a hop by answering quickly and then dripping the body.
	HopTimeout time.Duration
	// MaxRedirects is how many redirects Fetch follows; one more fails
	// with ErrRedirectLimit. Zero means DefaultMaxRedirects; NoRedirects
	// (any negative value) follows none.
	MaxRedirects int
	// MaxBodyBytes caps the decoded body, so a compression bomb costs at
	// most this much memory however well it compresses.
	MaxBodyBytes int64
	// MaxHeaderBytes caps the response header block, interim (1xx)
	// responses included; Go's own default is 10 MiB.
	MaxHeaderBytes int64
	// MaxRetryAfter caps Response.RetryAfter. A server may ask for any
	// delay; a run must not sleep for a day because one citation said so.
	MaxRetryAfter time.Duration
}

// WithLimits sets the per-fetch limits. Zero fields keep their defaults.
func WithLimits(l Limits) Option {
	return func(g *Guard) { g.limits = l }
}

// WithUserAgent replaces DefaultUserAgent. An empty string keeps the default:
// an anonymous fetcher looks like a scraper and gets blocked as one.
func WithUserAgent(ua string) Option {
	return func(g *Guard) {
		if ua != "" {
			g.userAgent = ua
		}
	}
}

func (l Limits) withDefaults() Limits {
	if l.HopTimeout <= 0 {
		l.HopTimeout = DefaultHopTimeout
	}
	switch {
	case l.MaxRedirects == 0:
		l.MaxRedirects = DefaultMaxRedirects
	case l.MaxRedirects < 0:
		l.MaxRedirects = NoRedirects
	}
	if l.MaxBodyBytes <= 0 {
		l.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if l.MaxHeaderBytes <= 0 {
		l.MaxHeaderBytes = DefaultMaxHeaderBytes
	}
	if l.MaxRetryAfter <= 0 {
		l.MaxRetryAfter = DefaultMaxRetryAfter
	}
	return l
}
