package main

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/citegate/citegate/ui/cli"
)

// copyTree copies a directory the way `cp -r` does: contents only, new
// modification times.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// fileState is a file's bytes and modification time.
type fileState struct {
	data  []byte
	mtime time.Time
}

// snapshot records every file under dir (bytes and mtimes), to show that a
// command left it alone.
func snapshot(t *testing.T, dir string) map[string]fileState {
	t.Helper()
	out := map[string]fileState{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		st, err := os.Stat(p)
		if err != nil {
			return err
		}
		out[p] = fileState{data, st.ModTime()}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func sameSnapshot(t *testing.T, what string, before, after map[string]fileState) {
	t.Helper()
	for p, b := range before {
		a, ok := after[p]
		if !ok || !bytes.Equal(a.data, b.data) || !a.mtime.Equal(b.mtime) {
			t.Errorf("%s: %s changed (present %v)", what, p, ok)
		}
	}
	for p := range after {
		if _, ok := before[p]; !ok {
			t.Errorf("%s: %s appeared", what, p)
		}
	}
}

// A run directory copied with cp -r and edited: run COPY must not read the
// original's waves or write into it (issue 20: it did, and Gate C passed).
// It is refused until `citegate relocate COPY` makes the copy its own run;
// then run COPY reads the copy's waves, and the original is never touched.
func TestCopiedRunDirNeverTouchesTheOriginal(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	wave := "# Costs\n\n## Sources\n\n- https://one.example/a\n- https://two.example/b\n"
	if err := os.WriteFile("costs.md", []byte(wave), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := invoke(t, "init", "orig", "--waves", "costs.md", "--fixtures-template"); code != cli.ExitOK {
		t.Fatalf("init: exit %d\n%s\n%s", code, out, errOut)
	}
	if code, out, errOut := invoke(t, "run", "orig", "--headless"); code != cli.ExitOK {
		t.Fatalf("run orig: exit %d\n%s\n%s", code, out, errOut)
	}
	orig, cp := filepath.Join(dir, "orig"), filepath.Join(dir, "copy")
	copyTree(t, orig, cp)
	// The copy cites a third URL that its fixtures call invalid.
	edited := strings.Replace(wave, "- https://two.example/b\n", "- https://two.example/b\n- https://three.example/c\n", 1)
	if err := os.WriteFile(filepath.Join(cp, "wave-1", "costs.md"), []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	fixtures := `{"https://one.example/a": "valid", "https://two.example/b": "valid", "https://three.example/c": "invalid"}` + "\n"
	if err := os.WriteFile(filepath.Join(cp, "offline-fixtures.json"), []byte(fixtures), 0o644); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, orig)
	time.Sleep(10 * time.Millisecond) // a write would show in the mtimes

	code, out, errOut := invoke(t, "run", "copy", "--headless")
	var env struct {
		OK    bool `json:"ok"`
		Error struct {
			Code    string         `json:"code"`
			Message string         `json:"message"`
			Details map[string]any `json:"details"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(out), &env); err != nil || code != cli.ExitFailure || env.OK ||
		env.Error.Code != "RUN_DIR_MOVED" || !strings.Contains(env.Error.Message, "citegate relocate "+cp) {
		t.Fatalf("run on a copy: exit %d, want the RUN_DIR_MOVED envelope naming the fix\n%s\n%s", code, out, errOut)
	}
	if env.Error.Details["manifest_root"] != orig || env.Error.Details["dir"] != cp {
		t.Errorf("details %v", env.Error.Details)
	}
	sameSnapshot(t, "run on the copy", before, snapshot(t, orig))

	code, out, errOut = invoke(t, "relocate", "copy")
	if code != cli.ExitOK || !strings.Contains(out, `"previous_root": `+strconvQuote(orig)) ||
		!strings.Contains(errOut, "next 1: citegate run "+cp) {
		t.Fatalf("relocate: exit %d\n%s\n%s", code, out, errOut)
	}
	code, out, errOut = invoke(t, "run", "copy", "--headless")
	if code != cli.ExitGateFailed || !strings.Contains(out, `"invalid": 1`) || !strings.Contains(out, `"unique_found": 3`) {
		t.Fatalf("run on the relocated copy: exit %d, want Gate C failed on the copy's three URLs\n%s\n%s", code, out, errOut)
	}
	extracted, err := os.ReadFile(filepath.Join(cp, "citations", "extracted-urls.txt"))
	if err != nil || !strings.Contains(string(extracted), "https://three.example/c") {
		t.Errorf("the copy's extracted URLs: %q, %v", extracted, err)
	}
	sameSnapshot(t, "run on the relocated copy", before, snapshot(t, orig))
	// The original is still a run of its own.
	if code, out, _ := invoke(t, "run", "orig", "--headless"); code != cli.ExitOK {
		t.Fatalf("run orig after: exit %d\n%s", code, out)
	}
}

func strconvQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
