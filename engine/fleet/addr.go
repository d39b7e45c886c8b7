package fleet

import (
	"errors"
	"net/url"
	"strings"

	"github.com/redis/go-redis/v9"
)

// Addr is a parsed Redis address: the client options and the address as
// it may be shown (userinfo replaced, so a password is never printed).
type Addr struct {
	opts   *redis.Options
	shown  string
	secret string // the password, to scrub from any error text
}

// IsRedisURL reports whether a --cache or --fleet value names Redis rather
// than a directory.
func IsRedisURL(s string) bool {
	return strings.HasPrefix(s, "redis://") || strings.HasPrefix(s, "rediss://")
}

// ParseAddr reads redis://[user:pass@]host:port/db or rediss://… (TLS).
// The error never holds the password.
func ParseAddr(raw string) (Addr, error) {
	shown := showURL(raw)
	if !IsRedisURL(raw) {
		return Addr{}, errors.New("not a redis:// or rediss:// address: " + shown)
	}
	secret := ""
	if u, err := url.Parse(raw); err == nil && u.User != nil {
		secret, _ = u.User.Password()
	}
	opts, err := redis.ParseURL(raw)
	if err != nil {
		return Addr{}, errors.New("Redis address " + shown + ": " + scrub(err.Error(), raw, secret))
	}
	return Addr{opts: opts, shown: shown, secret: secret}, nil
}

// String is the address as it may be shown.
func (a Addr) String() string { return a.shown }

// showURL replaces the userinfo of a Redis URL with REDACTED; a value that
// does not parse shows only its scheme.
func showURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		if i := strings.Index(raw, "://"); i >= 0 {
			return raw[:i+3] + "REDACTED"
		}
		return "REDACTED"
	}
	if u.User != nil {
		u.User = url.User("REDACTED")
	}
	u.RawQuery, u.Fragment = "", ""
	return u.String()
}

// scrub removes the raw address and the password from an error's text.
func scrub(msg, raw, secret string) string {
	msg = strings.ReplaceAll(msg, raw, showURL(raw))
	if secret != "" {
		msg = strings.ReplaceAll(msg, secret, "REDACTED")
		if esc := url.QueryEscape(secret); esc != secret {
			msg = strings.ReplaceAll(msg, esc, "REDACTED")
		}
	}
	return msg
}
