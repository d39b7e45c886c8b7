package main

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/citegate/citegate/ui/cli"
)

// The README is the front door: short, about this repository only, and
// every command it shows runs.

const readmeMaxLines = 300

func readme(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestReadmeIsAFrontDoor(t *testing.T) {
	text := readme(t)
	if n := strings.Count(text, "\n"); n > readmeMaxLines {
		t.Errorf("README.md has %d lines; keep it to %d and move reference material to a help topic", n, readmeMaxLines)
	}
	if !strings.HasPrefix(text, "# citegate\n\n```sh\ngo run . demo\n") {
		t.Error("README.md must start with `go run . demo`")
	}
	for _, bad := range []*regexp.Regexp{regexp.MustCompile(`\.\./shared`), regexp.MustCompile(`(?i)\bissue \d+`), regexp.MustCompile(`(?i)\bseed \d{3}`)} {
		if m := bad.FindString(text); m != "" {
			t.Errorf("README.md mentions %q: a clone has no such thing to look at", m)
		}
	}
}

// TestReadmeHelpTopicsExist: every `citegate help TOPIC` the README names
// prints its topic.
func TestReadmeHelpTopicsExist(t *testing.T) {
	seen := 0
	for _, m := range regexp.MustCompile("citegate help ([a-z]+)").FindAllStringSubmatch(readme(t), -1) {
		if m[1] == "lists" {
			continue
		}
		seen++
		code, out, errOut := invoke(t, "help", m[1])
		if code != cli.ExitOK || !strings.HasPrefix(out, "# ") {
			t.Errorf("citegate help %s: exit %d\n%s%s", m[1], code, out, errOut)
		}
	}
	if seen < 5 {
		t.Errorf("the README names %d help topics", seen)
	}
	if code, out, _ := invoke(t, "help"); code != cli.ExitOK || !strings.Contains(out, "Reference topics") {
		t.Errorf("citegate help: exit %d\n%s", code, out)
	}
}

// TestReadmeCommandsRun runs every `citegate …` line of the README's sh
// blocks, in order, in a directory holding the files they name: none may
// be a usage error or fail (exit 4, a gate or verification that did not
// pass, is an answer).
func TestReadmeCommandsRun(t *testing.T) {
	lines := readmeShellLines(readme(t))
	dir := t.TempDir()
	wave := "# Battery costs\n\nPrices fell.\n\n## Sources\n\n- [Battery prices](https://example.org/battery-prices)\n- https://example.org/recycling\n"
	for name, body := range map[string]string{"notes/costs.md": wave, "notes/recycling.md": wave, "report.md": "# Report\n\nNo citations here.\n"} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(dir)
	t.Setenv("RUN_DIR", filepath.Join(dir, "myrun"))
	ran := 0
	for _, line := range lines {
		args := shellWords(os.ExpandEnv(line))
		if len(args) == 0 || args[0] != "citegate" {
			continue
		}
		ran++
		code, out, errOut := invoke(t, args[1:]...)
		if code != cli.ExitOK && code != cli.ExitGateFailed {
			t.Errorf("%s: exit %d\nstdout: %s\nstderr: %s", line, code, cut(out), cut(errOut))
		}
	}
	if ran < 4 {
		t.Errorf("ran %d README commands", ran)
	}
}

func cut(s string) string {
	if len(s) > 2000 {
		return s[:2000] + "…"
	}
	return s
}

// readmeShellLines are the lines of the README's ```sh blocks, comments cut.
func readmeShellLines(text string) []string {
	var out []string
	in := false
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		l := sc.Text()
		switch {
		case strings.HasPrefix(l, "```sh"):
			in = true
		case strings.HasPrefix(l, "```"):
			in = false
		case in:
			if i := strings.Index(l, " #"); i >= 0 {
				l = l[:i]
			}
			if l = strings.TrimSpace(l); l != "" {
				out = append(out, l)
			}
		}
	}
	return out
}

// shellWords splits a command line the way a shell would for the README's
// simple lines: white space, single and double quotes, globs expanded.
func shellWords(line string) []string {
	var words []string
	var cur strings.Builder
	quote, in := byte(0), false
	flush := func() {
		if !in {
			return
		}
		w := cur.String()
		if matches, _ := filepath.Glob(w); strings.ContainsAny(w, "*?[") && len(matches) > 0 {
			words = append(words, matches...)
		} else {
			words = append(words, w)
		}
		cur.Reset()
		in = false
	}
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case quote != 0 && c == quote:
			quote = 0
		case quote != 0:
			cur.WriteByte(c)
		case c == '\'' || c == '"':
			quote, in = c, true
		case c == ' ' || c == '\t':
			flush()
		default:
			cur.WriteByte(c)
			in = true
		}
	}
	flush()
	return words
}
