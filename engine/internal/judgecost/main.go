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
//   - minicheck: the MiniCheck protocol, one Yes/No call per chunk;
//   - two-stage: one call on the claim's focused excerpt (about 2,000
//     characters), a second on the full passages unless the first says
//     supported (verify.JudgeTwoStage).
//
// The fake's rule is -rule: "hash" answers by the claim alone (a hash of
// its text), so every protocol that delivers the claim agrees; "lexical"
// answers what the offline judge finds in the text the request carries,
// so a protocol that sends less of the page can lose a verdict — the fair
// stand-in for comparing inputs of different sizes.
//
// Run it as:
//
//	go run ./engine/internal/judgecost -data ../shared/eval/wice-dev [-rule lexical]
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
	rule := flag.String("rule", "hash", "the fake judge's rule: hash (by the claim alone) or lexical (by the text sent)")
	flag.Parse()
	if err := run(*data, *rule, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func run(data, rule string, out io.Writer) error {
	if rule != "hash" && rule != "lexical" {
		return fmt.Errorf("unknown -rule %q (want hash or lexical)", rule)
	}
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
	srv := &fake{lexical: rule == "lexical"}
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

	staged := map[string]string{}
	for _, k := range cases {
		focused, full := verify.JudgeInputs(pages[k.URL], "text/html", k.Claim)
		v, err := verify.JudgeTwoStage(ctx, jsonJudge, k.Claim, focused, full)
		if err != nil {
			return err
		}
		staged[k.ID] = v.Outcome
	}
	twoStage := srv.take()

	n := len(cases)
	fmt.Fprintf(out, "%d claims, %d sources, %d claims cite a source another claim cites; fake judge rule %s\n", n, len(urls), shared, rule)
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
	report("two-stage", twoStage, staged)
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
// supports, or by the offline judge on the text sent (lexical), and
// counts what they carry.
type fake struct {
	mu      sync.Mutex
	s       stats
	lexical bool
}

// decide is the fake's verdict on claim given the source text a request
// carries.
func (f *fake) decide(claim, source string) string {
	if !f.lexical {
		if supports(claim) {
			return judge.VerdictSupported
		}
		return judge.VerdictUnsupported
	}
	v, _ := offline.Judge(context.Background(), claim, source) // the offline judge fails on nothing
	return v.Outcome
}

var offline = judge.NewLexical()

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
		if m := miniClaim.FindStringSubmatch(user); m != nil {
			chunk := strings.TrimPrefix(user[:len(user)-len(m[0])], "Document: ")
			if f.decide(m[1], chunk) == judge.VerdictSupported {
				text = "Yes"
			}
		}
	case strings.HasPrefix(user, "CLAIM:\n"):
		m := oneClaim.FindStringSubmatch(user)
		text = verdict(0, f.decide(m[1], user[len(m[0]):]))
	default:
		src, claims, _ := strings.Cut(strings.TrimPrefix(user, "SOURCE TEXT:\n"), "\n\nCLAIMS:\n")
		var items []string
		for _, m := range numbered.FindAllStringSubmatch(claims, -1) {
			id, _ := strconv.Atoi(m[1]) // the pattern holds digits only
			items = append(items, verdict(id, f.decide(m[2], src)))
		}
		slices.Reverse(items) // out of order on purpose: ids, not positions, place them
		text = `{"verdicts": [` + strings.Join(items, ",") + `]}`
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"choices": []any{map[string]any{
		"message": map[string]any{"role": "assistant", "content": text}, "finish_reason": "stop"}}})
}

func verdict(id int, outcome string) string {
	s := fmt.Sprintf(`"verdict": %q, "supported": %v, "confidence": 0.9, "rationale": ""`, outcome, outcome == judge.VerdictSupported)
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
