package fsx

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Recovery actions.
const (
	// RolledForward: a committed journal was found and its renames finished.
	RolledForward = "rolled_forward"
	// RolledBack: a journal from before the commit point (or an unreadable
	// one) was found; its staged files were removed and the old files kept.
	RolledBack = "rolled_back"
)

// Recovery reports what Recover found and did.
type Recovery struct {
	// Action is "" when there was no journal, else RolledForward or RolledBack.
	Action string
	// TxID identifies the interrupted commit, when the journal named it.
	TxID string
	// Removed lists the staging files deleted (the journal's own and strays).
	Removed []string
}

// Recover finishes or undoes a commit that a crash or kill interrupted in the
// run directory root. The caller must hold the run directory's lock (see
// LockDir), so that no commit is under way. A journal in state "committed" is
// rolled forward: each rename whose staged file still exists is redone, then
// the removals. Any other journal — written before the commit point,
// unparsable, or naming files that are not its own staging files — is rolled
// back: its staged files are deleted and every target keeps its old content.
// Finally stray staging files (".*.tmp-*", regular files only) are swept from
// root and from each of sweep that lies inside root.
func Recover(root string, sweep ...string) (Recovery, error) {
	var rec Recovery
	jpath := filepath.Join(root, JournalName)
	fi, err := os.Lstat(jpath)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return rec, err
	case !fi.Mode().IsRegular():
		return rec, &fs.PathError{Op: "recover", Path: jpath, Err: ErrNotRegular}
	default:
		j := readJournal(root, jpath)
		if j != nil {
			rec.TxID = j.TxID
		}
		if j != nil && j.State == stateCommitted {
			rec.Action = RolledForward
			if err := apply(j, jpath, root, func(Phase, int) {}); err != nil {
				return rec, err
			}
		} else {
			rec.Action = RolledBack
			if j != nil {
				for _, r := range j.Renames {
					if removeRegular(r.From) {
						rec.Removed = append(rec.Removed, r.From)
					}
				}
			}
			if err := os.Remove(jpath); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return rec, err
			}
		}
	}
	dirs := append([]string{root}, sweep...)
	for _, d := range dirs {
		if !Within(root, d) || Contained(root, d) != nil {
			continue // never sweep outside the run directory
		}
		rec.Removed = append(rec.Removed, sweepDir(d)...)
	}
	slices.Sort(rec.Removed)
	rec.Removed = slices.Compact(rec.Removed)
	if len(rec.Removed) > 0 || rec.Action != "" {
		for _, d := range dirs {
			_ = syncDir(d)
		}
	}
	return rec, nil
}

// readJournal returns the journal at path if it is well formed and names
// only its own staging files as sources and only paths that may be written
// as targets; otherwise nil. A journal is input like any other file in the
// run directory: a planted one must not rename or delete arbitrary files.
func readJournal(root, path string) *journal {
	data, err := ReadLimited(path, 16<<20)
	if err != nil {
		return nil
	}
	var j journal
	if err := json.Unmarshal(data, &j); err != nil || j.SchemaVersion != journalSchema || j.TxID == "" {
		return nil
	}
	if j.State != stateStaging && j.State != stateCommitted {
		return nil
	}
	for _, r := range j.Renames {
		if !filepath.IsAbs(r.To) || filepath.Clean(r.From) != stagedName(filepath.Clean(r.To), j.TxID) {
			return nil
		}
		if CheckTarget(root, r.To) != nil {
			return nil
		}
	}
	for _, p := range j.Removes {
		if !filepath.IsAbs(p) || !Within(root, p) || CheckTarget(root, p) != nil {
			return nil
		}
	}
	return &j
}

// isStaging reports whether name is a staging file name: ".<base>.tmp-<id>",
// as Commit, WriteAtomic and earlier versions create them.
func isStaging(name string) bool {
	return strings.HasPrefix(name, ".") && strings.Contains(name, ".tmp-")
}

// sweepDir removes the staging files directly in dir and returns them.
func sweepDir(dir string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if !e.Type().IsRegular() || !isStaging(e.Name()) {
			continue
		}
		p := filepath.Join(dir, e.Name())
		if removeRegular(p) {
			out = append(out, p)
		}
	}
	return out
}

// removeRegular deletes p if it is a regular file and reports whether it did.
func removeRegular(p string) bool {
	fi, err := os.Lstat(p)
	if err != nil || !fi.Mode().IsRegular() {
		return false
	}
	return os.Remove(p) == nil
}
