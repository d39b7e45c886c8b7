package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/citegate/citegate/ui/cli"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Issue 21: an agent is not the operator. These tests start the real
// `citegate mcp` (run, as main does, with the process environment) and talk
// to it over its stdin and stdout with the SDK's client; the hosts are
// loopback fakes admitted with --resolve, --allow-cidr and --allow-port.

// stdioServer starts `citegate mcp args...` and returns a client session on
// its stdio. The server stops when the test ends (the client closes stdin).
func stdioServer(t *testing.T, args ...string) *mcp.ClientSession {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var errb syncBuffer
	code := make(chan int, 1)
	go func() {
		code <- run(context.Background(), append([]string{"mcp"}, args...), cli.Streams{In: inR, Out: outW, Err: &errb})
		_ = outW.Close()
	}()
	client := mcp.NewClient(&mcp.Implementation{Name: "bounds-test", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatalf("connect: %v\n%s", err, errb.String())
	}
	t.Cleanup(func() {
		_ = cs.Close()
		select {
		case c := <-code:
			if c != cli.ExitOK {
				t.Errorf("citegate mcp exit %d\n%s", c, errb.String())
			}
		case <-time.After(10 * time.Second):
			t.Error("citegate mcp did not stop when stdin closed")
		}
	})
	return cs
}

// syncBuffer is a bytes.Buffer safe for the server's goroutine and the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// callRaw calls a tool and returns its text and whether it succeeded.
func callRaw(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	text, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("%s: content %T", name, res.Content[0])
	}
	return text.Text, !res.IsError
}

// loopbackHost is a fake host: its requests are counted and the credential
// headers that reached it kept.
type loopbackHost struct {
	srv      *httptest.Server
	requests atomic.Int32
	mu       sync.Mutex
	creds    []string
}

func newLoopbackHost(t *testing.T, h http.HandlerFunc) *loopbackHost {
	t.Helper()
	l := &loopbackHost{}
	l.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		l.requests.Add(1)
		l.mu.Lock()
		l.creds = append(l.creds, r.Header.Get("Authorization"), r.Header.Get("X-Api-Key"))
		l.mu.Unlock()
		h(w, r)
	}))
	t.Cleanup(l.srv.Close)
	return l
}

func (l *loopbackHost) port() string {
	_, p, _ := net.SplitHostPort(l.srv.Listener.Addr().String())
	return p
}

func (l *loopbackHost) credentials() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.creds, " ")
}

// netFlags admits the fake hosts: each named host pinned to 127.0.0.1 on
// its port.
func netFlags(hosts map[string]*loopbackHost) []string {
	args := []string{"--allow-cidr", "127.0.0.1/32"}
	for name, h := range hosts {
		args = append(args, "--allow-port", h.port())
		if name != "" {
			args = append(args, "--resolve", name+":"+h.port()+":127.0.0.1")
		}
	}
	return args
}

const articleHTML = `<html><head><title>Tide gauge report</title></head><body><article><p>Sea level at the harbour tide gauge rose by 21 centimetres between 1900 and 2020, according to the national survey.</p></article></body></html>`

// The fake keys of the operator's environment.
const (
	fakeAnthropicKey = "sk-ant-test-0000operatorkey0000anthropic"
	fakeOpenAIKey    = "sk-test-0000operatorkey0000openai"
	fakeJudgeKey     = "sk-test-0000operatorkey0000judge"
)

// TestMCPJudgeKeysStayWithTheOperator (row 1): with the server started
// --allow-fetch, a client's base_url pointing at a host the operator did not
// name is refused for every provider, and neither key ever reaches it; an
// openai-compatible endpoint the operator listed with --judge-base-url is
// used.
func TestMCPJudgeKeysStayWithTheOperator(t *testing.T) {
	t.Setenv("ANTHROPIC_API_KEY", fakeAnthropicKey)
	t.Setenv("OPENAI_API_KEY", fakeOpenAIKey)
	t.Setenv("CITEGATE_JUDGE_API_KEY", fakeJudgeKey)
	source := newLoopbackHost(t, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, articleHTML)
	})
	judgeAnswer := func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"choices":[{"message":{"role":"assistant","content":"{\"verdict\":\"supported\",\"supported\":true,\"confidence\":0.9,\"rationale\":\"says so\"}"},"finish_reason":"stop"}]}`)
	}
	evil := newLoopbackHost(t, judgeAnswer)
	local := newLoopbackHost(t, judgeAnswer)
	localURL := "http://127.0.0.1:" + local.port()
	flags := netFlags(map[string]*loopbackHost{"tides.example.org": source, "": evil, "local": local})
	cs := stdioServer(t, append([]string{"--allow-fetch"}, flags...)...)
	output := "Sea level at the harbour rose by 21 centimetres between 1900 and 2020 [1].\n\n## Sources\n\n1. http://tides.example.org:" + source.port() + "/report\n"
	evilURL := "http://127.0.0.1:" + evil.port()
	for _, tc := range []struct{ provider, model string }{
		{"anthropic", "claude-haiku-4-5-20251001"},
		{"openai", "gpt-4o-mini"},
		{"openai-compatible", "llama3.1"},
		{"", "llama3.1"},
		{"", "claude-haiku-4-5-20251001"},
	} {
		args := map[string]any{"output": output, "model": tc.model, "base_url": evilURL}
		if tc.provider != "" {
			args["provider"] = tc.provider
		}
		text, ok := callRaw(t, cs, "verify_citations", args)
		if ok || !strings.Contains(text, "INVALID_ARGS") || !strings.Contains(text, "base_url") {
			t.Errorf("%s/%s with a base_url the operator did not list: ok=%v\n%s", tc.provider, tc.model, ok, text)
		}
	}
	if n := evil.requests.Load(); n != 0 || strings.Contains(evil.credentials(), "operatorkey") {
		t.Errorf("the unlisted host saw %d request(s), credentials %q", n, evil.credentials())
	}
	// The operator's own endpoint is the client's to use, and gets the key
	// the operator meant for it (CITEGATE_JUDGE_API_KEY); OpenAI's and
	// Anthropic's keys do not go there.
	cs = stdioServer(t, append([]string{"--allow-fetch", "--judge-base-url", localURL}, flags...)...)
	text, ok := callRaw(t, cs, "verify_citations", map[string]any{"output": output, "model": "llama3.1",
		"provider": "openai-compatible", "base_url": localURL + "/v1/"})
	if !ok || !strings.Contains(text, `"verdict": "supported"`) || local.requests.Load() != 1 {
		t.Errorf("listed endpoint: ok=%v, %d request(s)\n%s", ok, local.requests.Load(), text)
	}
	if got := local.credentials(); !strings.Contains(got, fakeJudgeKey) || strings.Contains(got, fakeOpenAIKey) || strings.Contains(got, fakeAnthropicKey) {
		t.Errorf("listed endpoint received credentials %q", got)
	}
	if text, ok := callRaw(t, cs, "verify_citations", map[string]any{"output": output, "model": "claude-haiku-4-5-20251001",
		"provider": "anthropic", "base_url": localURL}); ok || local.requests.Load() != 1 {
		t.Errorf("anthropic at the listed openai-compatible endpoint: ok=%v\n%s", ok, text)
	}
}

// gzipBomb is a gzip body that inflates to n zero bytes.
func gzipBomb(t *testing.T, n int) []byte {
	t.Helper()
	var b bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
	if _, err := zw.Write(make([]byte, n)); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestMCPClientCapsNeverWiden (row 2): verify_citations' caps are clamped to
// the operator's: a client's 128 MiB byte cap against a gzip bomb reads no
// more than the server's default 5 MiB (or the operator's --per-source-max-bytes),
// a long timeout is the operator's, and more citations than the operator
// allows are not checked.
func TestMCPClientCapsNeverWiden(t *testing.T) {
	bomb := gzipBomb(t, 16<<20)
	bombHost := newLoopbackHost(t, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Header().Set("Content-Encoding", "gzip")
		_, _ = w.Write(bomb)
	})
	slow := newLoopbackHost(t, func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
		fmt.Fprint(w, articleHTML)
	})
	flags := netFlags(map[string]*loopbackHost{"bomb.example.org": bombHost, "slow.example.org": slow})
	defaults := stdioServer(t, append([]string{"--allow-fetch"}, flags...)...)
	cite := func(host, port string) string {
		return "Sea level rose by 21 centimetres [1].\n\n## Sources\n\n1. http://" + host + ":" + port + "/report\n"
	}
	type source struct {
		BytesFetched int  `json:"bytes_fetched"`
		Truncated    bool `json:"truncated"`
	}
	var res struct {
		Citations []struct {
			ResolveStatus string            `json:"resolve_status"`
			ResolveError  map[string]string `json:"resolve_error"`
			Source        *source
		}
	}
	decode := func(text string) {
		t.Helper()
		res.Citations = nil
		if err := json.Unmarshal([]byte(text), &res); err != nil {
			t.Fatalf("%v\n%s", err, text)
		}
	}
	bombCheck := func(server *mcp.ClientSession, limit int) {
		t.Helper()
		text, _ := callRaw(t, server, "verify_citations", map[string]any{"output": cite("bomb.example.org", bombHost.port()),
			"model": "lexical", "per_source_max_bytes": 128 << 20})
		decode(text)
		if len(res.Citations) != 1 || res.Citations[0].Source == nil || res.Citations[0].Source.BytesFetched > limit || !res.Citations[0].Source.Truncated {
			t.Errorf("gzip bomb with the client's 128 MiB cap: want at most the operator's %d bytes, truncated\n%s", limit, text)
		}
	}
	bombCheck(defaults, 5<<20)

	var many strings.Builder
	for i := 1; i <= 25; i++ {
		fmt.Fprintf(&many, "Claim number %d holds [%d].\n", i, i)
	}
	many.WriteString("\n## Sources\n\n")
	for i := 1; i <= 25; i++ {
		fmt.Fprintf(&many, "%d. https://site%d.example.org/x\n", i, i)
	}
	text, _ := callRaw(t, defaults, "verify_citations", map[string]any{"output": many.String(), "model": "lexical", "max_citations": 50, "allow_fetch": false})
	decode(text)
	if len(res.Citations) != 20 {
		t.Errorf("max_citations 50 against the server's default 20: %d citations checked\n%s", len(res.Citations), text)
	}

	// The operator's own ceilings.
	const opBytes = 1 << 20
	cs := stdioServer(t, append([]string{"--allow-fetch", "--per-source-max-bytes", fmt.Sprint(opBytes),
		"--per-source-timeout-ms", "300", "--max-citations", "1"}, flags...)...)
	bombCheck(cs, opBytes)
	start := time.Now()
	text, _ = callRaw(t, cs, "verify_citations", map[string]any{"output": cite("slow.example.org", slow.port()),
		"model": "lexical", "per_source_timeout_ms": 60000})
	decode(text)
	if took := time.Since(start); len(res.Citations) != 1 || res.Citations[0].ResolveStatus != "error" || took > 4*time.Second {
		t.Errorf("a client's 60 s timeout against the operator's 300 ms: %v\n%s", took, text)
	}

	two := "A [1]. B [2].\n\n## Sources\n\n1. https://a.example.org/x\n2. https://b.example.org/y\n"
	text, _ = callRaw(t, cs, "verify_citations", map[string]any{"output": two, "model": "lexical", "max_citations": 50, "allow_fetch": false})
	decode(text)
	if len(res.Citations) != 1 {
		t.Errorf("max_citations 50 against the operator's 1: %d citations checked\n%s", len(res.Citations), text)
	}
}

// demoRun copies the offline demo run into a new directory and returns it.
func demoRun(t *testing.T) string {
	t.Helper()
	d := filepath.Join(t.TempDir(), "run")
	if code, out, errOut := invoke(t, "demo", "--offline", "--dir", d); code != cli.ExitOK {
		t.Fatalf("demo: %d\n%s\n%s", code, out, errOut)
	}
	return d
}

// TestMCPWritesStayInTheRun (row 3): every output path a call names must lie
// inside the run's root, symlinks resolved, with no ".." element; a file
// outside the run is left as it was. Paths inside the run are used.
func TestMCPWritesStayInTheRun(t *testing.T) {
	d := demoRun(t)
	outside := t.TempDir()
	victim := filepath.Join(outside, "notes.txt")
	if err := os.WriteFile(victim, []byte("precious\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(d, "elsewhere")); err != nil {
		t.Fatal(err)
	}
	m := filepath.Join(d, "manifest.json")
	cs := stdioServer(t)
	for _, tc := range []struct {
		tool string
		args map[string]any
	}{
		{"deep_research_citations_extract_urls", map[string]any{"extracted_urls_path": victim}},
		{"deep_research_citations_extract_urls", map[string]any{"found_by_path": filepath.Join(outside, "found-by.json")}},
		{"deep_research_citations_extract_urls", map[string]any{"extracted_urls_path": d + "/citations/../../" + filepath.Base(outside) + "/x.txt"}},
		{"deep_research_citations_extract_urls", map[string]any{"extracted_urls_path": filepath.Join(d, "elsewhere", "notes.txt")}},
		{"deep_research_citations_normalize", map[string]any{"url_map_path": filepath.Join(outside, "url-map.json")}},
		{"deep_research_citations_validate", map[string]any{"citations_path": filepath.Join(outside, "citations.jsonl")}},
		{"deep_research_citations_render_md", map[string]any{"output_md_path": filepath.Join(d, "elsewhere", "report.md")}},
	} {
		tc.args["manifest_path"], tc.args["reason"] = m, "bounds"
		text, ok := callRaw(t, cs, tc.tool, tc.args)
		if ok || !strings.Contains(text, "INVALID_ARGS") {
			t.Errorf("%s %v: ok=%v\n%s", tc.tool, tc.args, ok, text)
		}
	}
	if b, _ := os.ReadFile(victim); string(b) != "precious\n" {
		t.Errorf("the file outside the run was changed: %q", b)
	}
	entries, _ := os.ReadDir(outside)
	if len(entries) != 1 {
		t.Errorf("files appeared outside the run: %v", entries)
	}
	// A gates file the manifest places outside the run is not written by
	// gate-c's write or by run.
	data, err := os.ReadFile(m)
	if err != nil {
		t.Fatal(err)
	}
	moved := bytes.Replace(data, []byte(`"gates_file": "gates.json"`), []byte(`"gates_file": "`+filepath.Join(outside, "gates.json")+`"`), 1)
	if bytes.Equal(moved, data) {
		t.Fatalf("manifest has no relative gates_file:\n%s", data)
	}
	if err := os.WriteFile(m, moved, 0o644); err != nil {
		t.Fatal(err)
	}
	if text, ok := callRaw(t, cs, "deep_research_gate_c_compute", map[string]any{"manifest_path": m, "reason": "bounds", "write": true}); ok {
		t.Errorf("gate-c write with gates_file outside the run:\n%s", text)
	}
	if text, ok := callRaw(t, cs, "deep_research_citations_run", map[string]any{"manifest_path": m}); ok {
		t.Errorf("run with gates_file outside the run:\n%s", text)
	}
	if err := os.WriteFile(m, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if text, ok := callRaw(t, cs, "deep_research_citations_extract_urls", map[string]any{"manifest_path": m, "reason": "bounds",
		"extracted_urls_path": filepath.Join(d, "citations", "extracted-urls.txt")}); !ok {
		t.Errorf("a path inside the run: %s", text)
	}
}

// serviceAccount is the shape of a cloud credentials file; the values are
// made up.
const serviceAccount = `{"type": "service_account", "project_id": "demo-project", "private_key_id": "9f8e7d6c5b4a39281706f5e4d3c2b1a0ffeeddcc", "client_email": "robot@demo-project.example"}`

// TestMCPNeverEchoesOtherFiles (row 4): a JSON file that is not fixtures,
// named as offline_fixtures_path, comes back as an error that quotes none of
// it — outside the run (refused by path) and inside it (refused by kind) —
// and the command line reads it the same way.
func TestMCPNeverEchoesOtherFiles(t *testing.T) {
	d := demoRun(t)
	outsideFile := filepath.Join(t.TempDir(), "service-account.json")
	insideFile := filepath.Join(d, "service-account.json")
	for _, p := range []string{outsideFile, insideFile} {
		if err := os.WriteFile(p, []byte(serviceAccount), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	leaks := func(text string) bool {
		return strings.Contains(text, "9f8e7d6c5b4a") || strings.Contains(text, "private_key_id") || strings.Contains(text, "robot@")
	}
	m := filepath.Join(d, "manifest.json")
	cs := stdioServer(t)
	for _, p := range []string{outsideFile, insideFile} {
		for _, tool := range []string{"deep_research_citations_validate", "deep_research_citations_run"} {
			args := map[string]any{"manifest_path": m, "reason": "bounds", "offline_fixtures_path": p}
			if tool == "deep_research_citations_run" {
				delete(args, "reason")
			}
			text, ok := callRaw(t, cs, tool, args)
			if ok || leaks(text) {
				t.Errorf("%s with %s: ok=%v\n%s", tool, p, ok, text)
			}
		}
	}
	code, out, errOut := invoke(t, "validate", "--manifest-path", m, "--reason", "cli", "--offline-fixtures-path", insideFile)
	if code == cli.ExitOK || leaks(out) || leaks(errOut) {
		t.Errorf("CLI: exit %d\n%s\n%s", code, out, errOut)
	}
}

// onlineRun writes a run directory configured online whose one wave file
// cites a page of host.
func onlineRun(t *testing.T, host *loopbackHost) (dir, manifest string) {
	t.Helper()
	wave := filepath.Join(t.TempDir(), "wave.md")
	doc := "# Tides\n\nSea level at the harbour rose by 21 centimetres.\n\n## Sources\n\n- http://tides.example.org:" + host.port() + "/report\n"
	if err := os.WriteFile(wave, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	dir = filepath.Join(t.TempDir(), "online")
	if code, out, errOut := invoke(t, "init", dir, "--waves", wave, "--mode", "online"); code != cli.ExitOK {
		t.Fatalf("init: %d\n%s\n%s", code, out, errOut)
	}
	return dir, filepath.Join(dir, "manifest.json")
}

// TestMCPOnlineNeedsTheOperator (row 5): a run directory configured online
// is not the operator's consent. Without --allow-fetch, run and validate
// are refused with an envelope that says how the operator enables it, and
// nothing is fetched; a dry run (which fetches nothing) still works. With
// --allow-fetch the run fetches.
func TestMCPOnlineNeedsTheOperator(t *testing.T) {
	site := newLoopbackHost(t, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, articleHTML)
	})
	flags := netFlags(map[string]*loopbackHost{"tides.example.org": site})
	_, m := onlineRun(t, site)
	cs := stdioServer(t, flags...)
	text, ok := callRaw(t, cs, "deep_research_citations_run", map[string]any{"manifest_path": m})
	if ok || !strings.Contains(text, "--allow-fetch") {
		t.Errorf("online run without the operator's consent: ok=%v\n%s", ok, text)
	}
	for _, tool := range []string{"deep_research_citations_extract_urls", "deep_research_citations_normalize"} {
		if text, ok := callRaw(t, cs, tool, map[string]any{"manifest_path": m, "reason": "bounds"}); !ok {
			t.Fatalf("%s: %s", tool, text)
		}
	}
	text, ok = callRaw(t, cs, "deep_research_citations_validate", map[string]any{"manifest_path": m, "reason": "bounds"})
	if ok || !strings.Contains(text, "--allow-fetch") {
		t.Errorf("online validate without the operator's consent: ok=%v\n%s", ok, text)
	}
	if text, ok := callRaw(t, cs, "deep_research_citations_run", map[string]any{"manifest_path": m, "online_dry_run": true}); !ok {
		t.Errorf("dry run: %s", text)
	}
	if n := site.requests.Load(); n != 0 {
		t.Fatalf("the cited site saw %d request(s) without the operator's consent", n)
	}
	allowed := stdioServer(t, append([]string{"--allow-fetch"}, flags...)...)
	if text, ok := callRaw(t, allowed, "deep_research_citations_run", map[string]any{"manifest_path": m}); !ok || site.requests.Load() == 0 {
		t.Errorf("with --allow-fetch: ok=%v, %d request(s)\n%s", ok, site.requests.Load(), text)
	}
}

// TestMCPRunDocumentsNameNoEndpoint: a run's documents (here run-config.json,
// which a client could have written) naming a Bright Data endpoint do not
// send the operator's Bright Data key there unless the operator listed it;
// and run-config/policy.json cannot raise the ladder's byte cap.
func TestMCPRunDocumentsNameNoEndpoint(t *testing.T) {
	var keys atomic.Int32
	evil := newLoopbackHost(t, func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.Header.Get("Authorization"), "bd-secret-test") {
			keys.Add(1)
		}
		w.WriteHeader(http.StatusBadGateway)
	})
	site := newLoopbackHost(t, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, articleHTML)
	})
	t.Setenv("BRIGHTDATA_API_KEY", "bd-secret-test-0123456789")
	t.Setenv("BRIGHTDATA_UNLOCKER_ZONE", "zone1")
	flags := netFlags(map[string]*loopbackHost{"tides.example.org": site, "unlock.evil.example": evil})
	dir, m := onlineRun(t, site)
	endpoint := "http://unlock.evil.example:" + evil.port() + "/request"
	rcPath := filepath.Join(dir, "run-config.json")
	var rc map[string]any
	raw, err := os.ReadFile(rcPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &rc); err != nil {
		t.Fatal(err)
	}
	eff := rc["effective"].(map[string]any)
	cit, _ := eff["citations"].(map[string]any)
	if cit == nil {
		cit = map[string]any{}
		eff["citations"] = cit
	}
	cit["endpoints"] = map[string]any{"brightdata": endpoint}
	data, _ := json.Marshal(rc)
	if err := os.WriteFile(rcPath, data, 0o644); err != nil {
		t.Fatal(err)
	}
	cs := stdioServer(t, append([]string{"--allow-fetch"}, flags...)...)
	text, ok := callRaw(t, cs, "deep_research_citations_run", map[string]any{"manifest_path": m})
	if ok || !strings.Contains(text, "--provider-endpoint") {
		t.Errorf("a run-config endpoint the operator did not list: ok=%v\n%s", ok, text)
	}
	if n := site.requests.Load() + evil.requests.Load(); n != 0 || keys.Load() != 0 {
		t.Errorf("refused run still made %d request(s), %d with the key", n, keys.Load())
	}
	listed := stdioServer(t, append([]string{"--allow-fetch", "--provider-endpoint", endpoint}, flags...)...)
	if text, ok := callRaw(t, listed, "deep_research_citations_run", map[string]any{"manifest_path": m}); !ok {
		t.Errorf("a listed endpoint: %s", text)
	}
}
