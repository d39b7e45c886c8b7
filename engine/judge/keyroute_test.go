package judge

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
)

// TestKeysReachOnlyTheirProvider plants the three keys with distinct
// values and records, per host, every credential header the judge sends:
// OPENAI_API_KEY reaches api.openai.com only, ANTHROPIC_API_KEY
// api.anthropic.com only, CITEGATE_JUDGE_API_KEY the operator's other
// hosts only (issue 23: OPENAI_API_KEY used to go to any base URL).
func TestKeysReachOnlyTheirProvider(t *testing.T) {
	const oKey, aKey, jKey = "planted-openai-1111", "planted-anthropic-2222", "planted-judge-3333"
	keys := env(EnvOpenAIKey, oKey, EnvAnthropicKey, aKey, EnvJudgeKey, jKey)
	var mu sync.Mutex
	seen := map[string]map[string]bool{} // host → key values received
	client := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		mu.Lock()
		defer mu.Unlock()
		if seen[r.URL.Host] == nil {
			seen[r.URL.Host] = map[string]bool{}
		}
		for _, v := range []string{r.Header.Get("X-Api-Key"), strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")} {
			if v != "" {
				seen[r.URL.Host][v] = true
			}
		}
		if strings.HasSuffix(r.URL.Path, "/messages") {
			return textResponse(200, `{"type":"message","content":[{"type":"text","text":`+quote(goodVerdict)+`}],"usage":{"input_tokens":1,"output_tokens":1}}`), nil
		}
		if strings.HasSuffix(r.URL.Path, "/api/chat") {
			return textResponse(200, `{"message":{"role":"assistant","content":`+quote(goodVerdict)+`},"done":true}`), nil
		}
		return textResponse(200, `{"choices":[{"message":{"content":`+quote(goodVerdict)+`}}]}`), nil
	})}
	for _, tc := range []struct {
		model, provider, base, host, wantKey string
	}{
		{"gpt-4o", "", "", "api.openai.com", oKey},
		{"claude-sonnet-4-6", "", "", "api.anthropic.com", aKey},
		{"gpt-4o-mini", "", "https://api.openai.com/v1", "api.openai.com", oKey},
		{"local", "openai-compatible", "https://api.openai.com", "api.openai.com", oKey},
		{"gpt-oss:20b", "", "http://127.0.0.1:11434", "127.0.0.1:11434", jKey},
		{"gpt-oss:20b", "", "http://127.0.0.1:11434/v1", "127.0.0.1:11434", jKey},
		{"gpt-oss:20b", "ollama", "", "127.0.0.1:11434", jKey},
		{"gpt-oss:20b", "ollama", "https://api.openai.com", "api.openai.com", oKey},
		{"gpt-4o", "", "https://llm.example.net", "llm.example.net", jKey},
		{"gpt-4o", "openai", "https://gateway.example.net", "gateway.example.net", jKey},
		{"claude-sonnet-4-6", "anthropic", "https://gateway.example.net:8443", "gateway.example.net:8443", jKey},
		{"claude-sonnet-4-6", "", "https://api.anthropic.com", "api.anthropic.com", aKey},
		// Plain http off loopback: the operator's key is withheld.
		{"qwen3", "", "http://192.0.2.7:8000", "192.0.2.7:8000", ""},
	} {
		j, err := New(Config{Model: tc.model, Provider: tc.provider, BaseURL: tc.base, Getenv: keys, Client: client})
		if err != nil {
			t.Fatalf("%s at %q: %v", tc.model, tc.base, err)
		}
		mu.Lock()
		clear(seen)
		mu.Unlock()
		if _, err := j.Judge(context.Background(), "c", "s"); err != nil {
			t.Fatalf("%s at %q: %v", j.Name(), tc.base, err)
		}
		mu.Lock()
		got := seen[tc.host]
		if len(seen) != 1 || got == nil {
			t.Errorf("%s at %q: requests went to %v, want %s only", j.Name(), tc.base, seen, tc.host)
		}
		want := map[string]bool{}
		if tc.wantKey != "" {
			want[tc.wantKey] = true
		}
		if len(got) != len(want) || (tc.wantKey != "" && !got[tc.wantKey]) {
			t.Errorf("%s at %q: %s received keys %v, want %v", j.Name(), tc.base, tc.host, got, want)
		}
		mu.Unlock()
	}
}

func quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"', '\\':
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	b.WriteByte('"')
	return b.String()
}
