package engine

import (
	"bufio"
	"cmp"
	"context"
	"crypto/sha256"
	"errors"
	"io/fs"
	"path/filepath"

	"github.com/citegate/citegate/engine/fsx"
	"github.com/citegate/citegate/engine/schema"
)

// This file is how a command takes hold of a run directory and changes it:
// the lock, the repair of an interrupted commit, the output path checks and
// the all-or-nothing commit itself.

// CodeRunLocked: another citegate process holds the run directory's lock.
const CodeRunLocked = "RUN_LOCKED"

// lockRun takes the run directory's exclusive lock, without waiting, and then
// finishes or undoes a commit that a crash or kill interrupted, so that the
// command reads a consistent set of artifacts. Every command that opens a run
// directory calls it first, readers included: a reader is the first to see
// an interrupted commit as often as a writer is. The returned function
// releases the lock.
func (e *Engine) lockRun(run *RunDir) (func(), error) {
	lock, err := fsx.LockDir(run.Root)
	if err != nil {
		switch {
		case errors.Is(err, fsx.ErrLocked):
			return nil, newError(CodeRunLocked, "another citegate process is using this run directory; run again when it has finished",
				map[string]any{"path": run.Root})
		case errors.Is(err, fs.ErrNotExist):
			return nil, newError(CodeNotFound, "run root missing", map[string]any{"path": run.Root})
		}
		return nil, readError("run root", run.Root, "run root missing", err)
	}
	rec, err := fsx.Recover(run.Root, run.citationsPath(""), filepath.Dir(run.gatesPath()))
	if err != nil {
		_ = lock.Unlock()
		return nil, newError(CodeWriteFailed, "cannot recover the interrupted commit in the run directory",
			map[string]any{"path": filepath.Join(run.Root, fsx.JournalName), "reason": err.Error()})
	}
	if rec.Action != "" || len(rec.Removed) > 0 {
		e.auditRecovery(run, rec)
	}
	if err := manifestUnchanged(run); err != nil {
		_ = lock.Unlock()
		return nil, err
	}
	return func() { _ = lock.Unlock() }, nil
}

// manifestUnchanged refuses a run whose manifest changed between its load
// and the lock: a command (init --force, relocate) that held the lock in
// between rewrote the run directory, and the manifest in hand no longer
// goes with the run-config, gates.json and waves on disk. Taking the
// command again reads the new set whole. A Run not loaded from a file
// (init's) has nothing to compare.
func manifestUnchanged(run *RunDir) error {
	if run.manifestSum == ([sha256.Size]byte{}) {
		return nil
	}
	data, err := fsx.ReadLimited(run.ManifestPath, maxJSONBytes)
	if err == nil && sha256.Sum256(data) == run.manifestSum {
		return nil
	}
	return newError(CodeRunLocked, "another citegate command rewrote this run directory while this one was starting; run again",
		map[string]any{"path": run.ManifestPath})
}

// auditRecovery records a repaired commit, so an operator can see that the
// previous command was interrupted and what became of it.
func (e *Engine) auditRecovery(run *RunDir, rec fsx.Recovery) {
	removed := make([]string, len(rec.Removed))
	for i, p := range rec.Removed {
		removed[i] = relPOSIX(run.Root, p)
	}
	run.audit(struct {
		TS      string   `json:"ts"`
		Kind    string   `json:"kind"`
		RunID   string   `json:"run_id"`
		Action  string   `json:"action"`
		TxID    string   `json:"txid"`
		Removed []string `json:"removed"`
	}{e.nowISO(), "commit_recovery", run.Manifest.RunID, cmp.Or(rec.Action, "swept"), rec.TxID, removed})
}

// checkOutputs refuses, before any work, output paths a commit would refuse:
// an existing path that is not a regular file, and a path under the run root
// that a symlinked directory leads outside it. The audit log is checked too,
// since a command appends to it. Commit checks the targets again when it
// writes.
func checkOutputs(run *RunDir, paths ...string) error {
	for _, p := range append(paths, run.auditPath()) {
		if err := fsx.CheckTarget(run.Root, p); err != nil {
			return outputError(p, err)
		}
	}
	return nil
}

// pendingWrite is one artifact rendered and checked, waiting to be written:
// its bytes, or (stream) an encoder that writes them straight into the
// staging file, for the artifacts with one entry per URL, which a large run
// must not hold whole in memory. A stream only encodes values already
// checked; its only errors are the file's.
type pendingWrite struct {
	path, message string
	data          []byte
	stream        func(w *bufio.Writer) error
}

// listAndDoc is the artifact pair extract and normalize write: a URL list
// (one per line) and a JSON document checked against its schema.
func listAndDoc(listPath string, list []string, docPath string, name schema.Name, doc any) ([]pendingWrite, error) {
	const msg = "cannot write output artifacts"
	w := pendingWrite{path: docPath, message: msg}
	if c, ok := doc.(streamedDoc); ok && c.schemaOK() {
		w.stream = c.writeFile
	} else {
		data, err := marshalChecked(name, doc, docPath)
		if err != nil {
			return nil, err
		}
		w.data = data
	}
	return []pendingWrite{{path: listPath, message: msg, stream: writeLines(list)}, w}, nil
}

// streamedDoc is a document with a typed schema check (its schemaOK) and a
// streaming encoder (encode.go): one that passes the check is streamed into
// its file; one that does not is validated by the schema, which names the
// error.
type streamedDoc interface {
	schemaOK() bool
	writeFile(w *bufio.Writer) error
}

// commit writes a set of artifacts and removes the files in remove, all or
// nothing (fsx.Commit): a failure, a kill or a cancellation before the commit
// point leaves every file as it was; after the commit point the commit
// completes even if ctx is cancelled (see the README's "Signals").
func (e *Engine) commit(ctx context.Context, run *RunDir, ws []pendingWrite, remove []string) error {
	files := make([]fsx.File, len(ws))
	for i, w := range ws {
		files[i] = fsx.File{Path: w.path, Data: w.data, Stream: w.stream}
	}
	b := fsx.Batch{Root: run.Root, Files: files, Remove: remove}
	if e.CommitHook != nil {
		b.Hook = func(s fsx.Step) { e.CommitHook(ctx, s) }
	}
	err := fsx.Commit(ctx, b)
	if err == nil {
		return nil
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return cancelled()
	}
	path, message := "", "cannot write output artifacts"
	if len(ws) > 0 {
		path, message = ws[0].path, ws[0].message
	}
	var be *fsx.BatchError
	if errors.As(err, &be) && be.Index < len(ws) {
		path, message = ws[be.Index].path, ws[be.Index].message
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		path = pe.Path
	}
	if errors.Is(err, fsx.ErrNotRegular) || errors.Is(err, fsx.ErrOutsideRoot) {
		return outputError(path, err)
	}
	return newError(CodeWriteFailed, message, map[string]any{"path": path, "reason": err.Error()})
}
