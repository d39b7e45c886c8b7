package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/citegate/citegate/ui/cli"
)

// TestHostLabelSecretNeverLeavesTheRun (issue 21): credentials used as host
// labels, through init, an offline run that fails Gate C (so gates.json and
// the JUnit report list the URLs) and the tool chain; every file written,
// stdout, stderr and the JUnit report are searched for them, case ignored
// (canonical URLs lower-case hosts). Ordinary random-looking labels stay.
func TestHostLabelSecretNeverLeavesTheRun(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	markers := []string{"HOSTSECRETGH1", "HOSTSECRETSUB2", "HOSTSECRETSK3", "HOSTSECRETJWT4"}
	wave := "# Host labels\n\n## Sources\n\n" +
		"- [Token host](https://ghp_HOSTSECRETGH1abcdefABCDEF0123456789.example.com/x)\n" +
		"- https://docs.ghp_HOSTSECRETSUB2abcdefABCDEF012345678.github.io/page?utm_source=feed\n" +
		"- [Key](https://sk-proj-HOSTSECRETSK3abcdefABCDEF0123456789xyzXYZ.api.example.org:8443/v1#top)\n" +
		"- https://eyJhbGciOiJIUzI1NiJ9.eyJIT1NUU0VDUkVUSldUNCI6MX0.HOSTSECRETJWT4sig.example.net/\n" +
		"- https://d1a2b3c4d5e6f7.cloudfront.net/img.png\n" +
		"- https://s3-eu-west-1.amazonaws.com/bucket/report.pdf\n"
	if err := os.WriteFile("hosts.md", []byte(wave), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr strings.Builder
	step := func(want int, args ...string) {
		t.Helper()
		code, out, errOut := invoke(t, args...)
		stdout.WriteString(out)
		stderr.WriteString(errOut)
		if code != want {
			t.Fatalf("%s: exit %d, want %d\n%s\n%s", args[0], code, want, out, errOut)
		}
	}
	step(cli.ExitOK, "init", "run", "--waves", "hosts.md", "--mode", "offline", "--fixtures-template")
	// Every credentialed URL is invalid: Gate C fails and names them.
	fixtures := filepath.Join("run", "offline-fixtures.json")
	data, err := os.ReadFile(fixtures)
	if err != nil {
		t.Fatal(err)
	}
	var statuses map[string]string
	if err := json.Unmarshal(data, &statuses); err != nil {
		t.Fatalf("fixtures template: %v\n%s", err, data)
	}
	redacted := 0
	for u := range statuses {
		if !strings.Contains(u, "cloudfront.net") && !strings.Contains(u, "amazonaws.com") {
			statuses[u] = "invalid"
		}
		if strings.Contains(u, "redacted") {
			redacted++
		}
	}
	if redacted != 4 || len(statuses) != 6 {
		t.Errorf("fixtures template lists %d URLs, %d with a redacted host, want 6 and 4:\n%s", len(statuses), redacted, data)
	}
	if data, err = json.Marshal(statuses); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(fixtures, data, 0o644); err != nil {
		t.Fatal(err)
	}
	step(cli.ExitGateFailed, "run", "run", "--headless", "--reason", "host labels", "--report-junit", "junit.xml")
	manifest := filepath.Join(dir, "run", "manifest.json")
	for _, tool := range []string{"extract", "normalize", "validate", "gate-c", "render"} {
		step(cli.ExitOK, tool, "--manifest-path", manifest, "--reason", "tool chain")
	}
	junit, err := os.ReadFile("junit.xml")
	if err != nil || !bytes.Contains(junit, []byte("REDACTED")) && !bytes.Contains(junit, []byte("redacted")) {
		t.Errorf("JUnit report (%v) names no redacted URL:\n%s", err, junit)
	}
	texts := map[string]string{"stdout": stdout.String(), "stderr": stderr.String()}
	written := 0
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Base(p) == "hosts.md" || strings.Contains(p, "wave-") {
			return err
		}
		data, rerr := os.ReadFile(p)
		if rerr != nil {
			t.Error(rerr)
			return nil
		}
		written++
		texts[p] = string(data)
		return nil
	})
	if written < 10 {
		t.Errorf("only %d files written; the test would prove little", written)
	}
	for where, text := range texts {
		low := strings.ToLower(text)
		for _, m := range markers {
			if strings.Contains(low, strings.ToLower(m)) {
				t.Errorf("%s contains %q", where, m)
			}
		}
	}
	for _, kept := range []string{"d1a2b3c4d5e6f7.cloudfront.net", "s3-eu-west-1.amazonaws.com"} {
		if !strings.Contains(texts[filepath.Join(dir, "run", "citations", "extracted-urls.txt")], kept) {
			t.Errorf("extracted-urls.txt lost the ordinary host %s", kept)
		}
	}
}
