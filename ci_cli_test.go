package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/citegate/citegate/ui/cli"
)

var updateCI = flag.Bool("update", false, "rewrite testdata/ci/demo-online.* from the current output")

// buildField is the SARIF driver's version, which varies by build.
var buildField = regexp.MustCompile(`"version": "[^"]*",\n(\s*"informationUri")`)

// TestCIReportsOnlineDemo runs the default demo (online, simulated web) with
// every CI report and holds each to its golden: SARIF (the build's version
// blanked), Code Quality, the GitHub annotations on stderr and the job
// summary appended to $GITHUB_STEP_SUMMARY, then GitLab's log lines.
func TestCIReportsOnlineDemo(t *testing.T) {
	dir := t.TempDir()
	summary := filepath.Join(dir, "step-summary.md")
	if err := os.WriteFile(summary, []byte("earlier step\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GITHUB_STEP_SUMMARY", summary)
	sarif, cq := filepath.Join(dir, "citegate.sarif"), filepath.Join(dir, "gl-code-quality-report.json")
	code, out, errOut := invoke(t, "demo", "--dir", filepath.Join(dir, "demo"), "--headless",
		"--report-sarif", sarif, "--report-codequality", cq, "--annotations", "github")
	if code != cli.ExitOK {
		t.Fatalf("demo exit = %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	var annotations []string
	for _, l := range strings.SplitAfter(errOut, "\n") {
		if strings.HasPrefix(l, "::") {
			annotations = append(annotations, l)
		}
	}
	summaryDoc := readOrFail(t, summary)
	if !bytes.HasPrefix(summaryDoc, []byte("earlier step\n")) {
		t.Errorf("the job summary replaced what earlier steps wrote")
	}
	sarifDoc := buildField.ReplaceAll(readOrFail(t, sarif), []byte(`"version": "BUILD",`+"\n$1"))
	var log map[string]any
	if err := json.Unmarshal(sarifDoc, &log); err != nil {
		t.Fatalf("SARIF is not JSON: %v", err)
	}
	// The same demo with GitLab's log lines.
	code, out, errOut = invoke(t, "demo", "--dir", filepath.Join(dir, "demo2"), "--headless", "--annotations", "gitlab")
	if code != cli.ExitOK {
		t.Fatalf("demo exit = %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	var gitlab []string
	for _, l := range strings.SplitAfter(errOut, "\n") {
		if strings.HasPrefix(l, "wave-") {
			gitlab = append(gitlab, l)
		}
	}
	docs := map[string][]byte{
		"sarif.json": sarifDoc, "codequality.json": readOrFail(t, cq),
		"github.txt": []byte(strings.Join(annotations, "")), "summary.md": summaryDoc,
		"gitlab.txt": []byte(strings.Join(gitlab, "")),
	}
	for name, got := range docs {
		path := filepath.Join("testdata", "ci", "demo-online."+name)
		if *updateCI {
			if err := os.WriteFile(path, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if want := readOrFail(t, path); !bytes.Equal(got, want) {
			t.Errorf("%s differs from its golden (go test -run %s -update rewrites it):\n%s", name, t.Name(), got)
		}
	}
}

// TestCIReportFlags: --annotations takes github or gitlab only; a report
// that cannot be written fails the command after the run, which keeps its
// JSON; gitlab lines carry path:line:col.
func TestCIReportFlags(t *testing.T) {
	code, _, errOut := invoke(t, "demo", "--offline", "--headless", "--annotations", "jenkins")
	if code != cli.ExitUsage || !strings.Contains(errOut, "must be one of github, gitlab") {
		t.Errorf("--annotations jenkins: exit %d\n%s", code, errOut)
	}
	dir := t.TempDir()
	code, out, errOut := invoke(t, "demo", "--offline", "--dir", filepath.Join(dir, "run"), "--headless",
		"--annotations", "gitlab", "--report-sarif", dir)
	if code != cli.ExitFailure || !strings.Contains(errOut, "--report-sarif: cannot write") || !strings.Contains(out, `"ok": true`) {
		t.Errorf("unwritable SARIF: exit %d\n%s\n%s", code, out, errOut)
	}
	if !strings.Contains(errOut, "wave-1/p3-policy.md:9:39: error: invalid: must NOT cite https://example-think-tank.org/reports/ev-policy-2019") {
		t.Errorf("gitlab lines missing:\n%s", errOut)
	}
}

func readOrFail(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
