package ladder

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"

	"github.com/citegate/citegate/engine/classify"
)

// SharedProbes hands site-probe answers among the processes of a fleet
// (engine/fleet.Store.Once), so that a host is probed once per shape by the
// fleet, not once by each process. Key is a digest of the probe shape; run
// computes the answer when no process has, and keep=false leaves it
// unshared.
type SharedProbes interface {
	Once(ctx context.Context, key string, run func() (value []byte, keep bool)) []byte
}

// probeJSON is a probeResult as shared.
type probeJSON struct {
	FP     *classify.Fingerprint `json:"fp,omitempty"`
	Detail string                `json:"detail,omitempty"`
}

// sharedProbe runs probe under the fleet's single flight for shape. A URL
// that carried credentials keeps its probes to itself: a probe URL is built
// from its path.
func (l *Ladder) sharedProbe(ctx context.Context, it *Item, shape string, probe func() probeResult) probeResult {
	if l.cfg.SharedProbes == nil || it.Credentialed {
		return probe()
	}
	sum := sha256.Sum256([]byte("probe\x00" + shape))
	data := l.cfg.SharedProbes.Once(ctx, hex.EncodeToString(sum[:16]), func() ([]byte, bool) {
		res := probe()
		b, err := json.Marshal(probeJSON{res.fp, res.detail})
		return b, err == nil && ctx.Err() == nil && res.detail != "cancelled"
	})
	var pj probeJSON
	if json.Unmarshal(data, &pj) != nil {
		return probe()
	}
	return probeResult{fp: pj.FP, detail: pj.Detail}
}
