package engine

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/citegate/citegate/engine/fsx"
	"github.com/citegate/citegate/engine/schema"
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

// Manifest is the part of manifest.v1 the citation tools read. The whole
// document is schema-validated before it is decoded into this.
type Manifest struct {
	RunID     string `json:"run_id"`
	UpdatedAt string `json:"updated_at"`
	Query     struct {
		Sensitivity string `json:"sensitivity"`
		Constraints struct {
			Flags map[string]any `json:"deep_research_cli_flags"`
		} `json:"constraints"`
	} `json:"query"`
	Artifacts struct {
		Root  string `json:"root"`
		Paths struct {
			Wave1Dir  string `json:"wave1_dir"`
			Wave2Dir  string `json:"wave2_dir"`
			GatesFile string `json:"gates_file"`
		} `json:"paths"`
	} `json:"artifacts"`
}

// Run is a loaded, validated run directory.
type Run struct {
	ManifestPath string
	Manifest     Manifest
	// Root is manifest.artifacts.root, absolute and cleaned.
	Root string
	// manifestSum is the digest of the manifest's bytes as loaded (zero
	// when the Run was not loaded from a file), so that lockRun can tell a
	// manifest another command replaced between the load and the lock.
	manifestSum [sha256.Size]byte
}

func (r *Run) citationsPath(name string) string { return filepath.Join(r.Root, "citations", name) }
func (r *Run) auditPath() string                { return filepath.Join(r.Root, "logs", "audit.jsonl") }

// GatesPath is where gates.json lives (gate-c's write and run update it).
func (r *Run) GatesPath() string { return r.gatesPath() }

// gatesPath is where gates.json lives: artifacts.paths.gates_file under the root.
func (r *Run) gatesPath() string {
	p := r.Manifest.Artifacts.Paths.GatesFile
	if p == "" {
		p = "gates.json"
	}
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(r.Root, p)
}

// requireAbs checks the reference's argument rules: required values non-empty,
// every given path absolute.
func requireAbs(name, value string, required bool) (string, *Error) {
	v := strings.TrimSpace(value)
	if v == "" {
		if required {
			return "", newError(CodeInvalidArgs, name+" must be non-empty: this argument is required", map[string]any{name: value})
		}
		return "", nil
	}
	if !filepath.IsAbs(v) {
		return "", newError(CodeInvalidArgs, name+" must be absolute: give the full path, starting with /", map[string]any{name: value})
	}
	return filepath.Clean(v), nil
}

// pathArg is an optional path argument: its name, the given value, and the
// file under <runRoot>/citations/ used when it is empty ("": no default).
type pathArg struct{ name, value, file string }

// resolvePaths checks optional path arguments (absolute when given) and
// fills in their defaults.
func resolvePaths(run *Run, args ...pathArg) ([]string, error) {
	out := make([]string, len(args))
	for i, a := range args {
		v, err := requireAbs(a.name, a.value, false)
		if err != nil {
			return nil, err
		}
		if v == "" && a.file != "" {
			v = run.citationsPath(a.file)
		}
		out[i] = v
	}
	return out, nil
}

// openTool does what every tool does first: check the reason, load and
// validate the manifest, resolve the path arguments (an INVALID_ARGS error
// comes before any lock), and take the run-directory lock (lockRun). The
// returned function releases the lock.
func (e *Engine) openTool(reason, manifestPath string, args ...pathArg) (*Run, []string, func(), error) {
	if err := requireReason(reason); err != nil {
		return nil, nil, nil, err
	}
	run, err := LoadRun(manifestPath)
	if err != nil {
		return nil, nil, nil, err
	}
	paths, err := resolvePaths(run, args...)
	if err != nil {
		return nil, nil, nil, err
	}
	release, err := e.lockRun(run)
	if err != nil {
		return nil, nil, nil, err
	}
	return run, paths, release, nil
}

func requireReason(reason string) *Error {
	if strings.TrimSpace(reason) == "" {
		return newError(CodeInvalidArgs, "reason must be non-empty", map[string]any{})
	}
	return checkReasonLength(reason)
}

// manifestNotFound is the message for a manifest_path with no file: the
// seeds' "manifest_path missing" reads as "the argument is missing".
const manifestNotFound = "manifest not found: no file at manifest_path; give the absolute path of a run directory's manifest.json, " +
	"or write a run directory first (citegate init DIR --waves FILES, or the MCP tool deep_research_citations_init)"

// LoadRun reads and validates manifest.v1 at an absolute path.
func LoadRun(manifestPath string) (*Run, error) {
	p, aerr := requireAbs("manifest_path", manifestPath, true)
	if aerr != nil {
		return nil, aerr
	}
	data, err := fsx.ReadLimited(p, maxJSONBytes)
	if err != nil {
		return nil, readError("manifest", p, manifestNotFound, err)
	}
	if _, err := schema.ValidateJSON(schema.Manifest, data); err != nil {
		return nil, schemaError("manifest", p, "manifest unreadable", err)
	}
	var m Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, newError(CodeInvalidJSON, "manifest unreadable", map[string]any{"path": p, "reason": err.Error()})
	}
	return &Run{ManifestPath: p, Manifest: m, Root: filepath.Clean(m.Artifacts.Root), manifestSum: sha256.Sum256(data)}, nil
}

// waveDir resolves a configured wave directory, refusing names that would
// leave the run root (the reference joined them unchecked).
func (r *Run) waveDir(label, configured, fallback string) (string, *Error) {
	name := configured
	if name == "" {
		name = fallback
	}
	p := filepath.Join(r.Root, name)
	if rel, err := filepath.Rel(r.Root, p); err != nil || rel == ".." || strings.HasPrefix(rel, "../") || filepath.IsAbs(name) {
		return "", newError(CodeInvalidArgs, "wave dir escapes the run root", map[string]any{"wave_dir": label, "path": name})
	}
	// A name inside the root can still lead out through a symlink (wave-1 ->
	// /home/someone). One that does not resolve at all is left to the
	// caller, which reports a missing wave-1 and skips a missing wave-2.
	if real, err := filepath.EvalSymlinks(p); err == nil {
		root, rerr := filepath.EvalSymlinks(r.Root)
		if rerr != nil {
			root = r.Root
		}
		if !fsx.Within(root, real) {
			return "", newError(CodeInvalidArgs, "wave dir escapes the run root", map[string]any{"wave_dir": label, "path": name, "resolved": real})
		}
	}
	return p, nil
}
