package main

import (
	"bytes"
	"crypto/rand"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/citegate/citegate/engine/simweb"
)

// tmuxSession drives the real binary in a detached tmux session.
type tmuxSession struct {
	t    *testing.T
	name string
}

func (s tmuxSession) capture() string {
	out, err := exec.Command("tmux", "capture-pane", "-p", "-t", s.name).Output()
	if err != nil {
		s.t.Fatalf("capture-pane: %v", err)
	}
	return string(out)
}

func (s tmuxSession) waitFor(text string, d time.Duration) string {
	s.t.Helper()
	deadline := time.Now().Add(d)
	for {
		screen := s.capture()
		if strings.Contains(screen, text) {
			return screen
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("screen never showed %q:\n%s", text, screen)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (s tmuxSession) keys(keys ...string) {
	if err := exec.Command("tmux", append([]string{"send-keys", "-t", s.name}, keys...)...).Run(); err != nil {
		s.t.Fatalf("send-keys %v: %v", keys, err)
	}
}

// sessionName makes a tmux session name no other test run or user session
// can hold: a fixed name made the test fail whenever a session of that name
// existed (a crashed earlier run, a parallel run, an operator's own session).
func sessionName(prefix string) string {
	return fmt.Sprintf("%s-%d-%s", prefix, os.Getpid(), rand.Text()[:10])
}

// startTmux starts cmd in a new detached session named after prefix (see
// sessionName) and kills the session when the test ends.
func startTmux(t *testing.T, prefix string, cmd string) tmuxSession {
	t.Helper()
	name := sessionName(prefix)
	if err := exec.Command("tmux", "new-session", "-d", "-s", name, "-x", "120", "-y", "40", cmd).Run(); err != nil {
		t.Fatalf("tmux new-session: %v", err)
	}
	t.Cleanup(func() { _ = exec.Command("tmux", "kill-session", "-t", name).Run() })
	return tmuxSession{t, name}
}

// occupy starts an idle session called name unless one exists, and kills it
// when the test ends (only if this test started it).
func occupy(t *testing.T, name string) {
	t.Helper()
	if exec.Command("tmux", "new-session", "-d", "-s", name, "sleep 600").Run() == nil {
		t.Cleanup(func() { _ = exec.Command("tmux", "kill-session", "-t", "="+name).Run() })
	}
}

// TestTUIInTmux opens the demo in a real terminal, waits for completion,
// opens the detail view of the credential-bearing citation, checks its
// snippet is shown and its secret redacted, quits, and compares the
// artifacts with a --headless run of the same (offline) demo.
func TestTUIInTmux(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	// Sessions holding the names this test once used must not get in its way.
	occupy(t, "citegate-tui-online")
	occupy(t, "citegate-tui-offline")
	bin := filepath.Join(t.TempDir(), "citegate")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	dir := t.TempDir()

	// Online demo against the simulated web: completion, detail, redaction.
	s := startTmux(t, "citegate-tui-online", bin+" demo --dir "+filepath.Join(dir, "online")+"; sleep 30")
	s.waitFor("Run complete", 60*time.Second)
	s.keys("/")
	s.waitFor("clear search", 5*time.Second)
	s.keys("-l", "members")
	s.waitFor("/members", 5*time.Second)
	s.keys("Enter")
	s.waitFor("members.example.com", 5*time.Second)
	s.keys("Enter")
	detail := s.waitFor("Evidence", 5*time.Second)
	if !strings.Contains(detail, "Membership, events and finances") {
		t.Errorf("detail view lacks the evidence snippet:\n%s", detail)
	}
	if !strings.Contains(detail, "%5BREDACTED%5D") || strings.Contains(detail, simweb.SecretToken) {
		t.Errorf("detail view does not redact the URL's token:\n%s", detail)
	}
	s.keys("q")

	// Offline demo: the TUI and --headless write byte-identical artifacts.
	tuiDir, headDir := filepath.Join(dir, "tui"), filepath.Join(dir, "headless")
	s2 := startTmux(t, "citegate-tui-offline", bin+" demo --offline --dir "+tuiDir+"; sleep 30")
	s2.waitFor("Run complete", 60*time.Second)
	s2.keys("q")
	if out, err := exec.Command(bin, "demo", "--offline", "--headless", "--dir", headDir).CombinedOutput(); err != nil {
		t.Fatalf("headless demo: %v\n%s", err, out)
	}
	for _, f := range []string{"extracted-urls.txt", "found-by.json", "normalized-urls.txt", "url-map.json", "citations.jsonl", "validated-citations.md"} {
		a, err := os.ReadFile(filepath.Join(tuiDir, "citations", f))
		if err != nil {
			t.Fatalf("TUI run: %v", err)
		}
		b, err := os.ReadFile(filepath.Join(headDir, "citations", f))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(bytes.ReplaceAll(a, []byte(tuiDir), []byte("ROOT")), bytes.ReplaceAll(b, []byte(headDir), []byte("ROOT"))) {
			t.Errorf("%s differs between the TUI and --headless", f)
		}
	}

	// run --verify: the TUI verifies the synthesis, shows its claims, and
	// writes the same citations/verify.json as --headless (up to the
	// result's fresh UUID).
	syn := filepath.Join(dir, "synthesis.md")
	doc := "Solid-state cells suppress dendrites [1]. Battery packs got cheaper [2].\n\n## Sources\n\n1. https://www.science.org/doi/10.1126/science.adg7942\n2. https://www.iea.org/reports/global-ev-outlook-2024\n"
	if err := os.WriteFile(syn, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	s3 := startTmux(t, "citegate-tui-verify", bin+" run "+tuiDir+" --verify "+syn+"; sleep 30")
	s3.waitFor("Verify (--verify)", 60*time.Second)
	// The claims list (v) and a claim's detail (enter), in a real terminal.
	s3.keys("v")
	s3.waitFor("— not citable    ⊘ blocked", 5*time.Second)
	s3.keys("Enter")
	s3.waitFor("Resolve status  error · not_citable", 5*time.Second)
	s3.keys("q")
	if out, err := exec.Command(bin, "run", headDir, "--headless", "--verify", syn).CombinedOutput(); err != nil {
		t.Fatalf("headless run --verify: %v\n%s", err, out)
	}
	uuid := regexp.MustCompile(`"id": "[0-9a-f-]{36}"`)
	var verify [2][]byte
	for i, root := range []string{tuiDir, headDir} {
		data, err := os.ReadFile(filepath.Join(root, "citations", "verify.json"))
		if err != nil {
			t.Fatalf("%s: %v", root, err)
		}
		verify[i] = uuid.ReplaceAll(bytes.ReplaceAll(data, []byte(root), []byte("ROOT")), []byte(`"id": "ID"`))
	}
	if !bytes.Equal(verify[0], verify[1]) || !bytes.Contains(verify[0], []byte("not_citable")) {
		t.Errorf("verify.json: TUI\n%s\nheadless\n%s", verify[0], verify[1])
	}
}
