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

// TestNoTrackedBinaries: nothing built is committed. A tracked file that
// starts with an executable's magic number (ELF, Mach-O, PE), or one over
// 1 MB outside testdata/, fails. Skipped outside a git checkout.
func TestNoTrackedBinaries(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	if err := exec.Command("git", "rev-parse", "--is-inside-work-tree").Run(); err != nil {
		t.Skip("not a git checkout")
	}
	out, err := exec.Command("git", "ls-files", "-z").Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	for _, name := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		if name == "" {
			continue
		}
		if why := builtFile(name); why != "" {
			t.Errorf("%s is tracked: %s (git rm --cached it and ignore it)", name, why)
		}
	}
}

// executableMagic are the first bytes of ELF, Mach-O (both byte orders, 32
// and 64 bit, and universal) and PE files.
var executableMagic = [][]byte{{0x7f, 'E', 'L', 'F'}, {0xfe, 0xed, 0xfa, 0xce}, {0xfe, 0xed, 0xfa, 0xcf},
	{0xce, 0xfa, 0xed, 0xfe}, {0xcf, 0xfa, 0xed, 0xfe}, {0xca, 0xfe, 0xba, 0xbe}, {'M', 'Z'}}

// builtFile says why a tracked file looks built, or "".
func builtFile(name string) string {
	info, err := os.Lstat(name)
	if err != nil || !info.Mode().IsRegular() {
		return ""
	}
	if info.Size() > 1<<20 && !strings.HasPrefix(name, "testdata/") && !strings.Contains(name, "/testdata/") {
		return "over 1 MB outside testdata/"
	}
	f, err := os.Open(name)
	if err != nil {
		return ""
	}
	defer f.Close()
	head := make([]byte, 4)
	n, _ := f.Read(head)
	for _, m := range executableMagic {
		if n >= len(m) && string(head[:len(m)]) == string(m) {
			return "starts with an executable's magic number"
		}
	}
	return ""
}

func TestBuiltFile(t *testing.T) {
	dir := t.TempDir()
	for name, tc := range map[string]struct {
		data []byte
		want bool
	}{
		"elf":  {[]byte{0x7f, 'E', 'L', 'F', 2, 1}, true},
		"pe":   {[]byte("MZ\x90\x00"), true},
		"mach": {[]byte{0xcf, 0xfa, 0xed, 0xfe, 7}, true},
		"text": {[]byte("# notes\n"), false},
	} {
		p := dir + "/" + name
		if err := os.WriteFile(p, tc.data, 0o644); err != nil {
			t.Fatal(err)
		}
		if got := builtFile(p) != ""; got != tc.want {
			t.Errorf("%s: built=%v, want %v", name, got, tc.want)
		}
	}
}

// TestTopLevelShape: the repository's top level is the fixed shape — the
// program's four packages, testdata, the module files, the README, the
// licence, CI and dotfiles, and package main's own tests. A new top-level
// folder (a shared internal/, a docs/) fails; such code belongs inside one
// of the packages. Skipped outside a git checkout.
func TestTopLevelShape(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	if err := exec.Command("git", "rev-parse", "--is-inside-work-tree").Run(); err != nil {
		t.Skip("not a git checkout")
	}
	out, err := exec.Command("git", "ls-files").Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	for _, name := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if why := outsideShape(name); why != "" {
			t.Errorf("%s: %s", name, why)
		}
	}
}

// outsideShape says why a tracked path breaks the top-level shape, or "".
func outsideShape(path string) string {
	top, _, nested := strings.Cut(path, "/")
	if nested {
		switch top {
		case "ui", "engine", "parse", "netguard", "testdata", ".ci":
			return ""
		}
		return "top-level folder " + top + "/ is not part of the shape (main.go, ui/, engine/, parse/, netguard/, testdata/)"
	}
	switch {
	case top == "main.go", top == "go.mod", top == "go.sum", top == "README.md", top == "LICENSE",
		strings.HasPrefix(top, "."), strings.HasSuffix(top, "_test.go"):
		return ""
	}
	return "top-level file " + top + " is not part of the shape"
}

// TestOutsideShape pins the rule TestTopLevelShape applies.
func TestOutsideShape(t *testing.T) {
	for path, ok := range map[string]bool{
		"main.go": true, "go.mod": true, "README.md": true, ".golangci.yml": true, "tmux_test.go": true,
		"engine/gate/gate.go": true, ".ci/run": true, "testdata/demo/x.md": true,
		"internal/dnstest/server.go": false, "docs/x.md": false, "helper.go": false, "judgecheck": false,
	} {
		if got := outsideShape(path) == ""; got != ok {
			t.Errorf("outsideShape(%q) ok = %v, want %v", path, got, ok)
		}
	}
}
