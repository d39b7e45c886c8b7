package engine

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/citegate/citegate/engine/fsx"
	"github.com/citegate/citegate/engine/jsonx"
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
	// Guard preflights URLs in online mode.
	Guard *netguard.Guard
}

// New returns an Engine using the wall clock and a default guard.
func New() *Engine {
	return &Engine{Now: time.Now, Guard: netguard.New()}
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
}

func (r *Run) citationsPath(name string) string { return filepath.Join(r.Root, "citations", name) }
func (r *Run) auditPath() string                { return filepath.Join(r.Root, "logs", "audit.jsonl") }

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
			return "", newError(CodeInvalidArgs, name+" must be non-empty", map[string]any{name: value})
		}
		return "", nil
	}
	if !filepath.IsAbs(v) {
		return "", newError(CodeInvalidArgs, name+" must be absolute", map[string]any{name: value})
	}
	return filepath.Clean(v), nil
}

func requireReason(reason string) *Error {
	if strings.TrimSpace(reason) == "" {
		return newError(CodeInvalidArgs, "reason must be non-empty", map[string]any{})
	}
	return nil
}

// LoadRun reads and validates manifest.v1 at an absolute path.
func LoadRun(manifestPath string) (*Run, error) {
	p, aerr := requireAbs("manifest_path", manifestPath, true)
	if aerr != nil {
		return nil, aerr
	}
	data, err := fsx.ReadLimited(p, maxJSONBytes)
	if err != nil {
		return nil, readError("manifest", p, "manifest_path missing", err)
	}
	if _, err := schema.ValidateJSON(schema.Manifest, data); err != nil {
		return nil, schemaError("manifest", p, "manifest unreadable", err)
	}
	var m Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, newError(CodeInvalidJSON, "manifest unreadable", map[string]any{"path": p, "reason": err.Error()})
	}
	return &Run{ManifestPath: p, Manifest: m, Root: filepath.Clean(m.Artifacts.Root)}, nil
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
	return p, nil
}

// audit appends one line to logs/audit.jsonl. It is best-effort, as in the
// reference: a failing audit never fails the tool.
func (r *Run) audit(event any) {
	line, err := jsonx.Marshal(event)
	if err != nil {
		return
	}
	_ = fsx.AppendLine(r.auditPath(), line)
}

// writeArtifact writes one artifact atomically, mapping failure to the
// reference's WRITE_FAILED message.
func writeArtifact(path string, data []byte, message string) *Error {
	if err := fsx.WriteAtomic(path, data); err != nil {
		return newError(CodeWriteFailed, message, map[string]any{"path": path, "reason": err.Error()})
	}
	return nil
}

// lines joins text-list entries the reference's way: "\n" after each, and an
// empty file for an empty list.
func lines(items []string) []byte {
	n := 0
	for _, s := range items {
		n += len(s) + 1
	}
	b := make([]byte, 0, n)
	for _, s := range items {
		b = append(b, s...)
		b = append(b, '\n')
	}
	return b
}

// splitLines splits on \n or \r\n, trims, and drops empty lines.
func splitLines(data []byte) []string {
	var out []string
	for _, l := range strings.Split(string(data), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// relPOSIX returns target relative to root with forward slashes.
func relPOSIX(root, target string) string {
	rel, err := filepath.Rel(root, target)
	if err != nil {
		return filepath.ToSlash(target)
	}
	return filepath.ToSlash(rel)
}

// pendingWrite is one artifact rendered and checked, waiting to be written.
type pendingWrite struct {
	path, message string
	data          []byte
}

// writeAll writes a set of artifacts all or nothing, as far as a file system
// allows: every artifact is first written in full and synced to a temporary
// file beside its target, and only when all of them are staged are they
// renamed into place. A failure while staging (a target that is a directory,
// a parent that is a file, no space, no permission) leaves every target as it
// was and removes the temporaries; writing the artifacts one after another
// would leave the first ones replaced when a later one failed.
func writeAll(ws []pendingWrite) error {
	tmps := make([]string, 0, len(ws))
	cleanup := func() {
		for _, t := range tmps {
			_ = os.Remove(t)
		}
	}
	for _, w := range ws {
		tmp, err := stageFile(w.path, w.data)
		if err != nil {
			cleanup()
			return newError(CodeWriteFailed, w.message, map[string]any{"path": w.path, "reason": err.Error()})
		}
		tmps = append(tmps, tmp)
	}
	dirs := map[string]bool{}
	for i, w := range ws {
		if err := os.Rename(tmps[i], w.path); err != nil {
			cleanup()
			return newError(CodeWriteFailed, w.message, map[string]any{"path": w.path, "reason": err.Error()})
		}
		dirs[filepath.Dir(w.path)] = true
	}
	for d := range dirs {
		if err := syncDir(d); err != nil {
			return newError(CodeWriteFailed, "cannot sync artifact directory", map[string]any{"path": d, "reason": err.Error()})
		}
	}
	return nil
}

// stageFile writes data to a new temporary file in path's directory (named
// like fsx.WriteAtomic's, .<base>.tmp-*), mode 0644, synced, and returns its
// name. It refuses a path that is a directory, which a rename could not
// replace.
func stageFile(path string, data []byte) (string, error) {
	if fi, err := os.Lstat(path); err == nil && fi.IsDir() {
		return "", fmt.Errorf("%s is a directory", path)
	}
	dir, base := filepath.Split(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return "", err
	}
	err = f.Chmod(0o644)
	if err == nil {
		_, err = f.Write(data)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(f.Name())
		return "", err
	}
	return f.Name(), nil
}

// syncDir makes renames in dir durable; file systems that cannot sync a
// directory report EINVAL, which is not an error.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	if errors.Is(err, syscall.EINVAL) {
		return nil
	}
	return err
}
