package engine

import (
	"encoding/json"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// silentWaves are issue 20's repro: three wave files whose lists are headed
// "**Sources:**" and "## References". The Sources rule reads 10 of 18 URLs;
// one file gives none. Gate C passes on the 10.
var silentWaves = map[string]string{
	"wave-1/alpha.md": "# Alpha\n\nClaim.\n\n**Sources:**\n- https://a.example/1\n- https://a.example/2\n- https://a.example/3\n- https://a.example/4\n",
	"wave-1/beta.md": "# Beta\n\n## Sources\n- https://b.example/1\n- https://b.example/2\n- https://b.example/3\n- https://b.example/4\n- https://b.example/5\n" +
		"\n## References\n- https://b.example/6\n- https://b.example/7\n- https://b.example/8\n- https://b.example/9\n",
	"wave-1/gamma.md": "# Gamma\n\n## Sources\n- https://c.example/1\n- https://c.example/2\n- https://c.example/3\n- https://c.example/4\n- https://c.example/5\n",
}

func silentRun(t *testing.T) testRun {
	t.Helper()
	files := map[string]string{}
	var fx []string
	for rel, src := range silentWaves {
		files[rel] = src
		for _, f := range strings.Fields(src) {
			if strings.HasPrefix(f, "https://") {
				fx = append(fx, `"`+f+`": "valid"`)
			}
		}
	}
	files["offline-fixtures.json"] = "{" + strings.Join(fx, ", ") + "}"
	return newRun(t, runSpec{Files: files})
}

// Every skipped list is named with its file, its line, how many URLs it
// holds and the exact fix; a file that gives no URL says so. The warnings
// come in file order, then line order.
func TestSkippedSourceListsWarn(t *testing.T) {
	r := silentRun(t)
	sum, err := newEngine().Run(bg, RunArgs{ManifestPath: r.Manifest}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if sum.UniqueFound != 10 {
		t.Fatalf("unique_found %d, want the 10 under Sources", sum.UniqueFound)
	}
	want := []string{
		`wave-1/alpha.md: 0 URLs extracted (no "Sources" section with links); Gate C does not count this file`,
		`wave-1/alpha.md:5: "**Sources:**" is a bold or label line, not a heading: its 4 URLs were not extracted; make it the heading "## Sources"`,
		`wave-1/beta.md:10: "## References" is not a "Sources" section: its 4 URLs were not extracted; add --source-titles References (or "References" in run-config.json effective.citations.source_section_titles)`,
	}
	if strings.Join(sum.Warnings, "\n") != strings.Join(want, "\n") {
		t.Errorf("warnings:\n%s\nwant:\n%s", strings.Join(sum.Warnings, "\n"), strings.Join(want, "\n"))
	}
	// Gate C's line says what was not checked, whatever the gate decides.
	if want := "not checked: 8 URLs in 2 lists not read as Sources, 1 wave file with no URL (see warnings)."; !strings.HasSuffix(sum.GateC.Line, want) {
		t.Errorf("Gate C line %q, want it to end %q", sum.GateC.Line, want)
	}
	// The fix the warning names works.
	sum, err = newEngine().Run(bg, RunArgs{ManifestPath: r.Manifest, SourceTitles: []string{"References"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if sum.UniqueFound != 14 || len(sum.Warnings) != 2 {
		t.Errorf("with --source-titles References: %d URLs, warnings %q", sum.UniqueFound, sum.Warnings)
	}
}

// fixTitle quotes a title for the shell when it must, and names only the
// run-config key when the flag cannot carry it (the flag splits on commas).
func TestNearMissFix(t *testing.T) {
	for title, want := range map[string]string{
		"References":             `add --source-titles References (or "References" in run-config.json effective.citations.source_section_titles)`,
		"Sources:":               `add --source-titles 'Sources:' (or "Sources:" in run-config.json effective.citations.source_section_titles)`,
		"Sources and references": `add --source-titles 'Sources and references' (or "Sources and references" in run-config.json effective.citations.source_section_titles)`,
		"Don't":                  `add --source-titles 'Don'\''t' (or "Don't" in run-config.json effective.citations.source_section_titles)`,
		"Notes, sources":         `add "Notes, sources" to run-config.json effective.citations.source_section_titles`,
	} {
		if got := titleFix(title); got != want {
			t.Errorf("titleFix(%q) = %s, want %s", title, got, want)
		}
	}
}

// init learns --source-titles: it writes them into run-config.json, its
// fixtures template lists the URLs they read, and it warns, as run would,
// about the lists it will still skip; run then reads those sections.
func TestInitSourceTitles(t *testing.T) {
	src := t.TempDir()
	var waves []string
	for rel, body := range silentWaves {
		waves = append(waves, writeWave(t, filepath.Join(src, filepath.Base(rel)), body))
	}
	sort.Strings(waves)
	dir := filepath.Join(t.TempDir(), "run")
	res, err := newEngine().Init(bg, InitArgs{Dir: dir, Waves: waves, FixturesTemplate: true, SourceTitles: []string{" References "}})
	if err != nil {
		t.Fatal(err)
	}
	if res.FixturesURLs == nil || *res.FixturesURLs != 14 {
		t.Errorf("fixtures template lists %v URLs, want 14", res.FixturesURLs)
	}
	want := []string{
		`wave-1/alpha.md: 0 URLs extracted (no "Sources" section with links); Gate C does not count this file`,
		`wave-1/alpha.md:5: "**Sources:**" is a bold or label line, not a heading: its 4 URLs were not extracted; make it the heading "## Sources"`,
	}
	if strings.Join(res.Warnings, "\n") != strings.Join(want, "\n") {
		t.Errorf("init warnings:\n%s\nwant:\n%s", strings.Join(res.Warnings, "\n"), strings.Join(want, "\n"))
	}
	var rc runConfigDoc
	if err := json.Unmarshal([]byte(readFile(t, filepath.Join(dir, "run-config.json"))), &rc); err != nil ||
		strings.Join(rc.Effective.Citations.SourceSectionTitles, ",") != "References" {
		t.Errorf("run-config titles %q, %v", rc.Effective.Citations.SourceSectionTitles, err)
	}
	sum, err := newEngine().Run(bg, RunArgs{ManifestPath: filepath.Join(dir, "manifest.json"), RunDir: dir}, nil)
	if err != nil || sum.UniqueFound != 14 {
		t.Fatalf("run after init: %+v, %v", sum, err)
	}
	if _, err := newEngine().Init(bg, InitArgs{Dir: filepath.Join(t.TempDir(), "r"), SourceTitles: []string{"a\nb"}}); err == nil {
		t.Error("a title over two lines accepted")
	}
}
