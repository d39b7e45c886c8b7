package judge

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

const (
	testClaim = "The Golden Gate Bridge opened to traffic in 1937."
	// testSourceHead ends up in the prompt; testSourceTail lies past the
	// 12,000-character cap and must not.
	testSourceHead = "It opened to traffic on May 27, 1937. "
	testSourceTail = "THIS-TAIL-IS-PAST-THE-CAP"
)

func longSource() string {
	return testSourceHead + strings.Repeat("Filler sentence about bridges. ", 400) + testSourceTail
}

func newAnthropic(t *testing.T, f *fakeAPI, model string) Judge {
	t.Helper()
	base, client := f.official(anthropicHost)
	j, err := New(Config{Model: model, BaseURL: base, Getenv: env(EnvAnthropicKey, testAnthropicKey), Client: client})
	if err != nil {
		t.Fatal(err)
	}
	return noWait(j)
}

func newOpenAI(t *testing.T, f *fakeAPI, model string) Judge {
	t.Helper()
	base, client := f.official(openAIHost)
	j, err := New(Config{Model: model, BaseURL: base, Getenv: env(EnvOpenAIKey, testOpenAIKey), Client: client})
	if err != nil {
		t.Fatal(err)
	}
	return noWait(j)
}

func asError(t *testing.T, err error) *Error {
	t.Helper()
	var je *Error
	if !errors.As(err, &je) {
		t.Fatalf("error %v (%T) is not *judge.Error", err, err)
	}
	return je
}

func costOf(v Verdict) float64 {
	if v.CostUSD == nil {
		return math.NaN()
	}
	return *v.CostUSD
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-12 }

// checkPrompt asserts that the user content carries the claim and the
// truncated source.
func checkPrompt(t *testing.T, user string) {
	t.Helper()
	if !strings.HasPrefix(user, "CLAIM:\n"+testClaim+"\n\nSOURCE TEXT:\n"+testSourceHead) {
		t.Errorf("user content starts %q", user[:min(len(user), 120)])
	}
	if !strings.HasSuffix(user, TruncationMarker) || strings.Contains(user, testSourceTail) {
		t.Error("user content is not the 12,000-character truncated source")
	}
}

// ---- Anthropic ----

func TestAnthropicRequestShape(t *testing.T) {
	for _, tc := range []struct {
		model    string
		wantTemp bool
	}{
		{"claude-haiku-4-5-20251001", true},
		{"claude-sonnet-4-6", true},
		{"claude-opus-4-6", true},
		{"claude-opus-4-7", false}, // "temperature is deprecated for this model"
		{"claude-opus-4-8", false},
	} {
		t.Run(tc.model, func(t *testing.T) {
			f := newFakeAPI(t, func(w http.ResponseWriter, r *http.Request, req recorded) {
				writeJSON(w, 200, anthropicAnswer(goodVerdict, 812, 14))
			})
			j := newAnthropic(t, f, tc.model)
			if got, want := j.Name(), "anthropic/"+tc.model; got != want {
				t.Errorf("Name = %q, want %q", got, want)
			}
			if _, err := j.Judge(context.Background(), testClaim, longSource()); err != nil {
				t.Fatal(err)
			}
			req := f.last(t)
			if req.Method != http.MethodPost || req.Path != "/v1/messages" {
				t.Errorf("request %s %s, want POST /v1/messages", req.Method, req.Path)
			}
			for h, want := range map[string]string{
				"X-Api-Key": testAnthropicKey, "Anthropic-Version": "2023-06-01", "Content-Type": "application/json",
			} {
				if got := req.Header.Get(h); got != want {
					t.Errorf("header %s = %q, want %q", h, got, want)
				}
			}
			if req.Header.Get("Authorization") != "" {
				t.Error("Anthropic request carries an Authorization header")
			}
			b := req.Body
			if b["model"] != tc.model || b["max_tokens"] != float64(256) || b["system"] != SystemPrompt {
				t.Errorf("body model=%v max_tokens=%v system-ok=%v", b["model"], b["max_tokens"], b["system"] == SystemPrompt)
			}
			temp, has := b["temperature"]
			if has != tc.wantTemp || (has && temp != float64(0)) {
				t.Errorf("temperature present=%v value=%v, want present=%v value 0", has, temp, tc.wantTemp)
			}
			msgs, _ := b["messages"].([]any)
			if len(msgs) != 1 {
				t.Fatalf("messages = %v", b["messages"])
			}
			m := msgs[0].(map[string]any)
			if m["role"] != "user" {
				t.Errorf("role %v", m["role"])
			}
			checkPrompt(t, m["content"].(string))
		})
	}
}

func TestAnthropicVerdictAndCost(t *testing.T) {
	f := newFakeAPI(t, func(w http.ResponseWriter, r *http.Request, req recorded) {
		body := anthropicAnswer("", 812, 14)
		// A thinking block is skipped; text blocks are joined.
		body["content"] = []any{
			map[string]any{"type": "thinking", "thinking": "{not this}"},
			map[string]any{"type": "text", "text": `{"supported": true, `},
			map[string]any{"type": "text", "text": `"confidence": 0.934, "rationale": "quote"}`},
		}
		writeJSON(w, 200, body)
	})
	j := newAnthropic(t, f, "claude-haiku-4-5-20251001")
	v, err := j.Judge(context.Background(), testClaim, "It opened to traffic in 1937.")
	if err != nil {
		t.Fatal(err)
	}
	if !v.Supported || v.Confidence != 0.93 || v.Rationale != "quote" || v.InputTokens != 812 || v.OutputTokens != 14 {
		t.Errorf("verdict %+v", v)
	}
	if want := 812*1.0/1e6 + 14*5.0/1e6; !near(costOf(v), want) {
		t.Errorf("cost %v, want %v", costOf(v), want)
	}
	if v.LatencyMS < 0 {
		t.Errorf("latency %d", v.LatencyMS)
	}
}

func TestAnthropicBaseURLWithV1(t *testing.T) {
	f := newFakeAPI(t, func(w http.ResponseWriter, r *http.Request, req recorded) {
		writeJSON(w, 200, anthropicAnswer(goodVerdict, 1, 1))
	})
	base, client := f.official(anthropicHost)
	j, err := New(Config{Model: "claude-sonnet-4-6", BaseURL: base + "/v1/", Getenv: env(EnvAnthropicKey, "k"), Client: client})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := j.Judge(context.Background(), "c", "s"); err != nil {
		t.Fatal(err)
	}
	if p := f.last(t).Path; p != "/v1/messages" {
		t.Errorf("path %q", p)
	}
}

// ---- OpenAI ----

func TestOpenAIRequestShape(t *testing.T) {
	for _, tc := range []struct {
		model      string
		wantTemp   bool
		wantSystem bool // system message + response_format json_object
	}{
		{"gpt-4o", true, true},
		{"gpt-4o-mini", true, true},
		{"o1-mini", false, false}, // no temperature, no system role, no response_format
	} {
		t.Run(tc.model, func(t *testing.T) {
			f := newFakeAPI(t, func(w http.ResponseWriter, r *http.Request, req recorded) {
				writeJSON(w, 200, openAIAnswer(goodVerdict, 900, 30))
			})
			j := newOpenAI(t, f, tc.model)
			if got, want := j.Name(), "openai/"+tc.model; got != want {
				t.Errorf("Name = %q, want %q", got, want)
			}
			if _, err := j.Judge(context.Background(), testClaim, longSource()); err != nil {
				t.Fatal(err)
			}
			req := f.last(t)
			if req.Method != http.MethodPost || req.Path != "/v1/chat/completions" {
				t.Errorf("request %s %s", req.Method, req.Path)
			}
			if got := req.Header.Get("Authorization"); got != "Bearer "+testOpenAIKey {
				t.Errorf("Authorization %q", got)
			}
			if req.Header.Get("X-Api-Key") != "" {
				t.Error("OpenAI request carries x-api-key")
			}
			b := req.Body
			if b["model"] != tc.model {
				t.Errorf("model %v", b["model"])
			}
			if b["max_completion_tokens"] != float64(256) {
				t.Errorf("max_completion_tokens = %v, want 256", b["max_completion_tokens"])
			}
			if _, has := b["max_tokens"]; has {
				t.Error("OpenAI request sends legacy max_tokens")
			}
			temp, has := b["temperature"]
			if has != tc.wantTemp || (has && temp != float64(0)) {
				t.Errorf("temperature present=%v value=%v, want present=%v", has, temp, tc.wantTemp)
			}
			rf, hasRF := b["response_format"].(map[string]any)
			if hasRF != tc.wantSystem || (hasRF && rf["type"] != "json_object") {
				t.Errorf("response_format = %v", b["response_format"])
			}
			msgs, _ := b["messages"].([]any)
			var user string
			if tc.wantSystem {
				if len(msgs) != 2 {
					t.Fatalf("messages %v", msgs)
				}
				sys := msgs[0].(map[string]any)
				if sys["role"] != "system" || sys["content"] != SystemPrompt {
					t.Errorf("system message %v", sys["role"])
				}
				u := msgs[1].(map[string]any)
				if u["role"] != "user" {
					t.Errorf("second role %v", u["role"])
				}
				user = u["content"].(string)
			} else {
				if len(msgs) != 1 || msgs[0].(map[string]any)["role"] != "user" {
					t.Fatalf("o1-mini messages %v", msgs)
				}
				content := msgs[0].(map[string]any)["content"].(string)
				if !strings.HasPrefix(content, SystemPrompt+"\n\n") {
					t.Error("o1-mini user message does not start with the instructions")
				}
				user = strings.TrimPrefix(content, SystemPrompt+"\n\n")
			}
			checkPrompt(t, user)
		})
	}
}

func TestOpenAIVerdictAndCost(t *testing.T) {
	f := newFakeAPI(t, func(w http.ResponseWriter, r *http.Request, req recorded) {
		writeJSON(w, 200, openAIAnswer("```json\n"+`{"supported": false, "confidence": 0.15, "rationale": "The source gives 1937, not 1933."}`+"\n```", 1000, 20))
	})
	j := newOpenAI(t, f, "gpt-4o-mini")
	v, err := j.Judge(context.Background(), "c", "s")
	if err != nil {
		t.Fatal(err)
	}
	if v.Supported || v.Confidence != 0.15 || v.Rationale != "The source gives 1937, not 1933." || v.InputTokens != 1000 || v.OutputTokens != 20 {
		t.Errorf("verdict %+v", v)
	}
	if want := 1000*0.15/1e6 + 20*0.60/1e6; !near(costOf(v), want) {
		t.Errorf("cost %v, want %v", costOf(v), want)
	}
}

func TestOpenAIMissingUsageChargesEstimate(t *testing.T) {
	f := newFakeAPI(t, func(w http.ResponseWriter, r *http.Request, req recorded) {
		body := openAIAnswer(goodVerdict, 0, 0)
		delete(body, "usage")
		writeJSON(w, 200, body)
	})
	j := newOpenAI(t, f, "gpt-4o")
	v, err := j.Judge(context.Background(), "claim", "source text")
	if err != nil {
		t.Fatal(err)
	}
	if want := j.EstimateMaxCostUSD("claim", "source text"); !near(costOf(v), want) {
		t.Errorf("cost without usage = %v, want the pessimistic estimate %v", costOf(v), want)
	}
}

// ---- openai-compatible ----

func TestOpenAICompatible(t *testing.T) {
	f := newFakeAPI(t, func(w http.ResponseWriter, r *http.Request, req recorded) {
		writeJSON(w, 200, openAIAnswer(goodVerdict, 700, 25))
	})
	for _, tc := range []struct {
		name, key string
	}{{"no key", ""}, {"with key", testOpenAIKey}} {
		t.Run(tc.name, func(t *testing.T) {
			j, err := New(Config{Model: "llama3.1:8b", BaseURL: f.URL + "/v1", Getenv: env(EnvJudgeKey, tc.key), Client: f.Client()})
			if err != nil {
				t.Fatal(err)
			}
			if j.Name() != "openai-compatible/llama3.1:8b" {
				t.Errorf("Name %q", j.Name())
			}
			if c := j.EstimateMaxCostUSD("c", "s"); c != 0 {
				t.Errorf("estimate %v for a judge of unknown cost", c)
			}
			v, err := j.Judge(context.Background(), testClaim, longSource())
			if err != nil {
				t.Fatal(err)
			}
			if v.CostUSD != nil {
				t.Errorf("CostUSD = %v, want nil (unknown)", *v.CostUSD)
			}
			if v.InputTokens != 700 || v.OutputTokens != 25 || !v.Supported {
				t.Errorf("verdict %+v", v)
			}
			req := f.last(t)
			if req.Path != "/v1/chat/completions" {
				t.Errorf("path %q", req.Path)
			}
			wantAuth := ""
			if tc.key != "" {
				wantAuth = "Bearer " + tc.key
			}
			if got := req.Header.Get("Authorization"); got != wantAuth {
				t.Errorf("Authorization %q, want %q", got, wantAuth)
			}
			b := req.Body
			if b["max_tokens"] != float64(256) {
				t.Errorf("max_tokens %v", b["max_tokens"])
			}
			if _, has := b["max_completion_tokens"]; has {
				t.Error("local server gets max_completion_tokens")
			}
			if b["temperature"] != float64(0) {
				t.Errorf("temperature %v", b["temperature"])
			}
			msgs := b["messages"].([]any)
			checkPrompt(t, msgs[1].(map[string]any)["content"].(string))
		})
	}
}

// TestOpenAICompatibleCleartextDropsKey: over plain http to a host that is
// not loopback, the optional key is not sent.
func TestOpenAICompatibleCleartextDropsKey(t *testing.T) {
	var got http.Header
	client := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		got = r.Header.Clone()
		return textResponse(200, `{"choices":[{"message":{"content":"{\"supported\":true,\"confidence\":1}"}}]}`), nil
	})}
	j, err := New(Config{Model: "m", Provider: ProviderOpenAICompatible, BaseURL: "http://192.0.2.10:11434",
		Getenv: env(EnvOpenAIKey, testOpenAIKey), Client: client})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := j.Judge(context.Background(), "c", "s"); err != nil {
		t.Fatal(err)
	}
	if a := got.Get("Authorization"); a != "" {
		t.Errorf("key sent in clear text: %q", a)
	}
}

// ---- answers that are not verdicts, and API errors, for every wire format ----

type wire struct {
	name   string
	newJ   func(t *testing.T, f *fakeAPI) Judge
	answer func(text string) map[string]any
	errorB func(kind, msg string) map[string]any
}

var wires = []wire{
	{
		name:   "anthropic",
		newJ:   func(t *testing.T, f *fakeAPI) Judge { return newAnthropic(t, f, "claude-haiku-4-5-20251001") },
		answer: func(text string) map[string]any { return anthropicAnswer(text, 500, 40) },
		errorB: anthropicError,
	},
	{
		name:   "openai",
		newJ:   func(t *testing.T, f *fakeAPI) Judge { return newOpenAI(t, f, "gpt-4o-mini") },
		answer: func(text string) map[string]any { return openAIAnswer(text, 500, 40) },
		errorB: func(kind, msg string) map[string]any { return openAIError(kind, "some_code", msg) },
	},
}

func TestMalformedAnswers(t *testing.T) {
	for _, w := range wires {
		for _, tc := range []struct{ name, text string }{
			{"prose", "Yes, the source supports the claim."},
			{"broken JSON", `{"supported": true, "confidence": }`},
			{"confidence above 1", `{"supported": true, "confidence": 1.2, "rationale": "x"}`},
			{"confidence negative", `{"supported": false, "confidence": -1}`},
			{"confidence missing", `{"supported": true}`},
			{"empty", ""},
		} {
			t.Run(w.name+"/"+tc.name, func(t *testing.T) {
				f := newFakeAPI(t, func(rw http.ResponseWriter, r *http.Request, req recorded) {
					writeJSON(rw, 200, w.answer(tc.text))
				})
				v, err := w.newJ(t, f).Judge(context.Background(), "c", "s")
				if je := asError(t, err); je.Kind != KindMalformed {
					t.Errorf("kind %q, want %q (%v)", je.Kind, KindMalformed, err)
				}
				// The call was billed: usage and cost survive the failure.
				if v.InputTokens != 500 || v.OutputTokens != 40 || v.CostUSD == nil || *v.CostUSD <= 0 {
					t.Errorf("verdict after malformed answer %+v", v)
				}
			})
		}
	}
}

func TestOpenAIRefusalAndNullContent(t *testing.T) {
	for name, msg := range map[string]map[string]any{
		"refusal": {"role": "assistant", "content": nil, "refusal": "I can't help with that."},
		"null":    {"role": "assistant", "content": nil},
	} {
		t.Run(name, func(t *testing.T) {
			f := newFakeAPI(t, func(w http.ResponseWriter, r *http.Request, req recorded) {
				writeJSON(w, 200, map[string]any{"choices": []any{map[string]any{"message": msg, "finish_reason": "stop"}}})
			})
			_, err := newOpenAI(t, f, "gpt-4o").Judge(context.Background(), "c", "s")
			if je := asError(t, err); je.Kind != KindMalformed {
				t.Errorf("kind %q", je.Kind)
			}
		})
	}
}

func TestAPIErrors(t *testing.T) {
	for _, w := range wires {
		for _, tc := range []struct {
			name      string
			status    int
			header    map[string]string
			kind      string
			errType   string
			wantRetry time.Duration
			plainBody string
		}{
			{"401", 401, nil, KindAuth, "authentication_error", 0, ""},
			{"403", 403, nil, KindAuth, "permission_error", 0, ""},
			{"429 retry-after seconds", 429, map[string]string{"Retry-After": "17"}, KindRateLimited, "rate_limit_error", 17 * time.Second, ""},
			{"429 retry-after-ms", 429, map[string]string{"Retry-After-Ms": "1500"}, KindRateLimited, "rate_limit_error", 1500 * time.Millisecond, ""},
			{"429 without retry-after", 429, nil, KindRateLimited, "rate_limit_error", 0, ""},
			{"400", 400, nil, KindLLM, "invalid_request_error", 0, ""},
			{"404 retired model", 404, nil, KindLLM, "not_found_error", 0, ""},
			{"500", 500, nil, KindLLM, "api_error", 0, ""},
			{"529 overloaded", 529, nil, KindLLM, "overloaded_error", 0, ""},
			{"504", 504, nil, KindTimeout, "timeout_error", 0, ""},
			{"502 plain text", 502, nil, KindLLM, "", 0, "<html>Bad Gateway</html>"},
		} {
			t.Run(w.name+"/"+tc.name, func(t *testing.T) {
				f := newFakeAPI(t, func(rw http.ResponseWriter, r *http.Request, req recorded) {
					for k, v := range tc.header {
						rw.Header().Set(k, v)
					}
					if tc.plainBody != "" {
						rw.Header().Set("Content-Type", "text/html")
						rw.WriteHeader(tc.status)
						_, _ = rw.Write([]byte(tc.plainBody))
						return
					}
					writeJSON(rw, tc.status, w.errorB(tc.errType, "the detail of "+tc.name))
				})
				v, err := w.newJ(t, f).Judge(context.Background(), "c", "s")
				je := asError(t, err)
				if je.Kind != tc.kind || je.HTTPStatus != tc.status || je.RetryAfter != tc.wantRetry {
					t.Errorf("got kind %q status %d retry %v, want %q %d %v (%v)", je.Kind, je.HTTPStatus, je.RetryAfter, tc.kind, tc.status, tc.wantRetry, err)
				}
				want := tc.errType
				if tc.plainBody != "" {
					want = "Bad Gateway"
				}
				if !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), fmt.Sprint(tc.status)) {
					t.Errorf("error %q lacks %q or the status", err, want)
				}
				if v.CostUSD != nil {
					t.Errorf("a failed call has cost %v", *v.CostUSD)
				}
				// A 429 is retried a bounded number of times (issue 23);
				// nothing else is.
				wantReqs := 1
				if tc.status == http.StatusTooManyRequests {
					wantReqs = 1 + maxRetries
				}
				if n := len(f.requests()); n != wantReqs {
					t.Errorf("%d requests, want %d", n, wantReqs)
				}
			})
		}
	}
}

func TestRetryAfterHTTPDate(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	h := http.Header{"Retry-After": []string{now.Add(30 * time.Second).Format(http.TimeFormat)}}
	if d := retryAfter(h, now); d != 30*time.Second {
		t.Errorf("retryAfter = %v", d)
	}
	h.Set("Retry-After", "garbage")
	if d := retryAfter(h, now); d != 0 {
		t.Errorf("retryAfter(garbage) = %v", d)
	}
}

func TestOllamaStringError(t *testing.T) {
	f := newFakeAPI(t, func(w http.ResponseWriter, r *http.Request, req recorded) {
		writeJSON(w, 404, map[string]any{"error": `model "llama9" not found, try pulling it first`})
	})
	j, err := New(Config{Model: "llama9", BaseURL: f.URL, Client: f.Client(), Getenv: env()})
	if err != nil {
		t.Fatal(err)
	}
	_, err = j.Judge(context.Background(), "c", "s")
	if je := asError(t, err); je.Kind != KindLLM || !strings.Contains(je.Message, "not found") {
		t.Errorf("error %v", err)
	}
}

func TestTimeouts(t *testing.T) {
	for _, w := range wires {
		t.Run(w.name+"/context deadline", func(t *testing.T) {
			f := newFakeAPI(t, func(rw http.ResponseWriter, r *http.Request, req recorded) {
				waitOrDone(r)
			})
			ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
			defer cancel()
			start := time.Now()
			_, err := w.newJ(t, f).Judge(ctx, "c", "s")
			if je := asError(t, err); je.Kind != KindTimeout {
				t.Errorf("kind %q (%v)", je.Kind, err)
			}
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Error("timeout error does not wrap context.DeadlineExceeded")
			}
			if d := time.Since(start); d > 3*time.Second {
				t.Errorf("took %v", d)
			}
		})
		t.Run(w.name+"/config timeout", func(t *testing.T) {
			f := newFakeAPI(t, func(rw http.ResponseWriter, r *http.Request, req recorded) {
				waitOrDone(r)
			})
			cfg := Config{BaseURL: f.URL, Client: f.Client(), Timeout: 50 * time.Millisecond,
				Getenv: env(EnvAnthropicKey, "a", EnvOpenAIKey, "o"), Model: "gpt-4o-mini"}
			if w.name == "anthropic" {
				cfg.Model = "claude-haiku-4-5"
			}
			j, err := New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			_, err = j.Judge(context.Background(), "c", "s")
			if je := asError(t, err); je.Kind != KindTimeout {
				t.Errorf("kind %q (%v)", je.Kind, err)
			}
		})
		t.Run(w.name+"/canceled", func(t *testing.T) {
			f := newFakeAPI(t, func(rw http.ResponseWriter, r *http.Request, req recorded) {
				waitOrDone(r)
			})
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(30*time.Millisecond, cancel)
			_, err := w.newJ(t, f).Judge(ctx, "c", "s")
			if je := asError(t, err); je.Kind != KindLLM || !errors.Is(err, context.Canceled) {
				t.Errorf("kind %q (%v)", je.Kind, err)
			}
		})
	}
}

func TestResponseBodyCap(t *testing.T) {
	for _, w := range wires {
		t.Run(w.name, func(t *testing.T) {
			f := newFakeAPI(t, func(rw http.ResponseWriter, r *http.Request, req recorded) {
				writeJSON(rw, 200, w.answer(strings.Repeat("x", MaxResponseBytes+10)))
			})
			_, err := w.newJ(t, f).Judge(context.Background(), "c", "s")
			if je := asError(t, err); je.Kind != KindLLM || !strings.Contains(je.Message, "exceeds") {
				t.Errorf("error %v", err)
			}
		})
	}
}

func TestRedirectNotFollowed(t *testing.T) {
	var mu sync.Mutex
	var stolen []string
	thief := newFakeAPI(t, func(w http.ResponseWriter, r *http.Request, req recorded) {
		mu.Lock()
		stolen = append(stolen, req.Header.Get("X-Api-Key")+req.Header.Get("Authorization"))
		mu.Unlock()
		writeJSON(w, 200, anthropicAnswer(goodVerdict, 1, 1))
	})
	for _, w := range wires {
		t.Run(w.name, func(t *testing.T) {
			f := newFakeAPI(t, func(rw http.ResponseWriter, r *http.Request, req recorded) {
				http.Redirect(rw, r, thief.URL+"/v1/messages", http.StatusTemporaryRedirect)
			})
			_, err := w.newJ(t, f).Judge(context.Background(), "c", "s")
			if je := asError(t, err); je.Kind != KindLLM || je.HTTPStatus != 307 || !strings.Contains(je.Message, "redirect") {
				t.Errorf("error %v", err)
			}
		})
	}
	mu.Lock()
	defer mu.Unlock()
	if len(stolen) != 0 {
		t.Errorf("redirect followed; the other host received %q", stolen)
	}
}

func TestTransportError(t *testing.T) {
	client := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		return nil, errors.New("dial tcp: connection refused")
	})}
	j, err := New(Config{Model: "gpt-4o", Getenv: env(EnvOpenAIKey, "k"), Client: client})
	if err != nil {
		t.Fatal(err)
	}
	_, err = j.Judge(context.Background(), "c", "s")
	if je := asError(t, err); je.Kind != KindLLM || !strings.Contains(je.Message, "connection refused") {
		t.Errorf("error %v", err)
	}
}

func TestDefaultEndpoints(t *testing.T) {
	var urls []string
	var mu sync.Mutex
	client := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		mu.Lock()
		urls = append(urls, r.URL.String())
		mu.Unlock()
		return textResponse(500, `{}`), nil
	})}
	for _, model := range []string{"claude-haiku-4-5-20251001", "gpt-4o"} {
		j, err := New(Config{Model: model, Client: client, Getenv: env(EnvAnthropicKey, "a", EnvOpenAIKey, "o")})
		if err != nil {
			t.Fatal(err)
		}
		_, _ = j.Judge(context.Background(), "c", "s")
	}
	want := []string{"https://api.anthropic.com/v1/messages", "https://api.openai.com/v1/chat/completions"}
	if fmt.Sprint(urls) != fmt.Sprint(want) {
		t.Errorf("endpoints %v, want %v", urls, want)
	}
}

// TestConcurrentJudges runs one judge of each kind from many goroutines
// (for -race).
func TestConcurrentJudges(t *testing.T) {
	f := newFakeAPI(t, func(w http.ResponseWriter, r *http.Request, req recorded) {
		if strings.HasSuffix(r.URL.Path, "/messages") {
			writeJSON(w, 200, anthropicAnswer(goodVerdict, 10, 5))
			return
		}
		writeJSON(w, 200, openAIAnswer(goodVerdict, 10, 5))
	})
	judges := []Judge{newAnthropic(t, f, "claude-sonnet-4-6"), newOpenAI(t, f, "gpt-4o"), NewLexical()}
	var wg sync.WaitGroup
	for i := range 24 {
		wg.Add(1)
		go func(j Judge) {
			defer wg.Done()
			if _, err := j.Judge(context.Background(), testClaim, "It opened to traffic on May 27, 1937."); err != nil {
				t.Error(err)
			}
		}(judges[i%len(judges)])
	}
	wg.Wait()
}

// TestThreeWayVerdicts: every LLM judge asks for the three-way verdict in
// its system prompt and reads it from the answer; an answer without one
// (a seed 002 prompt) takes the boolean.
func TestThreeWayVerdicts(t *testing.T) {
	for _, provider := range []string{ProviderAnthropic, ProviderOpenAI, ProviderOpenAICompatible} {
		for _, tc := range []struct {
			answer, want string
			supported    bool
		}{
			{`{"verdict":"uncertain","supported":true,"confidence":0.4,"rationale":"on topic, not stated"}`, VerdictUncertain, true},
			{`{"verdict":"unsupported","supported":false,"confidence":0.9,"rationale":"says 1937"}`, VerdictUnsupported, false},
			{`{"supported":true,"confidence":0.9,"rationale":"quote"}`, VerdictSupported, true},
		} {
			f := newFakeAPI(t, func(w http.ResponseWriter, r *http.Request, req recorded) {
				if provider == ProviderAnthropic {
					writeJSON(w, 200, anthropicAnswer(tc.answer, 10, 5))
					return
				}
				writeJSON(w, 200, openAIAnswer(tc.answer, 10, 5))
			})
			var j Judge
			var err error
			switch provider {
			case ProviderAnthropic:
				j = newAnthropic(t, f, "claude-haiku-4-5-20251001")
			case ProviderOpenAI:
				j = newOpenAI(t, f, "gpt-4o-mini")
			default:
				j, err = New(Config{Provider: ProviderOpenAICompatible, Model: "llama3.1", BaseURL: f.URL, Getenv: env(), Client: f.Client()})
				if err != nil {
					t.Fatal(err)
				}
			}
			v, err := j.Judge(context.Background(), testClaim, "It opened to traffic in 1937.")
			if err != nil {
				t.Fatalf("%s: %v", provider, err)
			}
			if v.Outcome != tc.want || v.Supported != tc.supported {
				t.Errorf("%s: answer %s gave %q supported=%v, want %q supported=%v", provider, tc.answer, v.Outcome, v.Supported, tc.want, tc.supported)
			}
			body := f.last(t).Raw
			if !strings.Contains(body, `\"verdict\": \"supported\" | \"unsupported\" | \"uncertain\"`) {
				t.Errorf("%s: the request's system prompt does not ask for the verdict: %s", provider, body)
			}
		}
	}
}
