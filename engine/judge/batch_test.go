package judge

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

var _ BatchJudge = (*llmJudge)(nil)

func newBatchJudge(t *testing.T, cfg Config) BatchJudge {
	t.Helper()
	if cfg.Client == nil {
		cfg.Client = http.DefaultClient
	}
	j, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	bj, ok := j.(BatchJudge)
	if !ok {
		t.Fatalf("%s is not a BatchJudge", j.Name())
	}
	return bj
}

// item is one batch verdict object.
func item(id int, verdict string, supported bool) string {
	return fmt.Sprintf(`{"id": %d, "verdict": %q, "supported": %v, "confidence": 0.8, "rationale": "r%d"}`, id, verdict, supported, id)
}

// userText is a recorded Chat Completions request's user turn.
func userText(r recorded) string {
	msgs := r.Body["messages"].([]any)
	s, _ := msgs[len(msgs)-1].(map[string]any)["content"].(string)
	return s
}

func TestBatchOneCallPerSource(t *testing.T) {
	answer := `{"verdicts": [` + item(2, "unsupported", false) + `, ` + item(1, "supported", true) + `, ` + item(3, "uncertain", true) + `]}`
	f := newFakeAPI(t, func(w http.ResponseWriter, _ *http.Request, _ recorded) {
		writeJSON(w, 200, openAIAnswer(answer, 900, 60))
	})
	j := newBatchJudge(t, Config{Model: "llama3.1", Provider: ProviderOpenAICompatible, BaseURL: f.URL, Getenv: env()})
	claims := []string{"First claim.", "Second\nclaim.", "Third claim."}
	vs, errs := j.JudgeBatch(context.Background(), claims, "The source text.")
	for i, err := range errs {
		if err != nil {
			t.Fatalf("claim %d: %v", i, err)
		}
	}
	reqs := f.requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	msgs := reqs[0].Body["messages"].([]any)
	if msgs[0].(map[string]any)["content"] != BatchSystemPrompt {
		t.Error("system prompt is not BatchSystemPrompt")
	}
	want := "SOURCE TEXT:\nThe source text.\n\nCLAIMS:\n1. First claim.\n2. Second claim.\n3. Third claim."
	if got := userText(reqs[0]); got != want {
		t.Errorf("user turn\n got %q\nwant %q", got, want)
	}
	if reqs[0].Body["max_tokens"] != float64(3*maxTokens) {
		t.Errorf("max_tokens %v", reqs[0].Body["max_tokens"])
	}
	wantOutcome := []string{VerdictSupported, VerdictUnsupported, VerdictUncertain}
	for i, v := range vs {
		if v.Outcome != wantOutcome[i] || v.Rationale != fmt.Sprintf("r%d", i+1) || v.Confidence != 0.8 {
			t.Errorf("claim %d: %+v, want %s with its own rationale", i, v, wantOutcome[i])
		}
	}
	if vs[0].InputTokens != 900 || vs[0].OutputTokens != 60 || vs[1].InputTokens != 0 || vs[2].OutputTokens != 0 {
		t.Errorf("usage must be carried once, by the first verdict: %+v", vs)
	}
}

func TestBatchAnthropicMarksSourceForCaching(t *testing.T) {
	f := newFakeAPI(t, func(w http.ResponseWriter, _ *http.Request, req recorded) {
		text := goodVerdict
		if strings.Contains(req.Raw, "CLAIMS:") {
			text = `{"verdicts": [` + item(1, "supported", true) + `, ` + item(2, "supported", true) + `]}`
		}
		writeJSON(w, 200, anthropicAnswer(text, 100, 20))
	})
	base, client := f.official("api.anthropic.com")
	j := newBatchJudge(t, Config{Model: "claude-haiku-4-5-20251001", BaseURL: base, Client: client, Getenv: env(EnvAnthropicKey, testAnthropicKey)})
	_, errs := j.JudgeBatch(context.Background(), []string{"A.", "B."}, "Source.")
	if errs[0] != nil || errs[1] != nil {
		t.Fatal(errs)
	}
	r := f.last(t)
	if r.Body["system"] != BatchSystemPrompt {
		t.Error("system prompt is not BatchSystemPrompt")
	}
	blocks := r.Body["messages"].([]any)[0].(map[string]any)["content"].([]any)
	if len(blocks) != 2 {
		t.Fatalf("%d content blocks, want source and claims", len(blocks))
	}
	src, cl := blocks[0].(map[string]any), blocks[1].(map[string]any)
	if src["text"] != "SOURCE TEXT:\nSource.\n\n" || fmt.Sprint(src["cache_control"]) != "map[type:ephemeral]" {
		t.Errorf("source block %v, want the source marked ephemeral", src)
	}
	if cl["text"] != "CLAIMS:\n1. A.\n2. B." || cl["cache_control"] != nil {
		t.Errorf("claims block %v, want the claims unmarked", cl)
	}

	// A single claim keeps seed 002's request, unmarked.
	if _, errs := j.JudgeBatch(context.Background(), []string{"A."}, "Source."); errs[0] != nil {
		t.Fatal(errs[0])
	}
	if r := f.last(t); strings.Contains(r.Raw, "cache_control") || r.Body["system"] != SystemPrompt {
		t.Errorf("single claim request %s", r.Raw)
	}
}

func TestBatchMalformedFallsBackPerClaim(t *testing.T) {
	good1, good2 := item(1, "supported", true), item(2, "unsupported", false)
	for name, answer := range map[string]string{
		"too few":          `{"verdicts": [` + good1 + `]}`,
		"too many":         `{"verdicts": [` + good1 + `,` + good2 + `,` + item(3, "supported", true) + `]}`,
		"repeated id":      `{"verdicts": [` + good1 + `,` + good1 + `]}`,
		"id out of range":  `{"verdicts": [` + good1 + `,` + item(3, "supported", true) + `]}`,
		"id missing":       `{"verdicts": [` + good1 + `,{"verdict": "supported", "supported": true, "confidence": 0.5}]}`,
		"bad confidence":   `{"verdicts": [` + good1 + `,{"id": 2, "supported": true, "confidence": 7}]}`,
		"no verdicts key":  `{"results": [` + good1 + `,` + good2 + `]}`,
		"not json":         `Claim 1 is supported, claim 2 is not.`,
		"one verdict only": goodVerdict,
	} {
		t.Run(name, func(t *testing.T) {
			f := newFakeAPI(t, func(w http.ResponseWriter, _ *http.Request, req recorded) {
				if strings.Contains(userText(req), "CLAIMS:") {
					writeJSON(w, 200, openAIAnswer(answer, 50, 5))
					return
				}
				text := `{"verdict": "unsupported", "supported": false, "confidence": 0.6, "rationale": "single"}`
				if strings.Contains(userText(req), "CLAIM:\nA.") {
					text = goodVerdict
				}
				writeJSON(w, 200, openAIAnswer(text, 10, 1))
			})
			j := newBatchJudge(t, Config{Model: "llama3.1", Provider: ProviderOpenAICompatible, BaseURL: f.URL, Getenv: env()})
			vs, errs := j.JudgeBatch(context.Background(), []string{"A.", "B."}, "Source.")
			if errs[0] != nil || errs[1] != nil {
				t.Fatal(errs)
			}
			if n := len(f.requests()); n != 3 {
				t.Errorf("%d requests, want the batch and one per claim", n)
			}
			if vs[0].Outcome != VerdictSupported || vs[1].Outcome != VerdictUnsupported || vs[1].Rationale != "single" {
				t.Errorf("verdicts %+v, want the per-claim answers", vs)
			}
			if vs[0].InputTokens != 60 || vs[1].InputTokens != 10 {
				t.Errorf("tokens %d, %d: the failed batch is billed to the first claim", vs[0].InputTokens, vs[1].InputTokens)
			}
		})
	}
}

func TestBatchParseForms(t *testing.T) {
	arr := `[` + item(1, "supported", true) + `,` + item(2, "unsupported", false) + `]`
	for _, raw := range []string{arr, "```json\n" + arr + "\n```", "```\n{\"verdicts\": " + arr + "}\n```", `Here: {"verdicts": ` + arr + `}`} {
		vs, err := ParseBatchVerdicts(raw, 2)
		if err != nil || vs[0].Outcome != VerdictSupported || vs[1].Outcome != VerdictUnsupported {
			t.Errorf("ParseBatchVerdicts(%q) = %+v, %v", raw, vs, err)
		}
	}
}

func TestBatchServerErrors(t *testing.T) {
	for _, tt := range []struct {
		status   int
		calls    int
		fallback bool
	}{
		// A batch's 429 is waited out like a single call's, then reported.
		{500, 1, false}, {401, 1, false}, {429, 1 + maxRetries, false}, {413, 3, true}, {400, 3, true},
	} {
		t.Run(fmt.Sprint(tt.status), func(t *testing.T) {
			f := newFakeAPI(t, func(w http.ResponseWriter, _ *http.Request, req recorded) {
				if strings.Contains(userText(req), "CLAIMS:") {
					writeJSON(w, tt.status, openAIError("server_error", "x", "no"))
					return
				}
				writeJSON(w, 200, openAIAnswer(goodVerdict, 10, 1))
			})
			j := newBatchJudge(t, Config{Model: "llama3.1", Provider: ProviderOpenAICompatible, BaseURL: f.URL, Getenv: env()})
			j.(*llmJudge).sleep = func(context.Context, time.Duration) error { return nil }
			vs, errs := j.JudgeBatch(context.Background(), []string{"A.", "B."}, "Source.")
			if n := len(f.requests()); n != tt.calls {
				t.Errorf("%d requests, want %d", n, tt.calls)
			}
			for i := range errs {
				var je *Error
				switch {
				case tt.fallback && (errs[i] != nil || vs[i].Outcome != VerdictSupported):
					t.Errorf("claim %d: %v %+v, want the per-claim verdict", i, errs[i], vs[i])
				case !tt.fallback && (!errors.As(errs[i], &je) || je.HTTPStatus != tt.status || vs[i].Outcome != ""):
					t.Errorf("claim %d: %v, want the batch's HTTP %d error", i, errs[i], tt.status)
				}
			}
		})
	}
}

func TestBatchSplitsLargeBatches(t *testing.T) {
	f := newFakeAPI(t, func(w http.ResponseWriter, _ *http.Request, req recorded) {
		n := strings.Count(userText(req), "\n") - strings.Count("SOURCE TEXT:\nS.\n\nCLAIMS:\n", "\n") + 1
		items := make([]string, n)
		for i := range items {
			items[i] = item(i+1, "supported", true)
		}
		writeJSON(w, 200, openAIAnswer(`{"verdicts": [`+strings.Join(items, ",")+`]}`, 1, 1))
	})
	j := newBatchJudge(t, Config{Model: "llama3.1", Provider: ProviderOpenAICompatible, BaseURL: f.URL, Getenv: env()})
	claims := make([]string, MaxBatchClaims+3)
	for i := range claims {
		claims[i] = fmt.Sprintf("Claim %d.", i)
	}
	vs, errs := j.JudgeBatch(context.Background(), claims, "S.")
	for i := range claims {
		if errs[i] != nil || vs[i].Outcome != VerdictSupported {
			t.Fatalf("claim %d: %v %+v", i, errs[i], vs[i])
		}
	}
	reqs := f.requests()
	if len(reqs) != 2 || !strings.Contains(userText(reqs[1]), "3. Claim 18.") || strings.Contains(userText(reqs[1]), "4. ") {
		t.Errorf("%d requests, want %d claims then 3", len(reqs), MaxBatchClaims)
	}
}
