package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/citegate/citegate/engine/verify"
)

// batchDoc cites the cold-climate study three times ([1]) and the Norway
// trials once ([2]); the fake judge supports the claims that say "2.5".
const batchDoc = "Cold-climate heat pumps keep a seasonal coefficient of performance of about 2.5 [1]. " +
	"The trials ran in Norway for two winters [2]. " +
	"The same study found that the heat pumps stopped working below minus 40 degrees [1]. " +
	"Units in 40 homes kept a coefficient of 2.5 at the coldest sites [1].\n\n" +
	"## Sources\n\n1. http://research.heat.example/cold-climate-study\n2. http://news.heat.example/norway-trials\n"

// fakeBatchJudge is a judge server speaking OpenAI's chat completions
// (/v1/chat/completions) and Anthropic's Messages (/v1/messages). It
// records the claims of each request (one for a single call, the numbered
// ones for a batch) and answers by a fixed rule: a claim is supported when
// it says "2.5". Batches are answered in reverse order: ids, not positions,
// place the verdicts.
type fakeBatchJudge struct {
	mu       sync.Mutex
	requests [][]string
	// malformed makes every batch answer carry one verdict only.
	malformed bool
	// chars counts the characters of the prompts (system and user text).
	chars int
}

var (
	fakeOneClaim = regexp.MustCompile(`(?s)CLAIM:\n(.*?)\n\nSOURCE TEXT:\n`)
	fakeNumbered = regexp.MustCompile(`(?m)^(\d+)\. (.*)$`)
)

func (f *fakeBatchJudge) serve(w http.ResponseWriter, r *http.Request) {
	var req struct {
		System   string `json:"system"`
		Messages []struct {
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if json.NewDecoder(r.Body).Decode(&req) != nil || len(req.Messages) == 0 {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	user := userText(req.Messages[len(req.Messages)-1].Content)
	chars := len([]rune(req.System))
	for _, m := range req.Messages {
		chars += len([]rune(userText(m.Content)))
	}
	var claims []string
	var text string
	if _, list, ok := strings.Cut(user, "\nCLAIMS:\n"); ok {
		var items []string
		for i, m := range fakeNumbered.FindAllStringSubmatch(list, -1) {
			claims = append(claims, m[2])
			items = append(items, fakeVerdict(i+1, m[2]))
		}
		if f.malformed {
			items = items[:1]
		}
		slices.Reverse(items)
		text = `{"verdicts": [` + strings.Join(items, ", ") + `]}`
	} else if m := fakeOneClaim.FindStringSubmatch(user); m != nil {
		claims = []string{m[1]}
		text = fakeVerdict(0, m[1])
	}
	f.mu.Lock()
	f.requests = append(f.requests, claims)
	f.chars += chars
	f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	if r.URL.Path == "/v1/messages" {
		_ = json.NewEncoder(w).Encode(map[string]any{"id": "msg", "type": "message", "role": "assistant", "model": "claude-haiku-4-5-20251001",
			"content": []any{map[string]any{"type": "text", "text": text}}, "stop_reason": "end_turn",
			"usage": map[string]any{"input_tokens": 900, "output_tokens": 40}})
		return
	}
	_ = json.NewEncoder(w).Encode(map[string]any{"choices": []any{map[string]any{
		"message": map[string]any{"role": "assistant", "content": text}, "finish_reason": "stop"}}})
}

// userText is a message's text: a string, or the text of its blocks.
func userText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []struct{ Text string }
	_ = json.Unmarshal(raw, &blocks)
	var b strings.Builder
	for _, bl := range blocks {
		b.WriteString(bl.Text)
	}
	return b.String()
}

func fakeVerdict(id int, claim string) string {
	supported := strings.Contains(claim, "2.5")
	v := "unsupported"
	if supported {
		v = "supported"
	}
	s := fmt.Sprintf(`"verdict": %q, "supported": %v, "confidence": 0.9, "rationale": "by rule"`, v, supported)
	if id > 0 {
		s = fmt.Sprintf(`"id": %d, `, id) + s
	}
	return "{" + s + "}"
}

func newFakeBatchJudge(t *testing.T) (*fakeBatchJudge, *httptest.Server) {
	t.Helper()
	f := &fakeBatchJudge{}
	srv := httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(srv.Close)
	return f, srv
}

func verdicts(res *verify.Result) []string {
	var out []string
	for _, c := range res.Citations {
		if c.Judge == nil {
			out = append(out, "-")
			continue
		}
		out = append(out, c.Judge.Verdict)
	}
	return out
}

// TestVerifyBatchesClaimsBySource: the three claims citing [1] share one
// judge call carrying them numbered in document order, [2] is judged on
// its own, and each citation gets its own verdict in document order; a
// batch answer that cannot be read falls back to one call per claim with
// the same verdicts.
func TestVerifyBatchesClaimsBySource(t *testing.T) {
	want := []string{"supported", "unsupported", "unsupported", "supported"}
	for _, tc := range []struct {
		name      string
		malformed bool
		requests  [][]int // each request's claims, as indices into the document's claims
	}{
		{"batch", false, [][]int{{0, 2, 3}, {1}}},
		{"malformed batch", true, [][]int{{0, 2, 3}, {0}, {2}, {3}, {1}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, srv := newFakeBatchJudge(t)
			f.malformed = tc.malformed
			e := newEngine()
			e.GuardOptions = verifyWeb(t)
			e.Net.Getenv = func(string) string { return "" }
			one := 1 // one call at a time: the requests' order is the queue's
			res, err := e.Verify(context.Background(), []byte(batchDoc), verify.Args{Model: "local", Provider: "openai-compatible",
				BaseURL: srv.URL + "/v1", AllowFetch: true, JudgeConcurrency: one})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%d requests, %d prompt characters, %d per claim", len(f.requests), f.chars, f.chars/len(res.Citations))
			if got := verdicts(res); !slices.Equal(got, want) {
				t.Errorf("verdicts %v, want %v", got, want)
			}
			var claims []string
			for _, c := range res.Citations {
				claims = append(claims, claimOf(t, c))
			}
			var got [][]int
			for _, r := range f.requests {
				var idx []int
				for _, c := range r {
					idx = append(idx, slices.IndexFunc(claims, func(s string) bool { return s != "" && strings.HasPrefix(c, s) }))
				}
				got = append(got, idx)
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.requests) {
				t.Errorf("requests carried claims %v, want %v\n%q", got, tc.requests, f.requests)
			}
		})
	}
}

// claimOf is the start of the claim of citation c in batchDoc: the text
// of the sentence before its marker.
func claimOf(t *testing.T, c verify.Citation) string {
	t.Helper()
	head := batchDoc[:c.Citation.OffsetStart]
	if i := strings.LastIndex(head, ". "); i >= 0 {
		head = head[i+2:]
	}
	return strings.Fields(head)[0] + " " + strings.Fields(head)[1]
}

// TestVerifyBatchCostCap: a batch is checked against the cap with the sum
// of its claims' estimates; a batch that would pass the cap is judged claim
// by claim, each call checked as before.
func TestVerifyBatchCostCap(t *testing.T) {
	f, srv := newFakeBatchJudge(t)
	out := []byte("Cold-climate heat pumps keep a seasonal coefficient of performance of about 2.5 [1]. " +
		"The same study found that the heat pumps stopped working below minus 40 degrees [1]. " +
		"Units in 40 homes kept a coefficient of 2.5 at the coldest sites [1].\n\n" +
		"## Sources\n\n1. http://research.heat.example/cold-climate-study\n")
	for _, tc := range []struct {
		cap      float64
		requests []int // the claims of each request
		capped   int
	}{
		{1.00, []int{3}, 0},   // one batch for the three claims
		{0.0035, []int{1}, 1}, // the batch's estimate does not fit; one claim's does, then the cap stops the run
		{0.0010, nil, 1},      // not even one claim
	} {
		f.requests = nil
		capv := tc.cap
		res, err := anthropicEngine(verifyWeb(t)).Verify(context.Background(), out, verify.Args{Model: "claude-haiku-4-5-20251001", Provider: "anthropic",
			BaseURL: srv.URL, AllowFetch: true, MaxCostUSDTotal: &capv})
		if err != nil {
			t.Fatal(err)
		}
		var sizes []int
		for _, r := range f.requests {
			sizes = append(sizes, len(r))
		}
		capped := 0
		for _, c := range res.Citations {
			if c.ResolveError != nil && c.ResolveError.Kind == "cost_cap_reached" {
				capped++
			}
		}
		if !slices.Equal(sizes, tc.requests) || capped != tc.capped || res.TotalCostUSD > tc.cap {
			t.Errorf("cap %v: requests of %v claims, %d capped, cost %v; want %v, %d, within the cap", tc.cap, sizes, capped, res.TotalCostUSD, tc.requests, tc.capped)
		}
		if tc.cap == 1.00 && (res.TotalSupported != 2 || res.TotalCostUSD <= 0) {
			t.Errorf("cap %v: %d supported, cost %v", tc.cap, res.TotalSupported, res.TotalCostUSD)
		}
	}
}
