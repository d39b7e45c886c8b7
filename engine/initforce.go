package engine

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/citegate/citegate/engine/fsx"
)

// This file is what init does to a run directory that already holds a run:
// which of its files would still count once init has written, and, with
// --force, moving them aside so that nothing the user had is lost.

// ReplacedDir is where init --force keeps the previous run's files, each
// set in a numbered subdirectory (1, 2, …) at its path relative to the run
// directory. run reads nothing there.
const ReplacedDir = ".citegate-replaced"

// staleDirs are the directories of a run whose regular files count for the
// next run: the wave directories (every *.md is read) and citations/ (the
// artifacts, the kept records of a re-check, the online captures). logs/
// is history and stays.
var (
	waveDirs  = []string{"wave-1", "wave-2"}
	staleDirs = []string{"citations"}
)

// previousRun is what the run directory holds that init would replace or
// that would still count after it: files init overwrites (overwrite) and
// files it does not write (stale), both relative to the run directory and
// sorted, and the entries that cannot be moved (not regular files), named
// in warnings.
type previousRun struct {
	overwrite, stale []string
	// irregular are targets of init that exist and are not regular files:
	// refused without --force, and the commit refuses them with it.
	irregular []string
	warnings  []string
}

// all is every file of the previous run init replaces, sorted.
func (p *previousRun) all() []string {
	out := slices.Concat(p.overwrite, p.stale)
	slices.Sort(out)
	return out
}

// existing is what init without --force refuses: every path it would
// replace or that would still count.
func (p *previousRun) existing() []string {
	out := slices.Concat(p.overwrite, p.stale, p.irregular)
	slices.Sort(out)
	return out
}

// findPreviousRun looks at root before init writes files (absolute paths).
// The wave directories are the user's when init writes no wave file
// (withWaves false): a user may put the waves there by hand before init.
func findPreviousRun(root string, files []fsx.File, withWaves bool) (*previousRun, error) {
	p := &previousRun{}
	writes := map[string]bool{}
	for _, f := range files {
		rel := relPOSIX(root, f.Path)
		writes[rel] = true
		if fi, err := os.Lstat(f.Path); err == nil && fi.Mode().IsRegular() {
			p.overwrite = append(p.overwrite, rel)
		} else if err == nil {
			p.irregular = append(p.irregular, rel)
		}
	}
	dirs := staleDirs
	if withWaves {
		dirs = slices.Concat(waveDirs, staleDirs)
	}
	for _, d := range dirs {
		if err := p.walk(root, d, writes); err != nil {
			return nil, readError("run directory", filepath.Join(root, d), "run directory missing", err)
		}
	}
	slices.Sort(p.overwrite)
	slices.Sort(p.stale)
	return p, nil
}

// walk adds the regular files under root/dir that init does not write to
// stale, and names every other entry in warnings. A symlink is not
// followed: what it points at is not the run's to move.
func (p *previousRun) walk(root, dir string, writes map[string]bool) error {
	err := filepath.WalkDir(filepath.Join(root, dir), func(abs string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := relPOSIX(root, abs)
		switch {
		case d.Type().IsRegular():
			if !writes[rel] && !isStagingName(d.Name()) {
				p.stale = append(p.stale, rel)
			}
		case d.IsDir():
		default:
			p.warnings = append(p.warnings, rel+": not a regular file or directory (a symlink, FIFO, socket or device); init left it in place")
		}
		return nil
	})
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

// isStagingName is a commit's staging file name (see fsx): Recover sweeps
// such files; they are no one's data.
func isStagingName(name string) bool {
	return strings.HasPrefix(name, ".") && strings.Contains(name, ".tmp-")
}

// moveAside adds to files and returns, for the removals of the same
// commit, what moves the previous run into the next numbered set under
// ReplacedDir: a copy of every file (streamed, see fsx.CopyOf), and the
// removal of each stale one (the overwritten ones are replaced by the
// commit itself). It returns the set's directory relative to root.
func (p *previousRun) moveAside(root string, files []fsx.File) ([]fsx.File, []string, string, error) {
	n, err := nextReplacedSet(filepath.Join(root, ReplacedDir))
	if err != nil {
		return nil, nil, "", err
	}
	set := path.Join(ReplacedDir, strconv.Itoa(n))
	for _, rel := range p.all() {
		from := filepath.Join(root, filepath.FromSlash(rel))
		files = append(files, fsx.File{Path: filepath.Join(root, filepath.FromSlash(set), filepath.FromSlash(rel)), Stream: fsx.CopyOf(from)})
	}
	remove := make([]string, len(p.stale))
	for i, rel := range p.stale {
		remove[i] = filepath.Join(root, filepath.FromSlash(rel))
	}
	return files, remove, set, nil
}

// auditReplaced records in the audit log (logs/ is never moved) which files
// init --force moved aside and where, so the move stays on record.
func (e *Engine) auditReplaced(res *InitResult) {
	run := &RunDir{Root: res.RunDir}
	run.audit(struct {
		TS       string   `json:"ts"`
		Kind     string   `json:"kind"`
		RunID    string   `json:"run_id"`
		Dir      string   `json:"replaced_dir"`
		Replaced []string `json:"replaced"`
	}{e.nowISO(), "init_replaced", res.RunID, res.ReplacedDir, res.Replaced})
}

// nextReplacedSet is one more than the highest numbered set in dir (1 when
// there is none): deterministic, and never an existing set.
func nextReplacedSet(dir string) (int, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return 1, nil
	}
	if err != nil {
		return 0, readError("replaced files directory", dir, "replaced files directory missing", err)
	}
	high := 0
	for _, e := range entries {
		if n, err := strconv.Atoi(e.Name()); err == nil && n > high && strconv.Itoa(n) == e.Name() {
			high = n
		}
	}
	return high + 1, nil
}
