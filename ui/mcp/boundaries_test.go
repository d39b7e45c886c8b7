package mcp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/citegate/citegate/engine"
	"github.com/citegate/citegate/engine/verify"
)

func ptr[T any](v T) *T { return &v }

// TestVerifyArgsNarrowNeverWiden: every cap a client passes is clamped to
// the operator's ceiling (verify's default when the operator set none); a
// smaller one is kept.
func TestVerifyArgsNarrowNeverWiden(t *testing.T) {
	op := Boundaries{MaxCitations: 5, PerSourceTimeoutMS: 2000, PerSourceMaxBytes: 1 << 20, MaxCostUSDTotal: ptr(0.25)}
	tests := []struct {
		name   string
		b      Boundaries
		client verifyArgs
		want   verify.Args
	}{
		{"defaults, client silent", Boundaries{}, verifyArgs{},
			verify.Args{MaxCitations: 20, PerSourceTimeoutMS: 10000, PerSourceMaxBytes: 5 << 20, MaxCostUSDTotal: ptr(1.0)}},
		{"defaults, client widens", Boundaries{}, verifyArgs{MaxCitations: 50, PerSourceTimeoutMS: 600000, PerSourceMaxBytes: 128 << 20, MaxCostUSDTotal: ptr(100.0)},
			verify.Args{MaxCitations: 20, PerSourceTimeoutMS: 10000, PerSourceMaxBytes: 5 << 20, MaxCostUSDTotal: ptr(1.0)}},
		{"operator, client widens", op, verifyArgs{MaxCitations: 50, PerSourceTimeoutMS: 60000, PerSourceMaxBytes: 600 << 20, MaxCostUSDTotal: ptr(5.0)},
			verify.Args{MaxCitations: 5, PerSourceTimeoutMS: 2000, PerSourceMaxBytes: 1 << 20, MaxCostUSDTotal: ptr(0.25)}},
		{"operator, client narrows", op, verifyArgs{MaxCitations: 2, PerSourceTimeoutMS: 500, PerSourceMaxBytes: 1000, MaxCostUSDTotal: ptr(0.0)},
			verify.Args{MaxCitations: 2, PerSourceTimeoutMS: 500, PerSourceMaxBytes: 1000, MaxCostUSDTotal: ptr(0.0)}},
		{"negative means the ceiling", op, verifyArgs{MaxCitations: -1, PerSourceTimeoutMS: -5, PerSourceMaxBytes: -9},
			verify.Args{MaxCitations: 5, PerSourceTimeoutMS: 2000, PerSourceMaxBytes: 1 << 20, MaxCostUSDTotal: ptr(0.25)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.client.Model = "lexical"
			got, err := (&policy{b: tt.b}).verifyArgs(tt.client)
			if err != nil {
				t.Fatal(err)
			}
			if got.MaxCitations != tt.want.MaxCitations || got.PerSourceTimeoutMS != tt.want.PerSourceTimeoutMS ||
				got.PerSourceMaxBytes != tt.want.PerSourceMaxBytes || *got.MaxCostUSDTotal != *tt.want.MaxCostUSDTotal {
				t.Errorf("got citations %d timeout %d bytes %d cost %v, want %d %d %d %v", got.MaxCitations, got.PerSourceTimeoutMS,
					got.PerSourceMaxBytes, *got.MaxCostUSDTotal, tt.want.MaxCitations, tt.want.PerSourceTimeoutMS, tt.want.PerSourceMaxBytes, *tt.want.MaxCostUSDTotal)
			}
		})
	}
}

// TestVerifyJudgeCapsNarrowNeverWiden: a client may ask for a shorter
// judge timeout and fewer parallel judge calls than the operator's
// ceilings (or equal ones), never more; unset, it gets the ceiling.
func TestVerifyJudgeCapsNarrowNeverWiden(t *testing.T) {
	op := Boundaries{JudgeTimeoutMS: 5000, JudgeConcurrency: 2}
	for _, tt := range []struct {
		name                         string
		b                            Boundaries
		timeout, concurrency         int
		wantTimeout, wantConcurrency int
	}{
		{"defaults, client silent", Boundaries{}, 0, 0, 60000, 4},
		{"defaults, client widens", Boundaries{}, 600000, 32, 60000, 4},
		{"defaults, client narrows", Boundaries{}, 1500, 1, 1500, 1},
		{"operator, client silent", op, 0, 0, 5000, 2},
		{"operator, client widens", op, 60000, 8, 5000, 2},
		{"operator, client equal", op, 5000, 2, 5000, 2},
		{"operator, client narrows", op, 100, 1, 100, 1},
		{"negative means the ceiling", op, -1, -3, 5000, 2},
		{"operator above the hard cap", Boundaries{JudgeConcurrency: 100}, 0, 64, 60000, 32},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := (&policy{b: tt.b}).verifyArgs(verifyArgs{Model: "lexical", JudgeTimeoutMS: tt.timeout, JudgeConcurrency: tt.concurrency})
			if err != nil {
				t.Fatal(err)
			}
			if got.JudgeTimeoutMS != tt.wantTimeout || got.JudgeConcurrency != tt.wantConcurrency {
				t.Errorf("judge timeout %d, concurrency %d; want %d, %d", got.JudgeTimeoutMS, got.JudgeConcurrency, tt.wantTimeout, tt.wantConcurrency)
			}
		})
	}
}

// TestVerifyFetchNeedsTheOperator: allow_fetch is the operator's switch; a
// client may only turn it off.
func TestVerifyFetchNeedsTheOperator(t *testing.T) {
	for _, tt := range []struct {
		operator bool
		client   *bool
		want     bool
	}{{false, nil, false}, {false, ptr(true), false}, {true, nil, true}, {true, ptr(false), false}, {true, ptr(true), true}} {
		got, err := (&policy{allowFetch: tt.operator}).verifyArgs(verifyArgs{Model: "lexical", AllowFetch: tt.client})
		if err != nil || got.AllowFetch != tt.want {
			t.Errorf("operator %v client %v: AllowFetch %v (%v), want %v", tt.operator, tt.client, got.AllowFetch, err, tt.want)
		}
	}
}

// TestJudgeEndpoints: a base_url is accepted only for an openai-compatible
// judge and only when the operator listed it (compared as the judge uses
// it); the anthropic and openai judges take none.
func TestJudgeEndpoints(t *testing.T) {
	b := Boundaries{JudgeBaseURLs: []string{"http://127.0.0.1:8080", "https://llm.internal.example/api/"}}
	tests := []struct {
		model, provider, base string
		ok                    bool
	}{
		{"lexical", "", "", true},
		{"claude-haiku-4-5-20251001", "", "", true},
		{"gpt-4o-mini", "openai", "", true},
		{"llama3.1", "openai-compatible", "http://127.0.0.1:8080", true},
		{"llama3.1", "", "http://127.0.0.1:8080/v1", true},
		{"llama3.1", "", "HTTP://127.0.0.1:8080/", true},
		{"llama3.1", "openai-compatible", "https://llm.internal.example/api/v1", true},
		{"llama3.1", "openai-compatible", "https://evil.example", false},
		{"llama3.1", "openai-compatible", "http://127.0.0.1:8081", false},
		{"llama3.1", "openai-compatible", "http://127.0.0.1:8080/other", false},
		{"llama3.1", "openai-compatible", "http://user@127.0.0.1:8080", false},
		{"claude-haiku-4-5-20251001", "anthropic", "http://127.0.0.1:8080", false},
		{"claude-haiku-4-5-20251001", "", "https://evil.example", false},
		{"gpt-4o-mini", "openai", "https://evil.example", false},
		// The base URL, not the model id, names the provider (issue 23): a
		// model the operator's endpoint serves may look like OpenAI's.
		{"gpt-4o-mini", "", "http://127.0.0.1:8080", true},
		{"gpt-4o-mini", "", "https://api.openai.com", false},
		{"anything", "OpenAI-Compatible", "https://evil.example", false},
		// Ollama's native API: listed endpoints only, its default address
		// included when the client names no base_url.
		{"gpt-oss:20b", "ollama", "http://127.0.0.1:8080", true},
		{"gpt-oss:20b", "ollama", "https://evil.example", false},
		{"gpt-oss:20b", "ollama", "", false},
		{"gpt-oss:20b", "", "http://127.0.0.1:11434", false},
	}
	for _, tt := range tests {
		err := (&policy{b: b}).judgeEndpoint(tt.model, tt.provider, tt.base)
		if (err == nil) != tt.ok {
			t.Errorf("%s %q %q: %v, want ok=%v", tt.model, tt.provider, tt.base, err, tt.ok)
		}
	}
	ollama := Boundaries{JudgeBaseURLs: []string{"http://127.0.0.1:11434"}}
	for _, base := range []string{"", "http://127.0.0.1:11434"} {
		if err := (&policy{b: ollama}).judgeEndpoint("gpt-oss:20b", "ollama", base); err != nil {
			t.Errorf("ollama at the listed default address (base %q): %v", base, err)
		}
	}
	if err := (&policy{}).judgeEndpoint("llama3.1", "openai-compatible", "http://127.0.0.1:8080"); err == nil ||
		!strings.Contains(err.Error(), "--judge-base-url") {
		t.Errorf("no list: %v, want a refusal naming --judge-base-url", err)
	}
}

// TestClientDomainsOnlyNarrow: with an operator allowlist a client's
// entries must lie under it (the guard's list is a union); without one a
// client's list only narrows the open web.
func TestClientDomainsOnlyNarrow(t *testing.T) {
	op := &policy{b: Boundaries{DomainAllowlist: []string{"example.org", ".Wiki.Example.COM."}}}
	for _, tt := range []struct {
		p      *policy
		client []string
		ok     bool
	}{
		{op, nil, true},
		{op, []string{"example.org"}, true},
		{op, []string{"docs.example.org", "a.wiki.example.com"}, true},
		{op, []string{"badexample.org"}, false},
		{op, []string{"example.org", "evil.example"}, false},
		{op, []string{"example.com"}, false},
		{&policy{}, []string{"evil.example"}, true},
	} {
		if err := tt.p.domains(tt.client); (err == nil) != tt.ok {
			t.Errorf("operator %v client %v: %v, want ok=%v", tt.p.b.DomainAllowlist, tt.client, err, tt.ok)
		}
	}
}

// writeRun writes a run directory whose manifest is the demo's, rooted at
// root with the given gates_file, and returns the manifest's path.
func writeRun(t *testing.T, root, gates string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(root, "citations"), 0o755); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "demo", "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	art := m["artifacts"].(map[string]any)
	art["root"] = root
	art["paths"].(map[string]any)["gates_file"] = gates
	if data, err = json.Marshal(m); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(root, "manifest.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := engine.LoadRun(path); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestAdmitPaths: every path a pipeline tool names lies inside the run root
// (symlinks resolved, no ".."), the manifest too, and the run's root under
// an operator root when any is set.
func TestAdmitPaths(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "run")
	m := writeRun(t, root, "gates.json")
	outside := filepath.Join(base, "outside")
	if err := os.MkdirAll(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "f.json"), filepath.Join(root, "citations", "leaf.json")); err != nil {
		t.Fatal(err)
	}
	in := func(p ...string) string { return filepath.Join(append([]string{root}, p...)...) }
	open := &policy{}
	rooted := &policy{b: Boundaries{Roots: []string{outside}}}
	tests := []struct {
		name string
		p    *policy
		args any
		ok   bool
	}{
		{"extract defaults", open, engine.ExtractArgs{ManifestPath: m}, true},
		{"extract inside", open, engine.ExtractArgs{ManifestPath: m, ExtractedURLsPath: in("citations", "x.txt")}, true},
		{"extract outside", open, engine.ExtractArgs{ManifestPath: m, FoundByPath: filepath.Join(outside, "f.json")}, false},
		{"extract dotdot", open, engine.ExtractArgs{ManifestPath: m, ExtractedURLsPath: root + "/citations/../x.txt"}, false},
		{"extract symlinked dir", open, engine.ExtractArgs{ManifestPath: m, ExtractedURLsPath: in("link", "x.txt")}, false},
		{"extract symlinked leaf", open, engine.ExtractArgs{ManifestPath: m, ExtractedURLsPath: in("citations", "leaf.json")}, false},
		{"normalize input outside", open, engine.NormalizeArgs{ManifestPath: m, ExtractedURLsPath: "/etc/hostname"}, false},
		{"normalize output outside", open, engine.NormalizeArgs{ManifestPath: m, URLMapPath: filepath.Join(outside, "m.json")}, false},
		{"validate fixtures outside", open, engine.ValidateArgs{ManifestPath: m, OfflineFixturesPath: filepath.Join(outside, "fx.json")}, false},
		{"validate fixtures inside", open, engine.ValidateArgs{ManifestPath: m, OfflineFixturesPath: in("offline-fixtures.json")}, true},
		{"gate-c input outside", open, engine.GateCArgs{ManifestPath: m, CitationsPath: filepath.Join(outside, "c.jsonl")}, false},
		{"render output outside", open, engine.RenderArgs{ManifestPath: m, OutputMDPath: filepath.Join(outside, "r.md")}, false},
		{"run fixtures outside", open, engine.RunArgs{ManifestPath: m, OnlineFixturesPath: filepath.Join(outside, "o.json")}, false},
		{"run dir", open, engine.RunArgs{RunDir: root}, true},
		{"run outside the operator's roots", rooted, engine.RunArgs{ManifestPath: m}, false},
		{"init outside the operator's roots", rooted, engine.InitArgs{Dir: root}, false},
		{"init inside the operator's roots", rooted, engine.InitArgs{Dir: filepath.Join(outside, "new")}, true},
		{"verify has no paths", open, verifyArgs{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.p.admit(tt.args)
			if (err == nil) != tt.ok {
				t.Fatalf("admit: %v, want ok=%v", err, tt.ok)
			}
			if err != nil && engine.AsError(err).Code != engine.CodeInvalidArgs {
				t.Errorf("code %s, want INVALID_ARGS", engine.AsError(err).Code)
			}
		})
	}
	// A manifest whose gates file leaves the run: refused when the call
	// writes it, not when it only reads.
	root2 := filepath.Join(base, "run2")
	m2 := writeRun(t, root2, filepath.Join(outside, "gates.json"))
	if err := open.admit(engine.GateCArgs{ManifestPath: m2, Write: true}); err == nil {
		t.Error("gate-c write to a gates file outside the run was admitted")
	}
	if err := open.admit(engine.GateCArgs{ManifestPath: m2}); err != nil {
		t.Errorf("gate-c without write: %v", err)
	}
}

// TestOnlineGate: without the operator's consent an online run is refused
// with the way to enable it; with it, nothing is refused.
func TestOnlineGate(t *testing.T) {
	err := (&policy{}).onlineGate("run-config.effective.citations")
	if err == nil || !strings.Contains(err.Error(), "citegate mcp --allow-fetch") || !strings.Contains(err.Error(), "online_dry_run") {
		t.Errorf("without consent: %v", err)
	}
	if err := (&policy{allowFetch: true}).onlineGate("unset"); err != nil {
		t.Errorf("with consent: %v", err)
	}
}

// TestInitWritesOnlyRunDirectories: without the operator's --root, a
// client's init may create a run, fill an empty directory or re-initialise
// a run, never write into some other directory.
func TestInitWritesOnlyRunDirectories(t *testing.T) {
	base := t.TempDir()
	run := filepath.Join(base, "run")
	writeRun(t, run, "gates.json")
	other := filepath.Join(base, "project")
	if err := os.MkdirAll(other, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(other, "notes.md"), []byte("# mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(base, "empty")
	if err := os.MkdirAll(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	p := newPolicy(Options{})
	for dir, ok := range map[string]bool{filepath.Join(base, "new"): true, empty: true, run: true, other: false} {
		err := p.admit(initArgs{Dir: dir, Force: true})
		if (err == nil) != ok {
			t.Errorf("init into %s: %v, want admitted=%v", dir, err, ok)
		}
	}
}
