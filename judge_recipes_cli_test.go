package main

import (
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
	"testing"
	"time"

	"github.com/citegate/citegate/ui/cli"
)

// Planted keys: each may reach its own provider's host only. The fake
// local servers below must only ever see plantedJudgeKey.
const (
	plantedOpenAIKey    = "planted-openai-key-0f1e2d"
	plantedAnthropicKey = "planted-anthropic-key-3c4b5a"
	plantedJudgeKey     = "planted-judge-key-9a8b7c"
)

func plantKeys(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", plantedOpenAIKey)
	t.Setenv("ANTHROPIC_API_KEY", plantedAnthropicKey)
	t.Setenv("CITEGATE_JUDGE_API_KEY", plantedJudgeKey)
}

// fakeModelServer is a local model server speaking one dialect of the
// OpenAI chat completions API: its path, the model it serves, its error
// bodies. It counts the credentials it receives.
type fakeModelServer struct {
	*httptest.Server
	d        dialect
	mu       sync.Mutex
	auth     map[string]int // Authorization and x-api-key values seen
	judged   int
	paths    []string
	inFlight int
	maxIn    int
	hold     time.Duration // how long each answer takes
	// loading is how many more calls llama.cpp answers 503 "Loading
	// model"; -1: it never finishes loading.
	loading int
}

// dialect is one local server's README recipe and the way it speaks.
type dialect struct {
	name string
	// recipe is the README's command line; defaultPort is replaced by the
	// fake server's port and synthesis.md by the test's file.
	recipe      string
	defaultPort string
	model       string // the model the server serves
	// notFound is the server's answer to an unknown model (status, body);
	// wantErr is what citegate must then report.
	notFound    func(model string) (int, string)
	wantErr     string
	badModel    string // the model the failing run names
	refusesJSON bool   // LM Studio: response_format json_object is a 400
	// native: Ollama's own API, POST /api/chat with "stream": false, its
	// answer {"message":{…},"done":true,…}; its /v1 is not served here.
	native bool
}

var dialects = []dialect{
	{
		name:        "ollama",
		recipe:      "citegate verify --output-file synthesis.md --allow-fetch --model gpt-oss:20b --provider ollama --base-url http://127.0.0.1:11434",
		defaultPort: "11434", model: "gpt-oss:20b", badModel: "gpt-oss:120b", native: true,
		notFound: func(m string) (int, string) {
			return 404, fmt.Sprintf(`{"error":"model \"%s\" not found, try pulling it first"}`, m)
		},
		wantErr: `HTTP 404: model "gpt-oss:120b" not found, try pulling it first`,
	},
	{
		name:        "llama.cpp",
		recipe:      "citegate verify --output-file synthesis.md --allow-fetch --model local --base-url http://127.0.0.1:8080",
		defaultPort: "8080", model: "", // llama-server serves one model whatever the name
		wantErr: "HTTP 503: unavailable_error: Loading model",
	},
	{
		name:        "vllm",
		recipe:      "citegate verify --output-file synthesis.md --allow-fetch --model Qwen/Qwen2.5-7B-Instruct --base-url http://127.0.0.1:8000/v1 --judge-concurrency 8",
		defaultPort: "8000", model: "Qwen/Qwen2.5-7B-Instruct", badModel: "Qwen/Qwen2.5-7B",
		notFound: func(m string) (int, string) {
			return 404, fmt.Sprintf(`{"object":"error","message":"The model %s does not exist.","type":"NotFoundError","param":null,"code":404}`, "`"+m+"`")
		},
		wantErr: "HTTP 404: The model `Qwen/Qwen2.5-7B` does not exist.",
	},
	{
		name:        "lm studio",
		recipe:      "citegate verify --output-file synthesis.md --allow-fetch --model qwen2.5-7b-instruct --base-url http://localhost:1234/v1 --judge-timeout-ms 120000",
		defaultPort: "1234", model: "qwen2.5-7b-instruct", badModel: "qwen3-8b", refusesJSON: true,
		notFound: func(m string) (int, string) {
			return 404, fmt.Sprintf(`{"error":"Model \"%s\" not found. Please load it first."}`, m)
		},
		wantErr: `HTTP 404: Model "qwen3-8b" not found. Please load it first.`,
	},
}

func newFakeModelServer(t *testing.T, d dialect) *fakeModelServer {
	f := &fakeModelServer{d: d, auth: map[string]int{}}
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeModelServer) serve(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	for _, h := range []string{r.Header.Get("Authorization"), r.Header.Get("X-Api-Key")} {
		if h != "" {
			f.auth[h]++
		}
	}
	f.paths = append(f.paths, r.URL.Path)
	f.inFlight++
	f.maxIn = max(f.maxIn, f.inFlight)
	hold, loading := f.hold, f.loading != 0
	f.mu.Unlock()
	defer func() { f.mu.Lock(); f.inFlight--; f.mu.Unlock() }()
	if hold > 0 {
		select {
		case <-time.After(hold):
		case <-r.Context().Done():
			return
		}
	}
	w.Header().Set("Content-Type", "application/json")
	path := "/v1/chat/completions"
	if f.d.native {
		path = "/api/chat"
	}
	if r.Method != http.MethodPost || r.URL.Path != path {
		w.WriteHeader(404)
		_, _ = io.WriteString(w, `{"error":"404 page not found"}`)
		return
	}
	var req struct {
		Model          string `json:"model"`
		ResponseFormat *struct {
			Type string `json:"type"`
		} `json:"response_format"`
		Messages []struct{ Role, Content string } `json:"messages"`
		Stream   *bool                            `json:"stream"`
	}
	// Ollama's native API streams unless told not to.
	if json.NewDecoder(r.Body).Decode(&req) != nil || len(req.Messages) == 0 || f.d.native && (req.Stream == nil || *req.Stream) {
		w.WriteHeader(400)
		_, _ = io.WriteString(w, `{"error":"bad request"}`)
		return
	}
	switch {
	case loading:
		f.mu.Lock()
		if f.loading > 0 {
			f.loading--
		}
		f.mu.Unlock()
		w.WriteHeader(503)
		_, _ = io.WriteString(w, `{"error":{"code":503,"message":"Loading model","type":"unavailable_error"}}`)
		return
	case f.d.refusesJSON && req.ResponseFormat != nil && req.ResponseFormat.Type != "json_schema" && req.ResponseFormat.Type != "text":
		w.WriteHeader(400)
		_, _ = io.WriteString(w, `{"error":"'response_format.type' must be 'json_schema' or 'text'"}`)
		return
	case f.d.model != "" && req.Model != f.d.model:
		status, body := f.d.notFound(req.Model)
		w.WriteHeader(status)
		_, _ = io.WriteString(w, body)
		return
	}
	f.mu.Lock()
	f.judged++
	f.mu.Unlock()
	verdict := `{"supported": true, "confidence": 0.9, "rationale": "The report states it."}`
	// A batch (claims numbered after "CLAIMS:") gets one verdict per claim.
	if _, claims, ok := strings.Cut(req.Messages[len(req.Messages)-1].Content, "\nCLAIMS:\n"); ok {
		var items []string
		for i := range strings.Split(claims, "\n") {
			items = append(items, fmt.Sprintf(`{"id": %d, %s`, i+1, verdict[1:]))
		}
		verdict = `{"verdicts": [` + strings.Join(items, ", ") + `]}`
	}
	if f.d.native {
		_ = json.NewEncoder(w).Encode(map[string]any{
			"model": req.Model, "created_at": "2026-05-01T12:00:00Z", "message": map[string]any{"role": "assistant", "content": verdict},
			"done": true, "done_reason": "stop", "prompt_eval_count": 100, "eval_count": 20,
		})
		return
	}
	_ = json.NewEncoder(w).Encode(map[string]any{
		"id": "chatcmpl-1", "object": "chat.completion", "created": 1700000000, "model": req.Model,
		"choices": []any{map[string]any{"index": 0, "message": map[string]any{"role": "assistant", "content": verdict}, "finish_reason": "stop"}},
		"usage":   map[string]any{"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120},
	})
}

// sourceWeb serves the cited report; the returned flags let verify fetch
// it (its name pinned to loopback, its port opened) and nothing else.
func sourceWeb(t *testing.T) (host string, flags []string) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = io.WriteString(w, `<html><head><title>Harbour report</title></head><body><article><p>Sea level at the harbour tide gauge rose by 21 centimetres between 1900 and 2020, according to the national survey.</p></article></body></html>`)
	}))
	t.Cleanup(srv.Close)
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	host = "tides.example.org:" + port
	return host, []string{"--resolve", "tides.example.org:" + port + ":127.0.0.1", "--allow-cidr", "127.0.0.1/32", "--allow-port", port}
}

// writeSynthesis writes n claims citing sources, numbered from 1.
func writeSynthesis(t *testing.T, n int, sources ...string) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "Sea level at the harbour rose by 21 centimetres between 1900 and 2020, finding %d [%d]. ", i+1, i%len(sources)+1)
	}
	b.WriteString("\n\n## Sources\n\n")
	for i, s := range sources {
		fmt.Fprintf(&b, "%d. %s\n", i+1, s)
	}
	path := filepath.Join(t.TempDir(), "synthesis.md")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// recipeArgs turns a README recipe into run's arguments against the fake
// server: its port and the test's synthesis file substituted.
func recipeArgs(d dialect, port, synthesis string) []string {
	line := strings.Replace(d.recipe, ":"+d.defaultPort, ":"+port, 1)
	args := strings.Fields(line)[1:] // drop "citegate"
	for i, a := range args {
		if a == "synthesis.md" {
			args[i] = synthesis
		}
	}
	return args
}

type verifyOut struct {
	Passed         *bool `json:"passed"`
	TotalSupported int   `json:"total_supported"`
	Citations      []struct {
		ResolveStatus string                          `json:"resolve_status"`
		ResolveError  *struct{ Kind, Message string } `json:"resolve_error"`
		Citation      struct {
			OffsetStart int `json:"offset_start"`
		}
		Judge *struct {
			Verdict string `json:"verdict"`
		}
	}
}

func decodeVerify(t *testing.T, code int, stdout, stderr string) verifyOut {
	t.Helper()
	var v verifyOut
	if err := json.Unmarshal([]byte(stdout), &v); err != nil {
		t.Fatalf("exit %d, not JSON: %v\n%s\n%s", code, err, stdout, stderr)
	}
	return v
}

// TestJudgeRecipes runs each README recipe as written against a fake of
// its server: it works, the judge reaches the server on its loopback port
// without --allow-cidr/--allow-port for it, only CITEGATE_JUDGE_API_KEY
// reaches it, and the server's own error bodies come back readable. The
// llama.cpp server first answers 503 "Loading model": the judge waits.
func TestJudgeRecipes(t *testing.T) {
	plantKeys(t)
	for _, d := range dialects {
		t.Run(d.name, func(t *testing.T) {
			f := newFakeModelServer(t, d)
			if d.badModel == "" {
				// llama.cpp still loading its model: the judge waits.
				f.loading = 2
			}
			_, port, _ := net.SplitHostPort(f.Listener.Addr().String())
			host, web := sourceWeb(t)
			synthesis := writeSynthesis(t, 3, "http://"+host+"/report")

			code, stdout, stderr := invoke(t, append(recipeArgs(d, port, synthesis), web...)...)
			v := decodeVerify(t, code, stdout, stderr)
			// The three claims cite one source: one batched call.
			if code != cli.ExitOK || v.TotalSupported != 3 || f.judged != 1 {
				t.Fatalf("exit %d, %d supported, %d judged\n%s\n%s", code, v.TotalSupported, f.judged, stdout, stderr)
			}
			if d.badModel == "" && len(f.paths) != 3 {
				t.Errorf("%d calls, want two answered 503 Loading model, then the verdict", len(f.paths))
			}
			for a := range f.auth {
				if a != "Bearer "+plantedJudgeKey {
					t.Errorf("the server received credential %q", a)
				}
			}
			if f.auth["Bearer "+plantedJudgeKey] != len(f.paths) {
				t.Errorf("credentials seen: %v, want the judge key on each call", f.auth)
			}
			for _, s := range []string{plantedOpenAIKey, plantedAnthropicKey, plantedJudgeKey} {
				if strings.Contains(stdout+stderr, s) {
					t.Errorf("a key reached the output: %s", s)
				}
			}

			// The server's error, as it words it.
			args := recipeArgs(d, port, synthesis)
			if d.badModel != "" {
				for i, a := range args {
					if a == d.model {
						args[i] = d.badModel
					}
				}
			} else {
				// A model that never loads: the retries end with the
				// judge timeout.
				f.mu.Lock()
				f.loading = -1
				f.mu.Unlock()
				args = append(args, "--judge-timeout-ms", "1200")
			}
			code, stdout, stderr = invoke(t, append(args, web...)...)
			v = decodeVerify(t, code, stdout, stderr)
			for _, c := range v.Citations {
				if c.ResolveError == nil || !strings.Contains(c.ResolveError.Message, d.wantErr) {
					t.Errorf("error %+v, want it to contain %q\n%s", c.ResolveError, d.wantErr, stdout)
				}
			}
		})
	}
}

// TestJudgeEndpointIsNotASource: the operator's --base-url is reachable for
// judge calls only. Citations naming the model server's host and port are
// refused, also by name and with 127.0.0.1 admitted for sources, and the
// server never sees a GET.
func TestJudgeEndpointIsNotASource(t *testing.T) {
	plantKeys(t)
	f := newFakeModelServer(t, dialects[0])
	_, port, _ := net.SplitHostPort(f.Listener.Addr().String())
	host, web := sourceWeb(t)
	synthesis := writeSynthesis(t, 3, "http://"+host+"/report", "http://127.0.0.1:"+port+"/api/tags", "http://localhost:"+port+"/api/tags")
	code, stdout, stderr := invoke(t, append([]string{"verify", "--output-file", synthesis, "--allow-fetch", "--model", "gpt-oss:20b",
		"--provider", "ollama", "--base-url", "http://127.0.0.1:" + port}, web...)...)
	v := decodeVerify(t, code, stdout, stderr)
	if len(v.Citations) != 3 || v.Citations[0].Judge == nil || v.Citations[0].Judge.Verdict != "supported" {
		t.Fatalf("the judge did not judge the real source\n%s\n%s", stdout, stderr)
	}
	for _, c := range v.Citations[1:] {
		if c.ResolveStatus != "error" || c.ResolveError == nil || c.Judge != nil {
			t.Errorf("a citation of the model server was fetched: %+v", c)
		}
	}
	for _, p := range f.paths {
		if p != "/api/chat" {
			t.Errorf("the model server was asked for %s", p)
		}
	}
}

// TestJudgeTimeoutAndConcurrency: judge calls run under --judge-timeout-ms,
// not --per-source-timeout-ms, and a timeout names the flag; at most
// --judge-concurrency calls run at once, and the entries stay in document
// order.
func TestJudgeTimeoutAndConcurrency(t *testing.T) {
	plantKeys(t)
	f := newFakeModelServer(t, dialects[1])
	f.hold = 300 * time.Millisecond
	_, port, _ := net.SplitHostPort(f.Listener.Addr().String())
	host, web := sourceWeb(t)
	base := []string{"verify", "--allow-fetch", "--model", "local", "--base-url", "http://127.0.0.1:" + port}

	synthesis := writeSynthesis(t, 1, "http://"+host+"/report")
	code, stdout, stderr := invoke(t, append(append(base, "--output-file", synthesis, "--per-source-timeout-ms", "150"), web...)...)
	if v := decodeVerify(t, code, stdout, stderr); v.TotalSupported != 1 {
		t.Errorf("a 300 ms judge under a 150 ms source timeout: exit %d\n%s", code, stdout)
	}
	code, stdout, stderr = invoke(t, append(append(base, "--output-file", synthesis, "--judge-timeout-ms", "100"), web...)...)
	v := decodeVerify(t, code, stdout, stderr)
	if e := v.Citations[0].ResolveError; e == nil || e.Kind != "timeout" || !strings.Contains(e.Message, "--judge-timeout-ms") {
		t.Errorf("timeout: %+v\n%s", e, stdout)
	}

	// Eight sources, each cited once: eight calls (claims citing one
	// source would share one).
	var reports []string
	for i := range 8 {
		reports = append(reports, fmt.Sprintf("http://%s/report%d", host, i+1))
	}
	synthesis = writeSynthesis(t, 8, reports...)
	for _, tc := range []struct{ flag, want int }{{1, 1}, {4, 4}} {
		// A call the timeout cut may still be winding down on the server.
		for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
			f.mu.Lock()
			idle := f.inFlight == 0
			if idle || time.Now().After(deadline) {
				f.maxIn = 0
				f.mu.Unlock()
				break
			}
			f.mu.Unlock()
		}
		code, stdout, stderr = invoke(t, append(append(base, "--output-file", synthesis, "--judge-concurrency", fmt.Sprint(tc.flag)), web...)...)
		v := decodeVerify(t, code, stdout, stderr)
		if v.TotalSupported != 8 || f.maxIn != tc.want {
			t.Errorf("--judge-concurrency %d: %d supported, %d calls at once, want %d", tc.flag, v.TotalSupported, f.maxIn, tc.want)
		}
		for i := 1; i < len(v.Citations); i++ {
			if v.Citations[i].Citation.OffsetStart <= v.Citations[i-1].Citation.OffsetStart {
				t.Errorf("entries out of document order:\n%s", stdout)
			}
		}
	}
}

// TestJudgeRecipesAreDocumented: the recipes tested above are the lines
// `citegate help verify` prints.
func TestJudgeRecipesAreDocumented(t *testing.T) {
	code, out, _ := invoke(t, "help", "verify")
	if code != cli.ExitOK {
		t.Fatalf("help verify: exit %d", code)
	}
	for _, d := range dialects {
		if !strings.Contains(out, "`"+d.recipe+"`") {
			t.Errorf("%s: the help topic does not print the tested recipe %q", d.name, d.recipe)
		}
	}
}
