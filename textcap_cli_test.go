package main

import (
	"encoding/json"
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

// TestHugeReasonAndPathStayOutOfEnvelopesAndAudit (issue 21): a 120 KB
// reason is refused (INVALID_ARGS, not echoed, nothing audited) and a
// 120 KB path comes back capped, on the command line and over MCP.
func TestHugeReasonAndPathStayOutOfEnvelopesAndAudit(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	if code, out, errOut := invoke(t, "demo", "--offline", "--dir", dir); code != cli.ExitOK {
		t.Fatalf("demo: %d\n%s\n%s", code, out, errOut)
	}
	manifest := filepath.Join(dir, "manifest.json")
	audit := filepath.Join(dir, "logs", "audit.jsonl")
	auditBefore, _ := os.ReadFile(audit)
	huge := "because " + strings.Repeat("q", 120_000)
	longPath := "/" + strings.Repeat("p", 120_000) + "/manifest.json"
	// small: an envelope that echoes neither the reason nor the path whole.
	small := func(where, text string) {
		t.Helper()
		if len(text) > 4096 || strings.Contains(text, strings.Repeat("q", 1000)) || strings.Contains(text, strings.Repeat("p", 1000)) {
			t.Errorf("%s: %d bytes echo the argument: %.200s", where, len(text), text)
		}
	}

	code, out, errOut := invoke(t, "extract", "--manifest-path", manifest, "--reason", huge)
	if code != cli.ExitFailure || !strings.Contains(out, `"INVALID_ARGS"`) || !strings.Contains(out, "at most 1000 characters") {
		t.Errorf("extract with a 120 KB reason: exit %d\n%.300s", code, out)
	}
	small("extract --reason stdout", out)
	small("extract --reason stderr", errOut)
	code, out, errOut = invoke(t, "run", dir, "--headless", "--reason", huge)
	if code == cli.ExitOK || !strings.Contains(out+errOut, "at most 1000 characters") {
		t.Errorf("run with a 120 KB reason: exit %d\n%.300s\n%.300s", code, out, errOut)
	}
	small("run --reason stdout", out)
	small("run --reason stderr", errOut)
	code, out, errOut = invoke(t, "extract", "--manifest-path", longPath, "--reason", "r")
	if code != cli.ExitFailure || !strings.Contains(out, "…") {
		t.Errorf("extract with a 120 KB path: exit %d\n%.300s", code, out)
	}
	small("extract --manifest-path stdout", out)
	small("extract --manifest-path stderr", errOut)

	var progress atomic.Int32
	cs := mcpClient(t, &engine.Engine{Now: time.Now}, citemcp.Options{Version: "test"}, &progress)
	for _, args := range []map[string]any{
		{"manifest_path": manifest, "reason": huge},
		{"manifest_path": longPath, "reason": "r"},
		{"manifest_path": longPath[1:], "reason": "r"},
	} {
		env, ok := callTool(t, cs, "deep_research_citations_extract_urls", args, nil)
		if ok {
			t.Errorf("extract over MCP with %d/%d-byte arguments succeeded", len(args["manifest_path"].(string)), len(args["reason"].(string)))
		}
		small("MCP extract", mustMarshal(t, env))
	}
	if after, _ := os.ReadFile(audit); len(after) != len(auditBefore) {
		t.Errorf("refused calls added %d bytes to audit.jsonl", len(after)-len(auditBefore))
	}
}

func mustMarshal(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
