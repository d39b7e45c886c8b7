package judge

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// ollamaAnswer is a non-streamed /api/chat answer as Ollama sends it.
func ollamaAnswer(text string, in, out int) map[string]any {
	return map[string]any{
		"model": "gpt-oss:20b", "created_at": "2026-05-01T12:00:00.000000Z",
		"message": map[string]any{"role": "assistant", "content": text},
		"done":    true, "done_reason": "stop",
		"total_duration": 5191566416, "load_duration": 2154458,
		"prompt_eval_count": in, "prompt_eval_duration": 383809000,
		"eval_count": out, "eval_duration": 4799921000,
	}
}

// fakeOllama serves /api/chat for the model "gpt-oss:20b" and answers
// other models and paths as Ollama does.
func fakeOllama(t *testing.T, text func(req recorded) string) *fakeAPI {
	return newFakeAPI(t, func(w http.ResponseWriter, _ *http.Request, req recorded) {
		switch {
		case req.Method != http.MethodPost || req.Path != "/api/chat":
			w.WriteHeader(404)
			_, _ = w.Write([]byte("404 page not found"))
		case req.Body["model"] == "broken":
			// An answer that failed after the headers went out.
			writeJSON(w, 200, map[string]any{"error": "an error was encountered while running the model"})
		case req.Body["model"] != "gpt-oss:20b":
			writeJSON(w, 404, map[string]any{"error": fmt.Sprintf("model '%v' not found", req.Body["model"])})
		default:
			writeJSON(w, 200, ollamaAnswer(text(req), 812, 14))
		}
	})
}

// TestOllamaNativeChat: --provider ollama (or Ollama's port without /v1)
// speaks POST /api/chat, non-streaming, JSON format, temperature 0 and
// num_predict as options; reads message.content and the eval counts.
func TestOllamaNativeChat(t *testing.T) {
	for _, base := range []string{"", "/", "/v1"} {
		t.Run("base path "+base, func(t *testing.T) {
			f := fakeOllama(t, func(recorded) string { return goodVerdict })
			j, err := New(Config{Model: "gpt-oss:20b", Provider: "ollama", BaseURL: f.URL + base, Client: f.Client(), Getenv: env()})
			if err != nil {
				t.Fatal(err)
			}
			v, err := j.Judge(context.Background(), "The bridge opened in 1937.", "It opened to traffic on May 27, 1937.")
			if err != nil || v.Outcome != VerdictSupported || v.InputTokens != 812 || v.OutputTokens != 14 || v.CostUSD != nil {
				t.Fatalf("verdict %+v, %v", v, err)
			}
			r := f.last(t)
			if r.Path != "/api/chat" || r.Body["stream"] != false || r.Body["format"] != "json" {
				t.Errorf("request %s %s", r.Path, r.Raw)
			}
			opts, _ := r.Body["options"].(map[string]any)
			if opts["temperature"] != 0.0 || opts["num_predict"] != float64(maxTokens) {
				t.Errorf("options %v", opts)
			}
			msgs := r.Body["messages"].([]any)
			if len(msgs) != 2 || msgs[0].(map[string]any)["content"] != SystemPrompt ||
				!strings.Contains(msgs[1].(map[string]any)["content"].(string), "It opened to traffic") {
				t.Errorf("messages %v", msgs)
			}
			for _, k := range []string{"max_tokens", "response_format"} {
				if _, ok := r.Body[k]; ok {
					t.Errorf("Ollama's native API got the Chat Completions field %s", k)
				}
			}
		})
	}
}

// TestOllamaNativeErrors: Ollama's error bodies and empty answers come
// back readable, not as verdicts.
func TestOllamaNativeErrors(t *testing.T) {
	f := fakeOllama(t, func(recorded) string { return "" })
	for _, tc := range []struct{ model, kind, msg string }{
		{"llama9", KindLLM, "ollama: HTTP 404: model 'llama9' not found"},
		{"gpt-oss:20b", KindMalformed, `ollama: response carries no text (stop reason "stop")`},
		{"broken", KindLLM, "ollama: an error was encountered while running the model"},
	} {
		j, err := New(Config{Model: tc.model, Provider: "ollama", BaseURL: f.URL, Client: f.Client(), Getenv: env()})
		if err != nil {
			t.Fatal(err)
		}
		_, err = j.Judge(context.Background(), "c", "s")
		if je := asError(t, err); je.Kind != tc.kind || je.Message != tc.msg {
			t.Errorf("%s: error %v, want %s: %s", tc.model, err, tc.kind, tc.msg)
		}
	}
}

// TestOllamaNativeBatchAndMiniCheck: the batch protocol goes through
// /api/chat in JSON format; MiniCheck's Yes/No questions without it.
func TestOllamaNativeBatchAndMiniCheck(t *testing.T) {
	f := fakeOllama(t, func(req recorded) string {
		if strings.Contains(req.Raw, "CLAIMS:") {
			return `{"verdicts": [` + item(1, "supported", true) + `, ` + item(2, "unsupported", false) + `]}`
		}
		return "Yes"
	})
	bj := newBatchJudge(t, Config{Model: "gpt-oss:20b", Provider: "ollama", BaseURL: f.URL, Client: f.Client(), Getenv: env()})
	vs, errs := bj.JudgeBatch(context.Background(), []string{"A.", "B."}, "Source.")
	if errs[0] != nil || errs[1] != nil || vs[0].Outcome != VerdictSupported || vs[1].Outcome != VerdictUnsupported {
		t.Fatalf("batch %+v %v", vs, errs)
	}
	if r := f.last(t); r.Path != "/api/chat" || r.Body["format"] != "json" {
		t.Errorf("batch request %s %s", r.Path, r.Raw)
	}

	mc, err := New(Config{Model: "gpt-oss:20b", Provider: "ollama", Protocol: ProtocolMiniCheck, BaseURL: f.URL, Client: f.Client(), Getenv: env()})
	if err != nil {
		t.Fatal(err)
	}
	if v, err := mc.Judge(context.Background(), "A.", "Source."); err != nil || v.Outcome != VerdictSupported {
		t.Fatalf("minicheck %+v, %v", v, err)
	}
	r := f.last(t)
	if _, ok := r.Body["format"]; ok || r.Path != "/api/chat" || r.Body["stream"] != false {
		t.Errorf("minicheck request %s %s", r.Path, r.Raw)
	}
	if !strings.HasPrefix(userText(r), "Document: ") {
		t.Errorf("minicheck user turn %q", userText(r))
	}
}

// TestOllamaNativeInference: MiniCheck models served by Ollama's native
// API take the MiniCheck protocol, as on its /v1.
func TestOllamaNativeInference(t *testing.T) {
	j, err := New(Config{Model: "bespoke-minicheck", BaseURL: "http://127.0.0.1:11434", Client: http.DefaultClient, Getenv: env()})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := j.(*miniCheckJudge); !ok || j.Name() != "ollama/bespoke-minicheck" {
		t.Errorf("bespoke-minicheck at Ollama: %T %s", j, j.Name())
	}
}
