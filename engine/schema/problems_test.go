package schema

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// Issue 14: a schema error lists every problem at once, each with its
// pointer and what would fix it — a missing object with the fields it needs —
// so a hand-written manifest is fixed in one pass, not one level per attempt.
func TestProblemsListEverythingWithHints(t *testing.T) {
	check := func(doc string) *Error {
		t.Helper()
		var v any
		if err := json.Unmarshal([]byte(doc), &v); err != nil {
			t.Fatal(err)
		}
		var se *Error
		if err := Validate(Manifest, v); !errors.As(err, &se) {
			t.Fatalf("%s: %v", doc, err)
		}
		return se
	}
	se := check(`{}`)
	if len(se.Problems) != 13 {
		t.Fatalf("{}: %d problems, want the 13 missing properties: %+v", len(se.Problems), se.Problems)
	}
	hints := map[string]string{}
	for _, p := range se.Problems {
		if p.Message != "missing" || p.Hint == "" {
			t.Errorf("problem %+v", p)
		}
		hints[p.Pointer] = p.Hint
	}
	for ptr, want := range map[string]string{
		"/artifacts":      "paths (an object, with wave1_dir, wave2_dir",
		"/schema_version": `must be "manifest.v1"`,
		"/revision":       "an integer, at least 1",
		"/run_id":         "not blank",
		"/mode":           `one of "quick", "standard", "deep"`,
	} {
		if !strings.Contains(hints[ptr], want) {
			t.Errorf("%s: hint %q lacks %q", ptr, hints[ptr], want)
		}
	}
	// The next attempt's problems, all at once too: every missing path and
	// a mistyped value, each at its own pointer.
	se = check(`{"schema_version":"manifest.v1","run_id":"r","created_at":"t","updated_at":"t","revision":"one","mode":"standard",
		"status":"running","query":{"text":"q"},"stage":{"current":"citations","started_at":"t","history":[]},
		"limits":{"max_wave1_agents":1,"max_wave2_agents":1,"max_summary_kb":1,"max_total_summary_kb":1,"max_review_iterations":1},
		"artifacts":{"root":"/r","paths":{}},"metrics":{},"failures":[]}`)
	var paths int
	var revision *Problem
	for i, p := range se.Problems {
		if strings.HasPrefix(p.Pointer, "/artifacts/paths/") {
			paths++
		}
		if p.Pointer == "/revision" {
			revision = &se.Problems[i]
		}
	}
	if paths != 11 || revision == nil || !strings.Contains(revision.Hint, "an integer") {
		t.Errorf("%d missing paths (want 11), revision problem %+v; all: %+v", paths, revision, se.Problems)
	}
}
