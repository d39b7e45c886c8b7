package engine

import (
	"encoding/json"
	"path/filepath"
	"time"

	"github.com/citegate/citegate/engine/classify"
	"github.com/citegate/citegate/engine/fsx"
	"github.com/citegate/citegate/engine/jsonx"
	"github.com/citegate/citegate/parse"
)

// verdictCache is where definitive live results are kept across runs: a
// directory (resultCache) or the fleet's Redis (redisCache). Both follow
// the same rules: only valid, paywalled, invalid and mismatch are kept
// (never blocked, a timeout, a 429 or a 5xx), each for its status's TTL
// (ttlFor); a URL that carried credentials is never kept (the callers check
// Item.Credentialed); an entry is found only under the verdict context it
// was reached in; and values carry their schema version.
type verdictCache interface {
	// get returns a fresh cached decision and when it was checked.
	get(normalized, context string) (decision, string, bool)
	// put stores a definitive result, taken from the finished (redacted)
	// record.
	put(r *Citation, context string)
}

// cacheSchema versions a cached value; an entry of another version is a
// miss.
const cacheSchema = "citegate_cache.v1"

// invalidTTL caps how long an invalid verdict is kept: a missing page or a
// dead name is more likely to come back than a page is to disappear.
const invalidTTL = 24 * time.Hour

// ttlFor is how long a verdict of status st stays fresh, given the cache's
// TTL (--cache-ttl): that TTL for valid, paywalled and mismatch, at most
// invalidTTL for invalid, and 0 (never cached) for anything else.
func ttlFor(st Status, base time.Duration) time.Duration {
	switch {
	case st == StatusBlocked || !st.Known():
		return 0
	case st == StatusInvalid:
		return min(base, invalidTTL)
	}
	return base
}

// encodeEntry is the stored form of a finished record.
func encodeEntry(r *Citation, now time.Time, ttl time.Duration) ([]byte, error) {
	return jsonx.MarshalFile(cacheEntry{cacheSchema, r.NormalizedURL, r.Verdict(), r.CheckedAt,
		now.Add(ttl).UTC().Format(time.RFC3339Nano)})
}

// decodeEntry reads a stored entry for normalized, fresh at now.
func decodeEntry(data []byte, normalized string, now time.Time) (decision, string, bool) {
	var e cacheEntry
	if json.Unmarshal(data, &e) != nil || e.SchemaVersion != cacheSchema || e.NormalizedURL != normalized {
		return decision{}, "", false
	}
	exp, err := time.Parse(time.RFC3339Nano, e.ExpiresAt)
	if err != nil || !now.Before(exp) || !e.Status.Known() || e.Status == StatusBlocked {
		return decision{}, "", false
	}
	v := e.Verdict
	v.Notes += "; cache hit"
	return decision{Verdict: v, rung: rungCache}, e.CheckedAt, true
}

// rungCache names a decision read from a cache.
const rungCache = "cache"

// resultCache is the verdict cache in a directory, one file per URL and
// verdict context, so re-validating a run does not hammer the same sites.
type resultCache struct {
	dir string
	ttl time.Duration
	now func() time.Time
}

type cacheEntry struct {
	SchemaVersion string `json:"schema_version"`
	NormalizedURL string `json:"normalized_url"`
	Verdict
	CheckedAt string `json:"checked_at"`
	ExpiresAt string `json:"expires_at"`
}

// path names an entry by everything its verdict depends on: the URL and
// the verdict context (the tier, and how the wave cited the URL — a
// mismatch at the thorough tier depends on the link text). A verdict is
// never reused under a context it was not reached in.
func (c *resultCache) path(normalized, context string) string {
	return filepath.Join(c.dir, parse.CID(normalized+"\x00"+context)+".json")
}

// verdictContext is the part of a live check's input, besides the URL, that
// can change its verdict.
func verdictContext(tier string, c classify.Citation) string {
	return tier + "\x00" + c.LinkText + "\x00" + c.SourceLine
}

func (c *resultCache) get(normalized, context string) (decision, string, bool) {
	if c == nil {
		return decision{}, "", false
	}
	data, err := fsx.ReadLimited(c.path(normalized, context), 1<<20)
	if err != nil {
		return decision{}, "", false
	}
	return decodeEntry(data, normalized, c.now())
}

func (c *resultCache) put(r *Citation, context string) {
	if c == nil {
		return
	}
	ttl := ttlFor(r.Status, c.ttl)
	if ttl <= 0 {
		return
	}
	if data, err := encodeEntry(r, c.now(), ttl); err == nil {
		_ = fsx.WriteAtomic(c.path(r.NormalizedURL, context), data) // a cache that cannot be written is only slower
	}
}
