package engine

import (
	"path/filepath"

	"github.com/citegate/citegate/engine/fsx"
)

// CodeRunDirMoved: `run DIR` was given a directory whose manifest names
// another run root — a run directory copied or moved. Running it would read
// the other directory's waves and overwrite its artifacts.
const CodeRunDirMoved = "RUN_DIR_MOVED"

// loadRunArgs loads the run a RunArgs names. With RunDir (`run DIR`) the run
// must be that directory: its manifest's root is DIR, and no path the
// manifest configures leads out of it, so that nothing outside DIR is read
// or written.
// A RunDir without ManifestPath (run_dir alone, over MCP or --args-json)
// means DIR/manifest.json.
func loadRunArgs(a RunArgs) (*RunDir, error) {
	dir, aerr := requireAbs("run_dir", a.RunDir, false)
	if aerr != nil {
		return nil, aerr
	}
	manifest := a.ManifestPath
	if manifest == "" && dir != "" {
		manifest = filepath.Join(dir, "manifest.json")
	}
	run, err := LoadRun(manifest)
	if err != nil {
		return nil, err
	}
	if dir == "" {
		return run, nil
	}
	if err := checkRunDir(run, dir); err != nil {
		return nil, err
	}
	return run, nil
}

// checkRunDir refuses a run whose root is not dir, or whose gates file lies
// outside it (the wave directories are checked where they are resolved,
// waveDir; every other path is under the root by construction).
func checkRunDir(run *RunDir, dir string) *Error {
	if !sameDir(run.Root, dir) {
		fix := "citegate relocate " + dir
		return newError(CodeRunDirMoved,
			"this run directory's manifest.json names another run root ("+run.Root+"): the directory was copied or moved. "+
				"Nothing was read or written. To run this directory, run `"+fix+"` first (it points the manifest at this directory); "+
				"to run the original, run `citegate run "+run.Root+"`",
			map[string]any{"dir": dir, "manifest_path": run.ManifestPath, "manifest_root": run.Root, "fix": fix})
	}
	// The root is dir (a symlink to it, perhaps): paths are under the root.
	if gates := run.gatesPath(); !fsx.Within(run.Root, gates) {
		return newError(CodeInvalidArgs, "manifest.json artifacts.paths.gates_file leads out of the run directory; nothing was read or written. "+
			"Make it a path relative to the run directory (citegate relocate rewrites one that points into a previous root)",
			map[string]any{"dir": dir, "manifest_path": run.ManifestPath, "gates_file": gates})
	}
	return nil
}

// sameDir reports whether two absolute paths name the same directory once
// symlinks are resolved (a path that does not resolve is compared as
// written).
func sameDir(a, b string) bool {
	return realPath(a) == realPath(b)
}

func realPath(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return filepath.Clean(p)
}
