package judge

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

// Keys planted in tests. They are shaped like real keys so that any path
// that leaks them (error text, verdicts) is caught by a plain substring
// search.
const (
	testAnthropicKey = "sk-ant-api03-PLANTEDkey0123456789abcdefGHIJ"
	testOpenAIKey    = "sk-proj-PLANTEDkey0123456789abcdefKLMN"
)

// recorded is one request a fake API received.
type recorded struct {
	Method string
	Path   string
	Header http.Header
	Body   map[string]any
	Raw    string
}

// fakeAPI is an httptest server on loopback that records every request and
// answers with respond.
type fakeAPI struct {
	*httptest.Server
	mu      sync.Mutex
	reqs    []recorded
	respond func(w http.ResponseWriter, r *http.Request, req recorded)
}

func newFakeAPI(t *testing.T, respond func(w http.ResponseWriter, r *http.Request, req recorded)) *fakeAPI {
	t.Helper()
	f := &fakeAPI{respond: respond}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		rec := recorded{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Raw: string(raw)}
		_ = json.Unmarshal(raw, &rec.Body)
		f.mu.Lock()
		f.reqs = append(f.reqs, rec)
		f.mu.Unlock()
		f.respond(w, r, rec)
	}))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeAPI) requests() []recorded {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]recorded(nil), f.reqs...)
}

func (f *fakeAPI) last(t *testing.T) recorded {
	t.Helper()
	reqs := f.requests()
	if len(reqs) == 0 {
		t.Fatal("fake API received no request")
	}
	return reqs[len(reqs)-1]
}

// env returns a Getenv over a fixed map.
func env(kv ...string) func(string) string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) string { return m[k] }
}

// writeJSON answers with status and a JSON body.
func writeJSON(w http.ResponseWriter, status int, body any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(body)
}

// anthropicAnswer is a Messages API success body carrying text.
func anthropicAnswer(text string, in, out int) map[string]any {
	return map[string]any{
		"id": "msg_01X", "type": "message", "role": "assistant", "model": "claude-haiku-4-5-20251001",
		"content":     []any{map[string]any{"type": "text", "text": text}},
		"stop_reason": "end_turn", "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": in, "output_tokens": out,
			"cache_creation_input_tokens": 0, "cache_read_input_tokens": 0},
	}
}

// openAIAnswer is a Chat Completions success body carrying text.
func openAIAnswer(text string, in, out int) map[string]any {
	return map[string]any{
		"id": "chatcmpl-1", "object": "chat.completion", "created": 1700000000, "model": "gpt-4o-mini-2024-07-18",
		"choices": []any{map[string]any{"index": 0,
			"message":       map[string]any{"role": "assistant", "content": text, "refusal": nil},
			"finish_reason": "stop", "logprobs": nil}},
		"usage": map[string]any{"prompt_tokens": in, "completion_tokens": out, "total_tokens": in + out},
	}
}

// anthropicError is the Messages API error body.
func anthropicError(kind, msg string) map[string]any {
	return map[string]any{"type": "error", "error": map[string]any{"type": kind, "message": msg}, "request_id": "req_1"}
}

// openAIError is the Chat Completions error body.
func openAIError(kind, code, msg string) map[string]any {
	return map[string]any{"error": map[string]any{"message": msg, "type": kind, "param": nil, "code": code}}
}

const goodVerdict = `{"supported": true, "confidence": 0.9, "rationale": "The source says \"opened to traffic on May 27, 1937\"."}`

// waitOrDone blocks a handler until the client gives up (or a backstop).
func waitOrDone(r *http.Request) {
	select {
	case <-r.Context().Done():
	case <-time.After(5 * time.Second):
	}
}

// roundTripFunc is an http.RoundTripper made of a function: a transport
// that never touches the network.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func textResponse(status int, body string) *http.Response {
	return &http.Response{
		StatusCode: status,
		Header:     http.Header{"Content-Type": []string{"application/json"}},
		Body:       io.NopCloser(strings.NewReader(body)),
	}
}

// official returns the base URL of a provider's own API host and a client
// that delivers its requests to f instead: the judge sends the provider's
// key only to that host, and the test still needs a server it owns.
func (f *fakeAPI) official(host string) (string, *http.Client) {
	target, _ := url.Parse(f.URL)
	inner := f.Client().Transport
	return "https://" + host, &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		r = r.Clone(r.Context())
		r.URL.Scheme, r.URL.Host = target.Scheme, target.Host
		return inner.RoundTrip(r)
	})}
}

// noWait makes j's rate-limit waits instant, so tests of 429 answers do
// not sleep through Retry-After.
func noWait(j Judge) Judge {
	if l, ok := j.(*llmJudge); ok {
		l.sleep = func(ctx context.Context, _ time.Duration) error { return ctx.Err() }
	}
	return j
}
