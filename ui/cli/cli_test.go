package cli

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseMergesArgsJSONAndFlags(t *testing.T) {
	c, err := Parse([]string{"validate",
		"--args-json", `{"manifest_path":"/r/manifest.json","reason":"from json","online_dry_run":false,"url_map_path":"/r/m.json"}`,
		"--reason", "from flag", "--online-dry-run"})
	if err != nil {
		t.Fatal(err)
	}
	a := c.Validate
	if a.ManifestPath != "/r/manifest.json" || a.URLMapPath != "/r/m.json" {
		t.Errorf("args-json keys lost: %+v", a)
	}
	if a.Reason != "from flag" {
		t.Errorf("flag did not override args-json: reason = %q", a.Reason)
	}
	if a.OnlineDryRun == nil || !*a.OnlineDryRun {
		t.Errorf("--online-dry-run did not override args-json false: %v", a.OnlineDryRun)
	}
}

func TestParseTriStateBools(t *testing.T) {
	tests := []struct {
		args []string
		want *bool
	}{
		{[]string{"extract"}, nil},
		{[]string{"extract", "--include-wave2=false"}, new(bool)},
		{[]string{"extract", "--args-json", `{"include_wave2":false}`}, new(bool)},
	}
	for _, tt := range tests {
		c, err := Parse(append(tt.args, "--manifest-path", "/r/manifest.json", "--reason", "r"))
		if err != nil {
			t.Fatal(err)
		}
		got := c.Extract.IncludeWave2
		if (got == nil) != (tt.want == nil) || (got != nil && *got != *tt.want) {
			t.Errorf("Parse(%q).IncludeWave2 = %v, want %v", tt.args, got, tt.want)
		}
	}
}

func TestParseSourceTitles(t *testing.T) {
	tests := []struct {
		args []string
		want []string // nil: not given
	}{
		{[]string{"extract"}, nil},
		{[]string{"extract", "--source-titles", "References,Bibliography"}, []string{"References", "Bibliography"}},
		{[]string{"extract", "--source-titles", " References ", "--source-titles", "Works cited"}, []string{"References", "Works cited"}},
		{[]string{"extract", "--args-json", `{"source_section_titles":["Notes, sources"]}`}, []string{"Notes, sources"}},
		{[]string{"extract", "--args-json", `{"source_section_titles":["A"]}`, "--source-titles", "B"}, []string{"B"}},
		{[]string{"run", "--source-titles", "参考文献,Quellen"}, []string{"参考文献", "Quellen"}},
	}
	for _, tt := range tests {
		c, err := Parse(append(tt.args, "--manifest-path", "/r/manifest.json", "--reason", "r"))
		if err != nil {
			t.Fatalf("Parse(%q): %v", tt.args, err)
		}
		got := c.Extract.SourceTitles
		if c.Name == "run" {
			got = c.Run.SourceTitles
		}
		if (got == nil) != (tt.want == nil) || strings.Join(got, "|") != strings.Join(tt.want, "|") {
			t.Errorf("Parse(%q) titles = %q, want %q", tt.args, got, tt.want)
		}
	}
	for _, bad := range []string{"References,,Bibliography", " ", "References,"} {
		_, err := Parse([]string{"extract", "--manifest-path", "/r/manifest.json", "--reason", "r", "--source-titles", bad})
		var ue *UsageError
		if !errors.As(err, &ue) {
			t.Errorf("--source-titles %q: %v, want a usage error", bad, err)
		}
	}
}

func TestParseRunDirectory(t *testing.T) {
	c, err := Parse([]string{"run", "some/run", "--headless"})
	if err != nil {
		t.Fatal(err)
	}
	want, _ := filepath.Abs("some/run/manifest.json")
	if c.Run.ManifestPath != want || !c.Headless {
		t.Errorf("run dir: manifest %q headless %v, want %q true", c.Run.ManifestPath, c.Headless, want)
	}
}

func TestParseUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		nil,
		{"nope"},
		{"gate-c", "--write=maybe"},
		{"render", "--args-json", `[1,2]`},
		{"render", "--args-json", `{"reason":"x"} {}`},
		{"demo", "--args-json", `{}`}, // demo takes no args-json
		{"run", "a", "b"},
	} {
		_, err := Parse(args)
		var ue *UsageError
		if !errors.As(err, &ue) {
			t.Errorf("Parse(%q) = %v, want *UsageError", args, err)
		}
	}
}

func TestCommandUsageListsEveryFlag(t *testing.T) {
	u := CommandUsage("validate")
	for _, f := range []string{"-manifest-path", "-url-map-path", "-citations-path", "-offline-fixtures-path",
		"-online-fixtures-path", "-online-dry-run", "-reason", "-args-json", "exit codes:"} {
		if !strings.Contains(u, f) {
			t.Errorf("validate usage lacks %q:\n%s", f, u)
		}
	}
}

func TestParseNetFlags(t *testing.T) {
	c, err := Parse([]string{"run", "/r", "--allow-cidr", "10.0.0.0/8", "--allow-cidr", "192.168.1.7/32",
		"--domain-allowlist", "Example.COM.", "--resolve", "news.example.com:443:93.184.216.34", "--allow-port", "8443"})
	if err != nil {
		t.Fatal(err)
	}
	opts, err := c.Net.Options()
	if err != nil || len(opts) != 5 {
		t.Fatalf("options = %d, %v", len(opts), err)
	}
	for _, args := range [][]string{
		{"validate", "--allow-cidr", "10.0.0.0/33"},
		{"validate", "--allow-cidr", "intranet"},
		{"run", "--resolve", "news.example.com:443"},
		{"run", "--resolve", "news.example.com:http:1.2.3.4"},
		{"run", "--domain-allowlist", " . "},
		{"run", "--allow-port", "0"},
		{"run", "--allow-port", "http"},
	} {
		var ue *UsageError
		if _, err := Parse(args); !errors.As(err, &ue) {
			t.Errorf("Parse(%q) = %v, want a usage error", args, err)
		}
	}
}

// TestParseRequiredArgs: a tool command's required arguments may come from
// flags or --args-json; absent or blank they are a usage error naming them.
func TestParseRequiredArgs(t *testing.T) {
	ok := [][]string{
		{"gate-c", "--manifest-path", "/r/manifest.json", "--reason", "r"},
		{"gate-c", "--args-json", `{"manifest_path":"/r/manifest.json","reason":"r"}`},
		{"gate-c", "--args-json", `{"manifest_path":"/r/manifest.json"}`, "--reason", "r"},
		{"verify", "--output-file", "-", "--model", "lexical"},
		{"verify", "--output-file", "-", "--args-json", `{"model":"lexical"}`},
		{"run", "/r"}, // run and demo have defaults for everything
		{"demo"},
	}
	for _, args := range ok {
		if _, err := Parse(args); err != nil {
			t.Errorf("Parse(%q) = %v", args, err)
		}
	}
	bad := []struct {
		args []string
		want string
	}{
		{[]string{"gate-c"}, "--manifest-path (manifest_path in --args-json), --reason (reason in --args-json)"},
		{[]string{"gate-c", "--manifest-path", "/r/manifest.json", "--reason", " \t"}, "--reason (reason in --args-json)"},
		{[]string{"gate-c", "--args-json", `{"manifest_path":"","reason":"r"}`}, "--manifest-path (manifest_path in --args-json)"},
		{[]string{"verify", "--model", "lexical"}, "--output-file"},
		{[]string{"verify", "--output-file", "-"}, "--model (model in --args-json)"},
	}
	for _, tt := range bad {
		_, err := Parse(tt.args)
		var ue *UsageError
		if !errors.As(err, &ue) || ue.Msg != "missing required argument: "+tt.want {
			t.Errorf("Parse(%q) = %v, want missing %s", tt.args, err, tt.want)
		}
	}
}
