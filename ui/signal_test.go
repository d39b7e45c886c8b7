package ui

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/citegate/citegate/engine"
	"github.com/citegate/citegate/engine/fsx"
	"github.com/citegate/citegate/ui/cli"
)

// TestSignalDuringTheWritePhaseExitCodes (issue 10 item 5): what the CLI
// reports when SIGINT/SIGTERM (a cancelled context, as main.go makes it)
// arrives during the write phase. Before the commit point: exit 3 and the
// CANCELLED envelope, nothing written. From the commit point on: the commit
// completes, the result is the complete one with the command's own exit code,
// and stderr says the signal came after the commit point.
func TestSignalDuringTheWritePhaseExitCodes(t *testing.T) {
	for _, tc := range []struct {
		name      string
		args      func(dir string) []string
		at        fsx.Step
		completes bool
	}{
		{"run, while staging", func(dir string) []string { return []string{"run", dir, "--headless"} },
			fsx.Step{Phase: fsx.PhaseStaged, Index: 2}, false},
		{"run, at the commit point", func(dir string) []string { return []string{"run", dir, "--headless"} },
			fsx.Step{Phase: fsx.PhaseCommitted}, true},
		{"run, while renaming", func(dir string) []string { return []string{"run", dir, "--headless"} },
			fsx.Step{Phase: fsx.PhaseRenamed, Index: 4}, true},
		{"extract, while staging", func(dir string) []string {
			return []string{"extract", "--manifest-path", filepath.Join(dir, "manifest.json"), "--reason", "x"}
		}, fsx.Step{Phase: fsx.PhaseStaged, Index: 1}, false},
		{"extract, while renaming", func(dir string) []string {
			return []string{"extract", "--manifest-path", filepath.Join(dir, "manifest.json"), "--reason", "x"}
		}, fsx.Step{Phase: fsx.PhaseRenamed}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			demo, err := CopyDemo(os.DirFS("../testdata/demo"), filepath.Join(t.TempDir(), "run"))
			if err != nil {
				t.Fatal(err)
			}
			cmd, err := cli.Parse(tc.args(demo.Root))
			if err != nil {
				t.Fatal(err)
			}
			before := artifactFiles(t, demo.Root)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			eng := engine.New()
			eng.Now = func() time.Time { return time.Date(2026, 2, 14, 12, 0, 0, 0, time.UTC) }
			fired := false
			eng.CommitHook = func(_ context.Context, s fsx.Step) {
				if s == tc.at {
					fired = true
					cancel() // what signal.NotifyContext does on SIGINT
				}
			}
			var out, errb bytes.Buffer
			code := Execute(ctx, Deps{Engine: eng}, cmd, cli.Streams{In: strings.NewReader(""), Out: &out, Err: &errb})
			if !fired {
				t.Fatal("hook never fired")
			}
			var env struct {
				OK    bool `json:"ok"`
				Error *struct {
					Code string `json:"code"`
				} `json:"error"`
			}
			if err := json.Unmarshal(out.Bytes(), &env); err != nil {
				t.Fatalf("stdout is not one JSON envelope: %v\n%s", err, out.String())
			}
			after := artifactFiles(t, demo.Root)
			if !tc.completes {
				if code != cli.ExitInterrupted || env.OK || env.Error == nil || env.Error.Code != engine.CodeCancelled {
					t.Errorf("exit %d, envelope %s; want exit 3 and CANCELLED", code, out.String())
				}
				if !maps.Equal(before, after) {
					t.Error("interrupted command changed files")
				}
				if strings.Contains(errb.String(), "commit point") {
					t.Errorf("stderr: %s", errb.String())
				}
				return
			}
			if code != cli.ExitOK || !env.OK {
				t.Errorf("exit %d, envelope %s; want the completed result", code, out.String())
			}
			if maps.Equal(before, after) {
				t.Error("the commit did not complete")
			}
			if !strings.Contains(errb.String(), "interrupted after the commit point") {
				t.Errorf("stderr lacks the late-signal note: %s", errb.String())
			}
			for name := range after {
				if strings.Contains(filepath.Base(name), ".tmp-") || filepath.Base(name) == fsx.JournalName {
					t.Errorf("left behind: %s", name)
				}
			}
		})
	}
}

// artifactFiles reads every file under root, keyed by relative path.
func artifactFiles(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		out[rel] = string(data)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
