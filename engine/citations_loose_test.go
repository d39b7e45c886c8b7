package engine

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/citegate/citegate/engine/gate"
)

// phase04GateCDigest is the reference's inputs_digest of the phase04 gate-c
// fixture (origin.md §6.1).
const phase04GateCDigest = "sha256:6bbe911b5241921cc96ae289a5f7d8b63659950b853c0f50ba5248f2423d6497"

// cidField matches a record's cid key and value.
var cidField = regexp.MustCompile(`"cid":"cid_[0-9a-f]{64}",`)

// TestGateCHandEditedRecords: gate-c reads hand-edited records as the
// reference does — a record needs only normalized_url and a status; the
// status is trimmed and compared exactly, an unknown one counts as
// uncategorized — and lists each problem record in warnings (the result's
// and update.C's). It once refused the whole file.
func TestGateCHandEditedRecords(t *testing.T) {
	lines := gateCLines(t)
	edit := func(i int, from, to string) string {
		out := slices.Clone(lines)
		if !strings.Contains(out[i], from) && from != "" {
			t.Fatalf("line %d lacks %q", i, from)
		}
		if from == "" {
			out[i] = to
		} else {
			out[i] = strings.Replace(out[i], from, to, 1)
		}
		return strings.Join(out, "\n") + "\n"
	}
	for _, tc := range []struct {
		name      string
		citations string
		status    string
		metrics   gate.Metrics
		notes     string
		digest    string // "" skips the check
		warning   []string
	}{
		// Trimmed, as the reference trims: the gate and its digest are the
		// reference's for the clean file.
		{"status with white space", edit(8, `"status":"paywalled"`, `"status":" paywalled "`),
			"pass", gate.Metrics{ValidatedURLRate: 0.9, InvalidURLRate: 0.1, UncategorizedURLRate: 0}, "Gate C pass: 9/10 validated, 1 invalid, 0 uncategorized.", phase04GateCDigest,
			[]string{`citations.jsonl line 9 (https://source.example.com/u9): status " paywalled " has surrounding white space: read as "paywalled"`}},
		// Case is not folded: the reference compares exactly.
		{"status Valid", edit(0, `"status":"valid"`, `"status":"Valid"`),
			"fail", gate.Metrics{ValidatedURLRate: 0.8, InvalidURLRate: 0.1, UncategorizedURLRate: 0.1}, "Gate C fail: 8/10 validated, 1 invalid, 1 uncategorized.", "",
			[]string{`citations.jsonl line 1 (https://source.example.com/u1): status "Valid" is not one of valid, paywalled, blocked, mismatch, invalid (statuses are lower case); counted as uncategorized`}},
		{"status pending", edit(1, `"status":"valid"`, `"status":"pending"`),
			"fail", gate.Metrics{ValidatedURLRate: 0.8, InvalidURLRate: 0.1, UncategorizedURLRate: 0.1}, "Gate C fail: 8/10 validated, 1 invalid, 1 uncategorized.", "",
			[]string{`line 2 (https://source.example.com/u2): status "pending" is not one of`, "counted as uncategorized"}},
		{"status a number", edit(2, `"status":"valid"`, `"status":200`),
			"fail", gate.Metrics{ValidatedURLRate: 0.8, InvalidURLRate: 0.1, UncategorizedURLRate: 0.1}, "Gate C fail: 8/10 validated, 1 invalid, 1 uncategorized.", "",
			[]string{`line 3 (https://source.example.com/u3): status "200" is not one of`}},
		{"no cid", edit(3, cidField.FindString(lines[3]), ""),
			"pass", gate.Metrics{ValidatedURLRate: 0.9, InvalidURLRate: 0.1, UncategorizedURLRate: 0}, "Gate C pass: 9/10 validated, 1 invalid, 0 uncategorized.", phase04GateCDigest,
			[]string{"not a citation.v1 record", "cid"}},
		{"an extra field", edit(4, `"notes":"fixture"`, `"notes":"fixture","reviewed_by":"me"`),
			"pass", gate.Metrics{ValidatedURLRate: 0.9, InvalidURLRate: 0.1, UncategorizedURLRate: 0}, "Gate C pass: 9/10 validated, 1 invalid, 0 uncategorized.", phase04GateCDigest,
			[]string{`line 5 (https://source.example.com/u5): not a citation.v1 record`, "reviewed_by"}},
		{"normalized_url with white space", edit(5, `"normalized_url":"https://source.example.com/u6"`, `"normalized_url":" https://source.example.com/u6\t"`),
			"pass", gate.Metrics{ValidatedURLRate: 0.9, InvalidURLRate: 0.1, UncategorizedURLRate: 0}, "Gate C pass: 9/10 validated, 1 invalid, 0 uncategorized.", phase04GateCDigest,
			[]string{`line 6 (https://source.example.com/u6): normalized_url has surrounding white space: trimmed`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := gateCRun(t, tc.citations)
			res, err := newEngine().GateC(bg, GateCArgs{ManifestPath: r.Manifest, Reason: "test", Write: true})
			if err != nil {
				t.Fatalf("gate-c refused the file: %v", err)
			}
			c := res.Update.C
			if res.Status != tc.status || res.Metrics != tc.metrics || c.Notes != tc.notes {
				t.Errorf("status %s metrics %+v notes %q, want %s %+v %q", res.Status, res.Metrics, c.Notes, tc.status, tc.metrics, tc.notes)
			}
			if tc.digest != "" && res.InputsDigest != tc.digest {
				t.Errorf("inputs_digest = %s, want the reference's %s", res.InputsDigest, tc.digest)
			}
			if len(res.Warnings) != 1 || !slices.Equal(c.Warnings, res.Warnings) {
				t.Fatalf("warnings = %q, update.C.warnings = %q, want one, the same", res.Warnings, c.Warnings)
			}
			for _, want := range tc.warning {
				if !strings.Contains(res.Warnings[0], want) {
					t.Errorf("warning %q lacks %q", res.Warnings[0], want)
				}
			}
			// --write records them in gates.json, and the audit line too.
			var doc GatesDoc
			decodeJSONFile(t, r.path("gates.json"), &doc)
			if doc.Gates.C == nil || !slices.Equal(doc.Gates.C.Warnings, res.Warnings) {
				t.Errorf("gates.json C.warnings = %v", doc.Gates.C)
			}
			if audit := readFile(t, r.path("logs/audit.jsonl")); !strings.Contains(audit, `"warnings":[`) {
				t.Errorf("audit lacks the warnings:\n%s", audit)
			}
		})
	}

	// A clean file: no warnings anywhere, the result as before.
	r := gateCRun(t, strings.Join(lines, "\n")+"\n")
	res, err := newEngine().GateC(bg, GateCArgs{ManifestPath: r.Manifest, Reason: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Warnings != nil || len(res.Update.C.Warnings) != 0 || strings.Contains(mustJSON(t, res), `"warnings":["`) {
		t.Errorf("clean file has warnings: %s", mustJSON(t, res))
	}
}

// TestGateCEveryProblemRecordListed: one warning per problem record, in file
// order, and the counts of a mix.
func TestGateCEveryProblemRecordListed(t *testing.T) {
	lines := gateCLines(t)
	lines[0] = strings.Replace(lines[0], `"status":"valid"`, `"status":"Valid"`, 1)
	lines[3] = cidField.ReplaceAllString(lines[3], "")
	lines[8] = strings.Replace(lines[8], `"status":"paywalled"`, `"status":" paywalled "`, 1)
	r := gateCRun(t, strings.Join(lines, "\n")+"\n")
	res, err := newEngine().GateC(bg, GateCArgs{ManifestPath: r.Manifest, Reason: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Warnings) != 3 || !strings.Contains(res.Warnings[0], "line 1 ") || !strings.Contains(res.Warnings[1], "line 4 ") ||
		!strings.Contains(res.Warnings[2], "line 9 ") {
		t.Errorf("warnings = %q", res.Warnings)
	}
	if res.Metrics != (gate.Metrics{ValidatedURLRate: 0.8, InvalidURLRate: 0.1, UncategorizedURLRate: 0.1}) || res.Status != "fail" {
		t.Errorf("metrics %+v status %s", res.Metrics, res.Status)
	}
}

// TestGateCHandEditedErrors: what the reference refuses stays refused — a
// record without normalized_url or without status, a duplicate, a line
// that is not an object — first problem in file order, and nothing is
// written.
func TestGateCHandEditedErrors(t *testing.T) {
	lines := gateCLines(t)
	edit := func(i int, from, to string) []string {
		out := slices.Clone(lines)
		if !strings.Contains(out[i], from) {
			t.Fatalf("line %d lacks %q", i, from)
		}
		out[i] = strings.Replace(out[i], from, to, 1)
		return out
	}
	join := func(ls []string) string { return strings.Join(ls, "\n") + "\n" }
	for _, tc := range []struct {
		name, citations, code, message string
		line                           int
	}{
		{"no normalized_url", lines[0] + "\n" + strings.Replace(lines[1], `"normalized_url":"https://source.example.com/u2",`, "", 1) + "\n",
			CodeSchemaValidation, "citation record missing normalized_url", 2},
		{"blank normalized_url", strings.Replace(lines[0], `"normalized_url":"https://source.example.com/u1"`, `"normalized_url":" "`, 1) + "\n",
			CodeSchemaValidation, "citation record missing normalized_url", 1},
		{"normalized_url an object", strings.Replace(lines[0], `"normalized_url":"https://source.example.com/u1"`, `"normalized_url":{}`, 1) + "\n",
			CodeSchemaValidation, "citation record missing normalized_url", 1},
		{"not an object", lines[0] + "\n\"valid\"\n", CodeInvalidJSONL, "citations.jsonl malformed", 2},
		// The reference's Gate C vector for a record without status: an
		// error, not an uncategorized URL (origin.md §6.1 step 2).
		{"no status", join(edit(2, `"status":"valid",`, ``)),
			CodeSchemaValidation, "citation record missing status", 3},
		{"null status", join(edit(2, `"status":"valid"`, `"status":null`)),
			CodeSchemaValidation, "citation record missing status", 3},
		{"blank status", join(edit(2, `"status":"valid"`, `"status":" \t"`)),
			CodeSchemaValidation, "citation record missing status", 3},
		// Records are checked one by one, each check in the reference's
		// order: the first problem wins.
		{"duplicate before no status", join(append(edit(2, `"status":"valid",`, ``), lines[0])),
			CodeSchemaValidation, "citation record missing status", 3},
		{"no status after a duplicate", join(append(edit(9, `"status":"invalid",`, ``)[:9], lines[0], edit(9, `"status":"invalid",`, ``)[9])),
			CodeSchemaValidation, "duplicate normalized_url in citations.jsonl", 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := gateCRun(t, tc.citations)
			before := snapshot(t, r.Root)
			_, err := newEngine().GateC(bg, GateCArgs{ManifestPath: r.Manifest, Reason: "test", Write: true})
			e := asError(t, err, tc.code)
			if e.Message != tc.message || e.Details["line"] != tc.line {
				t.Errorf("error = %s %v", e.Message, e.Details)
			}
			if d := diffSnapshots(before, snapshot(t, r.Root)); len(d) != 0 {
				t.Errorf("failed gate C changed files: %v", d)
			}
		})
	}
}

// TestRenderHandEditedRecords: render renders every record, as the
// reference does, whatever it lacks, and lists each problem record in
// warnings; secrets typed into a hand-edited record stay out of the report
// and the warnings.
func TestRenderHandEditedRecords(t *testing.T) {
	rec := func(u, extra string) string {
		return `{"schema_version":"citation.v1","normalized_url":"` + u + `","url":"` + u + `","url_original":"` + u + `","checked_at":"2026-02-14T00:00:00.000Z","found_by":[],"notes":"n"` + extra + `}`
	}
	body := strings.Join([]string{
		rec("https://e.example/a", `,"cid":"`+cidOf("https://e.example/a")+`","status":"Valid"`),
		rec("https://e.example/b", `,"cid":"`+cidOf("https://e.example/b")+`","status":" paywalled ","title":"B"`),
		rec("https://e.example/c", `,"status":"pending","title":"password=HANDSECRET9"`),
		rec("https://e.example/d", `,"cid":"`+cidOf("https://e.example/d")+`","status":"valid"`),
		`{"status":"valid","title":7}`,
	}, "\n") + "\n"
	r := newRun(t, runSpec{RunID: "RUN", Files: map[string]string{"citations/citations.jsonl": body}})
	res, err := newEngine().Render(bg, RenderArgs{ManifestPath: r.Manifest, Reason: "test"})
	if err != nil {
		t.Fatalf("render refused the file: %v", err)
	}
	if res.Rendered != 5 || len(res.Warnings) != 4 {
		t.Fatalf("rendered %d, warnings %q", res.Rendered, res.Warnings)
	}
	for i, want := range []string{
		`line 1 (https://e.example/a): status "Valid" is not one of valid, paywalled, blocked, mismatch, invalid (statuses are lower case); rendered as must NOT cite`,
		`line 2 (https://e.example/b): status " paywalled " has surrounding white space: read as "paywalled"`,
		`line 3 (https://e.example/c): status "pending" is not one of`,
		`line 5: no normalized_url`,
	} {
		if !strings.Contains(res.Warnings[i], want) {
			t.Errorf("warning %d = %q, want it to contain %q", i, res.Warnings[i], want)
		}
	}
	if !strings.Contains(res.Warnings[2], "cid") {
		t.Errorf("the missing cid is not reported: %q", res.Warnings[2])
	}
	md := readFile(t, r.cit("validated-citations.md"))
	for _, want := range []string{
		"Rendered: 5\n",
		"Synthesis may cite: 3 (valid 2, paywalled 1 with caution)\n",
		"Synthesis must not cite: 2 (2 unknown status)\n",
		"- URL: https://e.example/a\n- Status: Valid\n- Synthesis: must NOT cite (not a known status)\n",
		"- URL: https://e.example/b\n- Status: paywalled — **caution**\n",
		"## (missing-cid)\n- URL: https://e.example/c\n- Status: pending\n",
		"## (missing-cid)\n- URL: (missing-url)\n- Status: valid\n- Synthesis: may cite\n- Title: 7\n",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}
	for _, where := range []string{md, mustJSON(t, res), readFile(t, r.path("logs/audit.jsonl"))} {
		if strings.Contains(where, "HANDSECRET9") {
			t.Errorf("the typed-in secret leaked:\n%s", where)
		}
	}
}
