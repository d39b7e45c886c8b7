package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/citegate/citegate/engine"
	"github.com/citegate/citegate/engine/simweb"
	"github.com/citegate/citegate/ui/cli"
	citemcp "github.com/citegate/citegate/ui/mcp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// mcpClient connects the SDK's own client to a citegate MCP server over
// in-memory transports; progress counts the notifications it receives.
func mcpClient(t *testing.T, e *engine.Engine, o citemcp.Options, progress *atomic.Int32) *mcp.ClientSession {
	t.Helper()
	srv, err := citemcp.NewServer(e, o)
	if err != nil {
		t.Fatal(err)
	}
	st, ct := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(context.Context, *mcp.ProgressNotificationClientRequest) { progress.Add(1) }})
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// callTool calls a tool and returns its envelope.
func callTool(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any, token any) (map[string]any, bool) {
	t.Helper()
	p := &mcp.CallToolParams{Name: name, Arguments: args}
	if token != nil {
		p.SetProgressToken(token)
	}
	res, err := cs.CallTool(context.Background(), p)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if len(res.Content) != 1 {
		t.Fatalf("%s: %d content items", name, len(res.Content))
	}
	text, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("%s: content %T", name, res.Content[0])
	}
	var env map[string]any
	if err := json.Unmarshal([]byte(text.Text), &env); err != nil {
		t.Fatalf("%s: not a JSON envelope: %v\n%s", name, err, text.Text)
	}
	// verify_citations answers seed 002's shape, which has no "ok".
	if ok, present := env["ok"]; (present && ok != !res.IsError) || (!present && res.IsError) {
		t.Errorf("%s: ok=%v but isError=%v", name, env["ok"], res.IsError)
	}
	return env, !res.IsError
}

// TestMCPToolsMatchTheCLI (issue 14): an MCP client lists the tools, calls the
// five pipeline tools in order on one copy of the demo run and gets the
// artifacts `run` wrote on another, with progress notifications for validate;
// bad arguments come back as INVALID_ARGS envelopes.
func TestMCPToolsMatchTheCLI(t *testing.T) {
	a := filepath.Join(t.TempDir(), "a")
	b := filepath.Join(t.TempDir(), "b")
	for _, d := range []string{a, b} {
		if code, out, errOut := invoke(t, "demo", "--offline", "--dir", d); code != cli.ExitOK {
			t.Fatalf("demo: %d\n%s\n%s", code, out, errOut)
		}
	}
	var progress atomic.Int32
	cs := mcpClient(t, &engine.Engine{Now: time.Now}, citemcp.Options{Version: "test"}, &progress)
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
	}
	slices.Sort(names)
	want := []string{"deep_research_citations_decide", "deep_research_citations_extract_urls", "deep_research_citations_init", "deep_research_citations_normalize", "deep_research_citations_render_md",
		"deep_research_citations_run", "deep_research_citations_validate", "deep_research_gate_c_compute", "verify_citations"}
	if !slices.Equal(names, want) {
		t.Fatalf("tools %v, want %v", names, want)
	}
	m := filepath.Join(b, "manifest.json")
	for _, step := range []struct {
		name string
		args map[string]any
	}{
		{"deep_research_citations_extract_urls", map[string]any{"manifest_path": m, "reason": "mcp"}},
		{"deep_research_citations_normalize", map[string]any{"manifest_path": m, "reason": "mcp"}},
		{"deep_research_citations_validate", map[string]any{"manifest_path": m, "reason": "mcp", "offline_fixtures_path": filepath.Join(b, "offline-fixtures.json")}},
		{"deep_research_gate_c_compute", map[string]any{"manifest_path": m, "reason": "mcp", "write": true}},
		{"deep_research_citations_render_md", map[string]any{"manifest_path": m, "reason": "mcp"}},
	} {
		if env, ok := callTool(t, cs, step.name, step.args, "tok-"+step.name); !ok {
			t.Fatalf("%s: %v", step.name, env)
		}
	}
	for _, f := range []string{"extracted-urls.txt", "found-by.json", "normalized-urls.txt", "url-map.json", "citations.jsonl", "validated-citations.md"} {
		da, _ := os.ReadFile(filepath.Join(a, "citations", f))
		db, _ := os.ReadFile(filepath.Join(b, "citations", f))
		if len(da) == 0 || !bytes.Equal(bytes.ReplaceAll(da, []byte(a), []byte("ROOT")), bytes.ReplaceAll(db, []byte(b), []byte("ROOT"))) {
			t.Errorf("%s differs between `run` and the MCP tool chain", f)
		}
	}
	if n := progress.Load(); n < 3 {
		t.Errorf("%d progress notifications for validate's 30 URLs", n)
	}
	if env, ok := callTool(t, cs, "deep_research_citations_run", map[string]any{"manifest_path": m}, nil); !ok || env["gate_c"] == nil {
		t.Errorf("run tool: %v", env)
	}
	for _, bad := range []map[string]any{
		{"manifest_path": m, "reason": "x", "surprise": 1},
		{"manifest_path": "relative/manifest.json", "reason": "x"},
		{"reason": "x"},
	} {
		env, ok := callTool(t, cs, "deep_research_citations_extract_urls", bad, nil)
		e, _ := env["error"].(map[string]any)
		if ok || e["code"] != "INVALID_ARGS" {
			t.Errorf("arguments %v: %v", bad, env)
		}
	}
}

// TestMCPValidateUsesRunFixtures (issue 20): over MCP too, validate in
// offline mode without offline_fixtures_path reads the run's own
// offline-fixtures.json, as run does; the default is the run directory's
// file, not a path the client names.
func TestMCPValidateUsesRunFixtures(t *testing.T) {
	d := filepath.Join(t.TempDir(), "d")
	if code, out, errOut := invoke(t, "demo", "--offline", "--dir", d); code != cli.ExitOK {
		t.Fatalf("demo: %d\n%s\n%s", code, out, errOut)
	}
	ran, err := os.ReadFile(filepath.Join(d, "citations", "citations.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(d, "citations", "citations.jsonl")); err != nil {
		t.Fatal(err)
	}
	var progress atomic.Int32
	cs := mcpClient(t, &engine.Engine{Now: time.Now}, citemcp.Options{Version: "test"}, &progress)
	m := filepath.Join(d, "manifest.json")
	for _, name := range []string{"deep_research_citations_extract_urls", "deep_research_citations_normalize", "deep_research_citations_validate"} {
		if env, ok := callTool(t, cs, name, map[string]any{"manifest_path": m, "reason": "mcp"}, nil); !ok {
			t.Fatalf("%s: %v", name, env)
		}
	}
	got, err := os.ReadFile(filepath.Join(d, "citations", "citations.jsonl"))
	if err != nil || !bytes.Equal(got, ran) {
		t.Errorf("validate over MCP wrote other citations than the demo's run (%v):\n%s\nwant\n%s", err, got, ran)
	}
}

// TestMCPVerifyCitationsFetchNeedsTheOperator: verify_citations, against the
// simulated web, fetches a cited source only when the operator allowed it
// (citegate mcp --allow-fetch); a client's allow_fetch:true alone is refused.
func TestMCPVerifyCitationsFetchNeedsTheOperator(t *testing.T) {
	w, err := simweb.Start(simweb.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	var article simweb.Scenario
	for _, sc := range w.Catalogue() {
		if sc.Name == "news-article" {
			article = sc
		}
	}
	if article.URL == "" {
		t.Fatal("no news-article scenario")
	}
	e := &engine.Engine{Now: time.Now, GuardOptions: w.GuardOptions()}
	output := "The council voted to fund a light-rail line and rapid bus routes [1].\n\n## Sources\n\n1. " + article.URL + "\n"
	args := map[string]any{"output": output, "model": "lexical", "allow_fetch": true}
	var progress atomic.Int32
	u, err := url.Parse(article.URL)
	if err != nil {
		t.Fatal(err)
	}
	host := u.Hostname()
	for _, operator := range []bool{false, true} {
		w.Reset()
		cs := mcpClient(t, e, citemcp.Options{Version: "test", AllowFetch: operator}, &progress)
		env, ok := callTool(t, cs, "verify_citations", args, nil)
		if !ok {
			t.Fatalf("verify_citations: %v", env)
		}
		cites, _ := env["citations"].([]any)
		if len(cites) != 1 {
			t.Fatalf("operator %v: %d citations: %v", operator, len(cites), env)
		}
		status := cites[0].(map[string]any)["resolve_status"]
		if want := map[bool]string{false: "error", true: "ok"}[operator]; status != want {
			t.Errorf("operator allows fetch %v: resolve_status %v, want %s", operator, status, want)
		}
		if fetched := w.Requests(host) > 0; fetched != operator {
			t.Errorf("operator allows fetch %v: the simulated web saw a request: %v", operator, fetched)
		}
	}
}

// TestMCPCommandOverStdio drives `citegate mcp` itself: JSON-RPC in on stdin,
// JSON-RPC only on stdout, exit 0 when the client closes stdin.
func TestMCPCommandOverStdio(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var errb bytes.Buffer
	code := make(chan int, 1)
	go func() {
		code <- run(context.Background(), []string{"mcp"}, cli.Streams{In: inR, Out: outW, Err: &errb})
		_ = outW.Close()
	}()
	send := func(msg string) {
		if _, err := io.WriteString(inW, msg+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	lines := bufio.NewScanner(outR)
	lines.Buffer(make([]byte, 1<<20), 1<<20)
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if !lines.Scan() || !strings.Contains(lines.Text(), `"serverInfo":{"name":"citegate"`) {
		t.Fatalf("initialize answer: %q", lines.Text())
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	if !lines.Scan() || !strings.Contains(lines.Text(), `"verify_citations"`) {
		t.Fatalf("tools/list answer: %q", lines.Text())
	}
	_ = inW.Close()
	for lines.Scan() {
		t.Errorf("stdout carries more than JSON-RPC answers: %q", lines.Text())
	}
	select {
	case c := <-code:
		if c != cli.ExitOK {
			t.Errorf("exit %d after the client closed stdin\n%s", c, errb.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the server did not stop when stdin closed")
	}
}
