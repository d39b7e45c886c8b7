package ui

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/citegate/citegate/engine"
	"github.com/citegate/citegate/engine/fsx"
)

// TestInteractiveQuitDuringTheWritePhase (issue 10 item 5): quitting the
// terminal UI while the run is writing cancels it up to the commit point —
// exit 3, nothing written — and from the commit point on the commit completes
// and the run is reported as completed, with its own exit code, instead of
// the "nothing was written" the UI used to print regardless.
func TestInteractiveQuitDuringTheWritePhase(t *testing.T) {
	for _, tc := range []struct {
		at        fsx.Step
		completes bool
	}{
		{fsx.Step{Phase: fsx.PhaseStaged, Index: 1}, false},
		{fsx.Step{Phase: fsx.PhaseCommitted}, true},
	} {
		t.Run(tc.at.Phase.String(), func(t *testing.T) {
			demo, err := CopyDemo(os.DirFS("../testdata/demo"), filepath.Join(t.TempDir(), "run"))
			if err != nil {
				t.Fatal(err)
			}
			before := artifactFiles(t, demo.Root)
			in, typed := io.Pipe()
			defer typed.Close()
			out := &syncBuffer{}
			eng := engine.New()
			eng.Now = func() time.Time { return time.Date(2026, 2, 14, 12, 0, 0, 0, time.UTC) }
			fired := false
			eng.CommitHook = func(ctx context.Context, s fsx.Step) {
				if s != tc.at {
					return
				}
				fired = true
				// The operator quits; the commit goes on only once the quit
				// has reached the run as a cancellation.
				_, _ = typed.Write([]byte("q"))
				select {
				case <-ctx.Done():
				case <-time.After(10 * time.Second):
					t.Error("quitting did not cancel the run")
				}
			}
			var errb bytes.Buffer
			code := runInteractive(context.Background(), Deps{Engine: eng}, engine.RunArgs{ManifestPath: demo.Path},
				Streams{In: in, Out: out, Err: &errb}, false, "")
			if !fired {
				t.Fatal("hook never fired")
			}
			after := artifactFiles(t, demo.Root)
			if !tc.completes {
				if code != ExitInterrupted || !strings.Contains(errb.String(), "nothing was written") {
					t.Errorf("exit %d, stderr %q; want 3 and nothing written", code, errb.String())
				}
				if len(before) != len(after) {
					t.Errorf("files changed: %d → %d", len(before), len(after))
				}
				for k, v := range before {
					if after[k] != v {
						t.Errorf("%s changed", k)
					}
				}
				return
			}
			if code != ExitOK || !strings.Contains(errb.String(), "reached its commit point") {
				t.Errorf("exit %d, stderr %q; want the completed run reported", code, errb.String())
			}
			if _, ok := after["citations/citations.jsonl"]; !ok {
				t.Error("citations.jsonl not written")
			}
		})
	}
}
