package main

import (
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/citegate/citegate/engine"
	"github.com/citegate/citegate/ui/cli"
	citemcp "github.com/citegate/citegate/ui/mcp"
)

// TestMCPDecideNeedsTheOperator: over MCP a client may list decisions, but
// record one only when the operator started the server with
// --allow-decisions; then the decision is the CLI's (same file, audit line
// via mcp), and the operator's roots still bound the run directory.
func TestMCPDecideNeedsTheOperator(t *testing.T) {
	root := t.TempDir()
	d := filepath.Join(root, "d")
	if code, out, errOut := invoke(t, "demo", "--offline", "--headless", "--dir", d); code != cli.ExitOK {
		t.Fatalf("demo: %d\n%s\n%s", code, out, errOut)
	}
	const blocked = "https://www.science.org/doi/10.1126/science.adg7942"
	decide := map[string]any{"run_dir": d, "url": blocked, "status": "valid", "note": "read through the library"}
	var progress atomic.Int32
	off := mcpClient(t, &engine.Engine{Now: time.Now}, citemcp.Options{Version: "test"}, &progress)
	env, ok := callTool(t, off, "deep_research_citations_decide", decide, nil)
	if e, _ := env["error"].(map[string]any); ok || e["code"] != "INVALID_ARGS" || !strings.Contains(e["message"].(string), "--allow-decisions") {
		t.Fatalf("decide without the operator's consent: %v", env)
	}
	if _, err := os.Stat(filepath.Join(d, engine.DecisionsFile)); err == nil {
		t.Fatal("a refused decision wrote the decisions file")
	}
	if env, ok := callTool(t, off, "deep_research_citations_decide", map[string]any{"run_dir": d, "list": true}, nil); !ok || env["action"] != "listed" {
		t.Fatalf("list: %v", env)
	}

	on := mcpClient(t, &engine.Engine{Now: time.Now}, citemcp.Options{Version: "test", AllowDecisions: true}, &progress)
	env, ok = callTool(t, on, "deep_research_citations_decide", decide, nil)
	if !ok || env["action"] != "decided" {
		t.Fatalf("decide with --allow-decisions: %v", env)
	}
	audit, err := os.ReadFile(filepath.Join(d, "logs", "audit.jsonl"))
	if err != nil || !strings.Contains(string(audit), `"via":"mcp"`) || !strings.Contains(string(audit), `"who":"mcp-client"`) {
		t.Errorf("audit does not say the decision came over MCP (%v)", err)
	}

	other := filepath.Join(t.TempDir(), "elsewhere")
	if err := os.MkdirAll(other, 0o755); err != nil {
		t.Fatal(err)
	}
	bounded := mcpClient(t, &engine.Engine{Now: time.Now}, citemcp.Options{Version: "test", AllowDecisions: true,
		Bounds: citemcp.Boundaries{Roots: []string{other}}}, &progress)
	env, ok = callTool(t, bounded, "deep_research_citations_decide", map[string]any{"run_dir": d, "url": blocked, "undo": true}, nil)
	if e, _ := env["error"].(map[string]any); ok || e["code"] != "INVALID_ARGS" || !strings.Contains(e["message"].(string), "--root") {
		t.Errorf("decide outside the operator's roots: %v", env)
	}
}
