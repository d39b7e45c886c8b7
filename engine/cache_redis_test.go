package engine

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/citegate/citegate/engine/fleet"
	"github.com/citegate/citegate/engine/fleet/fleettest"
)

// TestCacheTTLPerStatus: both caches keep valid, paywalled and mismatch
// for the cache's TTL and invalid for at most a day, and never keep
// blocked; in Redis the key itself expires with that TTL.
func TestCacheTTLPerStatus(t *testing.T) {
	srv := fleettest.New(t, "")
	addr, err := fleet.ParseAddr(srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	store, err := fleet.Open(context.Background(), addr, "cache", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	const ttl = 7 * 24 * time.Hour
	clk := &clock{t: testNow}
	rc := &redisCache{s: store, ttl: ttl, now: clk.now, policy: "p", ctx: context.Background()}
	fc := &resultCache{dir: t.TempDir(), ttl: ttl, now: clk.now}
	for _, tt := range []struct {
		st   Status
		want time.Duration // 0: never kept
	}{
		{StatusValid, ttl}, {StatusPaywalled, ttl}, {StatusMismatch, ttl}, {StatusInvalid, 24 * time.Hour}, {StatusBlocked, 0},
	} {
		u := cacheURL + "/" + string(tt.st)
		for name, c := range map[string]verdictCache{"redis": rc, "file": fc} {
			clk.set(testNow)
			c.put(cachedCitation(u, tt.st), "ctx")
			_, _, fresh := c.get(u, "ctx")
			clk.set(testNow.Add(tt.want - time.Minute))
			_, _, before := c.get(u, "ctx")
			clk.set(testNow.Add(tt.want))
			_, _, after := c.get(u, "ctx")
			if tt.want == 0 && (fresh || before || after) || tt.want > 0 && (!fresh || !before || after) {
				t.Errorf("%s %s: hit fresh %v, a minute before %v %v, at it %v", name, tt.st, fresh, tt.want, before, after)
			}
		}
		pttl := srv.Client().PTTL(context.Background(), fleet.VerdictKey(rc.hash(u, "ctx"))).Val()
		if tt.want > 0 && (pttl > tt.want || pttl < tt.want-time.Minute) || tt.want == 0 && pttl != -2 {
			t.Errorf("redis %s: key TTL %v, want %v", tt.st, pttl, tt.want)
		}
	}
	// A different policy digest never reads another policy's verdict.
	other := *rc
	other.policy = "q"
	clk.set(testNow)
	if _, _, ok := other.get(cacheURL+"/valid", "ctx"); ok {
		t.Error("a verdict reached under another policy was served")
	}
	if v := srv.Client().Get(context.Background(), fleet.VerdictKey(rc.hash(cacheURL+"/valid", "ctx"))).Val(); !strings.Contains(v, `"schema_version":"citegate_cache.v1"`) {
		t.Errorf("stored value %q carries no schema version", v)
	}
}

// TestPolicyDigestCoversTheGuard: the operator's network controls are part
// of the shared cache's policy digest, so a verdict reached under
// --domain-allowlist (say) is never served to a runner without it, while the
// same controls give the same digest.
func TestPolicyDigestCoversTheGuard(t *testing.T) {
	cfg := &citationConfig{policy: DefaultLadderPolicy()}
	none, allow := policyDigest(cfg, ""), policyDigest(cfg, "domain-allowlist=example.org")
	if none == "" || none == allow {
		t.Errorf("digest without controls %q, with an allowlist %q: want two different digests", none, allow)
	}
	if again := policyDigest(cfg, "domain-allowlist=example.org"); again != allow {
		t.Errorf("the same controls gave %q and %q", allow, again)
	}
}
