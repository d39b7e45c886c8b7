package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/citegate/citegate/ui/cli"
)

// rawStdio is `citegate mcp` run in-process on pipes: what a client
// writes is its stdin, each line it prints is one JSON-RPC message.
type rawStdio struct {
	t     *testing.T
	in    *io.PipeWriter
	lines chan string
	code  chan int
	errb  *bytes.Buffer
}

func startStdio(t *testing.T, args ...string) *rawStdio {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	s := &rawStdio{t: t, in: inW, lines: make(chan string, 64), code: make(chan int, 1), errb: &bytes.Buffer{}}
	go func() {
		s.code <- run(context.Background(), append([]string{"mcp"}, args...), cli.Streams{In: inR, Out: outW, Err: s.errb})
		_ = outW.Close()
	}()
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			s.lines <- sc.Text()
		}
		close(s.lines)
	}()
	t.Cleanup(func() { _ = inW.Close() })
	return s
}

// send writes one line (a newline is added).
func (s *rawStdio) send(line string) {
	s.t.Helper()
	if _, err := io.WriteString(s.in, line+"\n"); err != nil {
		s.t.Fatalf("write: %v", err)
	}
}

// recv is the server's next message, decoded; it fails the test when the
// server says nothing within 20 s or has stopped.
func (s *rawStdio) recv() map[string]any {
	s.t.Helper()
	select {
	case line, ok := <-s.lines:
		if !ok {
			s.t.Fatalf("the server stopped (stderr: %s)", s.errb.String())
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			s.t.Fatalf("not one JSON message per line: %v\n%.300s", err, line)
		}
		return m
	case <-time.After(20 * time.Second):
		s.t.Fatal("no answer within 20 s")
	}
	return nil
}

// initialize runs the MCP handshake.
func (s *rawStdio) initialize() {
	s.t.Helper()
	s.send(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if m := s.recv(); m["result"] == nil {
		s.t.Fatalf("initialize: %v", m)
	}
	s.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

// stop closes stdin and returns the exit code.
func (s *rawStdio) stop() int {
	s.t.Helper()
	_ = s.in.Close()
	for range s.lines {
	}
	select {
	case c := <-s.code:
		return c
	case <-time.After(10 * time.Second):
		s.t.Fatal("the server did not stop when stdin closed")
	}
	return -1
}

// TestMCPStdioSurvivesBadLines (issue 21): every malformed line gets a
// JSON-RPC error reply — -32700 for a line that is not JSON, -32600 for JSON
// that is not one JSON-RPC message and for a line over the cap — and the
// session keeps serving: a ping after each bad line is answered, and closing
// stdin still exits 0. The SDK's own transport ended the session (exit 1)
// on the first such line with no reply.
func TestMCPStdioSurvivesBadLines(t *testing.T) {
	s := startStdio(t)
	s.initialize()
	huge := `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"` + strings.Repeat("x", 33<<20) + `"}}`
	for i, tc := range []struct {
		line string
		code float64
		id   any
	}{
		{`not json`, -32700, nil},
		{`{"jsonrpc":"2.0","id":1,"method":"ping"`, -32700, nil},
		{`{"jsonrpc":"2.0","id":1,"method":"ping"} {"jsonrpc":"2.0","id":2,"method":"ping"}`, -32700, nil},
		{"\x00\x01\x02", -32700, nil},
		{`{"a":1}`, -32600, nil},
		{`"a string"`, -32600, nil},
		{`42`, -32600, nil},
		{`null`, -32600, nil},
		{`[]`, -32600, nil},
		{`[{"jsonrpc":"2.0","id":5,"method":"ping"}]`, -32600, nil},
		{`{"jsonrpc":"1.0","id":7,"method":"ping"}`, -32600, 7.0},
		{`{"jsonrpc":"2.0","id":"x","method":5}`, -32600, "x"},
		{`{"jsonrpc":"2.0","id":{"o":1},"method":"ping"}`, -32600, nil},
		{`{"jsonrpc":"2.0"}`, -32600, nil},
		{huge, -32600, nil},
	} {
		s.send(tc.line)
		m := s.recv()
		e, _ := m["error"].(map[string]any)
		if e == nil || e["code"] != tc.code || m["id"] != tc.id || m["jsonrpc"] != "2.0" || e["message"] == "" {
			t.Errorf("line %d (%.60q): reply %v, want code %v id %v", i, tc.line, m, tc.code, tc.id)
		}
		s.send(`{"jsonrpc":"2.0","id":"ping","method":"ping"}`)
		if m := s.recv(); m["id"] != "ping" || m["result"] == nil {
			t.Fatalf("after line %d (%.60q) the session no longer serves: %v", i, tc.line, m)
		}
	}
	s.send(`   {"jsonrpc":"2.0","id":"padded","method":"tools/list"}   `)
	if m := s.recv(); m["id"] != "padded" || m["result"] == nil {
		t.Errorf("a message with spaces around it: %v", m)
	}
	s.send(``)
	if c := s.stop(); c != cli.ExitOK {
		t.Errorf("exit %d after stdin closed\n%s", c, s.errb.String())
	}
}

// call sends tools/call and returns the tool's envelope (its text content,
// decoded) and isError.
func (s *rawStdio) call(id int, tool string, args map[string]any) (map[string]any, bool) {
	s.t.Helper()
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call",
		"params": map[string]any{"name": tool, "arguments": args}})
	if err != nil {
		s.t.Fatal(err)
	}
	s.send(string(b))
	m := s.recv()
	if m["id"] != float64(id) {
		s.t.Fatalf("%s: answer %v", tool, m)
	}
	res, _ := m["result"].(map[string]any)
	content, _ := res["content"].([]any)
	if len(content) != 1 {
		s.t.Fatalf("%s: %v", tool, m)
	}
	text, _ := content[0].(map[string]any)["text"].(string)
	var env map[string]any
	if err := json.Unmarshal([]byte(text), &env); err != nil {
		s.t.Fatalf("%s: not a JSON envelope: %v\n%s", tool, err, text)
	}
	isErr, _ := res["isError"].(bool)
	return env, isErr
}

// TestMCPVerifyNothingCheckedIsNotPassed (issue 21): verify_citations that
// checked nothing says so — passed null and a reason that names the fix —
// instead of passed: true; an output that looks like a file path gets a
// hint. Fetching is off (the default) in the first two calls; a path has no
// citations even with fetching on.
func TestMCPVerifyNothingCheckedIsNotPassed(t *testing.T) {
	cited := "Sea level rose by 21 cm [1].\n\n## Sources\n\n1. https://tides.example.org/report\n"
	for i, tc := range []struct {
		flags  []string
		output string
		reason string
		hint   bool
	}{
		{nil, cited, "not checked: fetching is off — the operator starts the server with --allow-fetch", false},
		{nil, "/home/agent/run/synthesis.md", "not checked: no citations found in output", true},
		{[]string{"--allow-fetch"}, "./synthesis.md", "not checked: no citations found in output", true},
		{[]string{"--allow-fetch"}, "Sea level rose by 21 cm.", "not checked: no citations found in output", false},
	} {
		s := startStdio(t, tc.flags...)
		s.initialize()
		env, isErr := s.call(1, "verify_citations", map[string]any{"output": tc.output, "model": "lexical"})
		passed, present := env["passed"]
		reason, _ := env["reason"].(string)
		if isErr || !present || passed != nil || !strings.HasPrefix(reason, tc.reason) {
			t.Errorf("case %d: isError %v passed %v (present %v) reason %q, want null and %q", i, isErr, passed, present, reason, tc.reason)
		}
		if hint, _ := env["hint"].(string); (hint != "") != tc.hint || (tc.hint && !strings.Contains(hint, "pass the text itself")) {
			t.Errorf("case %d (%q): hint %q", i, tc.output, hint)
		}
		s.stop()
	}
}

// undescribed lists the properties of schema, at any depth, without a
// description, each as its JSON pointer under at.
func undescribed(at string, schema map[string]any) []string {
	var out []string
	props, _ := schema["properties"].(map[string]any)
	for name, p := range props {
		ps, _ := p.(map[string]any)
		if d, _ := ps["description"].(string); strings.TrimSpace(d) == "" {
			out = append(out, at+"/"+name)
		}
		out = append(out, undescribed(at+"/"+name, ps)...)
	}
	for _, key := range []string{"items", "additionalProperties"} {
		if sub, ok := schema[key].(map[string]any); ok {
			out = append(out, undescribed(at+"/"+key, sub)...)
		}
	}
	for _, key := range []string{"anyOf", "oneOf", "allOf"} {
		subs, _ := schema[key].([]any)
		for i, sub := range subs {
			if m, ok := sub.(map[string]any); ok {
				out = append(out, undescribed(fmt.Sprintf("%s/%s/%d", at, key, i), m)...)
			}
		}
	}
	return out
}

// TestMCPSchemasAndErrorsAnAgentCanUse (issue 21): tools/list describes
// every property of every tool (walked recursively); there is an init tool,
// and an agent can start a run with it and run the pipeline; an unknown
// model and a manifest that does not exist are plain sentences with the
// fix. Before, no property had a description, there was no init tool, and
// the errors read "add it to judge.Prices first" and "manifest_path
// missing".
func TestMCPSchemasAndErrorsAnAgentCanUse(t *testing.T) {
	s := startStdio(t)
	s.initialize()
	s.send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	m := s.recv()
	res, _ := m["result"].(map[string]any)
	tools, _ := res["tools"].([]any)
	props := 0
	names := map[string]bool{}
	for _, tl := range tools {
		tool, _ := tl.(map[string]any)
		name, _ := tool["name"].(string)
		names[name] = true
		schema, _ := tool["inputSchema"].(map[string]any)
		p, _ := schema["properties"].(map[string]any)
		props += len(p)
		if d, _ := tool["description"].(string); d == "" {
			t.Errorf("tool %s has no description", name)
		}
		for _, ptr := range undescribed("", schema) {
			t.Errorf("tool %s: property %s has no description", name, ptr)
		}
		for pname, ps := range p {
			// One type per property: single-type dialects (Gemini's function
			// declarations) reject ["null", T].
			if _, many := ps.(map[string]any)["type"].([]any); many {
				t.Errorf("tool %s: property %s has several types", name, pname)
			}
		}
	}
	if !names["deep_research_citations_init"] || !names["deep_research_citations_decide"] || len(names) != 9 || props < 50 {
		t.Fatalf("tools %v with %d properties, want the 7 tools, deep_research_citations_init and deep_research_citations_decide", names, props)
	}

	waves := t.TempDir()
	wave := filepath.Join(waves, "heat-pumps.md")
	if err := os.WriteFile(wave, []byte("# Heat pumps\n\nCold-climate heat pumps work [1].\n\n## Sources\n\n1. https://research.heat.example/cold-climate-study\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "run")
	env, isErr := s.call(3, "deep_research_citations_init", map[string]any{"dir": dir, "waves": []string{wave}, "fixtures_template": true})
	next, _ := json.Marshal(env["next"])
	if isErr || env["ok"] != true || env["manifest_path"] != filepath.Join(dir, "manifest.json") ||
		!strings.Contains(string(next), "deep_research_citations_run with manifest_path "+filepath.Join(dir, "manifest.json")) {
		t.Fatalf("init: %v", env)
	}
	if env, isErr := s.call(4, "deep_research_citations_run", map[string]any{"manifest_path": filepath.Join(dir, "manifest.json"), "include_wave2": nil}); isErr || env["ok"] != true {
		t.Errorf("run after init: %v", env)
	}
	if env, isErr := s.call(5, "deep_research_citations_init", map[string]any{"dir": dir, "waves": []string{wave}}); !isErr || !strings.Contains(fmt.Sprint(env["error"]), "force") {
		t.Errorf("init over an existing run without force: %v", env)
	}

	for i, tc := range []struct {
		tool  string
		args  map[string]any
		code  string
		wants []string
	}{
		{"verify_citations", map[string]any{"output": "x", "model": "claude-3-opus-20240229"}, "INVALID_ARGS",
			[]string{"Unknown model", "claude-haiku-4-5-20251001", "openai-compatible"}},
		{"deep_research_citations_extract_urls", map[string]any{"manifest_path": filepath.Join(dir, "nope", "manifest.json"), "reason": "x"}, "NOT_FOUND",
			[]string{"manifest not found", "give the absolute path", "deep_research_citations_init"}},
		{"deep_research_citations_init", map[string]any{"dir": "run"}, "INVALID_ARGS", []string{"absolute"}},
		{"deep_research_citations_init", map[string]any{"dir": dir + "2", "waves": []string{filepath.Join(dir, "run-config.json")}}, "INVALID_ARGS", []string{".md"}},
	} {
		env, isErr := s.call(10+i, tc.tool, tc.args)
		e, _ := env["error"].(map[string]any)
		msg, _ := e["message"].(string)
		if !isErr || e["code"] != tc.code || strings.Contains(msg, "judge.Prices") || strings.Contains(msg, "manifest_path missing") {
			t.Errorf("%s %v: %v", tc.tool, tc.args, env)
		}
		for _, w := range tc.wants {
			if !strings.Contains(msg, w) {
				t.Errorf("%s: message %q lacks %q", tc.tool, msg, w)
			}
		}
	}
	s.stop()
}
