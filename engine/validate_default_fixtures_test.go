package engine

import (
	"os"
	"strings"
	"testing"
)

// TestValidateUsesRunOfflineFixtures (issue 20): in offline mode, validate
// without offline_fixtures_path reads <runRoot>/offline-fixtures.json, the
// file init --fixtures-template writes, run reads and validate's own hint
// names — as run does; a given path still wins, online mode ignores the
// file, and without it the reference's error stands
// (TestValidateOfflineRequiresFixtures).
func TestValidateUsesRunOfflineFixtures(t *testing.T) {
	spec := func(sensitivity string, extra map[string]string) runSpec {
		files := map[string]string{"citations/url-map.json": patchedURLMap(t, "dr_test_validate"),
			"offline-fixtures.json": phase04Fixtures}
		for k, v := range extra {
			files[k] = v
		}
		return runSpec{RunID: "dr_test_validate", Sensitivity: sensitivity, Files: files}
	}
	explicit, explicitRes, err := validateWithFixtures(t, phase04Fixtures)
	if err != nil {
		t.Fatal(err)
	}

	r := newRun(t, spec("no_web", nil))
	res, err := newEngine().Validate(bg, ValidateArgs{ManifestPath: r.Manifest, Reason: "test"}, nil)
	if err != nil {
		t.Fatalf("validate without offline_fixtures_path: %v", err)
	}
	if got, want := readFile(t, r.cit("citations.jsonl")), readFile(t, explicit.cit("citations.jsonl")); got != want {
		t.Errorf("citations.jsonl =\n%s\nwant what the explicit path gives\n%s", got, want)
	}
	if res.InputsDigest != explicitRes.InputsDigest || res.Counts != explicitRes.Counts {
		t.Errorf("result %s, want %s", mustJSON(t, res), mustJSON(t, explicitRes))
	}

	// A path given wins over the run's file.
	r = newRun(t, spec("no_web", map[string]string{"other.json": `{"https://example.com/open": "blocked"}`}))
	res, err = newEngine().Validate(bg, ValidateArgs{ManifestPath: r.Manifest, OfflineFixturesPath: r.path("other.json"), Reason: "test"}, nil)
	if err != nil || res.Counts != (Counts{Blocked: 1, Invalid: 2}) {
		t.Errorf("explicit path: %v %s", err, mustJSON(t, res))
	}

	// Online mode does not read it.
	r = newRun(t, spec("normal", nil))
	res, err = newEngine().Validate(bg, ValidateArgs{ManifestPath: r.Manifest, OnlineDryRun: ptr(true), Reason: "test"}, nil)
	if err != nil || res.Counts != (Counts{Blocked: 3}) {
		t.Errorf("online dry run: %v %s", err, mustJSON(t, res))
	}

	// Read as run reads it: a file that is there but unusable is an error,
	// not a silent fallback to "no fixtures".
	r = newRun(t, spec("no_web", nil))
	if err := os.Remove(r.path("offline-fixtures.json")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(r.path("offline-fixtures.json"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err = newEngine().Validate(bg, ValidateArgs{ManifestPath: r.Manifest, Reason: "test"}, nil)
	_, runErr := newEngine().Run(bg, RunArgs{ManifestPath: r.Manifest, Reason: "test"}, nil)
	e, re := asError(t, err, CodeInvalidInput), asError(t, runErr, CodeInvalidInput)
	if e.Message != re.Message || !strings.Contains(e.Message, "offline fixtures") {
		t.Errorf("validate error %q, run error %q: want the same", e.Message, re.Message)
	}
}
