package engine

import (
	"encoding/json"
	"strings"
	"testing"
)

// titlesWave is a wave file whose agent titled its list "References", with
// a Sources section after it and a sub-heading inside each.
const titlesWave = `# Perspective

## Findings

Heat pumps cut emissions [1]. See https://findings.example/not-a-source.

## 9. References

### Papers

- https://ref.example/paper

## Sources

### Web

- https://src.example/page
`

// runConfigTitles is a run-config.json with extra Sources titles; titles is
// the raw JSON of the array, "" to leave the key out.
func runConfigTitles(titles string) string {
	key := ""
	if titles != "" {
		key = `, "source_section_titles": ` + titles
	}
	return `{"schema_version": "run_config.v1", "run_id": "RUN", "effective": {"citations": {"mode": "offline"` + key + `}}}`
}

func extractedURLs(t *testing.T, r testRun) []string {
	t.Helper()
	return strings.Fields(readFile(t, r.cit("extracted-urls.txt")))
}

// TestExtractSourceTitles: extract reads only Sources by default (numbered
// and with sub-headings), and also the sections a run-config key or the
// argument names; the argument wins over run-config, and the titles are
// part of the inputs digest only when there are some.
func TestExtractSourceTitles(t *testing.T) {
	files := map[string]string{"wave-1/p1.md": titlesWave}
	tests := []struct {
		name      string
		runConfig string
		arg       []string
		want      []string
	}{
		{"default: Sources only", "", nil, []string{"https://src.example/page"}},
		{"run-config without the key", runConfigTitles(""), nil, []string{"https://src.example/page"}},
		{"run-config titles", runConfigTitles(`["References"]`), nil,
			[]string{"https://ref.example/paper", "https://src.example/page"}},
		{"argument titles", "", []string{"References"},
			[]string{"https://ref.example/paper", "https://src.example/page"}},
		{"argument wins over run-config", runConfigTitles(`["References"]`), []string{"Bibliography"},
			[]string{"https://src.example/page"}},
		{"an empty argument list overrides run-config", runConfigTitles(`["References"]`), []string{},
			[]string{"https://src.example/page"}},
		{"compared exactly", "", []string{"references", "References:"}, []string{"https://src.example/page"}},
	}
	digests := map[string]string{}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRun(t, runSpec{RunConfig: tt.runConfig, Files: files})
			res, err := newEngine().Extract(bg, ExtractArgs{ManifestPath: r.Manifest, Reason: "titles", SourceTitles: tt.arg})
			if err != nil {
				t.Fatal(err)
			}
			if got := extractedURLs(t, r); strings.Join(got, " ") != strings.Join(tt.want, " ") {
				t.Errorf("extracted %q, want %q", got, tt.want)
			}
			digests[tt.name] = res.InputsDigest
		})
	}
	// The digest covers the run root, so compare runs built at one root.
	root := t.TempDir()
	digest := func(rc string, arg []string) string {
		r := newRunIn(t, root, runSpec{RunConfig: rc, Files: files})
		res, err := newEngine().Extract(bg, ExtractArgs{ManifestPath: r.Manifest, Reason: "titles", SourceTitles: arg})
		if err != nil {
			t.Fatal(err)
		}
		return res.InputsDigest
	}
	plain, noKey, empty := digest("", nil), digest(runConfigTitles(""), nil), digest("", []string{})
	refs := digest("", []string{"References"})
	if plain != noKey || plain != empty {
		t.Errorf("no extra titles must keep the digest: %s, %s, %s", plain, noKey, empty)
	}
	if refs == plain {
		t.Error("extra titles must change the inputs digest")
	}
	if rcRefs := digest(runConfigTitles(`["References"]`), nil); rcRefs != refs {
		t.Errorf("the same titles from run-config and the argument give digests %s and %s", rcRefs, refs)
	}
}

// TestRunSourceTitles: the pipeline passes the titles to extract, and the
// found-by provenance names the References line.
func TestRunSourceTitles(t *testing.T) {
	r := newRun(t, runSpec{RunConfig: runConfigTitles(`["References"]`), Files: map[string]string{
		"wave-1/p1.md": titlesWave,
		"offline-fixtures.json": `{"schema_version": "offline_fixtures.v1", "run_id": "RUN", "items": [` +
			`{"normalized_url": "https://ref.example/paper", "status": "valid"},` +
			`{"normalized_url": "https://src.example/page", "status": "valid"}]}`,
	}})
	sum, err := newEngine().Run(bg, RunArgs{ManifestPath: r.Manifest}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if sum.TotalFound != 2 {
		t.Errorf("total_found = %d, want 2", sum.TotalFound)
	}
	var fb FoundByDoc
	if err := json.Unmarshal([]byte(readFile(t, r.cit("found-by.json"))), &fb); err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, it := range fb.Items {
		lines = append(lines, it.SourceLine)
	}
	if strings.Join(lines, "|") != "- https://ref.example/paper|- https://src.example/page" {
		t.Errorf("found-by source lines %q", lines)
	}
	sum2, err := newEngine().Run(bg, RunArgs{ManifestPath: r.Manifest, SourceTitles: []string{"Sources"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if sum2.TotalFound != 1 {
		t.Errorf("with --source-titles Sources: total_found = %d, want 1", sum2.TotalFound)
	}
}

func TestSourceTitlesInvalid(t *testing.T) {
	files := map[string]string{"wave-1/p1.md": titlesWave}
	for _, tc := range []struct {
		name      string
		runConfig string
		arg       []string
		code      string
	}{
		{"blank argument", "", []string{"References", "  "}, CodeInvalidArgs},
		{"multi-line argument", "", []string{"References\nSources"}, CodeInvalidArgs},
		{"overlong argument", "", []string{strings.Repeat("é", 201)}, CodeInvalidArgs},
		{"too many", "", make([]string, 65), CodeInvalidArgs},
		{"run-config: not an array", runConfigTitles(`"References"`), nil, CodeSchemaValidation},
		{"run-config: blank title", runConfigTitles(`["References", " "]`), nil, CodeSchemaValidation},
		{"run-config: not JSON", "nope", nil, CodeInvalidJSON},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRun(t, runSpec{RunConfig: tc.runConfig, Files: files})
			_, err := newEngine().Extract(bg, ExtractArgs{ManifestPath: r.Manifest, Reason: "x", SourceTitles: tc.arg})
			asError(t, err, tc.code)
			if _, err := newEngine().Run(bg, RunArgs{ManifestPath: r.Manifest, SourceTitles: tc.arg}, nil); err == nil {
				t.Error("run accepted what extract refused")
			}
		})
	}
}

// TestRecoverOriginalsTitles: validate re-reads the wave files for the URLs
// as written (secrets included) in the same sections extract read.
func TestRecoverOriginalsTitles(t *testing.T) {
	r := newRun(t, runSpec{Files: map[string]string{
		"wave-1/p1.md": "## References\n\n- https://user:pw@ref.example/a?token=s3cret\n",
	}})
	run, err := LoadRun(r.Manifest)
	if err != nil {
		t.Fatal(err)
	}
	items := []FoundByItem{{URLOriginal: "https://ref.example/a?token=REDACTED", ArtifactPath: "wave-1/p1.md"}}
	if got, _ := recoverOriginals(bg, run, items, nil); len(got) != 0 {
		t.Errorf("without titles: %v", got)
	}
	got, _ := recoverOriginals(bg, run, items, []string{"References"})
	if len(got) != 1 {
		t.Fatalf("with titles: %v", got)
	}
	for _, orig := range got {
		if orig != "https://user:pw@ref.example/a?token=s3cret" {
			t.Errorf("original %q", orig)
		}
	}
}
