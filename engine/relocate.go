package engine

import (
	"context"
	"errors"
	"io/fs"
	"path/filepath"
	"slices"

	"github.com/citegate/citegate/engine/fsx"
)

// RelocateArgs configures `citegate relocate DIR`.
type RelocateArgs struct {
	// Dir is the run directory (absolute) that was copied or moved.
	Dir string `json:"dir"`
}

// RelocateResult is relocate's success envelope.
type RelocateResult struct {
	OK     bool   `json:"ok"`
	RunDir string `json:"run_dir"`
	// PreviousRoot is the root the manifest named before.
	PreviousRoot string `json:"previous_root"`
	// Rewritten lists the files changed, relative to the run directory;
	// empty when the manifest already named the directory.
	Rewritten []string `json:"rewritten"`
	Next      []string `json:"next"`
}

// latestPointer is the one artifact that holds an absolute path the next
// commands follow: the capture online-fixtures.latest.json points at.
const latestPointer = "citations/online-fixtures.latest.json"

// Relocate makes a copied or moved run directory its own run: manifest.json's
// artifacts.root becomes Dir, and every absolute path under the previous
// root in artifacts.paths and in the latest-capture pointer is moved under
// Dir. Those strings are replaced in place (the files keep their other
// bytes), in one commit under Dir's lock; nothing outside Dir is read or
// written. The audit log and the dated captures are left as they are: they
// record what happened where it happened.
func (e *Engine) Relocate(ctx context.Context, a RelocateArgs) (*RelocateResult, error) {
	dir, aerr := requireAbs("dir", a.Dir, true)
	if aerr != nil {
		return nil, aerr
	}
	run, err := LoadRun(filepath.Join(dir, "manifest.json"))
	if err != nil {
		return nil, err
	}
	res := &RelocateResult{OK: true, RunDir: dir, PreviousRoot: run.Root, Rewritten: []string{},
		Next: []string{"citegate run " + dir}}
	if sameDir(run.Root, dir) {
		return res, nil
	}
	moved := func(s string) (string, bool) {
		if !filepath.IsAbs(s) || !fsx.Within(run.Root, s) {
			return "", false
		}
		rel, err := filepath.Rel(run.Root, filepath.Clean(s))
		if err != nil {
			return "", false
		}
		return filepath.Join(dir, rel), true
	}
	here := *run
	here.Root = dir
	if g, ok := moved(run.Manifest.Artifacts.Paths.GatesFile); ok {
		here.Manifest.Artifacts.Paths.GatesFile = g
	}
	release, err := e.lockRun(&here)
	if err != nil {
		return nil, err
	}
	defer release()
	files, err := relocatedFiles(dir, run, moved)
	if err != nil {
		return nil, err
	}
	if err := fsx.Commit(ctx, fsx.Batch{Root: dir, Files: files}); err != nil {
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return nil, cancelled()
		}
		return nil, newError(CodeWriteFailed, "relocate: cannot rewrite the run directory; nothing was written",
			map[string]any{"dir": dir, "reason": err.Error()})
	}
	for _, f := range files {
		res.Rewritten = append(res.Rewritten, relPOSIX(dir, f.Path))
	}
	here.audit(struct {
		TS        string   `json:"ts"`
		Kind      string   `json:"kind"`
		RunID     string   `json:"run_id"`
		From      string   `json:"from"`
		To        string   `json:"to"`
		Rewritten []string `json:"rewritten"`
	}{e.nowISO(), "relocate", run.Manifest.RunID, run.Root, dir, res.Rewritten})
	return res, nil
}

// relocatedFiles renders the rewritten manifest and latest-capture pointer.
func relocatedFiles(dir string, run *RunDir, moved func(string) (string, bool)) ([]fsx.File, error) {
	manifest, err := fsx.ReadLimited(run.ManifestPath, maxJSONBytes)
	if err != nil {
		return nil, readError("manifest", run.ManifestPath, manifestNotFound, err)
	}
	manifest, _, err = rewriteJSONStrings(manifest, func(path []string, s string) (string, bool) {
		switch {
		case slices.Equal(path, []string{"artifacts", "root"}):
			return dir, true
		case len(path) == 3 && path[0] == "artifacts" && path[1] == "paths":
			return moved(s)
		}
		return "", false
	})
	if err != nil {
		return nil, newError(CodeInvalidJSON, "manifest unreadable", map[string]any{"path": run.ManifestPath, "reason": err.Error()})
	}
	files := []fsx.File{{Path: run.ManifestPath, Data: manifest}}
	latestPath := filepath.Join(dir, filepath.FromSlash(latestPointer))
	latest, err := fsx.ReadLimited(latestPath, maxJSONBytes)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return files, nil
	case err != nil:
		return nil, readError("online fixtures pointer", latestPath, "online fixtures pointer missing", err)
	}
	latest, n, err := rewriteJSONStrings(latest, func(path []string, s string) (string, bool) {
		if slices.Equal(path, []string{"path"}) {
			return moved(s)
		}
		return "", false
	})
	if err != nil {
		return nil, newError(CodeInvalidJSON, "online fixtures pointer unreadable", map[string]any{"path": latestPath, "reason": err.Error()})
	}
	if n > 0 {
		files = append(files, fsx.File{Path: latestPath, Data: latest})
	}
	return files, nil
}
