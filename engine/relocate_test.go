package engine

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// rewriteJSONStrings changes only the values asked for: keys, order, spacing,
// numbers, escapes and arrays elsewhere stay byte for byte.
func TestRewriteJSONStrings(t *testing.T) {
	tests := []struct {
		name, in, want string
		n              int
	}{
		{"nested value", `{"a": {"root": "/old", "n": 1.50}, "root": "/keep"}`, `{"a": {"root": "/new", "n": 1.50}, "root": "/keep"}`, 1},
		{"escapes and spacing", "{\n  \"a\" :\t{ \"root\":\"/o\\u006cd\" } }", "{\n  \"a\" :\t{ \"root\":\"/new\" } }", 1},
		{"array items are not keys", `{"a": ["root", {"root": "/old"}]}`, `{"a": ["root", {"root": "/new"}]}`, 1},
		{"a key equal to the value", `{"a": {"root": "root"}}`, `{"a": {"root": "/new"}}`, 1},
		{"nothing to change", `{"b": {"root": "/old"}}`, `{"b": {"root": "/old"}}`, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, n, err := rewriteJSONStrings([]byte(tt.in), func(path []string, s string) (string, bool) {
				return "/new", strings.Join(path, ".") == "a.root"
			})
			if err != nil || string(got) != tt.want || n != tt.n {
				t.Errorf("got %s (%d, %v), want %s (%d)", got, n, err, tt.want, tt.n)
			}
		})
	}
	if _, _, err := rewriteJSONStrings([]byte(`{"a": `), func([]string, string) (string, bool) { return "", false }); err == nil {
		t.Error("truncated JSON accepted")
	}
}

// copiedRun is a run directory and a copy of it made with cp -r, whose
// manifest still names the original.
func copiedRun(t *testing.T, s runSpec) (orig, cp testRun) {
	t.Helper()
	orig = newRun(t, s)
	dir := filepath.Join(t.TempDir(), "copy")
	copyTree(t, orig.Root, dir)
	return orig, testRun{Root: dir, Manifest: filepath.Join(dir, "manifest.json")}
}

// run DIR refuses a directory its manifest does not name, Describe (the
// TUI's header) included, before the lock file or anything else is created
// in either directory; a symlink to the run directory is the run directory.
func TestRunDirMustBeTheManifestRoot(t *testing.T) {
	spec := runSpec{Files: map[string]string{"wave-1/p1.md": "## Sources\n- https://a.example/x\n",
		"offline-fixtures.json": `{"https://a.example/x": "valid"}`}}
	orig, cp := copiedRun(t, spec)
	e := newEngine()
	a := RunArgs{ManifestPath: cp.Manifest, RunDir: cp.Root}
	_, err := e.Run(bg, a, nil)
	var ee *Error
	if !errors.As(err, &ee) || ee.Code != CodeRunDirMoved || ee.Details["manifest_root"] != orig.Root {
		t.Fatalf("run on a copy: %v", err)
	}
	if _, err := e.Describe(a); !errors.As(err, &ee) || ee.Code != CodeRunDirMoved {
		t.Errorf("describe on a copy: %v", err)
	}
	// run_dir alone (MCP, --args-json) names DIR/manifest.json.
	if _, err := e.Run(bg, RunArgs{RunDir: cp.Root}, nil); !errors.As(err, &ee) || ee.Code != CodeRunDirMoved {
		t.Errorf("run_dir alone on a copy: %v", err)
	}
	if _, err := e.Run(bg, RunArgs{RunDir: "rel"}, nil); !errors.As(err, &ee) || ee.Code != CodeInvalidArgs {
		t.Errorf("relative run_dir: %v", err)
	}
	for _, root := range []string{orig.Root, cp.Root} {
		if entries, _ := os.ReadDir(root); len(entries) != 3 {
			t.Errorf("%s: %d entries after a refused run, want the 3 copied", root, len(entries))
		}
	}
	// Without RunDir (--manifest-path, the tools) the manifest decides, as
	// the reference's tools do.
	if _, err := e.Run(bg, RunArgs{ManifestPath: cp.Manifest}, nil); err != nil {
		t.Errorf("--manifest-path run: %v", err)
	}

	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(orig.Root, link); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Run(bg, RunArgs{ManifestPath: filepath.Join(link, "manifest.json"), RunDir: link}, nil); err != nil {
		t.Errorf("run through a symlink to the run directory: %v", err)
	}
}

// A gates file configured outside the run directory is refused under run DIR.
func TestRunDirRefusesGatesFileOutside(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "gates.json")
	r := newRun(t, runSpec{Files: map[string]string{"wave-1/p1.md": "## Sources\n- https://a.example/x\n"}})
	patchManifestPaths(t, r, map[string]string{"gates_file": outside})
	_, err := newEngine().Run(bg, RunArgs{ManifestPath: r.Manifest, RunDir: r.Root}, nil)
	var ee *Error
	if !errors.As(err, &ee) || ee.Code != CodeInvalidArgs || !strings.Contains(ee.Message, "gates_file") {
		t.Fatalf("run with gates_file outside: %v", err)
	}
	if _, err := os.Stat(outside); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("gates file outside the run directory was written: %v", err)
	}
}

// patchManifestPaths rewrites artifacts.paths entries of a test manifest.
func patchManifestPaths(t *testing.T, r testRun, paths map[string]string) {
	t.Helper()
	data, _, err := rewriteJSONStrings([]byte(readFile(t, r.Manifest)), func(path []string, s string) (string, bool) {
		if len(path) == 3 && path[1] == "paths" {
			v, ok := paths[path[2]]
			return v, ok
		}
		return "", false
	})
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, r.Manifest, string(data))
}

// relocate points the copy's manifest (root, and absolute paths under the
// old root) and its latest-capture pointer at the copy, changes nothing
// else in those files, writes nothing outside the copy, and is a no-op on
// a directory already in place.
func TestRelocate(t *testing.T) {
	orig, cp := copiedRun(t, runSpec{Files: map[string]string{
		"wave-1/p1.md":                          "## Sources\n- https://a.example/x\n",
		"citations/online-fixtures.latest.json": "{\n  \"path\": \"ROOT/citations/online-fixtures.1.json\",\n  \"ts\": \"1\"\n}\n",
	}})
	latest := strings.ReplaceAll(readFile(t, orig.cit("online-fixtures.latest.json")), "ROOT", orig.Root)
	writeFile(t, cp.cit("online-fixtures.latest.json"), latest)
	patchManifestPaths(t, cp, map[string]string{"gates_file": filepath.Join(orig.Root, "gates.json"),
		"pivot_file": "/elsewhere/pivot.json"})
	before := readFile(t, cp.Manifest)
	origManifest := readFile(t, orig.Manifest)

	res, err := newEngine().Relocate(bg, RelocateArgs{Dir: cp.Root})
	if err != nil {
		t.Fatal(err)
	}
	if res.PreviousRoot != orig.Root || strings.Join(res.Rewritten, ",") != "manifest.json,citations/online-fixtures.latest.json" {
		t.Errorf("result %+v", res)
	}
	want := strings.NewReplacer(`"root": "`+orig.Root+`"`, `"root": "`+cp.Root+`"`,
		`"gates_file": "`+filepath.Join(orig.Root, "gates.json")+`"`, `"gates_file": "`+filepath.Join(cp.Root, "gates.json")+`"`).Replace(before)
	if got := readFile(t, cp.Manifest); got != want {
		t.Errorf("manifest:\n%s\nwant:\n%s", got, want)
	}
	if got, want := readFile(t, cp.cit("online-fixtures.latest.json")), strings.ReplaceAll(latest, orig.Root, cp.Root); got != want {
		t.Errorf("latest pointer:\n%s\nwant:\n%s", got, want)
	}
	if readFile(t, orig.Manifest) != origManifest {
		t.Error("the original's manifest changed")
	}
	if !strings.Contains(readFile(t, cp.path("logs/audit.jsonl")), `"kind":"relocate"`) {
		t.Error("no audit line in the copy")
	}
	if _, err := os.Stat(orig.path("logs")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("relocate wrote into the original: %v", err)
	}

	again, err := newEngine().Relocate(bg, RelocateArgs{Dir: cp.Root})
	if err != nil || len(again.Rewritten) != 0 || again.PreviousRoot != cp.Root {
		t.Errorf("relocate in place: %+v, %v", again, err)
	}
	if _, err := newEngine().Relocate(bg, RelocateArgs{Dir: "relative"}); err == nil {
		t.Error("relative dir accepted")
	}
}
