package engine

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// phase04Fixtures is the reference's url-checks.json, in items form; the
// hand-edited cases below each change one thing.
const phase04Fixtures = `{"items":[
 {"normalized_url":"https://example.com/open","status":"valid","title":"Open Example","publisher":"Example News","notes":"ok"},
 {"normalized_url":"https://paywall.example.com/premium","status":"paywalled","publisher":"Paywall Times","notes":"paywalled"},
 {"normalized_url":"https://example.com/dead","status":"invalid","http_status":404,"notes":"404"}
]}`

// validateWithFixtures runs the offline validate tool on the phase04 url-map
// with the given fixtures file.
func validateWithFixtures(t *testing.T, fixtures string) (testRun, *ValidateResult, error) {
	t.Helper()
	r := newRun(t, runSpec{RunID: "dr_test_validate", Sensitivity: "no_web", Files: map[string]string{
		"citations/url-map.json": patchedURLMap(t, "dr_test_validate"),
		"fixtures.json":          fixtures,
	}})
	res, err := newEngine().Validate(bg, ValidateArgs{ManifestPath: r.Manifest, OfflineFixturesPath: r.path("fixtures.json"), Reason: "test"}, nil)
	return r, res, err
}

// TestValidateHandEditedFixtures: one mistyped fixture entry no longer
// refuses the whole file. Unambiguous values are coerced, the rest dropped,
// each reported in warnings, and citations.jsonl still holds only records
// that pass citation.v1.
func TestValidateHandEditedFixtures(t *testing.T) {
	clean, cleanRes, err := validateWithFixtures(t, phase04Fixtures)
	if err != nil {
		t.Fatal(err)
	}
	if cleanRes.Warnings != nil || strings.Contains(mustJSON(t, cleanRes), `"warnings"`) {
		t.Fatalf("clean fixtures have warnings: %v", cleanRes.Warnings)
	}
	cleanCitations := readFile(t, clean.cit("citations.jsonl"))
	swap := func(from, to string) string {
		if !strings.Contains(phase04Fixtures, from) {
			t.Fatalf("fixtures lack %q", from)
		}
		return strings.Replace(phase04Fixtures, from, to, 1)
	}
	for _, tc := range []struct {
		name     string
		fixtures string
		warnings []string
		// same: citations.jsonl is byte-identical to the clean run's.
		same bool
		// record checks the affected record (by normalized_url).
		url    string
		record func(Citation) bool
	}{
		// A string is no number to the reference: read as null, and the
		// warning says how to write the code (TestConformanceHandEditedFixtures).
		{"http_status a numeric string", swap(`"http_status":404`, `"http_status":" 404 "`),
			[]string{`offline fixtures /items/2: http_status " 404 " is a string, not a number: read as null, as the reference reads it (write 404 without quotes)`}, false,
			"https://example.com/dead", func(c Citation) bool { return c.HTTPStatus == nil && c.Status == StatusInvalid }},
		{"http_status not a status code", swap(`"http_status":404`, `"http_status":"not found"`),
			[]string{`offline fixtures /items/2: http_status "not found" is a string, not a number: read as null, as the reference reads it`}, false,
			"https://example.com/dead", func(c Citation) bool { return c.HTTPStatus == nil && c.Status == StatusInvalid }},
		{"http_status out of range string", swap(`"http_status":404`, `"http_status":"4040"`),
			[]string{`offline fixtures /items/2: http_status "4040" is a string, not a number: read as null, as the reference reads it`}, false,
			"https://example.com/dead", func(c Citation) bool { return c.HTTPStatus == nil }},
		{"http_status a boolean", swap(`"http_status":404`, `"http_status":true`),
			[]string{`offline fixtures /items/2: http_status is a boolean, not a number: ignored`}, false,
			"https://example.com/dead", func(c Citation) bool { return c.HTTPStatus == nil }},
		{"http_status fractional", swap(`"http_status":404`, `"http_status":404.7`),
			[]string{`offline fixtures /items/2: http_status 404.7 is not an integer: read as 404`}, true, "", nil},
		{"title a number", swap(`"title":"Open Example"`, `"title":2024`),
			[]string{`offline fixtures /items/0: title 2024 is a number: read as the string "2024"`}, false,
			"https://example.com/open", func(c Citation) bool { return c.Title == "2024" && c.Status == StatusValid }},
		{"notes an object", swap(`"notes":"ok"`, `"notes":{"text":"ok"}`),
			[]string{`offline fixtures /items/0: notes is an object, not a string: ignored`}, false,
			"https://example.com/open", func(c Citation) bool { return c.Notes == "ok" && c.Status == StatusValid }},
		{"null means absent", swap(`"title":"Open Example"`, `"title":null`),
			nil, false,
			"https://example.com/open", func(c Citation) bool { return c.Title == "" && c.Status == StatusValid }},
		{"entry not an object", swap(`{"normalized_url":"https://paywall.example.com/premium","status":"paywalled","publisher":"Paywall Times","notes":"paywalled"}`, `"paywalled"`),
			[]string{`offline fixtures /items/1: entry is a string, not an object: ignored`}, false,
			"https://paywall.example.com/premium", func(c Citation) bool {
				return c.Status == StatusInvalid && c.Notes == "offline fixture not found for normalized_url"
			}},
		{"status Valid", swap(`"status":"valid"`, `"status":"Valid"`),
			[]string{`offline fixtures /items/0: status "Valid" is not one of valid, paywalled, blocked, mismatch, invalid: a URL it matches is marked invalid`}, false,
			"https://example.com/open", func(c Citation) bool { return c.Status == StatusInvalid }},
		{"status with white space", swap(`"status":"paywalled"`, `"status":" paywalled "`),
			nil, true, "", nil},
		{"no status", swap(`"status":"paywalled",`, ``),
			[]string{`offline fixtures /items/1: no status: a URL it matches is marked invalid`}, false,
			"https://paywall.example.com/premium", func(c Citation) bool { return c.Status == StatusInvalid }},
		{"map form, a number instead of an entry",
			`{"https://example.com/open":"valid","https://paywall.example.com/premium":{"status":"paywalled","http_status":"200"},"https://example.com/dead":404}`,
			[]string{
				`offline fixtures /https:~1~1paywall.example.com~1premium: http_status "200" is a string, not a number: read as null, as the reference reads it (write 200 without quotes)`,
				`offline fixtures /https:~1~1example.com~1dead: entry is a number, neither an object nor a status string: ignored`,
			}, false,
			"https://paywall.example.com/premium", func(c Citation) bool {
				return c.Status == StatusPaywalled && c.HTTPStatus == nil
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, res, err := validateWithFixtures(t, tc.fixtures)
			if err != nil {
				t.Fatalf("validate refused the fixtures: %v", err)
			}
			if !slices.Equal(res.Warnings, tc.warnings) {
				t.Errorf("warnings =\n%q\nwant\n%q", res.Warnings, tc.warnings)
			}
			// Only records that pass citation.v1 are written.
			if _, err := readCitations(r.cit("citations.jsonl")); err != nil {
				t.Fatalf("citations.jsonl holds a record that fails citation.v1: %v", err)
			}
			got := readFile(t, r.cit("citations.jsonl"))
			if tc.same && got != cleanCitations {
				t.Errorf("citations.jsonl differs from the clean run's:\n%s\nwant\n%s", got, cleanCitations)
			}
			if tc.record != nil {
				found := false
				for _, c := range readCitationLines(t, r.cit("citations.jsonl")) {
					if c.NormalizedURL == tc.url {
						found = true
						if !tc.record(c) {
							t.Errorf("record %s", mustJSON(t, c))
						}
					}
				}
				if !found {
					t.Errorf("no record for %s", tc.url)
				}
			}
		})
	}
}

// TestValidateFixturesStillRefused: a file that is not JSON, or whose top
// level is neither an array nor an object, is still an error.
func TestValidateFixturesStillRefused(t *testing.T) {
	for _, tc := range []struct{ name, fixtures, code string }{
		{"not JSON", `{"items": [`, CodeInvalidJSON},
		{"trailing data", `[] []`, CodeInvalidJSON},
		{"a string", `"valid"`, CodeSchemaValidation},
		{"a number", `404`, CodeSchemaValidation},
		{"null", `null`, CodeSchemaValidation},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := validateWithFixtures(t, tc.fixtures)
			asError(t, err, tc.code)
		})
	}
}

// TestRunReportsFixtureWarnings: run reads <root>/offline-fixtures.json the
// same way; its summary carries the warnings and the event stream reports
// them before any URL is checked.
func TestRunReportsFixtureWarnings(t *testing.T) {
	r := newRun(t, runSpec{RunID: "RUN", Sensitivity: "no_web", Files: map[string]string{
		"wave-1/p1.md": "## Sources\n\n- https://example.com/open\n- https://example.com/dead\n",
		"offline-fixtures.json": `{"items":[{"normalized_url":"https://example.com/open","status":"valid"},` +
			`{"normalized_url":"https://example.com/dead","status":"invalid","http_status":"404"}]}`,
	}})
	events := make(chan Event, 64)
	sum, err := newEngine().Run(bg, RunArgs{ManifestPath: r.Manifest, Reason: "test"}, events)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{`offline fixtures /items/1: http_status "404" is a string, not a number: read as null, as the reference reads it (write 404 without quotes)`}
	if !slices.Equal(sum.Warnings, want) {
		t.Errorf("summary warnings = %q, want %q", sum.Warnings, want)
	}
	var kinds []EventKind
	var warned []string
	for ev := range events {
		kinds = append(kinds, ev.Kind)
		if ev.Kind == EventWarning {
			warned = append(warned, ev.Detail)
		}
	}
	if !slices.Equal(warned, want) {
		t.Errorf("warning events = %q", warned)
	}
	if w, q := slices.Index(kinds, EventWarning), slices.Index(kinds, EventQueued); w < 0 || q < 0 || w > q {
		t.Errorf("the warning is not reported before the URLs are queued: %v", kinds)
	}
	dead := readCitationLines(t, filepath.Join(r.Root, "citations", "citations.jsonl"))[0]
	if dead.NormalizedURL != "https://example.com/dead" || dead.HTTPStatus != nil {
		t.Errorf("dead record = %s", mustJSON(t, dead))
	}
}
