package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/citegate/citegate/ui/cli"
)

// invoke runs the CLI in-process and returns exit code, stdout and stderr.
func invoke(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), args, cli.Streams{In: strings.NewReader(""), Out: &out, Err: &errb})
	return code, out.String(), errb.String()
}

// TestDemoPassesGateCWithAllFiveStatuses runs the default demo: online,
// against the simulated web started in-process on loopback.
func TestDemoPassesGateCWithAllFiveStatuses(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "demo")
	code, out, errOut := invoke(t, "demo", "--dir", dir, "--headless")
	if code != cli.ExitOK {
		t.Fatalf("demo exit = %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	var sum struct {
		OK     bool
		Mode   string
		Counts map[string]int
		GateC  struct {
			Status  string
			Metrics map[string]float64
		} `json:"gate_c"`
		Artifacts map[string]string
	}
	if err := json.Unmarshal([]byte(out), &sum); err != nil {
		t.Fatalf("summary is not JSON: %v\n%s", err, out)
	}
	if !sum.OK || sum.Mode != "online" || sum.GateC.Status != "pass" {
		t.Fatalf("summary = %+v", sum)
	}
	for _, s := range []string{"valid", "paywalled", "blocked", "mismatch", "invalid"} {
		if sum.Counts[s] == 0 {
			t.Errorf("demo has no %s citation: %v", s, sum.Counts)
		}
	}
	if !strings.Contains(errOut, "demo run copied to "+dir) || !strings.Contains(errOut, "SIMULATED WEB") {
		t.Errorf("stderr does not name the demo dir or label the web as simulated:\n%s", errOut)
	}
	for _, p := range sum.Artifacts {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("artifact %s: %v", p, err)
		}
	}
}

// TestUsageErrors: usage errors of what is not a tool command (no command,
// an unknown one, run, demo) print the usage text on stderr and nothing on
// stdout, whose JSON there would be a summary, or the terminal UI.
func TestUsageErrors(t *testing.T) {
	tests := []struct {
		name string
		args []string
	}{
		{"no command", nil},
		{"unknown command", []string{"frobnicate"}},
		{"run unknown flag", []string{"run", "--bogus"}},
		{"run stray argument", []string{"run", "a", "b"}},
		{"demo args-json", []string{"demo", "--args-json", "{}"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := invoke(t, tt.args...)
			if code != cli.ExitUsage {
				t.Fatalf("exit = %d, want %d (stderr %s)", code, cli.ExitUsage, errOut)
			}
			if out != "" {
				t.Errorf("usage error printed on stdout: %q", out)
			}
			// One line, the usage line and where to read more: a usage
			// error must not scroll off an 80x24 screen.
			if !strings.Contains(errOut, "see 'citegate") || strings.Count(errOut, "\n") > 3 {
				t.Errorf("stderr is not a short usage error: %q", errOut)
			}
		})
	}
}

// TestToolUsageErrorsPrintOneEnvelope: a tool command prints exactly one
// INVALID_ARGS envelope on stdout for every kind of usage error, exits 2, and
// still shows the usage text on stderr.
func TestToolUsageErrorsPrintOneEnvelope(t *testing.T) {
	required := map[string][]string{
		"extract":   {"--manifest-path", "/r/manifest.json", "--reason", "r"},
		"normalize": {"--manifest-path", "/r/manifest.json", "--reason", "r"},
		"validate":  {"--manifest-path", "/r/manifest.json", "--reason", "r"},
		"gate-c":    {"--manifest-path", "/r/manifest.json", "--reason", "r"},
		"render":    {"--manifest-path", "/r/manifest.json", "--reason", "r"},
		"verify":    {"--output-file", "/r/synthesis.md", "--model", "lexical"},
	}
	missing := map[string][]string{
		"extract": {"manifest_path", "reason"}, "normalize": {"manifest_path", "reason"}, "validate": {"manifest_path", "reason"},
		"gate-c": {"manifest_path", "reason"}, "render": {"manifest_path", "reason"}, "verify": {"output-file", "model"},
	}
	badValue := map[string][2]string{ // normalize and render have string flags only
		"extract":  {"--include-wave2=maybe", "maybe"},
		"validate": {"--allow-cidr=10.0.0.0/33", "10.0.0.0/33"},
		"gate-c":   {"--write=maybe", "maybe"},
		"verify":   {"--max-citations=many", "many"},
	}
	for _, cmd := range []string{"extract", "normalize", "validate", "gate-c", "render", "verify"} {
		ok := required[cmd]
		cases := []struct {
			name    string
			args    []string
			message string
			missing []string
		}{
			{"unknown flag", append(append([]string{cmd}, ok...), "--bogus"), "unknown flag -bogus", nil},
			{"missing required args", []string{cmd}, "missing required argument", missing[cmd]},
			{"blank required arg", append(append([]string{cmd}, ok...), "--"+strings.TrimPrefix(ok[2], "--"), "  "), "missing required argument", missing[cmd][1:]},
			{"bad args-json", append(append([]string{cmd}, ok...), "--args-json", "{not json"), "--args-json", nil},
			{"unknown args-json key", append(append([]string{cmd}, ok...), "--args-json", `{"nope":1}`), "--args-json", nil},
			{"extra positional arg", append(append([]string{cmd}, ok...), "extra"), `unexpected argument "extra"`, nil},
		}
		if bv, has := badValue[cmd]; has {
			cases = append(cases, struct {
				name    string
				args    []string
				message string
				missing []string
			}{"bad flag value", append(append([]string{cmd}, ok...), bv[0]), bv[1], nil})
		}
		for _, tc := range cases {
			t.Run(cmd+"/"+tc.name, func(t *testing.T) {
				code, out, errOut := invoke(t, tc.args...)
				if code != cli.ExitUsage {
					t.Fatalf("exit = %d, want %d\nstdout %s\nstderr %s", code, cli.ExitUsage, out, errOut)
				}
				var env struct {
					OK    *bool `json:"ok"`
					Error struct {
						Code    string         `json:"code"`
						Message string         `json:"message"`
						Details map[string]any `json:"details"`
					} `json:"error"`
				}
				dec := json.NewDecoder(strings.NewReader(out))
				if err := dec.Decode(&env); err != nil {
					t.Fatalf("stdout is not one JSON envelope: %v\n%q", err, out)
				}
				if dec.More() {
					t.Errorf("stdout holds more than one JSON value: %q", out)
				}
				if env.OK == nil || *env.OK || env.Error.Code != "INVALID_ARGS" || !strings.Contains(env.Error.Message, tc.message) {
					t.Errorf("envelope = %s, want INVALID_ARGS mentioning %q", out, tc.message)
				}
				if env.Error.Details["command"] != cmd || !strings.HasPrefix(fmt.Sprint(env.Error.Details["usage"]), "citegate "+cmd) {
					t.Errorf("details = %v", env.Error.Details)
				}
				if tc.missing != nil && fmt.Sprint(env.Error.Details["missing"]) != fmt.Sprint(tc.missing) {
					t.Errorf("details.missing = %v, want %v", env.Error.Details["missing"], tc.missing)
				}
				if !strings.Contains(errOut, "usage: citegate "+cmd) {
					t.Errorf("stderr lacks the usage text: %q", errOut)
				}
			})
		}
	}
}

// TestUsageErrorRedactsSecrets: a stray argument that carries a credential
// is not echoed in the envelope or on stderr.
func TestUsageErrorRedactsSecrets(t *testing.T) {
	const secret = "s3cr3tP4ssw0rdValue"
	code, out, errOut := invoke(t, "render", "--manifest-path", "/r/manifest.json", "--reason", "r",
		"https://admin:"+secret+"@example.com/x")
	if code != cli.ExitUsage || !strings.Contains(out, "INVALID_ARGS") {
		t.Fatalf("exit %d\n%s", code, out)
	}
	if strings.Contains(out, secret) || strings.Contains(errOut, secret) {
		t.Errorf("the credential was echoed:\nstdout %s\nstderr %s", out, errOut)
	}
}

func TestHelpDocumentsFlagsAndExitCodes(t *testing.T) {
	for _, c := range []string{"extract", "normalize", "validate", "gate-c", "render", "run", "demo"} {
		code, out, _ := invoke(t, c, "--help")
		if code != cli.ExitOK {
			t.Fatalf("%s --help exit = %d", c, code)
		}
		if !strings.Contains(out, "exit codes:") || !strings.Contains(out, "-") {
			t.Errorf("%s --help lacks flags or exit codes:\n%s", c, out)
		}
	}
	code, out, _ := invoke(t, "--help")
	if code != cli.ExitOK || !strings.Contains(out, "gate-c") {
		t.Errorf("top-level help: exit %d\n%s", code, out)
	}
}

func TestToolErrorEnvelope(t *testing.T) {
	// --args-json keeps the tool spec's rule: manifest_path must be absolute.
	code, out, _ := invoke(t, "extract", "--args-json", `{"manifest_path":"relative/manifest.json","reason":"r"}`)
	if code != cli.ExitFailure {
		t.Fatalf("exit = %d, want %d", code, cli.ExitFailure)
	}
	var env struct {
		OK    bool
		Error struct {
			Code    string
			Message string
			Details map[string]any
		}
	}
	if err := json.Unmarshal([]byte(out), &env); err != nil {
		t.Fatalf("not an envelope: %v\n%s", err, out)
	}
	if env.OK || env.Error.Code != "INVALID_ARGS" || env.Error.Details == nil {
		t.Fatalf("envelope = %+v", env)
	}
}

// TestToolChainMatchesRun checks that calling the five tools one after another
// (with --args-json, as an agent would) gives the same artifacts as `run`.
func TestToolChainMatchesRun(t *testing.T) {
	a := filepath.Join(t.TempDir(), "a")
	b := filepath.Join(t.TempDir(), "b")
	for _, d := range []string{a, b} {
		if code, out, errOut := invoke(t, "demo", "--offline", "--dir", d); code != cli.ExitOK {
			t.Fatalf("demo: %d\n%s\n%s", code, out, errOut)
		}
	}
	// Re-run b tool by tool, over the artifacts demo wrote.
	m := filepath.Join(b, "manifest.json")
	steps := [][]string{
		{"extract", "--args-json", `{"manifest_path":"` + m + `","reason":"chain"}`},
		{"normalize", "--manifest-path", m, "--reason", "chain"},
		{"validate", "--manifest-path", m, "--reason", "chain", "--offline-fixtures-path", filepath.Join(b, "offline-fixtures.json")},
		{"gate-c", "--manifest-path", m, "--reason", "chain", "--write"},
		{"render", "--manifest-path", m, "--reason", "chain"},
	}
	for _, s := range steps {
		if code, out, errOut := invoke(t, s...); code != cli.ExitOK {
			t.Fatalf("%v: exit %d\n%s\n%s", s, code, out, errOut)
		}
	}
	for _, f := range []string{"extracted-urls.txt", "found-by.json", "normalized-urls.txt", "url-map.json", "citations.jsonl", "validated-citations.md"} {
		da, err := os.ReadFile(filepath.Join(a, "citations", f))
		if err != nil {
			t.Fatal(err)
		}
		db, err := os.ReadFile(filepath.Join(b, "citations", f))
		if err != nil {
			t.Fatal(err)
		}
		// Paths embedded in artifacts differ only by the run directory.
		if !bytes.Equal(bytes.ReplaceAll(da, []byte(a), []byte("ROOT")), bytes.ReplaceAll(db, []byte(b), []byte("ROOT"))) {
			t.Errorf("%s differs between run and the tool chain", f)
		}
	}
}

// TestPlantedSecretsNeverReachStdoutOrDisk drives `run` through the CLI over
// the planted-secrets corpus and greps stdout, stderr and every file written.
func TestPlantedSecretsNeverReachStdoutOrDisk(t *testing.T) {
	root := t.TempDir()
	src := filepath.Join("testdata", "engine", "secrets")
	inputs := map[string]bool{}
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Base(p) == "README.md" {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		dst := filepath.Join(root, rel)
		inputs[dst] = true
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		return os.WriteFile(dst, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	manifest, err := os.ReadFile(filepath.Join("testdata", "demo", "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	rootJSON, _ := json.Marshal(root)
	manifest = bytes.ReplaceAll(manifest, []byte(`"/citegate-demo-root"`), rootJSON)
	mp := filepath.Join(root, "manifest.json")
	inputs[mp] = true
	if err := os.WriteFile(mp, manifest, 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := invoke(t, "run", root, "--reason", "rotate password=SECRETREASON7")
	if code != cli.ExitOK && code != cli.ExitGateFailed {
		t.Fatalf("run exit %d\n%s\n%s", code, out, errOut)
	}
	secrets := []string{"alice", "hunter2pw", "SECRETTOKEN1", "SECRETAPIKEY2", "SECRETAMZSIG3", "SECRETACCESS4",
		"SECRETSLACK5", "SECRETGHTOKEN6", "SECRETREASON7", "T000/B000",
		"SECRETPATHGH8", "SECRETSTRIPE9", "SECRETJSESSION10", "SECRETCURL11", "SECRETBEARER12"}
	check := func(where, text string) {
		for _, s := range secrets {
			if strings.Contains(text, s) {
				t.Errorf("%s contains planted secret %q", where, s)
			}
		}
	}
	check("stdout", out)
	check("stderr", errOut)
	written := 0
	_ = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || inputs[p] {
			return err
		}
		data, rerr := os.ReadFile(p)
		if rerr != nil {
			t.Error(rerr)
			return nil
		}
		written++
		check(p, string(data))
		return nil
	})
	if written < 8 {
		t.Errorf("only %d files written; the test would prove little", written)
	}
}

func TestOfflineDemo(t *testing.T) {
	code, out, errOut := invoke(t, "demo", "--offline", "--dir", filepath.Join(t.TempDir(), "d"))
	if code != cli.ExitOK || !strings.Contains(out, `"mode": "offline"`) || !strings.Contains(errOut, "offline fixtures") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
}

// Issue 14's contract fixes: a path on the command line may be relative (it is
// resolved against the working directory); RUN_DIR and --manifest-path
// together are a usage error, not a silent choice; --help prints --flag.
func TestCommandLineContract(t *testing.T) {
	dir := t.TempDir()
	if code, out, _ := invoke(t, "demo", "--offline", "--dir", filepath.Join(dir, "run"), "--headless"); code != cli.ExitOK {
		t.Fatalf("demo: exit %d\n%s", code, out)
	}
	manifest := filepath.Join(dir, "run", "manifest.json")
	t.Chdir(dir)
	code, out, _ := invoke(t, "extract", "--manifest-path", filepath.Join("run", "manifest.json"), "--reason", "relative")
	if code != cli.ExitOK || !strings.Contains(out, `"ok": true`) {
		t.Fatalf("extract with a relative --manifest-path: exit %d\n%s", code, out)
	}
	code, _, errOut := invoke(t, "run", "run", "--manifest-path", filepath.Join(dir, "other", "manifest.json"), "--headless")
	if code != cli.ExitUsage || !strings.Contains(errOut, "not both") {
		t.Fatalf("run DIR --manifest-path OTHER: exit %d\n%s", code, errOut)
	}
	code, out, _ = invoke(t, "run", "run", "--manifest-path", manifest, "--headless")
	if code != cli.ExitOK {
		t.Fatalf("run DIR --manifest-path DIR/manifest.json (the same file): exit %d\n%s", code, out)
	}
	code, out, _ = invoke(t, "run", "--help")
	if code != cli.ExitOK || !strings.Contains(out, "\n  --manifest-path string") || strings.Contains(out, "\n  -manifest-path") {
		t.Fatalf("run --help should list --flags:\n%s", out)
	}
}

// TestInitThenRun is the newcomer path: two bare markdown files, `init` with
// the fixtures template, then `run DIR`, and Gate C passes. Relative paths
// throughout, as a user types them.
func TestInitThenRun(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	for name, body := range map[string]string{
		"costs.md":     "# Battery costs\n\nPack prices fell.\n\n## Sources\n\n- [BNEF](https://about.bnef.com/blog/pack-prices/)\n- https://www.iea.org/reports/ev-outlook?utm_source=feed\n",
		"recycling.md": "# Recycling\n\n## Sources\n1. https://www.nature.com/articles/s41586-019-1682-5\n2. [IEA](https://www.iea.org/reports/ev-outlook)\n",
	} {
		if err := os.WriteFile(name, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, out, errOut := invoke(t, "init", "myrun", "--waves", "costs.md", "recycling.md", "--fixtures-template")
	if code != cli.ExitOK {
		t.Fatalf("init: exit %d\n%s\n%s", code, out, errOut)
	}
	var res struct {
		OK           bool
		WaveFiles    []string `json:"wave_files"`
		FixturesURLs int      `json:"fixtures_urls"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || !res.OK || len(res.WaveFiles) != 2 || res.FixturesURLs != 3 {
		t.Fatalf("init result %+v (%v):\n%s", res, err, out)
	}
	if !strings.Contains(errOut, "citegate run "+filepath.Join(dir, "myrun")) {
		t.Errorf("init does not say what to run next:\n%s", errOut)
	}
	code, out, errOut = invoke(t, "run", "myrun", "--headless")
	if code != cli.ExitOK || !strings.Contains(out, `"status": "pass"`) {
		t.Fatalf("run after init: exit %d\n%s\n%s", code, out, errOut)
	}
	// A second init would overwrite the user's run: refused, nothing written.
	before, _ := os.ReadFile(filepath.Join("myrun", "manifest.json"))
	code, out, _ = invoke(t, "init", "myrun", "--waves", "costs.md")
	after, _ := os.ReadFile(filepath.Join("myrun", "manifest.json"))
	if code != cli.ExitFailure || !strings.Contains(out, "--force") || !bytes.Equal(before, after) {
		t.Fatalf("init over an existing run: exit %d\n%s", code, out)
	}
}

// run --report-junit writes the JUnit report after the run's commit; a report
// that cannot be written turns the exit code into 1 and says why, the JSON
// summary staying as it is.
func TestRunReportJUnit(t *testing.T) {
	dir := t.TempDir()
	if code, out, _ := invoke(t, "demo", "--offline", "--dir", filepath.Join(dir, "run"), "--headless"); code != cli.ExitOK {
		t.Fatalf("demo: exit %d\n%s", code, out)
	}
	t.Chdir(dir)
	code, out, _ := invoke(t, "run", "run", "--headless", "--report-junit", filepath.Join("reports", "citations.xml"))
	report, err := os.ReadFile(filepath.Join(dir, "reports", "citations.xml"))
	if code != cli.ExitOK || err != nil || !bytes.Contains(report, []byte(`<testsuite name="citegate.dr_demo_ev_batteries"`)) ||
		!strings.Contains(out, `"ok": true`) {
		t.Fatalf("run --report-junit: exit %d, %v\n%s\n%s", code, err, out, report)
	}
	if err := os.Mkdir(filepath.Join(dir, "adir"), 0o755); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := invoke(t, "run", "run", "--headless", "--report-junit", "adir")
	if code != cli.ExitFailure || !strings.Contains(errOut, "--report-junit: cannot write") || !strings.Contains(out, `"ok": true`) {
		t.Fatalf("report onto a directory: exit %d\n%s\n%s", code, out, errOut)
	}
}

// TestRunGateLineNamesEachClass: the Gate C line on stderr and in the
// summary names each must-not-cite status with the summary's own counts
// (issue 20: it said "N invalid" with N counting blocked and mismatch too).
func TestRunGateLineNamesEachClass(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "d")
	if code, out, errOut := invoke(t, "demo", "--offline", "--dir", dir, "--headless"); code != cli.ExitOK {
		t.Fatalf("demo: %d\n%s\n%s", code, out, errOut)
	}
	code, out, errOut := invoke(t, "run", dir, "--headless")
	var sum struct {
		Counts map[string]int
		GateC  struct{ Line string } `json:"gate_c"`
	}
	if err := json.Unmarshal([]byte(out), &sum); err != nil || code != cli.ExitOK {
		t.Fatalf("run: exit %d, %v\n%s", code, err, out)
	}
	c := sum.Counts
	if c["invalid"] == 0 || c["blocked"] == 0 || c["mismatch"] == 0 {
		t.Fatalf("the demo lacks a must-not-cite status: %v", c)
	}
	want := fmt.Sprintf("; must not cite: %d invalid, %d blocked, %d mismatch; ", c["invalid"], c["blocked"], c["mismatch"])
	if !strings.Contains(sum.GateC.Line, want) {
		t.Errorf("gate_c.line = %q, want it to contain %q", sum.GateC.Line, want)
	}
	if !strings.Contains(errOut, "citegate: "+sum.GateC.Line+"\n") {
		t.Errorf("stderr lacks the line %q:\n%s", sum.GateC.Line, errOut)
	}
	if lumped := fmt.Sprintf(" %d invalid", c["invalid"]+c["blocked"]+c["mismatch"]); strings.Contains(errOut, lumped) {
		t.Errorf("stderr still counts blocked and mismatch as invalid (%q):\n%s", lumped, errOut)
	}
}

// TestInitThenToolChainUsesRunFixtures (issue 20): after init
// --fixtures-template, the tool commands run one by one work as `run` does:
// validate reads the run's offline-fixtures.json without being told, and
// writes the citations `run` writes.
func TestInitThenToolChainUsesRunFixtures(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	body := "# Costs\n\n## Sources\n\n- https://about.bnef.com/blog/pack-prices/\n- https://www.iea.org/reports/ev-outlook\n"
	if err := os.WriteFile("costs.md", []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"chain", "whole"} {
		if code, out, errOut := invoke(t, "init", name, "--waves", "costs.md", "--fixtures-template"); code != cli.ExitOK {
			t.Fatalf("init: exit %d\n%s\n%s", code, out, errOut)
		}
	}
	m := filepath.Join(dir, "chain", "manifest.json")
	for _, cmd := range []string{"extract", "normalize", "validate"} {
		if code, out, errOut := invoke(t, cmd, "--manifest-path", m, "--reason", "newcomer"); code != cli.ExitOK {
			t.Fatalf("%s: exit %d\n%s\n%s", cmd, code, out, errOut)
		}
	}
	if code, out, errOut := invoke(t, "run", "whole", "--headless"); code != cli.ExitOK {
		t.Fatalf("run: exit %d\n%s\n%s", code, out, errOut)
	}
	// checked_at is each manifest's updated_at, set when init wrote it.
	checkedAt := regexp.MustCompile(`"checked_at":"[^"]*"`)
	chain, err1 := os.ReadFile(filepath.Join("chain", "citations", "citations.jsonl"))
	whole, err2 := os.ReadFile(filepath.Join("whole", "citations", "citations.jsonl"))
	chain, whole = checkedAt.ReplaceAll(chain, nil), checkedAt.ReplaceAll(whole, nil)
	if err1 != nil || err2 != nil || len(chain) == 0 || !bytes.Equal(chain, whole) {
		t.Errorf("validate's citations.jsonl differs from run's (%v, %v):\n%s\n%s", err1, err2, chain, whole)
	}
}

// TestUsageErrorsSuggest: a mistyped command or flag names the one meant.
func TestUsageErrorsSuggest(t *testing.T) {
	for args, want := range map[string]string{"rnu": `did you mean "run"?`, "run --headles": "did you mean --headless?",
		"extract --reasn x": "did you mean --reason?", "help statuse": `did you mean "statuses"?`} {
		code, _, errOut := invoke(t, strings.Fields(args)...)
		if code != cli.ExitUsage || !strings.Contains(errOut, want) {
			t.Errorf("citegate %s: exit %d, stderr %q, want %q", args, code, errOut, want)
		}
	}
}

// TestDemoLeavesNothingBehind: a demo in a temp dir of its own removes it
// on exit; --keep keeps it.
func TestDemoLeavesNothingBehind(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	demos := func() int {
		m, _ := filepath.Glob(filepath.Join(tmp, "citegate-demo-*"))
		return len(m)
	}
	if code, _, errOut := invoke(t, "demo", "--offline", "--headless"); code != cli.ExitOK || demos() != 0 {
		t.Errorf("demo: exit %d, %d demo directories left\n%s", code, demos(), errOut)
	}
	if code, _, errOut := invoke(t, "demo", "--offline", "--headless", "--keep"); code != cli.ExitOK || demos() != 1 {
		t.Errorf("demo --keep: exit %d, %d demo directories\n%s", code, demos(), errOut)
	}
}
