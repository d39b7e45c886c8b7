package main

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"strings"
	"testing"
	"time"
)

// TestMCPJudgeCapsNeverWiden: over MCP a client may ask for a judge
// timeout and a judge concurrency up to the operator's `citegate mcp
// --judge-timeout-ms / --judge-concurrency`, never above: the operator's
// model server, its time and its load, are the operator's. Run against a
// fake local model server the operator listed.
func TestMCPJudgeCapsNeverWiden(t *testing.T) {
	plantKeys(t)
	f := newFakeModelServer(t, dialects[1])
	_, port, _ := net.SplitHostPort(f.Listener.Addr().String())
	base := "http://127.0.0.1:" + port
	host, web := sourceWeb(t)
	cs := stdioServer(t, append([]string{"--allow-fetch", "--judge-base-url", base, "--judge-timeout-ms", "1000", "--judge-concurrency", "2"}, web...)...)
	call := func(output string, extra map[string]any) verifyOut {
		t.Helper()
		args := map[string]any{"output": output, "model": "local", "provider": "openai-compatible", "base_url": base}
		for k, v := range extra {
			args[k] = v
		}
		text, ok := callRaw(t, cs, "verify_citations", args)
		var v verifyOut
		if err := json.Unmarshal([]byte(text), &v); err != nil || !ok {
			t.Fatalf("ok=%v %v\n%s", ok, err, text)
		}
		return v
	}
	setHold := func(d time.Duration) {
		// A call the timeout cut may still be winding down on the server.
		for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
			f.mu.Lock()
			if f.inFlight == 0 || time.Now().After(deadline) {
				f.hold, f.maxIn = d, 0
				f.mu.Unlock()
				return
			}
			f.mu.Unlock()
		}
	}

	one := readFile(t, writeSynthesis(t, 1, "http://"+host+"/report"))
	for _, tc := range []struct {
		name        string
		hold        time.Duration
		timeoutMS   int // the client's judge_timeout_ms; 0: not sent
		wantTimeout bool
	}{
		{"client silent: the operator's 1 s", 400 * time.Millisecond, 0, false},
		{"client asks less: 200 ms", 400 * time.Millisecond, 200, true},
		{"client asks more: still the operator's 1 s", 1500 * time.Millisecond, 60000, true},
	} {
		setHold(tc.hold)
		extra := map[string]any{}
		if tc.timeoutMS > 0 {
			extra["judge_timeout_ms"] = tc.timeoutMS
		}
		start := time.Now()
		v := call(one, extra)
		took := time.Since(start)
		e := v.Citations[0].ResolveError
		timedOut := e != nil && e.Kind == "timeout"
		if timedOut != tc.wantTimeout || (tc.wantTimeout && took > 1400*time.Millisecond) {
			t.Errorf("%s: timed out %v after %s, want %v: %+v", tc.name, timedOut, took, tc.wantTimeout, e)
		}
	}

	var reports []string
	for i := range 6 {
		reports = append(reports, fmt.Sprintf("http://%s/report%d", host, i+1))
	}
	six := readFile(t, writeSynthesis(t, 6, reports...))
	for _, tc := range []struct{ ask, want int }{{0, 2}, {8, 2}, {2, 2}, {1, 1}} {
		setHold(100 * time.Millisecond)
		extra := map[string]any{}
		if tc.ask > 0 {
			extra["judge_concurrency"] = tc.ask
		}
		v := call(six, extra)
		f.mu.Lock()
		maxIn := f.maxIn
		f.mu.Unlock()
		if v.TotalSupported != 6 || maxIn != tc.want {
			t.Errorf("judge_concurrency %d under the operator's 2: %d supported, %d calls at once, want %d", tc.ask, v.TotalSupported, maxIn, tc.want)
		}
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}
