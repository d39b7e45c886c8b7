package fsx

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
)

// JournalName is the commit journal Commit keeps in the run root while a
// commit is under way. Its presence after a crash tells Recover what to do.
const JournalName = ".citegate-commit.json"

const journalSchema = "citegate.commit.v1"

// Journal states. A journal is always replaced by rename, so it is either
// absent, "staging" (the intent: these staged files may exist, nothing has
// been renamed) or "committed" (every staged file is durable; the renames
// must happen).
const (
	stateStaging   = "staging"
	stateCommitted = "committed"
)

// Batch is a set of file changes that Commit applies all or nothing.
type Batch struct {
	// Root is the run directory. The journal lives there, and a target that
	// lies under Root must still lie under it once symlinks are resolved.
	Root string
	// Files are written (created or replaced).
	Files []File
	// Remove lists files deleted by the same commit; a missing one is fine.
	Remove []string
	// Hook, when set, is called after every step, so fault-injection tests
	// can kill the process or cancel the context at an exact point.
	Hook func(Step)
}

// Phase names a step of Commit.
type Phase int

// The steps of a commit, in order. A kill before PhaseCommitted leaves the old
// set (Recover removes the staged files); a kill from PhaseCommitted on leaves
// the new set (Recover finishes the renames).
const (
	// PhaseIntent: the staging journal is durable; nothing is staged yet.
	PhaseIntent Phase = iota
	// PhaseStaged: Files[Index] is written and synced beside its target.
	PhaseStaged
	// PhaseCommitted: the journal says "committed" and is durable. From here
	// on the commit completes even if the context is cancelled.
	PhaseCommitted
	// PhaseRenamed: Files[Index] is in place.
	PhaseRenamed
	// PhaseRemoved: Remove[Index] is gone.
	PhaseRemoved
	// PhaseDone: the journal is removed; the commit is complete.
	PhaseDone
)

func (p Phase) String() string {
	switch p {
	case PhaseIntent:
		return "intent"
	case PhaseStaged:
		return "staged"
	case PhaseCommitted:
		return "committed"
	case PhaseRenamed:
		return "renamed"
	case PhaseRemoved:
		return "removed"
	case PhaseDone:
		return "done"
	}
	return fmt.Sprintf("Phase(%d)", int(p))
}

// Step is one point inside Commit: a phase and, for per-file phases, the
// index of the file.
type Step struct {
	Phase Phase
	Index int
}

// ErrCommitIncomplete reports that the commit point was passed but the
// renames could not all be done; the journal is kept so that the next
// Recover finishes them.
var ErrCommitIncomplete = errors.New("commit recorded but not completed; it is finished when the run directory is next opened")

// ErrPendingJournal reports a journal left by an interrupted commit that has
// not been recovered yet.
var ErrPendingJournal = errors.New("an interrupted commit has not been recovered")

// journal is the on-disk commit record.
type journal struct {
	SchemaVersion string   `json:"schema_version"`
	TxID          string   `json:"txid"`
	State         string   `json:"state"`
	Renames       []rename `json:"renames"`
	Removes       []string `json:"removes"`
}

type rename struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// Commit applies b all or nothing, the way a database commits: it stages
// every file beside its target (synced), writes a journal naming every
// rename and syncs it and its directory — the commit point — then renames,
// syncs the directories and removes the journal. A crash or kill at any
// instant leaves either the old files or, once Recover has run, the new ones.
//
// Before anything is written every target is checked: one that exists and is
// not a regular file (directory, device, FIFO, socket, symlink) is refused
// with ErrNotRegular, and one under Root that a symlinked directory would
// put outside Root is refused with ErrOutsideRoot.
//
// ctx is honoured up to the commit point: if it is cancelled before, the
// staged files and the journal are removed and ctx's error is returned.
// After the commit point the commit completes whatever ctx says. Errors that
// concern one file are *BatchError.
func Commit(ctx context.Context, b Batch) error {
	if len(b.Files) == 0 && len(b.Remove) == 0 {
		return nil
	}
	if b.Root == "" {
		return errors.New("fsx: Commit needs the run root for its journal")
	}
	if err := checkBatch(b); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	jpath := filepath.Join(b.Root, JournalName)
	if _, err := os.Lstat(jpath); err == nil {
		// Writing a new journal would lose the one an interrupted commit
		// left; the caller must Recover (under the lock) first.
		return &fs.PathError{Op: "commit", Path: jpath, Err: ErrPendingJournal}
	}
	id, err := newTxID()
	if err != nil {
		return err
	}
	j := &journal{SchemaVersion: journalSchema, TxID: id, State: stateStaging, Removes: b.Remove}
	if j.Removes == nil {
		j.Removes = []string{}
	}
	// Directories the commit creates are removed again if it is abandoned,
	// so that a cancelled command leaves not even an empty citations/.
	var created []string
	removeCreated := func() {
		for i := len(created) - 1; i >= 0; i-- {
			if fi, err := os.Lstat(created[i]); err == nil && fi.IsDir() {
				_ = os.Remove(created[i]) // fails, as it should, unless empty
			}
		}
	}
	for i, f := range b.Files {
		dirs, err := mkdirAll(filepath.Dir(f.Path))
		created = append(created, dirs...)
		if err != nil {
			removeCreated()
			return &BatchError{i, err}
		}
		j.Renames = append(j.Renames, rename{From: stagedName(f.Path, id), To: f.Path})
	}
	if j.Renames == nil {
		j.Renames = []rename{}
	}
	hook := func(p Phase, i int) {
		if b.Hook != nil {
			b.Hook(Step{p, i})
		}
	}
	if err := writeJournal(jpath, j); err != nil {
		removeCreated()
		return err
	}
	hook(PhaseIntent, 0)
	rollback := func() {
		for _, r := range j.Renames {
			_ = os.Remove(r.From)
		}
		_ = os.Remove(jpath)
		removeCreated()
		_ = syncDir(b.Root)
	}
	for i, f := range b.Files {
		if err := ctx.Err(); err != nil {
			rollback()
			return err
		}
		if err := writeNew(j.Renames[i].From, f.body()); err != nil {
			rollback()
			return &BatchError{i, err}
		}
		hook(PhaseStaged, i)
	}
	// The staged files' directory entries must be durable before the journal
	// says "committed": a roll-forward after a power loss must find them.
	for _, d := range distinctDirs(b.Files) {
		if err := syncDir(d); err != nil {
			rollback()
			return err
		}
	}
	if err := ctx.Err(); err != nil {
		rollback()
		return err
	}
	j.State = stateCommitted
	if err := writeJournal(jpath, j); err != nil {
		rollback()
		return err
	}
	hook(PhaseCommitted, 0)
	if err := apply(j, jpath, b.Root, hook); err != nil {
		return &BatchError{0, fmt.Errorf("%w: %w", ErrCommitIncomplete, err)}
	}
	return nil
}

// apply performs a committed journal: renames, removals, directory syncs,
// and finally the journal's removal. Every step is idempotent, so a kill
// during apply is repaired by applying the same journal again.
func apply(j *journal, jpath, root string, hook func(Phase, int)) error {
	dirs := map[string]bool{}
	for i, r := range j.Renames {
		if fi, err := os.Lstat(r.From); err == nil {
			if !fi.Mode().IsRegular() {
				return &fs.PathError{Op: "commit", Path: r.From, Err: ErrNotRegular}
			}
			if err := os.Rename(r.From, r.To); err != nil {
				return err
			}
		} else if !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		// A missing staged file was renamed before a crash.
		dirs[filepath.Dir(r.To)] = true
		hook(PhaseRenamed, i)
	}
	for i, p := range j.Removes {
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		dirs[filepath.Dir(p)] = true
		hook(PhaseRemoved, i)
	}
	for d := range dirs {
		if err := syncDir(d); err != nil {
			return err
		}
	}
	if err := os.Remove(jpath); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if err := syncDir(root); err != nil {
		return err
	}
	hook(PhaseDone, 0)
	return nil
}

// checkBatch refuses, before anything is written, a batch whose targets are
// unsafe or that names one target twice.
func checkBatch(b Batch) error {
	seen := map[string]bool{}
	for i, f := range b.Files {
		if err := CheckTarget(b.Root, f.Path); err != nil {
			return &BatchError{i, err}
		}
		p := filepath.Clean(f.Path)
		if seen[p] {
			return &BatchError{i, &fs.PathError{Op: "write", Path: f.Path, Err: fs.ErrExist}}
		}
		seen[p] = true
	}
	for _, p := range b.Remove {
		if err := CheckTarget(b.Root, p); err != nil {
			return err
		}
	}
	return nil
}

// stagedName is where Commit stages the new content of target: a hidden
// file in the same directory (so the rename cannot cross file systems) that
// names the target and the commit, and matches the ".*.tmp-*" pattern
// Recover sweeps.
func stagedName(target, txid string) string {
	dir, base := filepath.Split(target)
	return filepath.Join(dir, "."+base+".tmp-"+txid)
}

func newTxID() (string, error) {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return hex.EncodeToString(b[:]), nil
}

// writeNew creates path, which must not exist, with body, synced, mode 0644.
// O_EXCL: a staged name is never reused, so an existing file there is not
// ours and must not be overwritten.
func writeNew(path string, body func(w *bufio.Writer) error) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|oNoFollow, fileMode)
	if err != nil {
		return err
	}
	if err := writeAndClose(f, body); err != nil {
		_ = os.Remove(path)
		return err
	}
	return nil
}

// writeJournal replaces the journal atomically: a reader (Recover) sees the
// previous version or this one, whole.
func writeJournal(path string, j *journal) error {
	data, err := json.Marshal(j)
	if err != nil {
		return err
	}
	tmp := stagedName(path, j.TxID+"-"+j.State)
	if err := writeNew(tmp, bytesBody(append(data, '\n'))); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		_ = os.Remove(tmp)
		return err
	}
	return syncDir(filepath.Dir(path))
}

// mkdirAll is os.MkdirAll that also returns the directories it created,
// outermost first.
func mkdirAll(dir string) ([]string, error) {
	var missing []string
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); err == nil {
			break
		}
		missing = append(missing, d)
		if filepath.Dir(d) == d {
			break
		}
	}
	if err := os.MkdirAll(dir, dirMode); err != nil {
		return nil, err
	}
	slices.Reverse(missing)
	return missing, nil
}

// distinctDirs lists the directories of files, each once, in order.
func distinctDirs(files []File) []string {
	seen := map[string]bool{}
	var out []string
	for _, f := range files {
		if d := filepath.Dir(f.Path); !seen[d] {
			seen[d] = true
			out = append(out, d)
		}
	}
	return out
}
