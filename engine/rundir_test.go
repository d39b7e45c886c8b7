package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/citegate/citegate/engine/fsx"
)

// smallRun is an offline run directory every tool can work on.
func smallRun(t *testing.T) testRun {
	t.Helper()
	return newRun(t, runSpec{RunID: "RUN", Sensitivity: "no_web", Files: map[string]string{
		"wave-1/p1.md":          "## Sources\n\n- https://example.org/a\n- https://example.org/b\n",
		"offline-fixtures.json": `{"https://example.org/a": "valid", "https://example.org/b": "valid", "https://example.org/c": "paywalled"}`,
	}})
}

// makeSpecial turns path into a non-regular file of the given kind (see
// fsx's tests): a FIFO, a socket, a directory or a symlink, always inside a
// temp dir — never a real device.
func makeSpecial(t *testing.T, kind, path string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	_ = os.Remove(path)
	switch kind {
	case "fifo":
		if err := syscall.Mkfifo(path, 0o644); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
	case "socket":
		l, err := net.Listen("unix", path)
		if err != nil {
			t.Skipf("unix socket: %v", err)
		}
		t.Cleanup(func() { _ = l.Close() })
	case "directory":
		writeFile(t, filepath.Join(path, "keep"), "x")
	case "symlink to a fifo":
		fifo := path + "-fifo"
		if err := syscall.Mkfifo(fifo, 0o644); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
		if err := os.Symlink(fifo, path); err != nil {
			t.Fatal(err)
		}
	case "symlink to a file":
		writeFile(t, path+"-real", "precious")
		if err := os.Symlink(path+"-real", path); err != nil {
			t.Fatal(err)
		}
	default:
		t.Fatalf("kind %q", kind)
	}
}

// TestOutputPathNotRegularIsInvalidArgs (issue 10 item 2): an output path
// that exists and is not a regular file is INVALID_ARGS, and nothing is
// renamed over it — nor is any other output of the command written. Before
// the fix the staged file was renamed over whatever was there (as root,
// `--found-by-path /dev/null` replaced /dev/null).
func TestOutputPathNotRegularIsInvalidArgs(t *testing.T) {
	type call func(e *Engine, r testRun, out string) error
	argOut := func(r testRun) string { return filepath.Join(r.Root, "out", "special") }
	calls := []struct {
		name string
		out  func(r testRun) string
		call call
	}{
		{"extract found_by_path", argOut, func(e *Engine, r testRun, out string) error {
			_, err := e.Extract(bg, ExtractArgs{ManifestPath: r.Manifest, FoundByPath: out, Reason: "x"})
			return err
		}},
		{"normalize url_map_path", argOut, func(e *Engine, r testRun, out string) error {
			_, err := e.Normalize(bg, NormalizeArgs{ManifestPath: r.Manifest, URLMapPath: out, Reason: "x"})
			return err
		}},
		{"validate citations_path", argOut, func(e *Engine, r testRun, out string) error {
			_, err := e.Validate(bg, ValidateArgs{ManifestPath: r.Manifest, CitationsPath: out,
				OfflineFixturesPath: r.path("offline-fixtures.json"), Reason: "x"}, nil)
			return err
		}},
		{"render output_md_path", argOut, func(e *Engine, r testRun, out string) error {
			_, err := e.Render(bg, RenderArgs{ManifestPath: r.Manifest, OutputMDPath: out, Reason: "x"})
			return err
		}},
		{"gate-c --write gates.json", func(r testRun) string { return r.path("gates.json") }, func(e *Engine, r testRun, _ string) error {
			_, err := e.GateC(bg, GateCArgs{ManifestPath: r.Manifest, Write: true, Reason: "x"})
			return err
		}},
		{"run citations/validated-citations.md", func(r testRun) string { return r.cit("validated-citations.md") }, func(e *Engine, r testRun, _ string) error {
			_, err := e.Run(bg, RunArgs{ManifestPath: r.Manifest}, nil)
			return err
		}},
	}
	for _, c := range calls {
		for _, kind := range []string{"fifo", "socket", "directory", "symlink to a fifo", "symlink to a file"} {
			t.Run(c.name+"/"+kind, func(t *testing.T) {
				// A short root: unix socket paths are limited to ~100 bytes.
				root, err := os.MkdirTemp("", "cg")
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { _ = os.RemoveAll(root) })
				r := newRunIn(t, root, runSpec{RunID: "RUN", Sensitivity: "no_web", Files: map[string]string{
					"wave-1/p1.md":          "## Sources\n\n- https://example.org/a\n- https://example.org/b\n",
					"offline-fixtures.json": `{"https://example.org/a": "valid", "https://example.org/b": "valid"}`,
				}})
				if _, err := newEngine().Run(bg, RunArgs{ManifestPath: r.Manifest}, nil); err != nil {
					t.Fatal(err)
				}
				// New input, so that every output of a successful call
				// would differ from what is on disk.
				writeFile(t, r.path("wave-1/p2.md"), "## Sources\n\n- https://example.org/c\n")
				if _, err := newEngine().Extract(bg, ExtractArgs{ManifestPath: r.Manifest, Reason: "x"}); err != nil {
					t.Fatal(err)
				}
				out := c.out(r)
				makeSpecial(t, kind, out)
				before := snapshot(t, root)
				err = c.call(newEngineAt(testNow.Add(time.Hour)), r, out)
				e := asError(t, err, CodeInvalidArgs)
				if !strings.Contains(e.Message, "not a regular file") {
					t.Errorf("message = %q", e.Message)
				}
				if d := diffSnapshots(before, snapshot(t, root)); len(d) != 0 {
					t.Errorf("refused call changed files: %v", d)
				}
				if tmp := tempFiles(t, root); len(tmp) != 0 {
					t.Errorf("temporary files left: %v", tmp)
				}
			})
		}
	}
}

// TestSymlinkedDirsCannotLeadOutsideTheRoot (issue 10 item 2): a citations/
// or logs/ directory that is a symlink to somewhere outside the run root
// makes every writing command INVALID_ARGS, with nothing written there; a
// wave directory that is such a symlink is refused, as the README says.
// Before the fix run wrote its artifacts through the link, and extract read
// the outside directory as wave-1.
func TestSymlinkedDirsCannotLeadOutsideTheRoot(t *testing.T) {
	for _, tc := range []struct {
		name, link, msg string
	}{
		{"citations", "citations", "leaves the run root"},
		{"logs", "logs", "leaves the run root"},
		{"wave-1", "wave-1", "wave dir escapes the run root"},
		{"wave-2", "wave-2", "wave dir escapes the run root"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := t.TempDir()
			root, outside := filepath.Join(base, "run"), filepath.Join(base, "outside")
			writeFile(t, filepath.Join(outside, "p9.md"), "## Sources\n\n- https://example.org/secret-outside\n")
			r := newRunIn(t, mkdir(t, root), runSpec{RunID: "RUN", Sensitivity: "no_web", Files: map[string]string{
				"wave-1/p1.md":          "## Sources\n\n- https://example.org/a\n",
				"offline-fixtures.json": `{"https://example.org/a": "valid", "https://example.org/secret-outside": "valid"}`,
			}})
			if err := os.RemoveAll(r.path(tc.link)); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(outside, r.path(tc.link)); err != nil {
				t.Fatal(err)
			}
			before := snapshot(t, base)
			for _, call := range []func() error{
				func() error { _, err := newEngine().Run(bg, RunArgs{ManifestPath: r.Manifest}, nil); return err },
				func() error {
					_, err := newEngine().Extract(bg, ExtractArgs{ManifestPath: r.Manifest, Reason: "x"})
					return err
				},
			} {
				e := asError(t, call(), CodeInvalidArgs)
				if !strings.Contains(e.Message, tc.msg) {
					t.Errorf("message = %q, want %q", e.Message, tc.msg)
				}
			}
			if d := diffSnapshots(before, snapshot(t, base)); len(d) != 0 {
				t.Errorf("refused run changed files: %v", d)
			}
		})
	}
	// A symlink that stays inside the root is fine.
	t.Run("inside", func(t *testing.T) {
		r := smallRun(t)
		if err := os.Rename(r.path("wave-1"), r.path("waves-real")); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink("waves-real", r.path("wave-1")); err != nil {
			t.Fatal(err)
		}
		mkdir(t, r.path("real-citations"))
		if err := os.Symlink(r.path("real-citations"), r.path("citations")); err != nil {
			t.Fatal(err)
		}
		sum, err := newEngine().Run(bg, RunArgs{ManifestPath: r.Manifest}, nil)
		if err != nil || sum.UniqueFound != 2 {
			t.Fatalf("run = %+v, %v", sum, err)
		}
		if _, err := os.Stat(r.path("real-citations/citations.jsonl")); err != nil {
			t.Error(err)
		}
	})
}

func mkdir(t *testing.T, p string) string {
	t.Helper()
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// gatesRevision reads gates.json's revision.
func gatesRevision(t *testing.T, r testRun) int {
	t.Helper()
	var g GatesDoc
	decodeJSONFile(t, r.path("gates.json"), &g)
	return g.Revision
}

// gatesWrites counts the gates_write lines of the audit log.
func gatesWrites(t *testing.T, r testRun) int {
	t.Helper()
	data, err := os.ReadFile(r.path("logs/audit.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(data), `"kind":"gates_write"`)
}

// TestConcurrentRunsOneIsRefused (issue 10 item 4): while a run holds the run
// directory, a second run — and every tool — fails at once with RUN_LOCKED
// and changes nothing; the first completes, and no gates revision is lost.
// Before the fix both runs succeeded and one gates revision was lost.
func TestConcurrentRunsOneIsRefused(t *testing.T) {
	r := smallRun(t)
	if _, err := newEngine().Run(bg, RunArgs{ManifestPath: r.Manifest}, nil); err != nil {
		t.Fatal(err)
	}
	rev0, writes0 := gatesRevision(t, r), gatesWrites(t, r)

	// The first run stops at its first event, inside the run, until the
	// others have tried.
	ch := make(chan Event)
	var wg sync.WaitGroup
	var firstErr error
	wg.Go(func() {
		_, firstErr = newEngineAt(testNow.Add(time.Minute)).Run(bg, RunArgs{ManifestPath: r.Manifest}, ch)
	})
	<-ch
	before := snapshot(t, r.Root)
	second := newEngineAt(testNow.Add(2 * time.Minute))
	for name, call := range map[string]func() error{
		"run": func() error { _, err := second.Run(bg, RunArgs{ManifestPath: r.Manifest}, nil); return err },
		"extract": func() error {
			_, err := second.Extract(bg, ExtractArgs{ManifestPath: r.Manifest, Reason: "x"})
			return err
		},
		"normalize": func() error {
			_, err := second.Normalize(bg, NormalizeArgs{ManifestPath: r.Manifest, Reason: "x"})
			return err
		},
		"validate": func() error {
			_, err := second.Validate(bg, ValidateArgs{ManifestPath: r.Manifest, OfflineFixturesPath: r.path("offline-fixtures.json"), Reason: "x"}, nil)
			return err
		},
		"gate-c": func() error {
			_, err := second.GateC(bg, GateCArgs{ManifestPath: r.Manifest, Write: true, Reason: "x"})
			return err
		},
		"render": func() error {
			_, err := second.Render(bg, RenderArgs{ManifestPath: r.Manifest, Reason: "x"})
			return err
		},
	} {
		e := asError(t, call(), CodeRunLocked)
		if e.Details["path"] != r.Root || !strings.Contains(e.Message, "another citegate process") {
			t.Errorf("%s: envelope %+v", name, e)
		}
	}
	if d := diffSnapshots(before, snapshot(t, r.Root)); len(d) != 0 {
		t.Errorf("refused calls changed files: %v", d)
	}
	for range ch {
	}
	wg.Wait()
	if firstErr != nil {
		t.Fatalf("first run: %v", firstErr)
	}
	if rev, writes := gatesRevision(t, r), gatesWrites(t, r); rev != rev0+1 || writes != writes0+1 {
		t.Errorf("gates revision %d → %d with %d writes logged; want one revision per write", rev0, rev, writes-writes0)
	}
	// The lock is released when a command returns, also after a failure.
	writeFile(t, r.path("offline-fixtures.json"), "{broken")
	asError(t, func() error { _, err := second.Run(bg, RunArgs{ManifestPath: r.Manifest}, nil); return err }(), CodeInvalidJSON)
	writeFile(t, r.path("offline-fixtures.json"), `{"https://example.org/a": "valid", "https://example.org/b": "valid"}`)
	if _, err := second.Run(bg, RunArgs{ManifestPath: r.Manifest}, nil); err != nil {
		t.Fatal(err)
	}
	if rev := gatesRevision(t, r); rev != rev0+2 {
		t.Errorf("revision = %d, want %d", rev, rev0+2)
	}
}

// TestWritingToolsHonourCancellation (issue 10 item 5): every command that
// writes gives CANCELLED and changes nothing when it is cancelled before its
// commit point — here, before it starts. Before the fix normalize, render and
// gate-c --write ignored their context and wrote.
func TestWritingToolsHonourCancellation(t *testing.T) {
	for _, tc := range []struct {
		name   string
		remove []string
		call   func(ctx context.Context, e *Engine, r testRun) error
	}{
		{"extract", []string{"citations/extracted-urls.txt", "citations/found-by.json"}, func(ctx context.Context, e *Engine, r testRun) error {
			_, err := e.Extract(ctx, ExtractArgs{ManifestPath: r.Manifest, Reason: "x"})
			return err
		}},
		{"normalize", []string{"citations/normalized-urls.txt", "citations/url-map.json"}, func(ctx context.Context, e *Engine, r testRun) error {
			_, err := e.Normalize(ctx, NormalizeArgs{ManifestPath: r.Manifest, Reason: "x"})
			return err
		}},
		{"validate", []string{"citations/citations.jsonl"}, func(ctx context.Context, e *Engine, r testRun) error {
			_, err := e.Validate(ctx, ValidateArgs{ManifestPath: r.Manifest, OfflineFixturesPath: r.path("offline-fixtures.json"), Reason: "x"}, nil)
			return err
		}},
		{"gate-c --write", nil, func(ctx context.Context, e *Engine, r testRun) error {
			_, err := e.GateC(ctx, GateCArgs{ManifestPath: r.Manifest, Write: true, Reason: "x"})
			return err
		}},
		{"render", []string{"citations/validated-citations.md"}, func(ctx context.Context, e *Engine, r testRun) error {
			_, err := e.Render(ctx, RenderArgs{ManifestPath: r.Manifest, Reason: "x"})
			return err
		}},
		{"run", []string{"citations"}, func(ctx context.Context, e *Engine, r testRun) error {
			_, err := e.Run(ctx, RunArgs{ManifestPath: r.Manifest}, nil)
			return err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := smallRun(t)
			if _, err := newEngine().Run(bg, RunArgs{ManifestPath: r.Manifest}, nil); err != nil {
				t.Fatal(err)
			}
			// Without its outputs, a command that writes anything shows.
			for _, rel := range tc.remove {
				if err := os.RemoveAll(r.path(rel)); err != nil {
					t.Fatal(err)
				}
			}
			before := snapshot(t, r.Root)
			ctx, cancel := context.WithCancel(bg)
			cancel()
			asError(t, tc.call(ctx, newEngineAt(testNow.Add(time.Hour)), r), CodeCancelled)
			if d := diffSnapshots(before, snapshot(t, r.Root)); len(d) != 0 {
				t.Errorf("cancelled %s changed files: %v", tc.name, d)
			}
		})
	}
}

// TestSignalDuringTheWritePhase (issue 10 item 5): a cancellation (what
// SIGINT/SIGTERM become) that arrives during the commit is honoured up to the
// commit point — CANCELLED, the previous artifacts intact, nothing staged
// left — and from the commit point on the commit completes and the run
// reports success with the complete new set.
func TestSignalDuringTheWritePhase(t *testing.T) {
	r := smallRun(t)
	if _, err := newEngine().Run(bg, RunArgs{ManifestPath: r.Manifest}, nil); err != nil {
		t.Fatal(err)
	}
	writeFile(t, r.path("wave-1/p2.md"), "## Sources\n\n- https://example.org/c\n")
	old := snapshot(t, r.Root)
	later := testNow.Add(time.Hour)
	if _, err := newEngineAt(later).Run(bg, RunArgs{ManifestPath: r.Manifest}, nil); err != nil {
		t.Fatal(err)
	}
	complete := artifactSet(snapshot(t, r.Root))
	for _, at := range []fsx.Step{
		{Phase: fsx.PhaseIntent}, {Phase: fsx.PhaseStaged}, {Phase: fsx.PhaseStaged, Index: 6},
		{Phase: fsx.PhaseCommitted}, {Phase: fsx.PhaseRenamed, Index: 3}, {Phase: fsx.PhaseDone},
	} {
		t.Run(fmt.Sprintf("%s%d", at.Phase, at.Index), func(t *testing.T) {
			restore(t, r.Root, old)
			ctx, cancel := context.WithCancel(bg)
			defer cancel()
			e := newEngineAt(later)
			fired := false
			e.CommitHook = func(_ context.Context, s fsx.Step) {
				if s == at {
					fired = true
					cancel()
				}
			}
			sum, err := e.Run(ctx, RunArgs{ManifestPath: r.Manifest}, nil)
			if !fired {
				t.Fatal("hook never fired")
			}
			if tmp := tempFiles(t, r.Root); len(tmp) != 0 {
				t.Errorf("temporary files left: %v", tmp)
			}
			if at.Phase < fsx.PhaseCommitted {
				asError(t, err, CodeCancelled)
				if d := diffSnapshots(old, snapshot(t, r.Root)); len(d) != 0 {
					t.Errorf("cancelled run changed files: %v", d)
				}
				return
			}
			if err != nil || sum == nil || !sum.OK {
				t.Fatalf("run past the commit point = %+v, %v; want the completed run", sum, err)
			}
			if d := diffSnapshots(complete, artifactSet(snapshot(t, r.Root))); len(d) != 0 {
				t.Errorf("artifacts differ from a complete run: %v", d)
			}
		})
	}
}

// artifactSet keeps the artifacts of a snapshot: citations/ and gates.json.
// The audit log is appended after the commit and is not part of the set.
func artifactSet(snap map[string][]byte) map[string][]byte {
	out := map[string][]byte{}
	for k, v := range snap {
		if strings.HasPrefix(k, "citations/") || k == "gates.json" {
			out[k] = v
		}
	}
	return out
}

// restore puts root back to a snapshot taken with snapshot(): files are
// rewritten, and files and directories not in it are removed.
func restore(t *testing.T, root string, snap map[string][]byte) {
	t.Helper()
	now := snapshot(t, root)
	for k := range now {
		if _, ok := snap[k]; !ok {
			if err := os.RemoveAll(filepath.Join(root, filepath.FromSlash(strings.TrimSuffix(k, "/")))); err != nil {
				t.Fatal(err)
			}
		}
	}
	for k, v := range snap {
		p := filepath.Join(root, filepath.FromSlash(strings.TrimSuffix(k, "/")))
		if strings.HasSuffix(k, "/") {
			mkdir(t, p)
			continue
		}
		if old, ok := now[k]; ok && string(old) == string(v) {
			continue
		}
		writeFile(t, p, string(v))
	}
}

// TestInterruptedCommitIsRepairedOnOpen (issue 10 item 3): a commit that died
// after its commit point is finished by the next command that opens the run
// directory — even a reader such as gate-c — which therefore never reads a
// mixed set; the repair is in the audit log.
func TestInterruptedCommitIsRepairedOnOpen(t *testing.T) {
	r := smallRun(t)
	if _, err := newEngine().Run(bg, RunArgs{ManifestPath: r.Manifest}, nil); err != nil {
		t.Fatal(err)
	}
	writeFile(t, r.path("wave-1/p2.md"), "## Sources\n\n- https://example.org/c\n")
	e := newEngineAt(testNow.Add(time.Hour))
	e.CommitHook = func(_ context.Context, s fsx.Step) {
		if s == (fsx.Step{Phase: fsx.PhaseRenamed, Index: 1}) {
			panic(errSimulatedCrash)
		}
	}
	func() {
		defer func() {
			p := recover()
			if err, _ := p.(error); !errors.Is(err, errSimulatedCrash) {
				t.Fatalf("recovered %v", p)
			}
		}()
		_, _ = e.Run(bg, RunArgs{ManifestPath: r.Manifest}, nil)
	}()
	if _, err := os.Stat(r.path(fsx.JournalName)); err != nil {
		t.Fatalf("no journal after the crash: %v", err)
	}
	res, err := newEngine().GateC(bg, GateCArgs{ManifestPath: r.Manifest, Reason: "read"})
	if err != nil {
		t.Fatal(err)
	}
	// Gate C over the complete new set: three URLs, two valid, one paywalled.
	if res.Status != "pass" || !strings.Contains(res.Update.C.Notes, "3/3 validated") {
		t.Errorf("gate C read a mixed set: %+v", res.Update.C)
	}
	if tmp := tempFiles(t, r.Root); len(tmp) != 0 {
		t.Errorf("temporary files left: %v", tmp)
	}
	if _, err := os.Stat(r.path(fsx.JournalName)); !os.IsNotExist(err) {
		t.Errorf("journal still there: %v", err)
	}
	var line struct {
		Kind, Action string
	}
	audit := strings.Split(strings.TrimSpace(readFile(t, r.path("logs/audit.jsonl"))), "\n")
	found := false
	for _, l := range audit {
		if json.Unmarshal([]byte(l), &line) == nil && line.Kind == "commit_recovery" && line.Action == fsx.RolledForward {
			found = true
		}
	}
	if !found {
		t.Errorf("no commit_recovery line in the audit log")
	}
}

var errSimulatedCrash = fmt.Errorf("simulated crash")

// TestRepairIsNotLoggedThroughASymlink: the repair of an interrupted commit
// is logged before the output paths are checked, so the log line itself must
// not follow a logs/ symlink out of the run root.
func TestRepairIsNotLoggedThroughASymlink(t *testing.T) {
	base := t.TempDir()
	root, outside := mkdir(t, filepath.Join(base, "run")), mkdir(t, filepath.Join(base, "outside"))
	r := newRunIn(t, root, runSpec{RunID: "RUN", Sensitivity: "no_web", Files: map[string]string{
		"wave-1/p1.md":                     "## Sources\n\n- https://example.org/a\n",
		"offline-fixtures.json":            `{"https://example.org/a": "valid"}`,
		"citations/.citations.jsonl.tmp-1": "stray from a kill",
	}})
	if err := os.Symlink(outside, r.path("logs")); err != nil {
		t.Fatal(err)
	}
	_, err := newEngine().Run(bg, RunArgs{ManifestPath: r.Manifest}, nil)
	asError(t, err, CodeInvalidArgs)
	if tmp := tempFiles(t, root); len(tmp) != 0 {
		t.Errorf("stray not swept: %v", tmp)
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Errorf("written outside the run root: %v", entries)
	}
}
