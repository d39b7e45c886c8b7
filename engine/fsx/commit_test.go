package fsx

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// tree reads every entry under root: regular files by content, anything else
// by its type, so a test can compare whole directory states.
func tree(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		switch {
		case rel == ".":
		case d.Type().IsRegular():
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			out[rel] = string(data)
		default:
			out[rel] = "<" + d.Type().String() + ">"
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// leftovers lists staging files and journals under root.
func leftovers(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	for rel := range tree(t, root) {
		if b := filepath.Base(rel); isStaging(b) || b == JournalName {
			out = append(out, rel)
		}
	}
	slices.Sort(out)
	return out
}

func sameTree(t *testing.T, what string, got, want map[string]string) {
	t.Helper()
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("%s:\n got %v\nwant %v", what, got, want)
	}
}

// commitFixture is a run directory with an old artifact set, and the batch
// that replaces it with a new one (three files in two directories, one new
// file, one removal).
type commitFixture struct {
	root     string
	old, new map[string]string
	batch    Batch
}

func newCommitFixture(t *testing.T) commitFixture {
	t.Helper()
	root := t.TempDir()
	old := map[string]string{
		"gates.json":                      "gates old\n",
		"citations":                       "<d--------->",
		"citations/citations.jsonl":       "citations old\n",
		"citations/extracted-urls.txt":    "urls old\n",
		"citations/blocked-urls.queue.md": "queue old\n",
	}
	for rel, content := range old {
		if strings.HasPrefix(content, "<") {
			continue
		}
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	old = tree(t, root)
	newSet := map[string]string{
		"gates.json":                   "gates new\n",
		"citations":                    old["citations"],
		"citations/citations.jsonl":    "citations new\n",
		"citations/extracted-urls.txt": "urls new\n",
		"citations/url-map.json":       "map new\n",
	}
	b := Batch{Root: root, Remove: []string{filepath.Join(root, "citations/blocked-urls.queue.md")}}
	for _, rel := range []string{"citations/extracted-urls.txt", "citations/url-map.json", "citations/citations.jsonl", "gates.json"} {
		b.Files = append(b.Files, File{Path: filepath.Join(root, rel), Data: []byte(newSet[rel])})
	}
	return commitFixture{root: root, old: old, new: newSet, batch: b}
}

func TestCommitReplacesTheSetAndLeavesNothingBehind(t *testing.T) {
	f := newCommitFixture(t)
	var steps []string
	f.batch.Hook = func(s Step) { steps = append(steps, fmt.Sprintf("%s%d", s.Phase, s.Index)) }
	if err := Commit(context.Background(), f.batch); err != nil {
		t.Fatal(err)
	}
	sameTree(t, "after commit", tree(t, f.root), f.new)
	want := []string{"intent0", "staged0", "staged1", "staged2", "staged3", "committed0",
		"renamed0", "renamed1", "renamed2", "renamed3", "removed0", "done0"}
	if !slices.Equal(steps, want) {
		t.Errorf("steps = %v, want %v", steps, want)
	}
	fi, err := os.Stat(filepath.Join(f.root, "citations/url-map.json"))
	if err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("new file mode = %v, %v", fi, err)
	}
}

// errCrash is what a hook panics with to stop Commit dead at a step, leaving
// the disk exactly as a kill -9 at that instant would: Commit's own cleanup
// runs only on error returns, never on a panic.
var errCrash = errors.New("simulated crash")

func crashAt(b Batch, at Step) (crashed bool) {
	defer func() {
		if p := recover(); p != nil {
			if err, ok := p.(error); !ok || !errors.Is(err, errCrash) {
				panic(p)
			}
			crashed = true
		}
	}()
	b.Hook = func(s Step) {
		if s == at {
			panic(errCrash)
		}
	}
	_ = Commit(context.Background(), b)
	return false
}

// TestCommitCrashAtEveryStepRecoversToOldOrNew is the in-process half of the
// kill -9 torture test (engine/torture_test.go kills real processes): a crash
// at every step of a commit, then Recover, leaves exactly the old set (before
// the commit point) or exactly the new set (from it on), with no journal and
// no staging file. A crash during Recover itself is then recovered again.
func TestCommitCrashAtEveryStepRecoversToOldOrNew(t *testing.T) {
	var steps []Step
	steps = append(steps, Step{PhaseIntent, 0})
	for i := range 4 {
		steps = append(steps, Step{PhaseStaged, i})
	}
	steps = append(steps, Step{PhaseCommitted, 0})
	for i := range 4 {
		steps = append(steps, Step{PhaseRenamed, i})
	}
	steps = append(steps, Step{PhaseRemoved, 0}, Step{PhaseDone, 0})
	for _, at := range steps {
		t.Run(fmt.Sprintf("%s%d", at.Phase, at.Index), func(t *testing.T) {
			f := newCommitFixture(t)
			if !crashAt(f.batch, at) {
				t.Fatal("the hook never fired")
			}
			want := f.old
			if at.Phase >= PhaseCommitted {
				want = f.new
			}
			rec, err := Recover(f.root, filepath.Join(f.root, "citations"))
			if err != nil {
				t.Fatal(err)
			}
			sameTree(t, "after recovery", tree(t, f.root), want)
			if l := leftovers(t, f.root); len(l) != 0 {
				t.Errorf("left behind: %v", l)
			}
			switch {
			case at.Phase == PhaseDone:
				if rec.Action != "" {
					t.Errorf("action = %q after a complete commit", rec.Action)
				}
			case at.Phase >= PhaseCommitted:
				if rec.Action != RolledForward {
					t.Errorf("action = %q, want %q", rec.Action, RolledForward)
				}
			default:
				if rec.Action != RolledBack {
					t.Errorf("action = %q, want %q", rec.Action, RolledBack)
				}
			}
			if at.Phase < PhaseDone {
				// Before recovery a new commit is refused, not mixed in.
				f2 := newCommitFixture(t)
				crashAt(f2.batch, at)
				if err := Commit(context.Background(), f2.batch); !errors.Is(err, ErrPendingJournal) {
					t.Errorf("Commit over a pending journal = %v", err)
				}
			}
			// A second recovery finds nothing to do.
			if rec, err := Recover(f.root); err != nil || rec.Action != "" || len(rec.Removed) != 0 {
				t.Errorf("second recovery: %+v, %v", rec, err)
			}
		})
	}
}

// TestRecoverInterruptedRollForward: a crash during the roll-forward itself
// (simulated by doing only part of it by hand) is finished by the next one.
func TestRecoverInterruptedRollForward(t *testing.T) {
	f := newCommitFixture(t)
	if !crashAt(f.batch, Step{PhaseCommitted, 0}) {
		t.Fatal("no crash")
	}
	// The first two renames of a recovery happen, then it dies.
	j := readJournal(f.root, filepath.Join(f.root, JournalName))
	if j == nil || j.State != stateCommitted {
		t.Fatalf("journal = %+v", j)
	}
	for _, r := range j.Renames[:2] {
		if err := os.Rename(r.From, r.To); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := Recover(f.root, filepath.Join(f.root, "citations")); err != nil {
		t.Fatal(err)
	}
	sameTree(t, "after recovery", tree(t, f.root), f.new)
}

// TestCommitCancellation: a context cancelled before the commit point stops
// the commit and removes what was staged; one cancelled from the commit point
// on does not stop it.
func TestCommitCancellation(t *testing.T) {
	for _, tc := range []struct {
		at        Step
		completes bool
	}{
		{Step{PhaseIntent, 0}, false},
		{Step{PhaseStaged, 0}, false},
		{Step{PhaseStaged, 3}, false},
		{Step{PhaseCommitted, 0}, true},
		{Step{PhaseRenamed, 1}, true},
	} {
		t.Run(fmt.Sprintf("%s%d", tc.at.Phase, tc.at.Index), func(t *testing.T) {
			f := newCommitFixture(t)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			f.batch.Hook = func(s Step) {
				if s == tc.at {
					cancel()
				}
			}
			err := Commit(ctx, f.batch)
			want := f.old
			if tc.completes {
				want = f.new
				if err != nil {
					t.Errorf("Commit = %v, want nil: the commit point was passed", err)
				}
			} else if !errors.Is(err, context.Canceled) {
				t.Errorf("Commit = %v, want context.Canceled", err)
			}
			sameTree(t, "after cancellation", tree(t, f.root), want)
		})
	}
	t.Run("directories it created are removed", func(t *testing.T) {
		root := t.TempDir()
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		b := Batch{Root: root, Files: []File{{Path: filepath.Join(root, "citations", "deep", "x.json"), Data: []byte("x")}},
			Hook: func(s Step) {
				if s.Phase == PhaseStaged {
					cancel()
				}
			}}
		if err := Commit(ctx, b); !errors.Is(err, context.Canceled) {
			t.Errorf("Commit = %v", err)
		}
		sameTree(t, "after cancellation", tree(t, root), map[string]string{})
	})
	t.Run("cancelled before the call", func(t *testing.T) {
		f := newCommitFixture(t)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if err := Commit(ctx, f.batch); !errors.Is(err, context.Canceled) {
			t.Errorf("Commit = %v", err)
		}
		sameTree(t, "after cancellation", tree(t, f.root), f.old)
	})
}

// TestCommitStagingFailureChangesNothing: a member that cannot be staged
// after others were (its directory turned into a file mid-commit) leaves
// every target as it was and removes the staged files and the journal.
func TestCommitStagingFailureChangesNothing(t *testing.T) {
	f := newCommitFixture(t)
	sub := filepath.Join(f.root, "sub")
	f.batch.Files = append(f.batch.Files, File{Path: filepath.Join(sub, "late.json"), Data: []byte("x")})
	f.batch.Hook = func(s Step) {
		if s == (Step{PhaseStaged, 0}) {
			if err := os.Remove(sub); err != nil {
				t.Error(err)
			}
			if err := os.WriteFile(sub, []byte("now a file"), 0o644); err != nil {
				t.Error(err)
			}
		}
	}
	err := Commit(context.Background(), f.batch)
	var be *BatchError
	if !errors.As(err, &be) || be.Index != 4 {
		t.Fatalf("Commit = %v, want a BatchError for file 4", err)
	}
	want := f.old
	want["sub"] = "now a file"
	sameTree(t, "after failure", tree(t, f.root), want)
}

// special makes a non-regular file of the given kind at p.
func special(t *testing.T, kind, p string) {
	t.Helper()
	switch kind {
	case "fifo":
		if err := syscall.Mkfifo(p, 0o644); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
	case "socket":
		l, err := net.Listen("unix", p)
		if err != nil {
			t.Skipf("unix socket: %v", err)
		}
		t.Cleanup(func() { _ = l.Close() })
	case "directory":
		if err := os.MkdirAll(filepath.Join(p, "inner"), 0o755); err != nil {
			t.Fatal(err)
		}
	case "symlink to a file":
		target := filepath.Join(filepath.Dir(p), "real-target")
		if err := os.WriteFile(target, []byte("precious"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
	case "symlink to a fifo":
		target := filepath.Join(filepath.Dir(p), "fifo-target")
		special(t, "fifo", target)
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
	case "dangling symlink":
		if err := os.Symlink(filepath.Join(filepath.Dir(p), "nowhere"), p); err != nil {
			t.Fatal(err)
		}
	default:
		t.Fatalf("kind %q", kind)
	}
}

var specialKinds = []string{"fifo", "socket", "directory", "symlink to a file", "symlink to a fifo", "dangling symlink"}

// TestCommitRefusesNonRegularTargets (issue 10 item 2): a target that exists
// and is not a regular file is refused before anything is written, so it is
// never replaced (as root, a device such as /dev/null was replaced by a
// regular file), and no other member of the batch is written either.
func TestCommitRefusesNonRegularTargets(t *testing.T) {
	for _, kind := range specialKinds {
		t.Run(kind, func(t *testing.T) {
			// A short root: unix socket paths are limited to ~100 bytes.
			root, err := os.MkdirTemp("", "fsx")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = os.RemoveAll(root) })
			other := filepath.Join(root, "other.txt")
			if err := os.WriteFile(other, []byte("old"), 0o644); err != nil {
				t.Fatal(err)
			}
			target := filepath.Join(root, "out")
			special(t, kind, target)
			before := tree(t, root)
			err = Commit(context.Background(), Batch{Root: root, Files: []File{
				{Path: other, Data: []byte("new")}, {Path: target, Data: []byte("x")}}})
			var be *BatchError
			if !errors.Is(err, ErrNotRegular) || !errors.As(err, &be) || be.Index != 1 {
				t.Errorf("Commit = %v, want ErrNotRegular for file 1", err)
			}
			sameTree(t, "after refusal", tree(t, root), before)
			// Outside any run root, and through WriteAtomic, the same.
			if err := WriteAtomic(target, []byte("x")); !errors.Is(err, ErrNotRegular) {
				t.Errorf("WriteAtomic = %v, want ErrNotRegular", err)
			}
			sameTree(t, "after WriteAtomic", tree(t, root), before)
		})
	}
}

// TestCommitConfinedToRoot (issue 10 item 2): a directory under the run root
// that is a symlink leading outside it makes every target below it refused;
// one leading to another place inside the root is fine. Targets outside the
// root were named explicitly and are not confined.
func TestCommitConfinedToRoot(t *testing.T) {
	base := t.TempDir()
	root, outside := filepath.Join(base, "run"), filepath.Join(base, "outside")
	for _, d := range []string{root, outside, filepath.Join(root, "real")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(outside, filepath.Join(root, "citations")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("real", filepath.Join(root, "inside")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(base, "nowhere"), filepath.Join(root, "dangling")); err != nil {
		t.Fatal(err)
	}
	for _, rel := range []string{"citations/citations.jsonl", "citations/deeper/x.json", "dangling/x.json"} {
		err := Commit(context.Background(), Batch{Root: root, Files: []File{{Path: filepath.Join(root, rel), Data: []byte("x")}}})
		if !errors.Is(err, ErrOutsideRoot) {
			t.Errorf("%s: Commit = %v, want ErrOutsideRoot", rel, err)
		}
	}
	if got := tree(t, outside); len(got) != 0 {
		t.Errorf("written outside the root: %v", got)
	}
	if l := leftovers(t, root); len(l) != 0 {
		t.Errorf("left behind: %v", l)
	}
	ok := []string{filepath.Join(root, "inside/x.json"), filepath.Join(base, "explicit.json")}
	for _, p := range ok {
		if err := Commit(context.Background(), Batch{Root: root, Files: []File{{Path: p, Data: []byte("x")}}}); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
	// A removal is confined the same way.
	if err := os.WriteFile(filepath.Join(outside, "keep"), []byte("k"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := Commit(context.Background(), Batch{Root: root, Remove: []string{filepath.Join(root, "citations/keep")}})
	if !errors.Is(err, ErrOutsideRoot) {
		t.Errorf("remove: Commit = %v, want ErrOutsideRoot", err)
	}
	if _, err := os.Stat(filepath.Join(outside, "keep")); err != nil {
		t.Errorf("removed outside the root: %v", err)
	}
}

// TestRecoverSweepsStrayStagingFiles: staging files left by a kill (of this
// or an earlier version, which had no journal) are removed from the root and
// the swept directories, but only regular files, and never outside the root.
func TestRecoverSweepsStrayStagingFiles(t *testing.T) {
	base := t.TempDir()
	root, outside := filepath.Join(base, "run"), filepath.Join(base, "outside")
	for _, d := range []string{filepath.Join(root, "citations"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(p string) {
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(root, ".gates.json.tmp-123"))
	write(filepath.Join(root, "citations/.citations.jsonl.tmp-456"))
	write(filepath.Join(root, "citations/keep.md"))
	write(filepath.Join(root, "citations/.hidden"))
	write(filepath.Join(outside, ".x.tmp-1"))
	if err := os.Mkdir(filepath.Join(root, "citations/.dir.tmp-1"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "linked")); err != nil {
		t.Fatal(err)
	}
	rec, err := Recover(root, filepath.Join(root, "citations"), filepath.Join(root, "linked"), outside)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(root, ".gates.json.tmp-123"), filepath.Join(root, "citations/.citations.jsonl.tmp-456")}
	slices.Sort(want)
	if !slices.Equal(rec.Removed, want) || rec.Action != "" {
		t.Errorf("recovery = %+v, want removed %v", rec, want)
	}
	got := tree(t, base)
	for _, keep := range []string{"run/citations/keep.md", "run/citations/.hidden", "run/citations/.dir.tmp-1", "outside/.x.tmp-1"} {
		if _, ok := got[keep]; !ok {
			t.Errorf("%s was removed", keep)
		}
	}
}

// TestRecoverDistrustsJournals: a journal is a file in the run directory like
// any other; a corrupt one, or one naming files that are not its own staging
// files, is rolled back without renaming or deleting anything it names.
func TestRecoverDistrustsJournals(t *testing.T) {
	for name, body := range map[string]string{
		"garbage":   "{not json",
		"truncated": `{"schema_version":"citegate.commit.v1","txid":"ab","state":"committed","renames":[{"from":`,
		"foreign source": `{"schema_version":"citegate.commit.v1","txid":"ab","state":"committed",` +
			`"renames":[{"from":"SECRET","to":"ROOT/citations.jsonl"}],"removes":[]}`,
		"removal outside the root": `{"schema_version":"citegate.commit.v1","txid":"ab","state":"committed",` +
			`"renames":[],"removes":["SECRET"]}`,
		"unknown state": `{"schema_version":"citegate.commit.v1","txid":"ab","state":"maybe","renames":[],"removes":[]}`,
	} {
		t.Run(name, func(t *testing.T) {
			base := t.TempDir()
			root := filepath.Join(base, "run")
			if err := os.Mkdir(root, 0o755); err != nil {
				t.Fatal(err)
			}
			secret := filepath.Join(base, "secret")
			for p, c := range map[string]string{secret: "secret", filepath.Join(root, "citations.jsonl"): "old"} {
				if err := os.WriteFile(p, []byte(c), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			body = strings.NewReplacer("SECRET", secret, "ROOT", root).Replace(body)
			if err := os.WriteFile(filepath.Join(root, JournalName), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
			rec, err := Recover(root)
			if err != nil || rec.Action != RolledBack {
				t.Errorf("recovery = %+v, %v", rec, err)
			}
			sameTree(t, "after recovery", tree(t, base), map[string]string{
				"run": "<d--------->", "run/citations.jsonl": "old", "secret": "secret"})
		})
	}
}

// TestLockDir: the lock excludes a second holder, even in the same process,
// until it is released; it creates nothing in the directory.
func TestLockDir(t *testing.T) {
	dir := t.TempDir()
	l, err := LockDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := LockDir(dir); !errors.Is(err, ErrLocked) {
		t.Errorf("second LockDir = %v, want ErrLocked", err)
	}
	if err := l.Unlock(); err != nil {
		t.Fatal(err)
	}
	if err := l.Unlock(); err != nil {
		t.Errorf("second Unlock = %v", err)
	}
	l2, err := LockDir(dir)
	if err != nil {
		t.Fatalf("LockDir after Unlock = %v", err)
	}
	_ = l2.Unlock()
	if got := names(t, dir); len(got) != 0 {
		t.Errorf("lock created %v", got)
	}
	if _, err := LockDir(filepath.Join(dir, "missing")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("LockDir(missing) = %v", err)
	}
}

// A streamed file is written as its encoder writes it (through a buffer
// smaller than the file); an encoder that fails leaves the old set and no
// staged file, as a failing write of bytes does.
func TestCommitStreamedFiles(t *testing.T) {
	big := strings.Repeat("0123456789abcdef", 20000) // 320 KB: several buffer flushes
	f := newCommitFixture(t)
	f.batch.Files[1] = File{Path: f.batch.Files[1].Path, Stream: func(w *bufio.Writer) error {
		for i := 0; i < len(big); i += 1000 {
			_, _ = w.WriteString(big[i : i+1000])
		}
		return nil
	}}
	f.new["citations/url-map.json"] = big
	if err := Commit(context.Background(), f.batch); err != nil {
		t.Fatal(err)
	}
	sameTree(t, "after streamed commit", tree(t, f.root), f.new)

	g := newCommitFixture(t)
	boom := errors.New("encoder failed")
	g.batch.Files[2] = File{Path: g.batch.Files[2].Path, Stream: func(w *bufio.Writer) error {
		_, _ = w.WriteString("partial")
		return boom
	}}
	err := Commit(context.Background(), g.batch)
	var be *BatchError
	if !errors.As(err, &be) || be.Index != 2 || !errors.Is(err, boom) {
		t.Fatalf("Commit = %v, want the encoder's error for file 2", err)
	}
	sameTree(t, "after failed stream", tree(t, g.root), g.old)
}
