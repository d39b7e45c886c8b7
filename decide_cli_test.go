package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/citegate/citegate/ui/cli"
)

// decideEnvelope is the part of decide's envelope (or an error's) the tests
// read.
type decideEnvelope struct {
	OK       bool   `json:"ok"`
	Action   string `json:"action"`
	Decision *struct {
		Status, Overrides, Note, Who string
	} `json:"decision"`
	Decisions []json.RawMessage `json:"decisions"`
	Undecided []struct {
		NormalizedURL string `json:"normalized_url"`
	} `json:"undecided"`
	Error *struct{ Code string } `json:"error"`
}

// TestDecideCommand drives `citegate decide` through its envelope and exit
// codes: a decision (0), the next run applying it (Gate C's line and the
// record change), list, undo, and every kind of refusal (1 with an error
// envelope and nothing written; 2 for command-line mistakes).
func TestDecideCommand(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "d")
	if code, out, errOut := invoke(t, "demo", "--offline", "--headless", "--dir", dir); code != cli.ExitOK {
		t.Fatalf("demo: %d\n%s\n%s", code, out, errOut)
	}
	const blocked = "https://www.science.org/doi/10.1126/science.adg7942"
	decide := func(want int, args ...string) decideEnvelope {
		t.Helper()
		code, out, errOut := invoke(t, append([]string{"decide"}, args...)...)
		if code != want {
			t.Fatalf("decide %v: exit %d, want %d\n%s\n%s", args, code, want, out, errOut)
		}
		var env decideEnvelope
		if want != cli.ExitUsage {
			if err := json.Unmarshal([]byte(out), &env); err != nil {
				t.Fatalf("decide %v: stdout is not one envelope: %v\n%s", args, err, out)
			}
		}
		return env
	}
	env := decide(cli.ExitOK, dir, blocked, "--status", "paywalled", "--note", "read with a subscription", "--operator", "rita")
	if !env.OK || env.Action != "decided" || env.Decision.Overrides != "blocked" || env.Decision.Who != "rita" || len(env.Undecided) != 2 {
		t.Fatalf("envelope = %+v", env)
	}
	code, out, _ := invoke(t, "run", dir, "--headless")
	if code != cli.ExitOK || !strings.Contains(out, `"blocked": 0`) || !strings.Contains(out, `"paywalled": 4`) {
		t.Fatalf("run after decide: exit %d\n%s", code, out)
	}
	cits, err := os.ReadFile(filepath.Join(dir, "citations", "citations.jsonl"))
	if err != nil || !strings.Contains(string(cits), `"notes":"operator: read with a subscription"`) {
		t.Fatalf("citations.jsonl lacks the operator's note (%v)", err)
	}
	if env := decide(cli.ExitOK, "--list", dir); env.Action != "listed" || len(env.Decisions) != 1 || env.Decision != nil {
		t.Fatalf("list = %+v", env)
	}
	if env := decide(cli.ExitOK, dir, blocked, "--undo"); env.Action != "undone" || len(env.Decisions) != 0 {
		t.Fatalf("undo = %+v", env)
	}
	file := filepath.Join(dir, "operator-decisions.json")
	before, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		code string
		args []string
	}{
		{"INVALID_ARGS", []string{dir, blocked, "--status", "valid"}},
		{"INVALID_ARGS", []string{dir, blocked, "--status", "blocked", "--note", "n"}},
		{"INVALID_ARGS", []string{dir, blocked, "--exclude", "--undo"}},
		{"NOT_FOUND", []string{dir, "https://not-cited.example/", "--exclude"}},
		{"NOT_FOUND", []string{dir, blocked, "--undo"}},
		{"NOT_FOUND", []string{filepath.Join(dir, "nowhere"), blocked, "--exclude"}},
	} {
		env := decide(cli.ExitFailure, c.args...)
		if env.OK || env.Error == nil || env.Error.Code != c.code {
			t.Errorf("decide %v = %+v, want %s", c.args, env, c.code)
		}
	}
	after, _ := os.ReadFile(file)
	if string(after) != string(before) {
		t.Errorf("a refused decide changed the decisions file")
	}
	decide(cli.ExitUsage)
	decide(cli.ExitUsage, dir, blocked, "extra", "--exclude")
	decide(cli.ExitUsage, dir, blocked, "--bogus")
}
