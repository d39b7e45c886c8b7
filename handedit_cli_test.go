package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/citegate/citegate/ui/cli"
)

// TestHandEditedInputsCLI: the tool commands read hand-edited inputs
// leniently and say so: validate with a fixture whose http_status is "200",
// gate-c and render with records that lack a cid or carry "Valid" or
// " paywalled " exit 0 with warnings in their envelopes.
func TestHandEditedInputsCLI(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "d")
	if code, out, errOut := invoke(t, "demo", "--offline", "--dir", dir, "--headless"); code != cli.ExitOK {
		t.Fatalf("demo: %d\n%s\n%s", code, out, errOut)
	}
	manifest := filepath.Join(dir, "manifest.json")
	fixtures := filepath.Join(dir, "offline-fixtures.json")
	data, err := os.ReadFile(fixtures)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(fixtures, []byte(strings.Replace(string(data), `"http_status": 200`, `"http_status": "200"`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	var env struct {
		OK       bool     `json:"ok"`
		Warnings []string `json:"warnings"`
	}
	code, out, _ := invoke(t, "validate", "--manifest-path", manifest, "--offline-fixtures-path", fixtures, "--reason", "hand edit")
	if err := json.Unmarshal([]byte(out), &env); err != nil || code != cli.ExitOK || !env.OK || len(env.Warnings) != 1 ||
		!strings.Contains(env.Warnings[0], `http_status "200" is a string, not a number: read as null`) {
		t.Fatalf("validate: exit %d\n%s", code, out)
	}

	citations := filepath.Join(dir, "citations", "citations.jsonl")
	data, err = os.ReadFile(citations)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	lines[0] = strings.Replace(lines[0], `"status":"valid"`, `"status":"Valid"`, 1)
	cid, url := strings.Index(lines[1], `"cid":`), strings.Index(lines[1], `"url":`)
	if cid < 0 || url < cid {
		t.Fatalf("unexpected record layout: %s", lines[1])
	}
	lines[1] = lines[1][:cid] + lines[1][url:]
	if err := os.WriteFile(citations, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{"gate-c", "render"} {
		env.Warnings = nil
		code, out, _ := invoke(t, cmd, "--args-json", `{"manifest_path":"`+manifest+`","reason":"hand edit"}`)
		if err := json.Unmarshal([]byte(out), &env); err != nil || code != cli.ExitOK || !env.OK || len(env.Warnings) != 2 ||
			!strings.Contains(env.Warnings[0], `status "Valid"`) || !strings.Contains(env.Warnings[1], "cid") {
			t.Errorf("%s: exit %d\n%s", cmd, code, out)
		}
	}
}
