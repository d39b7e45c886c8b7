// Command judgecost measures what the LLM judges send per claim over a
// labelled claim set in the format of ../shared/eval/wice-dev (cases.jsonl,
// pages/): the characters of the prompts (system and user text) of every
// request, divided by the number of claims. It runs in-process against a
// fake server (an http.RoundTripper, no socket) that answers every claim by
// a fixed rule, so that the protocols' verdicts can be checked identical
// while their input is compared:
//
//   - per-claim: one JSON-protocol call per claim on its passages (verify
//     today);
//   - by-source: claims that cite the same URL share one batched call on
//     the union of their passages; a source cited once is judged alone;
//   - minicheck: the MiniCheck protocol, one Yes/No call per chunk.
//
// Run it as:
//
//	go run ./engine/internal/judgecost -data ../shared/eval/wice-dev
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"hash/fnv"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/citegate/citegate/engine/judge"
	"github.com/citegate/citegate/engine/verify"
)

type kase struct {
	ID, Page, URL, Claim string
}

func main() {
	data := flag.String("data", "", "a directory with cases.jsonl and pages/")
	flag.Parse()
	if err := run(*data, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func run(data string, out io.Writer) error {
	cases, err := readCases(filepath.Join(data, "cases.jsonl"))
	if err != nil {
		return err
	}
	pages := map[string][]byte{}
	for _, k := range cases {
		if pages[k.URL] == nil {
			if pages[k.URL], err = os.ReadFile(filepath.Join(data, "pages", k.Page)); err != nil {
				return err
			}
		}
	}
	srv := &fake{}
	ctx := context.Background()
	jsonJudge, err := judge.New(judge.Config{Model: "fake-json", Provider: judge.ProviderOpenAICompatible,
		BaseURL: "http://judge.invalid", Client: srv.client()})
	if err != nil {
		return err
	}
	// The batched pass below is the point of the comparison: a JSON judge
	// that cannot batch leaves nothing to measure.
	batcher, ok := jsonJudge.(judge.BatchJudge)
	if !ok {
		return fmt.Errorf("judge %T does not judge claims in batches", jsonJudge)
	}
	mc, err := judge.New(judge.Config{Model: "bespoke-minicheck", Provider: judge.ProviderOpenAICompatible,
		BaseURL: "http://judge.invalid", Client: srv.client()})
	if err != nil {
		return err
	}

	before := map[string]string{}
	for _, k := range cases {
		v, err := jsonJudge.Judge(ctx, k.Claim, verify.JudgeInput(pages[k.URL], "text/html", k.Claim))
		if err != nil {
			return err
		}
		before[k.ID] = v.Outcome
	}
	perClaim := srv.take()

	bySource := map[string][]kase{}
	var urls []string
	for _, k := range cases {
		if bySource[k.URL] == nil {
			urls = append(urls, k.URL)
		}
		bySource[k.URL] = append(bySource[k.URL], k)
	}
	after := map[string]string{}
	shared := 0
	for _, u := range urls {
		group := bySource[u]
		claims := make([]string, len(group))
		for i, k := range group {
			claims[i] = k.Claim
		}
		source := verify.JudgeInput(pages[u], "text/html", strings.Join(claims, " "))
		if len(group) > 1 {
			shared += len(group)
		}
		vs, errs := batcher.JudgeBatch(ctx, claims, source)
		for i, k := range group {
			if errs[i] != nil {
				return errs[i]
			}
			after[k.ID] = vs[i].Outcome
		}
	}
	batched := srv.take()

	mini := map[string]string{}
	for _, k := range cases {
		v, err := mc.Judge(ctx, k.Claim, verify.JudgeInput(pages[k.URL], "text/html", k.Claim))
		if err != nil {
			return err
		}
		mini[k.ID] = v.Outcome
	}
	miniCalls := srv.take()

	n := len(cases)
	fmt.Fprintf(out, "%d claims, %d sources, %d claims cite a source another claim cites\n", n, len(urls), shared)
	report := func(name string, s stats, verdicts map[string]string) {
		same := 0
		for id, o := range before {
			if verdicts[id] == o {
				same++
			}
		}
		fmt.Fprintf(out, "%-10s %4d requests  %9d prompt chars  %7.0f chars/claim  (%.2fx per-claim)  verdicts identical %d/%d\n",
			name, s.requests, s.chars, float64(s.chars)/float64(n), float64(perClaim.chars)/float64(max(s.chars, 1)), same, n)
	}
	report("per-claim", perClaim, before)
	report("by-source", batched, after)
	report("minicheck", miniCalls, mini)
	return nil
}

// supports is the fake judge's fixed rule: a claim is supported when the
// hash of its text is even.
func supports(claim string) bool {
	h := fnv.New32a()
	_, _ = h.Write([]byte(strings.Join(strings.Fields(claim), " ")))
	return h.Sum32()%2 == 0
}

// stats counts requests and the characters of their prompts.
type stats struct{ requests, chars int }

// fake answers Chat Completions requests of the three protocols by
// supports and counts what they carry.
type fake struct {
	mu sync.Mutex
	s  stats
}

func (f *fake) take() stats {
	f.mu.Lock()
	defer f.mu.Unlock()
	s := f.s
	f.s = stats{}
	return s
}

func (f *fake) client() *http.Client {
	return &http.Client{Transport: roundTrip(func(r *http.Request) (*http.Response, error) {
		rec := httptest.NewRecorder()
		f.ServeHTTP(rec, r)
		return rec.Result(), nil
	})}
}

type roundTrip func(*http.Request) (*http.Response, error)

func (rt roundTrip) RoundTrip(r *http.Request) (*http.Response, error) { return rt(r) }

var (
	numbered  = regexp.MustCompile(`(?m)^(\d+)\. (.*)$`)
	oneClaim  = regexp.MustCompile(`(?s)^CLAIM:\n(.*?)\n\nSOURCE TEXT:\n`)
	miniClaim = regexp.MustCompile(`\nClaim: (.*)$`)
)

func (f *fake) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Messages []struct{ Role, Content string } `json:"messages"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.Messages) == 0 {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	chars := 0
	for _, m := range req.Messages {
		chars += len([]rune(m.Content))
	}
	f.mu.Lock()
	f.s.requests++
	f.s.chars += chars
	f.mu.Unlock()
	user := req.Messages[len(req.Messages)-1].Content
	var text string
	switch {
	case strings.HasPrefix(user, "Document: "):
		text = "No"
		if m := miniClaim.FindStringSubmatch(user); m != nil && supports(m[1]) {
			text = "Yes"
		}
	case strings.HasPrefix(user, "CLAIM:\n"):
		text = verdict(0, supports(oneClaim.FindStringSubmatch(user)[1]))
	default:
		_, claims, _ := strings.Cut(user, "\n\nCLAIMS:\n")
		var items []string
		for _, m := range numbered.FindAllStringSubmatch(claims, -1) {
			id, _ := strconv.Atoi(m[1]) // the pattern holds digits only
			items = append(items, verdict(id, supports(m[2])))
		}
		slices.Reverse(items) // out of order on purpose: ids, not positions, place them
		text = `{"verdicts": [` + strings.Join(items, ",") + `]}`
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"choices": []any{map[string]any{
		"message": map[string]any{"role": "assistant", "content": text}, "finish_reason": "stop"}}})
}

func verdict(id int, supported bool) string {
	v := "unsupported"
	if supported {
		v = "supported"
	}
	s := fmt.Sprintf(`"verdict": %q, "supported": %v, "confidence": 0.9, "rationale": ""`, v, supported)
	if id > 0 {
		s = fmt.Sprintf(`"id": %d, `, id) + s
	}
	return "{" + s + "}"
}

func readCases(path string) ([]kase, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []kase
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var k kase
		if err := json.Unmarshal(sc.Bytes(), &k); err != nil {
			return nil, err
		}
		out = append(out, k)
	}
	return out, sc.Err()
}
