package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/citegate/citegate/ui/cli"
)

// stdioServer is `citegate mcp` run in-process on pipes: what a client
// writes is its stdin, each line it prints is one JSON-RPC message.
type stdioServer struct {
	t     *testing.T
	in    *io.PipeWriter
	lines chan string
	code  chan int
	errb  *bytes.Buffer
}

func startStdio(t *testing.T, args ...string) *stdioServer {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	s := &stdioServer{t: t, in: inW, lines: make(chan string, 64), code: make(chan int, 1), errb: &bytes.Buffer{}}
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
func (s *stdioServer) send(line string) {
	s.t.Helper()
	if _, err := io.WriteString(s.in, line+"\n"); err != nil {
		s.t.Fatalf("write: %v", err)
	}
}

// recv is the server's next message, decoded; it fails the test when the
// server says nothing within 20 s or has stopped.
func (s *stdioServer) recv() map[string]any {
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
func (s *stdioServer) initialize() {
	s.t.Helper()
	s.send(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if m := s.recv(); m["result"] == nil {
		s.t.Fatalf("initialize: %v", m)
	}
	s.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

// stop closes stdin and returns the exit code.
func (s *stdioServer) stop() int {
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
func (s *stdioServer) call(id int, tool string, args map[string]any) (map[string]any, bool) {
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
