package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestNoTrackedIgnoredFiles: nothing .gitignore excludes is committed (a
// 9 MB parse.test binary once was). Skipped outside a git checkout.
func TestNoTrackedIgnoredFiles(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	if err := exec.Command("git", "rev-parse", "--is-inside-work-tree").Run(); err != nil {
		t.Skip("not a git checkout")
	}
	out, err := exec.Command("git", "ls-files", "--cached", "--ignored", "--exclude-standard").Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	if files := strings.TrimSpace(string(out)); files != "" {
		t.Errorf("tracked files that .gitignore excludes (git rm --cached them):\n%s", files)
	}
}

// TestLicense: the repository carries its licence.
func TestLicense(t *testing.T) {
	data, err := os.ReadFile("LICENSE")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"MIT License", "Copyright (c) 2026 the citegate authors", "THE SOFTWARE IS PROVIDED \"AS IS\""} {
		if !strings.Contains(string(data), want) {
			t.Errorf("LICENSE lacks %q", want)
		}
	}
}
