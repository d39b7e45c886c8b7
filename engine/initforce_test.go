package engine

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/citegate/citegate/engine/fsx"
)

// dirSnapshot is every entry under dir: a regular file's content, or what
// the entry is.
func dirSnapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := relPOSIX(dir, p)
		switch {
		case d.Type().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			out[rel] = string(b)
		default:
			out[rel] = d.Type().String()
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// regularUnder lists the regular files under root/sub, relative to root.
func regularUnder(t *testing.T, root, sub string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(filepath.Join(root, sub), func(p string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err == nil && d.Type().IsRegular() {
			out = append(out, relPOSIX(root, p))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// oldRun is a run directory init made from nine wave files, run once, so
// that citations/ holds a run's artifacts.
func oldRun(t *testing.T) (dir string, waves []string) {
	t.Helper()
	src := t.TempDir()
	for i := 1; i <= 9; i++ {
		waves = append(waves, writeWave(t, filepath.Join(src, fmt.Sprintf("old%d.md", i)),
			fmt.Sprintf("# Old %d\n\n## Sources\n- https://old.example/%d\n", i, i)))
	}
	dir = filepath.Join(t.TempDir(), "run")
	res, err := newEngine().Init(bg, InitArgs{Dir: dir, Waves: waves, FixturesTemplate: true})
	if err != nil {
		t.Fatal(err)
	}
	if sum, err := newEngine().Run(bg, RunArgs{ManifestPath: res.ManifestPath}, nil); err != nil || !sum.Passed() {
		t.Fatalf("old run: %+v %v", sum, err)
	}
	return dir, waves
}

// Row "init ignores the run lock": init while another citegate process
// holds the run directory's lock is RUN_LOCKED and changes nothing.
func TestInitTakesTheRunLock(t *testing.T) {
	dir, _ := oldRun(t)
	fresh := writeWave(t, filepath.Join(t.TempDir(), "new.md"), "# New\n\n## Sources\n- https://new.example/\n")
	before := dirSnapshot(t, dir)
	lock, err := fsx.LockDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	_, err = newEngine().Init(bg, InitArgs{Dir: dir, Waves: []string{fresh}, Force: true, FixturesTemplate: true})
	asError(t, err, CodeRunLocked)
	if after := dirSnapshot(t, dir); !mapsEqual(before, after) {
		t.Errorf("init under another process's lock changed the run directory:\nbefore %v\nafter  %v", before, after)
	}
	if err := lock.Unlock(); err != nil {
		t.Fatal(err)
	}
	if _, err := newEngine().Init(bg, InitArgs{Dir: dir, Waves: []string{fresh}, Force: true, FixturesTemplate: true}); err != nil {
		t.Fatalf("init once the lock is free: %v", err)
	}
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// A run and init --force racing on one run directory: each either does its
// whole work or is RUN_LOCKED; the run never reads a manifest, run-config,
// gates.json or wave set that init is half-way through replacing.
func TestInitAndRunExcludeEachOther(t *testing.T) {
	dir, waves := oldRun(t)
	manifest := filepath.Join(dir, "manifest.json")
	const rounds = 12
	var wg sync.WaitGroup
	errs := make(chan error, 2*rounds)
	wg.Add(2)
	go func() {
		defer wg.Done()
		for i := range rounds {
			// Alternate the wave sets, so a run mixing two inits' files
			// would count the wrong number of URLs.
			set := waves[:1+i%2*8]
			_, err := newEngine().Init(bg, InitArgs{Dir: dir, Waves: set, Force: true, FixturesTemplate: true})
			errs <- err
		}
	}()
	go func() {
		defer wg.Done()
		for range rounds {
			sum, err := newEngine().Run(bg, RunArgs{ManifestPath: manifest}, nil)
			if err == nil && (!sum.Passed() || (sum.UniqueNormalized != 1 && sum.UniqueNormalized != 9)) {
				err = fmt.Errorf("run saw a mixed run directory: gate %s, %d URLs", sum.GateC.Status, sum.UniqueNormalized)
			}
			errs <- err
		}
	}()
	wg.Wait()
	close(errs)
	for err := range errs {
		if err == nil {
			continue
		}
		if e := (*Error)(nil); !errors.As(err, &e) || e.Code != CodeRunLocked {
			t.Errorf("racing init and run: %v", err)
		}
	}
}

// Row "init --force over an old run": one new wave file over nine old ones
// leaves one wave file to read; the old waves and the old run's artifacts
// are moved aside, not deleted, and the next run reads exactly the new set.
func TestInitForceReplacesTheWaveSet(t *testing.T) {
	dir, _ := oldRun(t)
	writeWave(t, filepath.Join(dir, "wave-2", "extra.md"), "# Extra\n\n## Sources\n- https://extra.example/\n")
	writeWave(t, filepath.Join(dir, "wave-1", "sub", "deep.md"), "# Deep\n\n## Sources\n- https://deep.example/\n")
	if err := os.Symlink(filepath.Join(dir, "gates.json"), filepath.Join(dir, "wave-1", "link.md")); err != nil {
		t.Fatal(err)
	}
	old := dirSnapshot(t, dir)
	oldCitations := regularUnder(t, dir, "citations")
	if len(oldCitations) < 5 {
		t.Fatalf("the old run left only %v", oldCitations)
	}
	fresh := writeWave(t, filepath.Join(t.TempDir(), "new.md"), "# New\n\n## Sources\n- https://new.example/\n")

	res, err := newEngine().Init(bg, InitArgs{Dir: dir, Waves: []string{fresh}, Force: true, FixturesTemplate: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := slices.Concat(regularUnder(t, dir, "wave-1"), regularUnder(t, dir, "wave-2")); !slices.Equal(got, res.WaveFiles) || !slices.Equal(got, []string{"wave-1/new.md"}) {
		t.Errorf("wave files on disk %v, envelope %v; want only wave-1/new.md", got, res.WaveFiles)
	}
	if got := regularUnder(t, dir, "citations"); len(got) != 0 {
		t.Errorf("the old run's artifacts still count: %v", got)
	}
	if res.ReplacedDir != ".citegate-replaced/1" {
		t.Errorf("replaced_dir %q", res.ReplacedDir)
	}
	// Everything moved aside or overwritten is kept, byte for byte.
	want := slices.Concat(oldCitations, []string{"gates.json", "manifest.json", "offline-fixtures.json", "run-config.json",
		"wave-1/old1.md", "wave-1/old2.md", "wave-1/old3.md", "wave-1/old4.md", "wave-1/old5.md", "wave-1/old6.md",
		"wave-1/old7.md", "wave-1/old8.md", "wave-1/old9.md", "wave-1/sub/deep.md", "wave-2/extra.md"})
	slices.Sort(want)
	if !slices.Equal(res.Replaced, want) {
		t.Errorf("replaced %v\nwant     %v", res.Replaced, want)
	}
	for _, rel := range want {
		b, err := os.ReadFile(filepath.Join(dir, ".citegate-replaced", "1", filepath.FromSlash(rel)))
		if err != nil || string(b) != old[rel] {
			t.Errorf("%s was not kept as it was: %v", rel, err)
		}
	}
	// The symlink is not a file init can move; it stays, and is named.
	if !slices.ContainsFunc(res.Warnings, func(w string) bool {
		return strings.HasPrefix(w, "wave-1/link.md: ") && strings.Contains(w, "init left it in place")
	}) {
		t.Errorf("warnings do not name the symlink left in place: %v", res.Warnings)
	}
	// The move is on record in the audit log, which stays where it was.
	audit, err := os.ReadFile(filepath.Join(dir, "logs", "audit.jsonl"))
	if err != nil || !strings.Contains(string(audit), `"kind":"init_replaced"`) || !strings.Contains(string(audit), `"replaced_dir":".citegate-replaced/1"`) {
		t.Errorf("audit log: %v\n%s", err, audit)
	}
	sum, err := newEngine().Run(bg, RunArgs{ManifestPath: res.ManifestPath}, nil)
	if err != nil || !sum.Passed() || sum.UniqueNormalized != 1 {
		t.Fatalf("run after init --force: %+v %v", sum, err)
	}
	// A second --force keeps the first set aside and adds the next.
	res, err = newEngine().Init(bg, InitArgs{Dir: dir, Waves: []string{fresh}, Force: true})
	if err != nil || res.ReplacedDir != ".citegate-replaced/2" {
		t.Fatalf("second init --force: %+v %v", res, err)
	}
	if _, err := os.Stat(filepath.Join(dir, ".citegate-replaced", "1", "wave-1", "old1.md")); err != nil {
		t.Errorf("the first set aside was touched: %v", err)
	}
}

// Without --force, the files a run would read besides init's are refused
// like the files init would overwrite: the envelope would not be the set.
func TestInitRefusesStaleWavesWithoutForce(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	writeWave(t, filepath.Join(dir, "wave-1", "left.md"), "# Left\n\n## Sources\n- https://left.example/\n")
	writeWave(t, filepath.Join(dir, "citations", "citations.jsonl"), "")
	fresh := writeWave(t, filepath.Join(t.TempDir(), "new.md"), "# New\n\n## Sources\n- https://new.example/\n")
	before := dirSnapshot(t, dir)
	_, err := newEngine().Init(bg, InitArgs{Dir: dir, Waves: []string{fresh}})
	e := asError(t, err, CodeInvalidArgs)
	existing, _ := e.Details["existing"].([]string)
	if !slices.Equal(existing, []string{"citations/citations.jsonl", "wave-1/left.md"}) || !strings.Contains(e.Message, "--force") {
		t.Errorf("refusal %q lists %v", e.Message, e.Details["existing"])
	}
	if !mapsEqual(before, dirSnapshot(t, dir)) {
		t.Error("a refused init changed the directory")
	}
	// A target that is not a regular file is listed too.
	dir3 := filepath.Join(t.TempDir(), "run")
	if err := os.MkdirAll(filepath.Join(dir3, "gates.json"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err = newEngine().Init(bg, InitArgs{Dir: dir3})
	if e := asError(t, err, CodeInvalidArgs); !slices.Equal(e.Details["existing"].([]string), []string{"gates.json"}) {
		t.Errorf("refusal lists %v", e.Details["existing"])
	}
	// Without --waves the wave directories are the user's: init leaves them.
	dir2 := filepath.Join(t.TempDir(), "run")
	writeWave(t, filepath.Join(dir2, "wave-1", "mine.md"), "# Mine\n\n## Sources\n- https://mine.example/\n")
	if _, err := newEngine().Init(bg, InitArgs{Dir: dir2}); err != nil {
		t.Fatalf("init over hand-placed waves: %v", err)
	}
}

// Row "init --waves DIR skips silently": a FIFO and a symlinked .md are
// named, in the words run uses for the same entries in a wave directory.
func TestInitNamesSkippedEntries(t *testing.T) {
	src := t.TempDir()
	writeWave(t, filepath.Join(src, "a.md"), "# A\n\n## Sources\n- https://a.example/\n")
	writeWave(t, filepath.Join(src, "sub", "b.md"), "# B\n\n## Sources\n- https://b.example/\n")
	outside := writeWave(t, filepath.Join(t.TempDir(), "elsewhere.md"), "# E\n\n## Sources\n- https://e.example/\n")
	if err := syscall.Mkfifo(filepath.Join(src, "pipe.md"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(src, "link.md")); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "run")
	res, err := newEngine().Init(bg, InitArgs{Dir: dir, Waves: []string{src}, FixturesTemplate: true})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.WaveFiles, []string{"wave-1/a.md", "wave-1/sub/b.md"}) {
		t.Errorf("wave files %v", res.WaveFiles)
	}
	skipped := func(ws []string, prefix string) []string {
		var out []string
		for _, w := range ws {
			if rest, ok := strings.CutPrefix(w, prefix); ok && strings.Contains(rest, "not read") {
				out = append(out, rest)
			}
		}
		return out
	}
	got := skipped(res.Warnings, src+string(filepath.Separator))
	if len(got) != 2 {
		t.Fatalf("init names %v of the skipped entries; warnings %v", got, res.Warnings)
	}
	// run says the same of the same entries in its wave directory.
	if err := syscall.Mkfifo(filepath.Join(dir, "wave-1", "pipe.md"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "wave-1", "link.md")); err != nil {
		t.Fatal(err)
	}
	x, err := newEngine().extract(bg, mustLoadRun(t, res.ManifestPath), true, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	if want := skipped(x.warnings, "wave-1/"); !slices.Equal(got, want) {
		t.Errorf("init says %q, run says %q", got, want)
	}
	// A directory with nothing readable is refused, naming what it skipped.
	only := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(only, "pipe.md"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = newEngine().Init(bg, InitArgs{Dir: filepath.Join(t.TempDir(), "run"), Waves: []string{only}})
	e := asError(t, err, CodeInvalidArgs)
	if s, _ := e.Details["skipped"].([]string); len(s) != 1 || !strings.Contains(s[0], "named pipe") {
		t.Errorf("refusal details %v", e.Details)
	}
}

func mustLoadRun(t *testing.T, manifest string) *RunDir {
	t.Helper()
	run, err := LoadRun(manifest)
	if err != nil {
		t.Fatal(err)
	}
	return run
}

// A command that loaded the manifest just before init --force rewrote the
// run directory does not go on with the old manifest and the new files
// (gates.json of another run id, another wave set): once it holds the lock
// it is RUN_LOCKED, and taken again it reads the new set.
func TestLockRefusesAManifestReplacedBeforeIt(t *testing.T) {
	dir, waves := oldRun(t)
	manifest := filepath.Join(dir, "manifest.json")
	stale := mustLoadRun(t, manifest)
	if _, err := newEngine().Init(bg, InitArgs{Dir: dir, Waves: waves[:1], Force: true, FixturesTemplate: true, RunID: "dr_other"}); err != nil {
		t.Fatal(err)
	}
	_, err := newEngine().lockRun(stale)
	asError(t, err, CodeRunLocked)
	sum, err := newEngine().Run(bg, RunArgs{ManifestPath: manifest}, nil)
	if err != nil || sum.RunID != "dr_other" || sum.UniqueNormalized != 1 {
		t.Fatalf("run after init: %+v %v", sum, err)
	}
}
