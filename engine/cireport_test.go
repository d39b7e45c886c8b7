package engine

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/citegate/citegate/engine/verify"
	"github.com/citegate/citegate/parse"
)

var updateGoldens = flag.Bool("update", false, "rewrite testdata/ci/*.golden from the current output")

// sarifSchema compiles the official SARIF 2.1.0 schema (testdata/sarif) once.
var sarifSchema = sync.OnceValues(func() (*jsonschema.Schema, error) {
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft4
	c.AssertFormat = true
	f, err := os.Open(filepath.Join("..", "testdata", "sarif", "sarif-schema-2.1.0.json"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if err := c.AddResource(sarifSchemaURI, f); err != nil {
		return nil, err
	}
	return c.Compile(sarifSchemaURI)
})

// checkSARIF validates doc against the official schema and returns it
// decoded.
func checkSARIF(t *testing.T, doc []byte) sarifLog {
	t.Helper()
	s, err := sarifSchema()
	if err != nil {
		t.Fatalf("SARIF schema: %v", err)
	}
	var v any
	if err := json.Unmarshal(doc, &v); err != nil {
		t.Fatalf("SARIF is not JSON: %v", err)
	}
	if err := s.Validate(v); err != nil {
		t.Fatalf("SARIF breaks the 2.1.0 schema: %#v", err)
	}
	var log sarifLog
	if err := json.Unmarshal(doc, &log); err != nil {
		t.Fatal(err)
	}
	return log
}

// golden compares got with testdata/ci/name, rewriting it under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("..", "testdata", "ci", name)
	if *updateGoldens {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from its golden (go test ./engine -run %s -update rewrites it):\n%s", name, t.Name(), got)
	}
}

// ciReports renders every CI format of a report.
func ciReports(t *testing.T, e *Engine, sum *RunSummary, r *CIReport) map[string][]byte {
	t.Helper()
	sarif, err := r.SARIF("")
	if err != nil {
		t.Fatal(err)
	}
	cq, err := r.CodeQuality()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{"sarif.json": sarif, "github.txt": r.GitHubAnnotations(), "gitlab.txt": r.GitLabAnnotations(),
		"codequality.json": cq, "summary.md": r.StepSummary()}
	if sum != nil {
		junit, err := e.JUnitReport(sum)
		if err != nil {
			t.Fatal(err)
		}
		out["junit.xml"] = junit
	}
	return out
}

// TestCIReportsDemo holds every CI format of the offline demo to its golden,
// checks the SARIF against the official schema and the JUnit against the
// common schema, and checks that every finding points at a line that cites
// its URL.
func TestCIReportsDemo(t *testing.T) {
	r := copyDemo(t)
	e := newEngine()
	sum, err := e.Run(bg, RunArgs{ManifestPath: r.Manifest}, nil)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := e.CIReport(sum)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Findings) == 0 {
		t.Fatal("the demo has no failing citation")
	}
	for _, f := range rep.Findings {
		if f.Place.Line == 0 {
			t.Errorf("%s: no line", f.URL)
			continue
		}
		checkPlace(t, r.Root, f)
	}
	// Every citation's places, not only the failing ones' (JUnit's file and
	// line), point at the URL or at the reference link citing it.
	records, places, err := e.runPlaces(sum, func(Status) bool { return true })
	if err != nil {
		t.Fatal(err)
	}
	located := 0
	for _, rec := range records {
		for _, p := range places[rec.NormalizedURL] {
			located++
			checkPlace(t, r.Root, Finding{URL: rec.URL, Place: p.Place})
		}
	}
	if located < len(records) {
		t.Errorf("%d places for %d citations", located, len(records))
	}
	docs := ciReports(t, e, sum, rep)
	checkSARIF(t, docs["sarif.json"])
	checkJUnitSchema(t, docs["junit.xml"])
	for name, doc := range docs {
		golden(t, "demo-offline."+name, doc)
	}
	// Nothing in them varies between two reports of one run.
	again, err := e.CIReport(sum)
	if err != nil {
		t.Fatal(err)
	}
	for name, doc := range ciReports(t, e, sum, again) {
		if !bytes.Equal(doc, docs[name]) {
			t.Errorf("%s: two reports of one run differ", name)
		}
	}
}

// checkPlace checks that a finding's place holds its URL, or a link whose
// target it is (a reference link), at the column it gives.
func checkPlace(t *testing.T, root string, f Finding) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(f.Place.Path)))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	if f.Place.Line > len(lines) {
		t.Fatalf("%s: line %d past the end", f.URL, f.Place.Line)
	}
	line := lines[f.Place.Line-1]
	at := line[f.Place.Col.Byte-1:]
	if !strings.HasPrefix(at, "http") && !strings.HasPrefix(at, "[") {
		t.Errorf("%s at %s col %d: the line there is %q", f.URL, f.Place, f.Place.Col.Byte, at)
	}
}

// TestCIReportLocationsTricky checks every format's line and column on the
// hand-counted wave files of tricky shapes (testdata/locations): SARIF in
// UTF-16 code units, GitHub and GitLab in characters, Code Quality by line.
func TestCIReportLocationsTricky(t *testing.T) {
	r := newRun(t, runSpec{Sensitivity: "no_web", Copy: map[string]string{"wave-1": filepath.Join("..", "testdata", "locations", "wave-1")},
		Files: map[string]string{"offline-fixtures.json": `{"https://unrelated.example/": "valid"}`}})
	e := newEngine()
	sum, err := e.Run(bg, RunArgs{ManifestPath: r.Manifest}, nil)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := e.CIReport(sum)
	if err != nil {
		t.Fatal(err)
	}
	type want struct {
		line              int
		bytes, chars, u16 int
	}
	wants := map[string]want{ // testdata/locations/README.md
		"https://a.example/one": {9, 32, 29, 29}, "https://b.example/two": {10, 13, 13, 13},
		"https://c.example/three": {11, 16, 16, 16}, "https://d.example/four": {12, 13, 13, 13},
		"https://e.example/five": {13, 22, 10, 10}, "https://f.example/six": {14, 18, 15, 16},
	}
	if len(rep.Findings) != 2*len(wants) { // every URL unlisted, so invalid, in both files
		t.Fatalf("%d findings, want %d", len(rep.Findings), 2*len(wants))
	}
	sarif, err := rep.SARIF("")
	if err != nil {
		t.Fatal(err)
	}
	log := checkSARIF(t, sarif)
	if log.Runs[0].ColumnKind != "utf16CodeUnits" {
		t.Errorf("columnKind %q", log.Runs[0].ColumnKind)
	}
	gh := string(rep.GitHubAnnotations())
	gl := string(rep.GitLabAnnotations())
	cq, _ := rep.CodeQuality()
	var issues []codeQualityIssue
	if err := json.Unmarshal(cq, &issues); err != nil {
		t.Fatal(err)
	}
	for i, f := range rep.Findings {
		w, ok := wants[f.URL]
		if !ok {
			t.Fatalf("unexpected finding %s", f.URL)
		}
		if !strings.HasPrefix(f.Place.Path, "wave-1/tricky") || f.Place.Line != w.line || f.Place.Col != (parse.Column{Byte: w.bytes, Rune: w.chars, UTF16: w.u16}) {
			t.Errorf("%s at %s %+v, want line %d col %d/%d/%d", f.URL, f.Place, f.Place.Col, w.line, w.bytes, w.chars, w.u16)
		}
		res := log.Runs[0].Results[i]
		if reg := res.Locations[0].PhysicalLocation.Region; reg == nil || reg.StartLine != w.line || reg.StartColumn != w.u16 {
			t.Errorf("SARIF %s region %+v, want line %d col %d", f.URL, reg, w.line, w.u16)
		}
		if i < maxGitHubErrors-1 { // Gate C's error comes first
			if want := fmt.Sprintf("file=%s,line=%d,col=%d,", f.Place.Path, w.line, w.chars); !strings.Contains(gh, want) {
				t.Errorf("GitHub annotations lack %s:\n%s", want, gh)
			}
		}
		if want := fmt.Sprintf("%s:%d:%d: error: invalid", f.Place.Path, w.line, w.chars); !strings.Contains(gl, want) {
			t.Errorf("GitLab lines lack %s:\n%s", want, gl)
		}
		if issues[i].Location.Lines.Begin != w.line || issues[i].Location.Path != f.Place.Path {
			t.Errorf("Code Quality %+v, want %s:%d", issues[i].Location, f.Place.Path, w.line)
		}
	}
}

// unescapeGitHub undoes the escaping as GitHub's runner does
// (ActionCommand.Unescape in actions/runner).
func unescapeGitHub(s string, property bool) string {
	pairs := []string{"%0D", "\r", "%0A", "\n"}
	if property {
		pairs = append(pairs, "%3A", ":", "%2C", ",")
	}
	return strings.ReplaceAll(strings.NewReplacer(pairs...).Replace(s), "%25", "%")
}

// TestGitHubAnnotationEscaping feeds hostile URLs, notes and paths through
// the workflow commands: each command stays one line, its properties split
// where the runner splits them, and the runner's unescaping gives back the
// text exactly.
func TestGitHubAnnotationEscaping(t *testing.T) {
	hostile := []Finding{
		{Class: ClassInvalid, URL: "https://h.example/a%0A::error::x,y:z?q=100%25", Notes: "line one\r\nline two\n::warning file=evil::pwned, 50% off: yes",
			Place: Place{Path: "wave-1/odd,name:1.md", Line: 3, Col: parse.Column{Byte: 5, Rune: 4, UTF16: 4}}, Nth: 1},
		{Class: ClassBlocked, URL: "https://h.example/%%%", Notes: "%0D%0A literal escapes, not newlines",
			Place: Place{Path: "wave-2/p%.md", Line: 7, Col: parse.Column{Byte: 1, Rune: 1, UTF16: 1}}, Nth: 1},
	}
	rep := &CIReport{Name: "RUN", Findings: hostile}
	out := string(rep.GitHubAnnotations())
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != len(hostile) {
		t.Fatalf("%d lines for %d findings (a newline escaped the escaping):\n%s", len(lines), len(hostile), out)
	}
	cmd := regexp.MustCompile(`^::(error|warning) ([^:]*)::(.*)$`)
	for i, l := range lines {
		m := cmd.FindStringSubmatch(l)
		if m == nil {
			t.Fatalf("line %d is not one workflow command: %q", i, l)
		}
		f := hostile[i]
		if m[1] != level(f.Class) {
			t.Errorf("level %s, want %s", m[1], level(f.Class))
		}
		props := map[string]string{}
		for _, kv := range strings.Split(m[2], ",") {
			k, v, ok := strings.Cut(kv, "=")
			if !ok {
				t.Fatalf("property %q splits badly in %q", kv, l)
			}
			props[k] = unescapeGitHub(v, true)
		}
		if props["file"] != f.Place.Path || props["line"] != fmt.Sprint(f.Place.Line) || props["col"] != fmt.Sprint(f.Place.Col.Rune) {
			t.Errorf("properties %v, want file %q line %d col %d", props, f.Place.Path, f.Place.Line, f.Place.Col.Rune)
		}
		if got := unescapeGitHub(m[3], false); got != message(f) {
			t.Errorf("message unescapes to %q, want %q", got, message(f))
		}
	}
	for _, tc := range []struct{ in, data, prop string }{
		{"100%", "100%25", "100%25"},
		{"a\r\nb", "a%0D%0Ab", "a%0D%0Ab"},
		{"k: v, w", "k: v, w", "k%3A v%2C w"},
		{"%0A", "%250A", "%250A"},
	} {
		if got := escapeData(tc.in); got != tc.data {
			t.Errorf("escapeData(%q) = %q, want %q", tc.in, got, tc.data)
		}
		if got := escapeProperty(tc.in); got != tc.prop {
			t.Errorf("escapeProperty(%q) = %q, want %q", tc.in, got, tc.prop)
		}
	}
}

// TestCIReportLimits runs 20,000 failing citations (every URL of a wave
// file unlisted, so invalid, plus blocked ones) through every format: SARIF
// keeps GitHub's 5,000 and says so, the job summary stays under 1 MiB and
// says how many it left out, the annotations keep GitHub's caps with a last
// line that counts the rest.
func TestCIReportLimits(t *testing.T) {
	const n = 20000
	var wave, fixtures strings.Builder
	wave.WriteString("# Many\n\n## Sources\n\n")
	fixtures.WriteString("{")
	for i := range n {
		fmt.Fprintf(&wave, "- [source %d — with a note, 50%% off: yes](https://s%d.example/p/%d,x)\n", i, i%97, i)
		if i%4 == 0 {
			if i > 0 {
				fixtures.WriteString(",")
			}
			fmt.Fprintf(&fixtures, "%q: \"blocked\"", fmt.Sprintf("https://s%d.example/p/%d,x", i%97, i))
		}
	}
	fixtures.WriteString("}")
	r := newRun(t, runSpec{Sensitivity: "no_web", Files: map[string]string{"wave-1/many.md": wave.String(), "offline-fixtures.json": fixtures.String()}})
	e := newEngine()
	sum, err := e.Run(bg, RunArgs{ManifestPath: r.Manifest}, nil)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := e.CIReport(sum)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Findings) != n {
		t.Fatalf("%d findings, want %d", len(rep.Findings), n)
	}
	sarif, err := rep.SARIF("")
	if err != nil {
		t.Fatal(err)
	}
	log := checkSARIF(t, sarif)
	run := log.Runs[0]
	if len(run.Results) != MaxSARIFResults || !run.Properties.ResultsCutOff || run.Properties.ResultsTotal != n {
		t.Errorf("SARIF keeps %d results of %d (cut %v), want %d", len(run.Results), run.Properties.ResultsTotal, run.Properties.ResultsCutOff, MaxSARIFResults)
	}
	if note := run.Invocations[0].Notifications; len(note) != 1 || !strings.HasPrefix(note[0].Message.Text, fmt.Sprintf("%d of %d findings left out", n-MaxSARIFResults, n)) {
		t.Errorf("no truncation note: %+v", note)
	}
	if run.Results[0].Level != "error" || run.Results[len(run.Results)-1].Level != "error" {
		t.Errorf("the kept results are not the worst (invalid before blocked)")
	}
	summary := rep.StepSummary()
	if len(summary) >= MaxStepSummaryBytes {
		t.Errorf("summary is %d bytes, GitHub's limit is %d", len(summary), MaxStepSummaryBytes)
	}
	if !regexp.MustCompile(`_[0-9]+ more failing citations left out`).Match(summary) {
		t.Errorf("summary does not say what it left out:\n%s", summary[len(summary)-300:])
	}
	t.Logf("%d findings: SARIF %d bytes, %d results; job summary %d bytes", n, len(sarif), len(run.Results), len(summary))
	gh := strings.Split(strings.TrimSuffix(string(rep.GitHubAnnotations()), "\n"), "\n")
	count := map[string]int{}
	for _, l := range gh {
		count[strings.SplitN(strings.TrimPrefix(l, "::"), " ", 2)[0]]++
	}
	if count["error"] > maxGitHubErrors || count["warning"] > maxGitHubWarnings || len(gh) > 50 || count["error"] != 10 || count["warning"] != 10 {
		t.Errorf("annotations %v break GitHub's caps", count)
	}
	if last := gh[len(gh)-1]; !strings.HasPrefix(last, "::notice ") || !strings.Contains(last, fmt.Sprintf("%d more findings not annotated", n-19)) {
		t.Errorf("last line %q does not count the findings left out", last)
	}
}

// TestCIReportVerify puts verify's unsupported claims at their markers in
// the output file.
func TestCIReportVerify(t *testing.T) {
	output := []byte("# Synthesis\r\n\r\nPrices fell 90% — see [1] and\n\tréalité [2].\n")
	res := &verify.Result{ID: "v", TotalSupported: 1, Citations: []verify.Citation{
		{Citation: verify.CitationRef{Raw: "[1]", OffsetStart: bytes.Index(output, []byte("[1]"))},
			Source: &verify.SourceInfo{URL: "https://a.example/ok"}, Judge: &verify.JudgeVerdict{Verdict: "supported"}},
		{Citation: verify.CitationRef{Raw: "[2]", OffsetStart: bytes.Index(output, []byte("[2]"))},
			Source: &verify.SourceInfo{URL: "https://b.example/x?token=sk-abcdefghijklmnopqrstuvwx"}, Judge: &verify.JudgeVerdict{Verdict: "unsupported", Rationale: "the page says 9%"}},
	}}
	rep := NewVerifyReport("out/synthesis.md", output, res)
	if len(rep.Findings) != 1 {
		t.Fatalf("findings %+v", rep.Findings)
	}
	f := rep.Findings[0]
	if f.Class != ClassUnsupported || f.Place.Path != "out/synthesis.md" || f.Place.Line != 4 || f.Place.Col != (parse.Column{Byte: 12, Rune: 10, UTF16: 10}) {
		t.Errorf("finding %+v", f)
	}
	sarif, err := rep.SARIF("")
	if err != nil {
		t.Fatal(err)
	}
	checkSARIF(t, sarif)
	if bytes.Contains(sarif, []byte("sk-abc")) {
		t.Errorf("SARIF leaks a secret:\n%s", sarif)
	}
	if !bytes.Contains(sarif, []byte(`"ruleId": "citegate/unsupported"`)) || !bytes.Contains(sarif, []byte("the page says 9%")) {
		t.Errorf("SARIF lacks the unsupported claim:\n%s", sarif)
	}
}

// TestSARIFVersion: the driver's version starts with a number, as viewers
// compare them: a leading v dropped, a build without a release number a
// 0.0.0 pre-release.
func TestSARIFVersion(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"v1.2.3", "1.2.3"}, {"0.9.0-rc1", "0.9.0-rc1"}, {"devel", "0.0.0-devel"}, {"abc1234-dirty", "0.0.0-abc1234-dirty"}, {"", "0.0.0-devel"},
	} {
		doc, err := (&CIReport{Name: "RUN"}).SARIF(tc.in)
		if err != nil {
			t.Fatal(err)
		}
		if got := checkSARIF(t, doc).Runs[0].Tool.Driver.Version; got != tc.want {
			t.Errorf("SARIF(%q): version %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestCIReportPaths: paths are relative to ReportBase when the run lies
// under it (CI runs from the checkout's root), else to the run root; a wave
// file gone since the run is still named, without a line.
func TestCIReportPaths(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "research", "run 1")
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	r := newRunIn(t, root, runSpec{Sensitivity: "no_web", Files: map[string]string{
		"wave-1/a.md": "## Sources\n- https://gone.example/x\n", "wave-1/b.md": "## Sources\n\n- https://gone.example/x\n",
		"offline-fixtures.json": `{"https://ok.example/": "valid"}`,
	}})
	for _, tc := range []struct {
		base, prefix string
	}{{base, "research/run 1/"}, {filepath.Join(base, "research"), "run 1/"}, {t.TempDir(), ""}, {"", ""}} {
		e := newEngine()
		e.ReportBase = tc.base
		sum, err := e.Run(bg, RunArgs{ManifestPath: r.Manifest}, nil)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := e.CIReport(sum)
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Findings) != 2 || rep.Findings[0].Place.String() != tc.prefix+"wave-1/a.md:2" || rep.Findings[1].Place.String() != tc.prefix+"wave-1/b.md:3" {
			t.Errorf("base %q: findings %+v", tc.base, rep.Findings)
		}
		sarif, err := rep.SARIF("")
		if err != nil {
			t.Fatal(err)
		}
		junit, err := e.JUnitReport(sum)
		if err != nil {
			t.Fatal(err)
		}
		if want := `file="` + tc.prefix + `wave-1/a.md" line="2">` + "\n    " + `<failure message="invalid: must NOT cite; cited at ` + tc.prefix + `wave-1/a.md:2, ` + tc.prefix + `wave-1/b.md:3"`; !strings.Contains(string(junit), want) {
			t.Errorf("JUnit lacks every place, %s:\n%s", want, junit)
		}
		if want := pathURI(tc.prefix + "wave-1/a.md"); !bytes.Contains(sarif, []byte(`"uri": "`+want+`"`)) || (tc.prefix != "" && !strings.Contains(want, "run%201/")) {
			t.Errorf("SARIF lacks uri %s", want)
		}
	}
	// b.md removed after the run: its place keeps the file, not the line.
	e := newEngine()
	sum, err := e.Run(bg, RunArgs{ManifestPath: r.Manifest}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(root, "wave-1", "b.md")); err != nil {
		t.Fatal(err)
	}
	rep, err := e.CIReport(sum)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Findings) != 2 || rep.Findings[0].Place.String() != "wave-1/a.md:2" || rep.Findings[1].Place != (Place{Path: "wave-1/b.md"}) {
		t.Errorf("after removing b.md: %+v", rep.Findings)
	}
	sarif, err := rep.SARIF("")
	if err != nil {
		t.Fatal(err)
	}
	checkSARIF(t, sarif) // a place without a line has no region
	cq, _ := rep.CodeQuality()
	var issues []codeQualityIssue
	if err := json.Unmarshal(cq, &issues); err != nil || len(issues) != 2 || issues[1].Location != (codeQualityLocation{"wave-1/b.md", codeQualityLines{1}}) {
		t.Errorf("Code Quality needs a line; the file's first stands in:\n%s", cq)
	}
}
