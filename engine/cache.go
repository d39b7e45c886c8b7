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

// resultCache keeps definitive live results (valid, paywalled, invalid,
// mismatch) across runs, one file per normalized URL, so re-validating a run
// does not hammer the same sites. Blocked results, timeouts, 429s and 5xx are
// never cached: they say nothing lasting about the URL.
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

// get returns a fresh cached decision and when it was checked.
func (c *resultCache) get(normalized, context string) (decision, string, bool) {
	if c == nil {
		return decision{}, "", false
	}
	data, err := fsx.ReadLimited(c.path(normalized, context), 1<<20)
	if err != nil {
		return decision{}, "", false
	}
	var e cacheEntry
	if json.Unmarshal(data, &e) != nil || e.SchemaVersion != "citegate_cache.v1" || e.NormalizedURL != normalized {
		return decision{}, "", false
	}
	exp, err := time.Parse(time.RFC3339Nano, e.ExpiresAt)
	if err != nil || !c.now().Before(exp) || !e.Status.Known() || e.Status == StatusBlocked {
		return decision{}, "", false
	}
	v := e.Verdict
	v.Notes += "; cache hit"
	return decision{Verdict: v, rung: "cache"}, e.CheckedAt, true
}

// put stores a definitive result, taken from the finished (redacted) record.
func (c *resultCache) put(r *Citation, context string) {
	if c == nil || r.Status == StatusBlocked || !r.Status.Known() {
		return
	}
	data, err := jsonx.MarshalFile(cacheEntry{"citegate_cache.v1", r.NormalizedURL, r.Verdict(), r.CheckedAt,
		c.now().Add(c.ttl).UTC().Format(time.RFC3339Nano)})
	if err == nil {
		_ = fsx.WriteAtomic(c.path(r.NormalizedURL, context), data) // a cache that cannot be written is only slower
	}
}
