package judge

import (
	"context"
	"math"
	"net/http"
	"strings"
	"testing"
)

func TestNewProviderInference(t *testing.T) {
	client := &http.Client{}
	keys := env(EnvAnthropicKey, "a", EnvOpenAIKey, "o")
	for _, tc := range []struct {
		model, provider, base, wantName string
	}{
		{"claude-haiku-4-5-20251001", "", "", "anthropic/claude-haiku-4-5-20251001"},
		{"claude-opus-4-7", "", "", "anthropic/claude-opus-4-7"},
		{"gpt-4o", "", "", "openai/gpt-4o"},
		{"gpt-4o-mini", "", "", "openai/gpt-4o-mini"},
		{"o1-mini", "", "", "openai/o1-mini"},
		{"lexical", "", "", "lexical"},
		{"LEXICAL", "", "", "lexical"},
		{"", "lexical", "", "lexical"},
		{"llama3.1", "", "http://127.0.0.1:8080", "openai-compatible/llama3.1"},
		// The base URL decides, not the model id's shape (issue 23): an
		// OpenAI-looking name served by Ollama is openai-compatible, and a
		// provider's own host names that provider.
		{"gpt-oss:20b", "", "http://127.0.0.1:11434/v1", "openai-compatible/gpt-oss:20b"},
		// Ollama's own port without "/v1" is its native API.
		{"gpt-oss:20b", "", "http://127.0.0.1:11434", "ollama/gpt-oss:20b"},
		{"gpt-oss:20b", "", "http://localhost:11434/", "ollama/gpt-oss:20b"},
		{"gpt-oss:20b", "ollama", "", "ollama/gpt-oss:20b"},
		{"gpt-oss:20b", "ollama", "http://10.0.0.5:8000/v1", "ollama/gpt-oss:20b"},
		{"claude-sonnet-4-6", "", "http://localhost:8080/v1", "openai-compatible/claude-sonnet-4-6"},
		{"gpt-4o", "", "https://api.openai.com/v1", "openai/gpt-4o"},
		{"claude-sonnet-4-6", "", "https://API.anthropic.com.", "anthropic/claude-sonnet-4-6"},
		// An explicit provider wins over inference.
		{"gpt-4o", "openai-compatible", "http://127.0.0.1:8080", "openai-compatible/gpt-4o"},
		{"", "openai-compatible", "http://127.0.0.1:8080", "openai-compatible"},
	} {
		j, err := New(Config{Model: tc.model, Provider: tc.provider, BaseURL: tc.base, Getenv: keys, Client: client})
		if err != nil {
			t.Errorf("New(%q, %q): %v", tc.model, tc.provider, err)
			continue
		}
		if j.Name() != tc.wantName {
			t.Errorf("New(%q, %q).Name() = %q, want %q", tc.model, tc.provider, j.Name(), tc.wantName)
		}
	}
}

func TestNewErrors(t *testing.T) {
	client := &http.Client{}
	keys := env(EnvAnthropicKey, "a", EnvOpenAIKey, "o")
	for _, tc := range []struct {
		name string
		cfg  Config
		kind string
		msg  string
	}{
		{"unknown claude model", Config{Model: "claude-3-opus-20240229", Getenv: keys, Client: client}, KindUnknownModel, `Unknown model "claude-3-opus-20240229" for provider anthropic: citegate knows the prices of claude-haiku-4-5, claude-haiku-4-5-20251001,`},
		{"unknown gpt model", Config{Model: "gpt-5-turbo", Getenv: keys, Client: client}, KindUnknownModel, "gpt-4o, gpt-4o-mini, o1-mini only; use one of them, or provider openai-compatible"},
		{"unknown o model", Config{Model: "o3", Getenv: keys, Client: client}, KindUnknownModel, "Unknown model"},
		{"uninferable model", Config{Model: "mistral-large", Getenv: keys, Client: client}, KindUnknownModel, "cannot infer its provider"},
		{"no model", Config{Getenv: keys, Client: client}, KindUnknownModel, "no model"},
		{"anthropic without model", Config{Provider: "anthropic", Getenv: keys, Client: client}, KindUnknownModel, "no model"},
		{"missing anthropic key", Config{Model: "claude-sonnet-4-6", Getenv: env(EnvOpenAIKey, "o"), Client: client}, KindMissingKey, "ANTHROPIC_API_KEY is not set"},
		{"blank anthropic key", Config{Model: "claude-sonnet-4-6", Getenv: env(EnvAnthropicKey, "  "), Client: client}, KindMissingKey, "ANTHROPIC_API_KEY"},
		{"missing openai key", Config{Model: "gpt-4o", Getenv: env(EnvAnthropicKey, "a"), Client: client}, KindMissingKey, "OPENAI_API_KEY is not set"},
		{"unknown provider", Config{Model: "gpt-4o", Provider: "bedrock", Getenv: keys, Client: client}, KindConfig, "unknown provider"},
		{"compatible without base URL", Config{Model: "llama3", Provider: "openai-compatible", Getenv: keys, Client: client}, KindConfig, "base URL"},
		{"no client", Config{Model: "gpt-4o", Getenv: keys}, KindConfig, "no HTTP client"},
		{"bad base URL", Config{Model: "gpt-4o", BaseURL: "not a url", Getenv: keys, Client: client}, KindConfig, "invalid base URL"},
		{"ftp base URL", Config{Model: "gpt-4o", BaseURL: "ftp://example.com", Getenv: keys, Client: client}, KindConfig, "not http(s)"},
		{"userinfo in base URL", Config{Model: "gpt-4o", BaseURL: "https://user:hunter2@example.com", Getenv: keys, Client: client}, KindConfig, "userinfo"},
		{"query in base URL", Config{Model: "gpt-4o", BaseURL: "https://example.com/?key=x", Getenv: keys, Client: client}, KindConfig, "query"},
		{"key over plain http", Config{Model: "claude-haiku-4-5", Provider: "anthropic", BaseURL: "http://proxy.example.com", Getenv: env(EnvJudgeKey, "j"), Client: client}, KindConfig, "plain http"},
		// A provider's own key goes to its own host only: elsewhere the
		// judge needs the operator's key.
		{"openai key not sent to a proxy", Config{Model: "gpt-4o", Provider: "openai", BaseURL: "https://proxy.example.com", Getenv: keys, Client: client}, KindMissingKey, "CITEGATE_JUDGE_API_KEY is not set"},
		{"anthropic key not sent to a proxy", Config{Model: "claude-sonnet-4-6", Provider: "anthropic", BaseURL: "https://proxy.example.com", Getenv: keys, Client: client}, KindMissingKey, "CITEGATE_JUDGE_API_KEY is not set"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j, err := New(tc.cfg)
			if err == nil {
				t.Fatalf("New succeeded with %s", j.Name())
			}
			je := asError(t, err)
			if je.Kind != tc.kind || !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("error %q (kind %q), want kind %q containing %q", err, je.Kind, tc.kind, tc.msg)
			}
			if strings.Contains(err.Error(), "hunter2") {
				t.Errorf("error shows the base URL's password: %q", err)
			}
		})
	}
}

func TestNewNeedsNoKeyOrClient(t *testing.T) {
	// The lexical judge needs neither a key nor a client.
	j, err := New(Config{Model: "lexical", Getenv: env()})
	if err != nil || j.Name() != "lexical" {
		t.Fatalf("lexical: %v", err)
	}
	// openai-compatible needs no key.
	if _, err := New(Config{Model: "qwen2.5", BaseURL: "http://localhost:11434/v1", Getenv: env(), Client: &http.Client{}}); err != nil {
		t.Errorf("openai-compatible without key: %v", err)
	}
	// Loopback http is fine for the paid providers (tests, local proxies).
	for _, base := range []string{"http://127.0.0.1:9", "http://[::1]:9", "http://localhost:9"} {
		if _, err := New(Config{Model: "gpt-4o", Provider: "openai", BaseURL: base, Getenv: env(EnvJudgeKey, "k"), Client: &http.Client{}}); err != nil {
			t.Errorf("%s: %v", base, err)
		}
	}
}

func TestNewUsesOSGetenvByDefault(t *testing.T) {
	t.Setenv(EnvAnthropicKey, "")
	if _, err := New(Config{Model: "claude-sonnet-4-6", Client: &http.Client{}}); err == nil {
		t.Error("New found a key in an empty environment")
	}
	t.Setenv(EnvAnthropicKey, "from-env")
	if _, err := New(Config{Model: "claude-sonnet-4-6", Client: &http.Client{}}); err != nil {
		t.Errorf("New with ANTHROPIC_API_KEY set: %v", err)
	}
}

func TestPricesTable(t *testing.T) {
	want := map[string]Price{
		"claude-haiku-4-5-20251001": {1, 5, false},
		"claude-sonnet-4-6":         {3, 15, false},
		"claude-opus-4-7":           {5, 25, true},
		"gpt-4o":                    {2.50, 10, false},
		"gpt-4o-mini":               {0.15, 0.60, false},
		"o1-mini":                   {1.10, 4.40, true},
	}
	for m, p := range want {
		if got, ok := Prices[m]; !ok || got != p {
			t.Errorf("Prices[%q] = %+v, %v; want %+v", m, got, ok, p)
		}
	}
	for m, p := range Prices {
		if p.InputPerM <= 0 || p.OutputPerM < p.InputPerM {
			t.Errorf("Prices[%q] = %+v looks wrong", m, p)
		}
	}
}

func TestPricesInjectable(t *testing.T) {
	Prices["test-model-claude"] = Price{InputPerM: 7, OutputPerM: 70}
	t.Cleanup(func() { delete(Prices, "test-model-claude") })
	j, err := New(Config{Model: "test-model-claude", Provider: "anthropic", Getenv: env(EnvAnthropicKey, "k"), Client: &http.Client{}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := j.EstimateMaxCostUSD("abcd", ""), 1*7/1e6+512*70/1e6; math.Abs(got-want) > 1e-12 {
		t.Errorf("estimate %v, want %v", got, want)
	}
}

// TestEstimateMaxCost checks seed 002's formula:
// estimateCostUsd(model, ceil((claim.length + source.length)/4), 512).
func TestEstimateMaxCost(t *testing.T) {
	keys := env(EnvAnthropicKey, "a", EnvOpenAIKey, "o")
	for _, tc := range []struct {
		model         string
		claim, source string
		wantIn        int
	}{
		{"claude-haiku-4-5-20251001", "abc", strings.Repeat("x", 4000), 1001},                 // ceil(4003/4)
		{"claude-sonnet-4-6", "", "", 0},                                                      // only the 512 output tokens
		{"gpt-4o", "abcd", strings.Repeat("y", 4), 2},                                         // exact multiple
		{"gpt-4o-mini", "😀", "é", 1},                                                          // 2 + 1 UTF-16 units
		{"claude-opus-4-7", "claim", strings.Repeat("z", 20000), int(math.Ceil(20005.0 / 4))}, // the full source, not the 12,000-char prompt
	} {
		j, err := New(Config{Model: tc.model, Getenv: keys, Client: &http.Client{}})
		if err != nil {
			t.Fatal(err)
		}
		p := Prices[tc.model]
		want := float64(tc.wantIn)*p.InputPerM/1e6 + 512*p.OutputPerM/1e6
		if got := j.EstimateMaxCostUSD(tc.claim, tc.source); math.Abs(got-want) > 1e-12 {
			t.Errorf("%s: estimate %v, want %v", tc.model, got, want)
		}
	}
	if c := NewLexical().EstimateMaxCostUSD("c", strings.Repeat("s", 1e5)); c != 0 {
		t.Errorf("lexical estimate %v", c)
	}
}

func TestInferProvider(t *testing.T) {
	for model, want := range map[string]string{
		"claude-sonnet-4-6": ProviderAnthropic, "gpt-4o": ProviderOpenAI, "o1-mini": ProviderOpenAI,
		"o4-mini": ProviderOpenAI, "lexical": ProviderLexical,
	} {
		if got, err := InferProvider(model, ""); err != nil || got != want {
			t.Errorf("InferProvider(%q) = %q, %v; want %q", model, got, err, want)
		}
	}
	// "ollama" starts with "o" but is no o-series model.
	if got, err := InferProvider("ollama", ""); err == nil {
		t.Errorf("InferProvider(ollama) = %q", got)
	}
}

func TestLexicalJudgeInterface(t *testing.T) {
	j := NewLexical()
	v, err := j.Judge(context.Background(), testClaim, "The Golden Gate Bridge opened to traffic on May 27, 1937.")
	if err != nil {
		t.Fatal(err)
	}
	if !v.Supported || v.CostUSD == nil || *v.CostUSD != 0 || v.InputTokens != 0 {
		t.Errorf("verdict %+v", v)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := j.Judge(ctx, "c", "s"); err == nil {
		t.Error("lexical judge ignored a canceled context")
	}
}
