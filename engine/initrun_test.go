package engine

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/citegate/citegate/engine/schema"
	"github.com/citegate/citegate/engine/simweb"
)

func writeWave(t *testing.T, path, body string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestInitErrorsWriteNothing(t *testing.T) {
	src := t.TempDir()
	wave := writeWave(t, filepath.Join(src, "p1.md"), "# P1\n\n## Sources\n- https://a.example/x\n")
	empty := filepath.Join(src, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	file := writeWave(t, filepath.Join(src, "not-a-dir"), "x")
	binary := writeWave(t, filepath.Join(src, "bin.md"), "a\x00b")
	for _, tc := range []struct {
		name string
		args func(dir string) InitArgs
		code string
		want string
	}{
		{"relative dir", func(string) InitArgs { return InitArgs{Dir: "rel"} }, CodeInvalidArgs, "absolute"},
		{"bad mode", func(d string) InitArgs { return InitArgs{Dir: d, Mode: "dry"} }, CodeInvalidArgs, "--mode"},
		{"bad tier", func(d string) InitArgs { return InitArgs{Dir: d, Tier: "deep"} }, CodeInvalidArgs, "--tier"},
		{"dir is a file", func(string) InitArgs { return InitArgs{Dir: file} }, CodeInvalidArgs, "is a file"},
		{"missing wave", func(d string) InitArgs { return InitArgs{Dir: d, Waves: []string{filepath.Join(src, "nope.md")}} }, CodeNotFound, "wave file missing"},
		{"directory without markdown", func(d string) InitArgs { return InitArgs{Dir: d, Waves: []string{empty}} }, CodeInvalidArgs, "no .md files"},
		{"binary wave", func(d string) InitArgs { return InitArgs{Dir: d, Waves: []string{binary}} }, CodeInvalidInput, "UTF-8"},
		{"template without waves", func(d string) InitArgs { return InitArgs{Dir: d, FixturesTemplate: true} }, CodeInvalidArgs, "needs wave files"},
		{"wave and a missing one", func(d string) InitArgs { return InitArgs{Dir: d, Waves: []string{wave, filepath.Join(src, "gone.md")}} }, CodeNotFound, "missing"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "run")
			_, err := newEngine().Init(bg, tc.args(dir))
			e := asError(t, err, tc.code)
			if !strings.Contains(e.Message, tc.want) {
				t.Errorf("message %q does not say %q", e.Message, tc.want)
			}
			if _, err := os.Stat(dir); err == nil {
				t.Errorf("a failed init created %s", dir)
			}
		})
	}
}

func TestInitWritesACompleteRun(t *testing.T) {
	src := t.TempDir()
	writeWave(t, filepath.Join(src, "w1", "b.md"), "# Costs\n\n## Sources\n- https://a.example/report?token=sk-abcdefghijklmnopqrstuvwx\n- https://A.example/x/#frag\n")
	writeWave(t, filepath.Join(src, "w1", "notes.txt"), "not markdown")
	writeWave(t, filepath.Join(src, "w1", "a.md"), "# Alpha\n\n## Sources\n- https://a.example/x/\n")
	other := writeWave(t, filepath.Join(src, "other", "a.md"), "# Same name\n\n## Sources\n- https://b.example/\n")
	w2 := writeWave(t, filepath.Join(src, "later.markdown"), "# Later\n\n## Sources\n- https://c.example/\n")
	dir := filepath.Join(t.TempDir(), "My Run")
	res, err := newEngine().Init(bg, InitArgs{Dir: dir, Waves: []string{filepath.Join(src, "w1"), other}, Waves2: []string{w2},
		FixturesTemplate: true, Tier: "thorough"})
	if err != nil {
		t.Fatal(err)
	}
	if res.RunID != "dr_my_run" || res.Mode != "offline" || res.Tier != "thorough" {
		t.Errorf("result %+v", res)
	}
	want := []string{"wave-1/a.md", "wave-1/b.md", "wave-1/a-2.md", "wave-2/later.md"}
	if strings.Join(res.WaveFiles, " ") != strings.Join(want, " ") {
		t.Errorf("wave files %v, want %v", res.WaveFiles, want)
	}
	fixtures, err := os.ReadFile(filepath.Join(dir, "offline-fixtures.json"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(fixtures), "sk-abc") || res.FixturesURLs == nil || *res.FixturesURLs != 4 {
		t.Errorf("fixtures template (%v URLs) leaks the token or misses URLs:\n%s", res.FixturesURLs, fixtures)
	}
	// What init wrote is a run directory `run` accepts, with the mode explicit.
	run, err := LoadRun(res.ManifestPath)
	if err != nil {
		t.Fatal(err)
	}
	info, err := newEngine().Describe(RunArgs{ManifestPath: run.ManifestPath})
	if err != nil || info.Mode != ModeOffline || info.Tier != "thorough" {
		t.Fatalf("describe: %+v %v", info, err)
	}
	sum, err := newEngine().Run(bg, RunArgs{ManifestPath: run.ManifestPath}, nil)
	if err != nil || !sum.Passed() || sum.UniqueNormalized != 4 {
		t.Fatalf("run after init: %+v %v", sum, err)
	}
	// --force replaces; without it the same init is refused.
	if _, err := newEngine().Init(bg, InitArgs{Dir: dir, Waves: []string{other}}); err == nil {
		t.Fatal("init over an existing run succeeded without --force")
	}
	if _, err := newEngine().Init(bg, InitArgs{Dir: dir, Waves: []string{other}, Force: true, Mode: ModeOnline}); err != nil {
		t.Fatal(err)
	}
	if info, _ := newEngine().Describe(RunArgs{ManifestPath: run.ManifestPath}); info.Mode != ModeOnline {
		t.Errorf("after init --force --mode online the run is %s", info.Mode)
	}
}

// A manifest a newcomer wrote by hand gets every problem at once and a
// pointer to init (issue 14).
func TestManifestErrorListsEveryProblem(t *testing.T) {
	dir := t.TempDir()
	writeWave(t, filepath.Join(dir, "manifest.json"), "{}")
	_, err := LoadRun(filepath.Join(dir, "manifest.json"))
	e := asError(t, err, CodeSchemaValidation)
	probs, _ := e.Details["problems"].([]schema.Problem)
	hint, _ := e.Details["hint"].(string)
	if len(probs) != 13 || !strings.Contains(hint, "citegate init") {
		t.Fatalf("details %v", e.Details)
	}
}

// The newcomer path online: init --mode online on a wave file citing pages
// of the simulated web, then run, and Gate C passes with every page read.
func TestInitThenRunOnline(t *testing.T) {
	w, err := simweb.Start(simweb.Options{BrightDataKey: simBDKey, BrightDataZone: simBDZone, ApifyToken: simApifyTok})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	var body strings.Builder
	body.WriteString("# Notes\n\n## Sources\n\n")
	n := 0
	for _, sc := range w.Catalogue() {
		if sc.Want[simweb.TierStandard] == "valid" && sc.WantRung == simweb.RungDirect && !strings.Contains(sc.URL, simweb.SecretToken) {
			fmt.Fprintf(&body, "- [%s](%s)\n", sc.LinkText, sc.URL)
			n++
		}
	}
	if n < 3 {
		t.Fatalf("only %d directly readable valid scenarios", n)
	}
	src := writeWave(t, filepath.Join(t.TempDir(), "notes.md"), body.String())
	dir := filepath.Join(t.TempDir(), "online-run")
	res, err := newEngine().Init(bg, InitArgs{Dir: dir, Waves: []string{src}, Mode: ModeOnline})
	if err != nil {
		t.Fatal(err)
	}
	sum, err := simEngine(w).Run(bg, RunArgs{ManifestPath: res.ManifestPath}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Mode != ModeOnline || !sum.Passed() || sum.Counts.Valid != n {
		t.Errorf("online run after init: mode %s, gate %s, counts %+v (want %d valid)", sum.Mode, sum.GateC.Status, sum.Counts, n)
	}
}
