package main

import (
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/citegate/citegate/ui/cli"
)

// TestVersionCommand: --version, -version and version print one line on
// stdout and exit 0; extra arguments are a usage error.
func TestVersionCommand(t *testing.T) {
	line := regexp.MustCompile(`^citegate \S+\n$`)
	for _, arg := range []string{"--version", "-version", "version"} {
		code, out, errOut := invoke(t, arg)
		if code != cli.ExitOK || !line.MatchString(out) || errOut != "" {
			t.Errorf("%s: exit %d, stdout %q, stderr %q", arg, code, out, errOut)
		}
	}
	if code, _, _ := invoke(t, "version", "extra"); code != cli.ExitUsage {
		t.Errorf("version extra: exit %d, want %d", code, cli.ExitUsage)
	}
	if _, out, _ := invoke(t, "--help"); !strings.Contains(out, "--version") {
		t.Errorf("top-level help does not mention --version:\n%s", out)
	}
}

// TestVersionLdflags builds the binary the way a release is built and checks
// that the -X variable path is the one VersionString reads.
func TestVersionLdflags(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "citegate")
	build := exec.Command("go", "build", "-ldflags", "-X github.com/citegate/citegate/ui.Version=v9.8.7-test", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "--version").Output()
	if err != nil || string(out) != "citegate v9.8.7-test\n" {
		t.Errorf("--version = %q, %v", out, err)
	}
}
