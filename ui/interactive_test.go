package ui

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/teatest"
	"github.com/citegate/citegate/engine"
	"github.com/citegate/citegate/engine/fsx"
	"github.com/citegate/citegate/engine/simweb"
	"github.com/citegate/citegate/engine/verify"
	"github.com/citegate/citegate/ui/cli"
	"github.com/citegate/citegate/ui/internal/uitest"
	"github.com/citegate/citegate/ui/tui"
)

// demoRun copies the repository's demo run into a new temp directory.
func demoRun(t *testing.T) DemoRun {
	t.Helper()
	d, err := CopyDemo(os.DirFS(filepath.Join("..", "testdata", "demo")), filepath.Join(t.TempDir(), "run"))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// tuiStep is keys typed into the terminal UI, then text to wait for on it.
type tuiStep struct{ keys, want string }

// runTUI executes args with stdin and stdout posing as a terminal, waits for
// the outcome panel, plays steps, quits with q and returns the exit code and
// stderr.
func runTUI(t *testing.T, steps []tuiStep, args ...string) (int, string) {
	t.Helper()
	c, err := cli.Parse(args)
	if err != nil {
		t.Fatal(err)
	}
	return driveTUI(t, func(s cli.Streams) int {
		return Execute(context.Background(), Deps{Engine: engine.New()}, c, s)
	}, func(step func(keys string, want ...string)) {
		for _, st := range steps {
			step(st.keys, st.want)
		}
	})
}

// driveTUI runs run with stdin and stdout posing as a terminal, waits for
// the outcome panel, lets play type keys and wait until the screen has
// shown every wanted text, quits with q and returns the exit code and
// stderr.
func driveTUI(t *testing.T, run func(cli.Streams) int, play func(step func(keys string, want ...string))) (int, string) {
	t.Helper()
	pr, pw := io.Pipe()
	defer pw.Close()
	out := &uitest.SyncBuffer{}
	var errOut bytes.Buffer
	code := make(chan int, 1)
	go func() {
		code <- run(cli.Streams{In: pr, Out: out, Err: &errOut, InIsTTY: true, OutIsTTY: true})
	}()
	teatest.WaitFor(t, out, func(b []byte) bool {
		return bytes.Contains(b, []byte("Run complete")) || bytes.Contains(b, []byte("Run failed"))
	},
		teatest.WithDuration(30*time.Second), teatest.WithCheckInterval(10*time.Millisecond))
	play(func(keys string, want ...string) {
		t.Helper()
		_, _ = pw.Write([]byte(keys))
		teatest.WaitFor(t, out, func(b []byte) bool {
			for _, w := range want {
				if !bytes.Contains(b, []byte(w)) {
					return false
				}
			}
			return true
		}, teatest.WithDuration(10*time.Second), teatest.WithCheckInterval(10*time.Millisecond))
	})
	_, _ = pw.Write([]byte("q"))
	select {
	case n := <-code:
		return n, errOut.String()
	case <-time.After(30 * time.Second):
		t.Fatal("the terminal UI did not exit after q")
		return 0, ""
	}
}

// TestTUIRunVerifyWritesVerifyJSON: `run DIR --verify FILE` in the terminal
// UI verifies the synthesis like --headless does and writes a byte-identical
// citations/verify.json (it once skipped the step and wrote nothing). Both
// show the claims (issue 11 item 5): --headless a line per claim, the
// terminal UI its claims list (v) and a claim's detail (enter).
func TestTUIRunVerifyWritesVerifyJSON(t *testing.T) {
	syn := filepath.Join(t.TempDir(), "synthesis.md")
	doc := "Solid-state cells suppress dendrites [1]. Battery packs got cheaper [2].\n\n## Sources\n\n1. https://www.science.org/doi/10.1126/science.adg7942\n2. https://www.iea.org/reports/global-ev-outlook-2024\n"
	if err := os.WriteFile(syn, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}

	head := demoRun(t)
	c, err := cli.Parse([]string{"run", head.Root, "--headless", "--verify", syn})
	if err != nil {
		t.Fatal(err)
	}
	var hout, herr bytes.Buffer
	if code := Execute(context.Background(), Deps{Engine: engine.New()}, c, cli.Streams{In: strings.NewReader(""), Out: &hout, Err: &herr}); code != cli.ExitOK {
		t.Fatalf("headless run: exit %d\n%s\n%s", code, hout.String(), herr.String())
	}
	want, err := os.ReadFile(filepath.Join(head.Root, "citations", "verify.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(want, []byte(`"not_citable"`)) {
		t.Fatalf("the headless verify.json does not flag the blocked source:\n%s", want)
	}
	for _, line := range []string{"citegate: verify\n",
		`[1/2] not judged  [1] "Solid-state cells suppress dendrites." (not citable; Gate C ⊘ blocked)` + "\n",
		`[2/2] not judged  [2] "Battery packs got cheaper." (fetch disabled; Gate C ✓ valid)` + "\n"} {
		if !strings.Contains(herr.String(), line) {
			t.Errorf("headless progress lacks %q:\n%s", line, herr.String())
		}
	}

	tui := demoRun(t)
	code, errOut := runTUI(t, []tuiStep{
		{"v", "— fetch disabled"},
		{"\r", "not_citable: citations.jsonl marks this source blocked"},
	}, "run", tui.Root, "--verify", syn)
	if code != cli.ExitOK {
		t.Fatalf("TUI run: exit %d\n%s", code, errOut)
	}
	got, err := os.ReadFile(filepath.Join(tui.Root, "citations", "verify.json"))
	if err != nil {
		t.Fatalf("the terminal UI wrote no verify.json: %v", err)
	}
	if !bytes.Equal(sameRun(t, got, tui.Root), sameRun(t, want, head.Root)) {
		t.Errorf("verify.json differs between the terminal UI and --headless:\nTUI:\n%s\nheadless:\n%s", got, want)
	}
	if !strings.Contains(errOut, "Verify (--verify):") {
		t.Errorf("stderr does not report the verification: %q", errOut)
	}
}

// TestTUIRunVerifyOnlineShowsVerdicts (issue 11 item 5): an online `run
// --verify` against the simulated web, in the terminal UI, judges the claims
// and shows each verdict in the claims list and, in a claim's detail, the
// rationale and the passage the judge read — the verdicts verify.json holds.
func TestTUIRunVerifyOnlineShowsVerdicts(t *testing.T) {
	sd, err := startSimDemo(os.DirFS(filepath.Join("..", "testdata", "demo")), filepath.Join(t.TempDir(), "run"))
	if err != nil {
		t.Fatal(err)
	}
	defer sd.web.Close()
	eng := engine.New()
	eng.GuardOptions = append(eng.GuardOptions, sd.opts...)
	eng.Net = sd.net
	const host = "www.energy-data.sim"
	_, topic, _ := strings.Cut(simweb.SyntheticTitle(host, 0), ": ")
	syn := filepath.Join(t.TempDir(), "synthesis.md")
	doc := fmt.Sprintf("A field report from %s looks at %s and what changed over the past year [1]. "+
		"Officials said the figures would be reviewed again in 2031 [2].\n\n## Sources\n\n1. http://%s/a/0\n2. http://%s/a/0\n", host, topic, host, host)
	if err := os.WriteFile(syn, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	var verdicts []string
	code, errOut := driveTUI(t, func(s cli.Streams) int {
		return runInteractive(context.Background(), Deps{Engine: eng}, engine.RunArgs{ManifestPath: sd.run.Path}, s,
			interactiveOptions{simulated: true, verifyFile: syn})
	}, func(step func(keys string, want ...string)) {
		// verify.json is committed before the outcome panel shows.
		data, err := os.ReadFile(filepath.Join(sd.run.Root, "citations", "verify.json"))
		if err != nil {
			t.Fatal(err)
		}
		var res verify.Result
		if err := json.Unmarshal(data, &res); err != nil {
			t.Fatal(err)
		}
		for _, c := range res.Citations {
			if c.Judge == nil {
				t.Fatalf("the source was not judged: %+v", c)
			}
			verdicts = append(verdicts, tui.VerdictCell(c))
		}
		step("v", verdicts[0]+" ", verdicts[1]+" ", "✓ valid     [2]")
		step("\r", "Claim 1 of 2", "Rationale", "Passage the judge read")
		// The passage is the page's text, below the fold of 80×24.
		step("G", "welcomed the report but asked for more detail")
	})
	if code != cli.ExitOK && code != cli.ExitGateFailed {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	if len(verdicts) != 2 {
		t.Fatalf("verdicts %v", verdicts)
	}
}

// verifyID is the result id seed 002 gives every verification: a fresh
// UUID, so two runs of the same verification (headless or not) differ in it.
var verifyID = regexp.MustCompile(`(?m)^  "id": "[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}",$`)

// sameRun blanks what legitimately differs between two runs of one
// verification: the run root and the result's fresh id.
func sameRun(t *testing.T, verifyJSON []byte, root string) []byte {
	t.Helper()
	if len(verifyID.FindAll(verifyJSON, -1)) != 1 {
		t.Fatalf("verify.json has no UUID id:\n%s", verifyJSON)
	}
	return verifyID.ReplaceAll(bytes.ReplaceAll(verifyJSON, []byte(root), []byte("ROOT")), []byte(`  "id": "ID",`))
}

// TestTUIRunVerifyUnreadableFile: an unreadable --verify file fails the
// terminal UI run with the envelope --headless prints, before anything is
// written (the file is read before the run starts, in both paths).
func TestTUIRunVerifyUnreadableFile(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "no-such-synthesis.md")
	var outs [2]bytes.Buffer
	var codes [2]int
	for i, tty := range []bool{false, true} {
		run := demoRun(t)
		args := []string{"run", run.Root, "--verify", missing}
		if !tty {
			args = append(args, "--headless")
		}
		c, err := cli.Parse(args)
		if err != nil {
			t.Fatal(err)
		}
		codes[i] = Execute(context.Background(), Deps{Engine: engine.New()}, c,
			cli.Streams{In: strings.NewReader(""), Out: &outs[i], Err: io.Discard, InIsTTY: tty, OutIsTTY: tty})
		if _, err := os.Stat(filepath.Join(run.Root, "citations", "citations.jsonl")); err == nil {
			t.Errorf("tty %v: the run wrote artifacts although --verify was unreadable", tty)
		}
	}
	if codes[0] != cli.ExitFailure || codes[1] != codes[0] {
		t.Errorf("exit codes: headless %d, TUI %d, want both %d", codes[0], codes[1], cli.ExitFailure)
	}
	if !strings.Contains(outs[0].String(), "--verify file unreadable") || outs[0].String() != outs[1].String() {
		t.Errorf("envelopes differ or lack the reason:\nheadless %s\nTUI %s", outs[0].String(), outs[1].String())
	}
}

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
			out := &uitest.SyncBuffer{}
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
				cli.Streams{In: in, Out: out, Err: &errb}, interactiveOptions{})
			if !fired {
				t.Fatal("hook never fired")
			}
			after := artifactFiles(t, demo.Root)
			if !tc.completes {
				if code != cli.ExitInterrupted || !strings.Contains(errb.String(), "nothing was written") {
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
			if code != cli.ExitOK || !strings.Contains(errb.String(), "reached its commit point") {
				t.Errorf("exit %d, stderr %q; want the completed run reported", code, errb.String())
			}
			if _, ok := after["citations/citations.jsonl"]; !ok {
				t.Error("citations.jsonl not written")
			}
		})
	}
}
