package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/citegate/citegate/ui/cli"
)

// startTmuxAt is startTmux at a given terminal size.
func startTmuxAt(t *testing.T, prefix, cmd string, w, h int) tmuxSession {
	t.Helper()
	name := sessionName(prefix)
	if err := exec.Command("tmux", "new-session", "-d", "-s", name, "-x", itoa(w), "-y", itoa(h), cmd).Run(); err != nil {
		t.Fatalf("tmux new-session: %v", err)
	}
	t.Cleanup(func() { _ = exec.Command("tmux", "kill-session", "-t", name).Run() })
	return tmuxSession{t, name}
}

func itoa(n int) string { return strconv.Itoa(n) }

// waitForAll waits until the screen shows every text at once.
func (s tmuxSession) waitForAll(d time.Duration, texts ...string) string {
	s.t.Helper()
	deadline := time.Now().Add(d)
	for {
		screen := s.capture()
		all := true
		for _, t := range texts {
			all = all && strings.Contains(screen, t)
		}
		if all {
			return screen
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("screen never showed %q together:\n%s", texts, screen)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestReviewInTmux (issue 27) drives the real binary at 80×24 from a failing
// Gate C to a passing one by deciding the blocked citations in the terminal
// UI, and checks the decisions file, the audit lines and the blocked queue.
// The run is the offline demo switched to online mode with its fixtures
// replayed as online fixtures (nothing is fetched), two more of them
// blocked, so the queue file exists and Gate C fails (25/30 validated).
func TestReviewInTmux(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	bin := filepath.Join(t.TempDir(), "citegate")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	dir := filepath.Join(t.TempDir(), "run")
	if code, out, errOut := invoke(t, "demo", "--offline", "--headless", "--dir", dir); code != cli.ExitOK {
		t.Fatalf("demo: %d\n%s\n%s", code, out, errOut)
	}
	cfg := filepath.Join(dir, "run-config.json")
	data, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, []byte(strings.Replace(string(data), `"mode": "offline"`, `"mode": "online"`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	fixtures := filepath.Join(dir, "online-fixtures.json")
	blockTwoMore(t, filepath.Join(dir, "offline-fixtures.json"), fixtures)
	queue := filepath.Join(dir, "citations", "blocked-urls.queue.md")

	s := startTmuxAt(t, "citegate-review", bin+" run "+dir+" --online-fixtures-path "+fixtures+"; sleep 30", 80, 24)
	first := s.waitForAll(60*time.Second, "Run complete", "Gate C  FAIL", "5 decisions left")
	if !strings.Contains(first, "validated 0.833") {
		t.Errorf("Gate C's metrics are not labelled at 80×24:\n%s", first)
	}
	if q := readString(t, queue); !strings.Contains(q, "blocked_count: 3") {
		t.Fatalf("queue before review:\n%s", q)
	}
	s.keys("3") // filter: blocked
	s.waitFor("filter blocked", 5*time.Second)
	// 25/30 validated fails; 27/30 passes, so the second decision opens
	// synthesis and the third leaves the invalid and mismatch rows undecided.
	for i, left := range []string{"4 decisions left", "3 must-not-cite undecided", "2 must-not-cite undecided"} {
		s.keys("d")
		s.waitFor("x exclude", 5*time.Second)
		s.keys("v")
		s.waitFor("note:", 5*time.Second)
		s.keys("-l", "read through the library")
		s.keys("Enter")
		s.waitForAll(60*time.Second, "done ·", left)
		if i == 0 {
			if q := readString(t, queue); !strings.Contains(q, "blocked_count: 2") {
				t.Errorf("queue after one decision:\n%s", q)
			}
		}
	}
	final := s.waitForAll(5*time.Second, "Gate C  PASS", "synthesis may start")
	if !strings.Contains(final, "validated 0.933") {
		t.Errorf("Gate C after review:\n%s", final)
	}
	s.keys("q")

	var doc struct {
		Decisions []struct {
			Status, Overrides, Note, Who string
		} `json:"decisions"`
	}
	if err := json.Unmarshal([]byte(readString(t, filepath.Join(dir, "operator-decisions.json"))), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Decisions) != 3 {
		t.Fatalf("decisions file holds %d decisions", len(doc.Decisions))
	}
	for _, d := range doc.Decisions {
		if d.Status != "valid" || d.Overrides != "blocked" || d.Note != "read through the library" || d.Who == "" {
			t.Errorf("decision %+v", d)
		}
	}
	audit := readString(t, filepath.Join(dir, "logs", "audit.jsonl"))
	if n := strings.Count(audit, `"kind":"operator_decision"`); n != 3 || strings.Count(audit, `"via":"tui"`) != 3 {
		t.Errorf("audit has %d decision lines:\n%s", n, audit)
	}
	if _, err := os.Stat(queue); err == nil {
		t.Errorf("the queue file is still there with every blocked URL decided:\n%s", readString(t, queue))
	}
}

// blockTwoMore copies the demo's fixtures to dst with its first two valid
// entries blocked.
func blockTwoMore(t *testing.T, src, dst string) {
	t.Helper()
	var doc struct {
		Items []map[string]any `json:"items"`
	}
	if err := json.Unmarshal([]byte(readString(t, src)), &doc); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, it := range doc.Items {
		if it["status"] == "valid" && n < 2 {
			it["status"], it["notes"] = "blocked", "bot wall"
			n++
		}
	}
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, out, 0o644); err != nil {
		t.Fatal(err)
	}
}

func readString(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
