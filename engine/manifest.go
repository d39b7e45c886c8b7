package engine

import (
	"crypto/sha256"
	"encoding/json"
	"path/filepath"
	"strings"

	"github.com/citegate/citegate/engine/fsx"
	"github.com/citegate/citegate/engine/schema"
)

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

// RunDir is a loaded, validated run directory.
type RunDir struct {
	ManifestPath string
	Manifest     Manifest
	// Root is manifest.artifacts.root, absolute and cleaned.
	Root string
	// manifestSum is the digest of the manifest's bytes as loaded (zero
	// when the Run was not loaded from a file), so that lockRun can tell a
	// manifest another command replaced between the load and the lock.
	manifestSum [sha256.Size]byte
}

func (r *RunDir) citationsPath(name string) string { return filepath.Join(r.Root, "citations", name) }
func (r *RunDir) auditPath() string                { return filepath.Join(r.Root, "logs", "audit.jsonl") }

// GatesPath is where gates.json lives (gate-c's write and run update it).
func (r *RunDir) GatesPath() string { return r.gatesPath() }

// gatesPath is where gates.json lives: artifacts.paths.gates_file under the root.
func (r *RunDir) gatesPath() string {
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
func resolvePaths(run *RunDir, args ...pathArg) ([]string, error) {
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
func (e *Engine) openTool(reason, manifestPath string, args ...pathArg) (*RunDir, []string, func(), error) {
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
func LoadRun(manifestPath string) (*RunDir, error) {
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
	return &RunDir{ManifestPath: p, Manifest: m, Root: filepath.Clean(m.Artifacts.Root), manifestSum: sha256.Sum256(data)}, nil
}

// waveDir resolves a configured wave directory, refusing names that would
// leave the run root (the reference joined them unchecked).
func (r *RunDir) waveDir(label, configured, fallback string) (string, *Error) {
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
