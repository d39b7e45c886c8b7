package engine

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"time"

	"github.com/citegate/citegate/engine/fleet"
	"github.com/citegate/citegate/engine/jsonx"
)

// redisCache is the verdict cache in the fleet's Redis (--cache
// redis://…), shared by every process that names it. Its key adds to the
// file cache's (the URL and the verdict context) a digest of the policy
// that can change a verdict, because processes of a fleet may run with
// different policies. Redis expires an entry with its status's TTL; the
// value also carries expires_at, so a clock-skewed reader still refuses a
// stale one.
type redisCache struct {
	s      *fleet.Store
	ttl    time.Duration
	now    func() time.Time
	policy string // policyDigest
	ctx    context.Context
}

func (c *redisCache) hash(normalized, context string) string {
	sum := sha256.Sum256([]byte(normalized + "\x00" + context + "\x00" + c.policy))
	return hex.EncodeToString(sum[:16])
}

func (c *redisCache) get(normalized, context string) (decision, string, bool) {
	data, ok := c.s.Get(c.ctx, c.hash(normalized, context))
	if !ok {
		return decision{}, "", false
	}
	return decodeEntry(data, normalized, c.now())
}

func (c *redisCache) put(r *Citation, context string) {
	ttl := ttlFor(r.Status, c.ttl)
	if ttl <= 0 {
		return
	}
	data, err := encodeEntry(r, c.now(), ttl)
	var compact bytes.Buffer
	if err == nil && json.Compact(&compact, data) == nil {
		// Compact: a fleet's Redis holds many of these in memory.
		c.s.Put(c.ctx, c.hash(r.NormalizedURL, context), compact.Bytes(), ttl)
	}
}

// policyDigest covers the run configuration that can change a live verdict
// besides the tier (which the verdict context holds): the ladder policy, the
// provider endpoints and the operator's network controls (guard, see
// Network.GuardPolicy).
func policyDigest(cfg *citationConfig, guard string) string {
	data, err := jsonx.MarshalFile(struct {
		Policy    LadderPolicy `json:"policy"`
		Endpoints Endpoints    `json:"endpoints"`
		Guard     string       `json:"guard,omitempty"`
	}{cfg.policy, cfg.endpoints, guard})
	if err != nil {
		return ""
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:8])
}
