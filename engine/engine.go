package engine

import (
	"context"
	"slices"
	"time"

	"github.com/citegate/citegate/engine/fsx"
	"github.com/citegate/citegate/netguard"
)

// Size caps for inputs. They exist so that a hostile or broken file produces an
// error envelope instead of exhausting memory.
const (
	maxJSONBytes     = 64 << 20  // manifest, run-config, url-map, fixtures, gates
	maxListBytes     = 256 << 20 // extracted-urls.txt, citations.jsonl
	maxWaveFileBytes = 8 << 20   // one wave markdown file
)

// Engine carries the dependencies of every stage.
type Engine struct {
	// Now is the clock; tests pin it so timestamps are reproducible.
	Now func() time.Time
	// GuardOptions are the operator's network controls (--allow-cidr,
	// --domain-allowlist, --resolve), applied to every guard a run builds.
	GuardOptions []netguard.Option
	// Net configures live online validation.
	Net Network
	// CommitHook, when set, is called at every step of every commit (see
	// fsx.Step) with the command's context. It exists for fault-injection
	// tests, which kill the process or cancel the context at exact points of
	// the write phase, or wait there for a cancellation to arrive; nil in
	// production.
	CommitHook func(context.Context, fsx.Step)
	// OnlineGate, when set, is asked before live online validation (a run
	// or validate whose mode is online and not a dry run), with where the
	// mode came from; an error refuses the call before anything is fetched
	// or written. `citegate mcp` sets it: a run config a client could have
	// written is not the operator's consent to fetch. nil allows (on the
	// command line the operator chose the run).
	OnlineGate func(modeSource string) error
	// BoundHeap, when set, applies the heap bound a run asks for (see
	// HeapBudget): it is called as a run starts with HeapBudget, and returns
	// raise, which the run calls with 1.5× its live data once it has read
	// the waves, and release, called when the run ends. The memory limit is
	// the process's, so the program sets it (ui.BoundHeap); nil leaves the
	// limit alone.
	BoundHeap func(limit int64) (raise func(limit int64), release func())
	// EndpointGate, when set, is asked before live online validation for
	// each provider endpoint the run's documents set (the manifest's flags or
	// run-config.json), with the provider's name, the URL and where it came
	// from: the provider's credentials would go there. `citegate mcp` sets it
	// (only endpoints the operator listed); nil allows.
	EndpointGate func(provider, endpoint, source string) error
	// PolicyCeiling, when set, caps run-config/policy.json's ladder values
	// (time, bytes, redirects, attempts): a policy file a client could have
	// written may lower them, never raise them. `citegate mcp` sets it to
	// the defaults; nil leaves the policy as written.
	PolicyCeiling *LadderPolicy
	// ReportBase is the directory the CI reports' paths are relative to
	// (the command's working directory: in CI, the repository's root),
	// when the run root lies under it; "" leaves them relative to the run
	// root.
	ReportBase string
	// redactText redacts a wave's source lines; nil is netguard.RedactText.
	// Tests count its calls.
	redactText func(string) string
}

// New returns an Engine using the wall clock and a default guard.
func New() *Engine {
	return &Engine{Now: time.Now}
}

// guard builds a run's network guard: the operator's controls plus the
// limits of the run's policy (seed 000: 5 s per hop, 5 redirects, 2 MB),
// resolving each host once per run (its answer shared for its TTL, at most
// netguard.DefaultShareMaxAge).
func (e *Engine) guard(p LadderPolicy) *netguard.Guard {
	opts := append(slices.Clone(e.GuardOptions), netguard.WithLimits(p.fetchLimits()), netguard.ShareLookups(0))
	return netguard.New(opts...)
}

// nowISO formats the clock like JavaScript's Date.prototype.toISOString.
func (e *Engine) nowISO() string {
	return e.Now().UTC().Format("2006-01-02T15:04:05.000Z")
}
