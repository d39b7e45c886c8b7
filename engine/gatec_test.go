package engine

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/citegate/citegate/engine/gate"
)

// gateCLines returns the phase04 gate-c citations.jsonl lines.
func gateCLines(t *testing.T) []string {
	t.Helper()
	return strings.Split(strings.TrimSpace(readFile(t, filepath.Join(phase04Dir, "gate-c", "citations.jsonl"))), "\n")
}

func gateCRun(t *testing.T, citations string) testRun {
	t.Helper()
	return newRun(t, runSpec{RunID: "RUN",
		Copy:  map[string]string{"citations/extracted-urls.txt": filepath.Join(phase04Dir, "gate-c", "extracted-urls.txt")},
		Files: map[string]string{"citations/citations.jsonl": citations},
	})
}

func TestGateCFixture(t *testing.T) {
	r := gateCRun(t, readFile(t, filepath.Join(phase04Dir, "gate-c", "citations.jsonl")))
	res, err := newEngine().GateC(bg, GateCArgs{ManifestPath: r.Manifest, Reason: "test"})
	if err != nil {
		t.Fatal(err)
	}
	want := gate.Metrics{ValidatedURLRate: 0.9, InvalidURLRate: 0.1, UncategorizedURLRate: 0}
	if !res.OK || res.GateID != "C" || res.Status != "pass" || res.Metrics != want {
		t.Errorf("result = %s", mustJSON(t, res))
	}
	const digest = "sha256:6bbe911b5241921cc96ae289a5f7d8b63659950b853c0f50ba5248f2423d6497"
	if res.InputsDigest != digest {
		t.Errorf("inputs_digest = %s, want %s", res.InputsDigest, digest)
	}
	c := res.Update.C
	if c.Status != "pass" || c.CheckedAt != testNowISO || c.Metrics != want ||
		!slices.Equal(c.Artifacts, []string{"citations/citations.jsonl", "citations/extracted-urls.txt"}) ||
		c.Warnings == nil || len(c.Warnings) != 0 || c.Notes != "Gate C pass: 9/10 validated, 1 invalid, 0 uncategorized." {
		t.Errorf("update.C = %s", mustJSON(t, c))
	}
	// Metrics serialize as the reference prints them.
	if got := mustJSON(t, res.Metrics); got != `{"validated_url_rate":0.9,"invalid_url_rate":0.1,"uncategorized_url_rate":0}` {
		t.Errorf("metrics JSON = %s", got)
	}
	// Without Write, gate C only audits.
	if snap := snapshot(t, r.Root); snap["gates.json"] != nil {
		t.Error("gate C without Write created gates.json")
	}
	audit := readFile(t, r.path("logs/audit.jsonl"))
	wantAudit := `{"ts":"` + testNowISO + `","kind":"gate_c_compute","run_id":"RUN","reason":"test","status":"pass","metrics":{"validated_url_rate":0.9,"invalid_url_rate":0.1,"uncategorized_url_rate":0},"inputs_digest":"` + digest + "\"}\n"
	if audit != wantAudit {
		t.Errorf("audit =\n%s\nwant\n%s", audit, wantAudit)
	}
}

func TestGateCWrite(t *testing.T) {
	r := gateCRun(t, readFile(t, filepath.Join(phase04Dir, "gate-c", "citations.jsonl")))
	for rev := 2; rev <= 3; rev++ {
		res, err := newEngine().GateC(bg, GateCArgs{ManifestPath: r.Manifest, Reason: "test", Write: true})
		if err != nil {
			t.Fatal(err)
		}
		if res.GatesPath == nil || *res.GatesPath != r.path("gates.json") || res.GatesRevision == nil || *res.GatesRevision != rev {
			t.Fatalf("gates path/revision = %v %v, want revision %d", res.GatesPath, res.GatesRevision, rev)
		}
		var doc GatesDoc
		decodeJSONFile(t, r.path("gates.json"), &doc)
		if doc.SchemaVersion != "gates.v1" || doc.RunID != "RUN" || doc.Revision != rev || doc.UpdatedAt != testNowISO ||
			doc.InputsDigest != res.InputsDigest {
			t.Errorf("gates.json header = %+v", doc)
		}
		c := doc.Gates.C
		if c == nil || c.Status != "pass" || c.CheckedAt == nil || *c.CheckedAt != testNowISO ||
			compactJSON(t, c.Metrics) != `{"validated_url_rate":0.9,"invalid_url_rate":0.1,"uncategorized_url_rate":0}` ||
			c.Notes != "Gate C pass: 9/10 validated, 1 invalid, 0 uncategorized." || c.Class != "hard" ||
			c.Name != "Citation validation integrity" {
			t.Errorf("gates.C = %s", mustJSON(t, c))
		}
		for _, g := range []*Gate{doc.Gates.A, doc.Gates.B, doc.Gates.D, doc.Gates.E, doc.Gates.F} {
			if g == nil || g.Status != "not_run" || g.CheckedAt != nil {
				t.Errorf("other gate touched: %s", mustJSON(t, g))
			}
		}
	}
	var kinds []string
	for _, l := range strings.Split(strings.TrimSpace(readFile(t, r.path("logs/audit.jsonl"))), "\n") {
		var ev struct {
			Kind         string `json:"kind"`
			PrevRevision int    `json:"prev_revision"`
			NewRevision  int    `json:"new_revision"`
		}
		if err := json.Unmarshal([]byte(l), &ev); err != nil {
			t.Fatal(err)
		}
		kinds = append(kinds, ev.Kind)
		if ev.Kind == "gates_write" && ev.NewRevision != ev.PrevRevision+1 {
			t.Errorf("gates_write audit %s", l)
		}
	}
	if want := []string{"gate_c_compute", "gates_write", "gate_c_compute", "gates_write"}; !slices.Equal(kinds, want) {
		t.Errorf("audit kinds = %v, want %v", kinds, want)
	}
}

func TestGateCCases(t *testing.T) {
	lines := gateCLines(t)
	replace := func(i int, from, to string) []string {
		out := slices.Clone(lines)
		out[i] = strings.Replace(out[i], from, to, 1)
		return out
	}
	join := func(ls []string) string { return strings.Join(ls, "\n") + "\n" }
	for _, tc := range []struct {
		name      string
		extracted string // "" keeps the fixture
		citations string
		status    string
		metrics   gate.Metrics
		warnings  []string
		notes     string
	}{
		{"boundary 8/10 fails", "", join(replace(8, `"status":"paywalled"`, `"status":"invalid"`)),
			"fail", gate.Metrics{ValidatedURLRate: 0.8, InvalidURLRate: 0.2, UncategorizedURLRate: 0}, []string{}, "Gate C fail: 8/10 validated, 2 invalid, 0 uncategorized."},
		{"missing record is uncategorized", "", join(lines[:9]),
			"fail", gate.Metrics{ValidatedURLRate: 0.9, InvalidURLRate: 0, UncategorizedURLRate: 0.1}, []string{}, "Gate C fail: 9/10 validated, 0 invalid, 1 uncategorized."},
		{"blocked and mismatch count invalid", "", join(replace(8, `"status":"paywalled"`, `"status":"mismatch"`)),
			"fail", gate.Metrics{ValidatedURLRate: 0.8, InvalidURLRate: 0.2, UncategorizedURLRate: 0}, []string{}, "Gate C fail: 8/10 validated, 2 invalid, 0 uncategorized."},
		{"records outside U are ignored", "", join(append(slices.Clone(lines),
			`{"schema_version":"citation.v1","normalized_url":"https://other.example/x","cid":"`+cidOf("https://other.example/x")+`","url":"https://other.example/x","url_original":"https://other.example/x","status":"invalid","checked_at":"2026-02-14T00:00:00.000Z","found_by":[],"notes":"x"}`)),
			"pass", gate.Metrics{ValidatedURLRate: 0.9, InvalidURLRate: 0.1, UncategorizedURLRate: 0}, []string{}, "Gate C pass: 9/10 validated, 1 invalid, 0 uncategorized."},
		{"zero URLs", "\n", "",
			"fail", gate.Metrics{ValidatedURLRate: 0, InvalidURLRate: 0, UncategorizedURLRate: 0}, []string{"NO_URLS_EXTRACTED"}, "Gate C failed: NO_URLS_EXTRACTED"},
		{"rounding half up: 1/3", "https://source.example.com/u1\nhttps://source.example.com/u2\nhttps://source.example.com/u10\n",
			join([]string{lines[0], lines[1], lines[9]}),
			"fail", gate.Metrics{ValidatedURLRate: 0.666667, InvalidURLRate: 0.333333, UncategorizedURLRate: 0}, []string{}, "Gate C fail: 2/3 validated, 1 invalid, 0 uncategorized."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := gateCRun(t, tc.citations)
			if tc.extracted != "" {
				writeFile(t, r.cit("extracted-urls.txt"), tc.extracted)
			}
			res, err := newEngine().GateC(bg, GateCArgs{ManifestPath: r.Manifest, Reason: "test"})
			if err != nil {
				t.Fatal(err)
			}
			c := res.Update.C
			if res.Status != tc.status || res.Metrics != tc.metrics || c.Status != tc.status ||
				!slices.Equal(c.Warnings, tc.warnings) || c.Warnings == nil || c.Notes != tc.notes {
				t.Errorf("got status %s metrics %+v warnings %q notes %q", res.Status, res.Metrics, c.Warnings, c.Notes)
			}
		})
	}
}

func TestGateCErrors(t *testing.T) {
	lines := gateCLines(t)
	for _, tc := range []struct {
		name, citations, code, detail string
	}{
		{"duplicate normalized_url", strings.Join(append(slices.Clone(lines), lines[3]), "\n") + "\n",
			CodeSchemaValidation, "normalized_url"},
		{"malformed line", lines[0] + "\n{not json\n", CodeInvalidJSONL, "line"},
		{"array line", lines[0] + "\n\n[1,2]\n", CodeInvalidJSONL, "line"},
		// An unknown status is read leniently, as the reference reads it
		// (TestGateCHandEditedRecords); a missing normalized_url is not.
		{"missing normalized_url", strings.Replace(lines[0], `"normalized_url":"https://source.example.com/u1",`, "", 1) + "\n", CodeSchemaValidation, "pointer"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := gateCRun(t, tc.citations)
			before := snapshot(t, r.Root)
			_, err := newEngine().GateC(bg, GateCArgs{ManifestPath: r.Manifest, Reason: "test", Write: true})
			e := asError(t, err, tc.code)
			if _, ok := e.Details[tc.detail]; !ok {
				t.Errorf("details %v lack %q", e.Details, tc.detail)
			}
			if d := diffSnapshots(before, snapshot(t, r.Root)); len(d) != 0 {
				t.Errorf("failed gate C changed files: %v", d)
			}
		})
	}
	// The line number counts physical lines, blank ones included.
	r := gateCRun(t, lines[0]+"\n\n[1,2]\n")
	_, err := newEngine().GateC(bg, GateCArgs{ManifestPath: r.Manifest, Reason: "test"})
	if e := asError(t, err, CodeInvalidJSONL); e.Details["line"] != 3 || !strings.Contains(e.Details["message"].(string), "line 3") {
		t.Errorf("details = %v", e.Details)
	}
}

// TestPhase04OfflinePipeline is origin §9 "offline pipeline: extract ->
// normalize -> validate -> gate C -> render", run tool by tool.
func TestPhase04OfflinePipeline(t *testing.T) {
	r := newRun(t, runSpec{RunID: "dr_phase04", Sensitivity: "no_web", Files: map[string]string{
		"wave-1/p1.md": "## Analysis\n\nSee https://analysis.example.com/ignored for background.\n\n## Sources\n\n" +
			"- https://Example.com/doc/?utm_source=news&id=2\n- https://example.com/doc?id=2\n- https://example.com/paywall\n",
		"wave-2/p2.md": "## Sources\n\n- https://example.net/report/#frag\n",
		"fixtures.json": `{"items": [
  {"normalized_url": "https://example.com/doc?id=2", "status": "valid", "title": "Doc"},
  {"normalized_url": "https://example.com/paywall", "status": "paywalled", "notes": "paywall"},
  {"normalized_url": "https://example.net/report", "status": "valid"}
]}`,
	}})
	e := newEngine()
	x, err := e.Extract(bg, ExtractArgs{ManifestPath: r.Manifest, Reason: "phase04"})
	if err != nil {
		t.Fatal(err)
	}
	if x.TotalFound != 4 || x.UniqueFound != 4 {
		t.Errorf("extract total %d unique %d", x.TotalFound, x.UniqueFound)
	}
	// ICU order: "?" sorts before "/", so doc?id=2 precedes doc/?utm….
	wantExtracted := "https://example.com/doc?id=2\nhttps://example.com/doc/?utm_source=news&id=2\nhttps://example.com/paywall\nhttps://example.net/report/#frag\n"
	if got := readFile(t, r.cit("extracted-urls.txt")); got != wantExtracted {
		t.Errorf("extracted-urls.txt =\n%s\nwant\n%s", got, wantExtracted)
	}
	n, err := e.Normalize(bg, NormalizeArgs{ManifestPath: r.Manifest, ExtractedURLsPath: x.ExtractedURLsPath, Reason: "phase04"})
	if err != nil {
		t.Fatal(err)
	}
	wantNormalized := "https://example.com/doc?id=2\nhttps://example.com/paywall\nhttps://example.net/report\n"
	if got := readFile(t, r.cit("normalized-urls.txt")); n.UniqueNormalized != 3 || got != wantNormalized {
		t.Errorf("normalize unique %d, normalized-urls.txt =\n%s", n.UniqueNormalized, got)
	}
	v, err := e.Validate(bg, ValidateArgs{ManifestPath: r.Manifest, OfflineFixturesPath: r.path("fixtures.json"), Reason: "phase04"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if v.Mode != ModeOffline || v.Validated != 3 {
		t.Errorf("validate = %s", mustJSON(t, v))
	}
	var statuses []Status
	for _, c := range readCitationLines(t, v.CitationsPath) {
		statuses = append(statuses, c.Status)
	}
	if want := []Status{StatusValid, StatusPaywalled, StatusValid}; !slices.Equal(statuses, want) {
		t.Errorf("statuses = %v, want %v", statuses, want)
	}
	// The doc record carries provenance from both original spellings.
	doc := readCitationLines(t, v.CitationsPath)[0]
	wantFB := []FoundByEntry{
		{Wave: 1, PerspectiveID: "p1", AgentType: "unknown", ArtifactPath: "wave-1/p1.md", SourceLine: "- https://example.com/doc?id=2"},
		{Wave: 1, PerspectiveID: "p1", AgentType: "unknown", ArtifactPath: "wave-1/p1.md", SourceLine: "- https://Example.com/doc/?utm_source=news&id=2"},
	}
	if !slices.Equal(doc.FoundBy, wantFB) || doc.URLOriginal != "https://example.com/doc?id=2" {
		t.Errorf("doc record = %+v", doc)
	}
	g, err := e.GateC(bg, GateCArgs{ManifestPath: r.Manifest, CitationsPath: v.CitationsPath, ExtractedURLsPath: x.ExtractedURLsPath, Reason: "phase04"})
	if err != nil {
		t.Fatal(err)
	}
	if g.GateID != "C" || g.Status != "pass" || g.Metrics != (gate.Metrics{ValidatedURLRate: 1, InvalidURLRate: 0, UncategorizedURLRate: 0}) ||
		g.Update.C.Notes != "Gate C pass: 3/3 validated, 0 invalid, 0 uncategorized." {
		t.Errorf("gate C = %s", mustJSON(t, g))
	}
	rd, err := e.Render(bg, RenderArgs{ManifestPath: r.Manifest, Reason: "phase04"})
	if err != nil {
		t.Fatal(err)
	}
	md := readFile(t, rd.OutputMDPath)
	if rd.Rendered != 3 || !strings.HasPrefix(md, "# Validated Citations\n") || strings.Count(md, "\n## cid_") != 3 {
		t.Errorf("render %d:\n%s", rd.Rendered, md)
	}
}

func compactJSON(t *testing.T, raw []byte) string {
	t.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		t.Fatal(err)
	}
	return b.String()
}
