// Batched verdicts: claims that cite the same source share one judge call
// (issue 23, cost). The source is sent once with the claims numbered; the
// judge answers with one verdict object per claim.

package judge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// BatchJudge is a Judge that can decide several claims on one source in
// one call. The LLM judges of the JSON protocol implement it; MiniCheck
// (one claim per prompt, as trained) and the lexical judge do not.
type BatchJudge interface {
	Judge
	// JudgeBatch decides each claim against source: verdicts[i] and errs[i]
	// are what Judge(ctx, claims[i], source) would return. The calls' tokens
	// and cost are carried by the verdict of each call's first claim, so
	// that their sum is what was billed.
	JudgeBatch(ctx context.Context, claims []string, source string) (verdicts []Verdict, errs []error)
}

// MaxBatchClaims bounds the claims of one call: more are sent in several
// calls on the same source (each a cache hit on Anthropic's API).
const MaxBatchClaims = 16

// BatchSystemPrompt is SystemPrompt for numbered claims: the same task,
// rules and verdict fields, answered as {"verdicts": [...]} with each
// claim's number as "id" (a JSON object at the top level, as OpenAI's
// json_object format requires).
const BatchSystemPrompt = `You are a citation verification evaluator. Given numbered claims extracted from AI-generated output and the text of a source they cite, decide for each claim on its own whether the source supports it. Score 0.00 means the source contradicts the claim or does not mention it. Score 1.00 means the source clearly supports the claim. Be strict: do not rate as supported unless the source actually contains the assertion. Do NOT penalize paraphrasing; DO penalize invented specifics not in the source. ` + verdictInstruction + ` Respond with a single JSON object — no markdown, no prose — holding one verdict per claim, in order: { "verdicts": [ { "id": <the claim's number>, "verdict": "supported" | "unsupported" | "uncertain", "supported": <boolean>, "confidence": <number 0.00..1.00>, "rationale": "<1-2 sentences — quote 5-15 words from the source if you found support>" } ] }`

// batchSourceHeader and batchClaimsHeader frame the two parts of a batch's
// user turn; the source comes first so that it is a cacheable prefix.
const (
	batchSourceHeader = "SOURCE TEXT:\n"
	batchClaimsHeader = "CLAIMS:\n"
)

// BatchUserPrompt is the user turn of a batch: the source (cut like
// UserPrompt's) and then the claims numbered from 1, one a line (line
// breaks inside a claim become spaces, so numbering stays unambiguous).
func BatchUserPrompt(claims []string, source string) (sourcePart, claimsPart string) {
	if utf16Len(source) > MaxSourceChars {
		source = utf16Prefix(source, MaxSourceChars) + TruncationMarker
	}
	var b strings.Builder
	b.WriteString(batchClaimsHeader)
	for i, c := range claims {
		fmt.Fprintf(&b, "%d. %s\n", i+1, strings.Join(strings.Fields(c), " "))
	}
	return batchSourceHeader + source + "\n\n", strings.TrimSuffix(b.String(), "\n")
}

// ParseBatchVerdicts reads a batch answer for n claims: {"verdicts": [...]}
// or a bare array, in a ``` fence or not. Each item must carry an integer
// "id" from 1 to n, each id once, and be a verdict ParseVerdict accepts;
// anything else is a KindMalformed error. The result is in claim order.
func ParseBatchVerdicts(raw string, n int) ([]Verdict, error) {
	items, err := batchItems(raw)
	if err != nil {
		return nil, err
	}
	if len(items) != n {
		return nil, malformed(fmt.Sprintf("judge gave %d verdicts for %d claims", len(items), n))
	}
	out := make([]Verdict, n)
	seen := make([]bool, n)
	for _, item := range items {
		var head struct {
			ID json.Number `json:"id"`
		}
		if json.Unmarshal(item, &head) != nil {
			return nil, malformed("batch verdict is not an object")
		}
		id, ierr := strconv.Atoi(head.ID.String())
		if ierr != nil || id < 1 || id > n || seen[id-1] {
			return nil, malformed(fmt.Sprintf("batch verdict has a missing, repeated or out-of-range id %q", safeDetail(head.ID.String(), "")))
		}
		seen[id-1] = true
		supported, conf, rationale, perr := ParseVerdict(string(item))
		if perr != nil {
			return nil, perr
		}
		out[id-1] = Verdict{Outcome: ParseOutcome(string(item), supported), Supported: supported, Confidence: conf, Rationale: rationale}
	}
	return out, nil
}

// batchItems extracts the verdict array of a batch answer.
func batchItems(raw string) ([]json.RawMessage, error) {
	s := strings.TrimFunc(raw, isJSSpace)
	if hasPrefixFold(s, "```json") {
		s = s[len("```json"):]
	}
	s = strings.TrimSuffix(strings.TrimPrefix(strings.TrimFunc(s, isJSSpace), "```"), "```")
	s = strings.TrimFunc(s, isJSSpace)
	if strings.HasPrefix(s, "[") {
		var items []json.RawMessage
		if json.Unmarshal([]byte(s), &items) != nil {
			return nil, malformed("judge emitted an invalid verdict array")
		}
		return items, nil
	}
	first, last := strings.IndexByte(s, '{'), strings.LastIndexByte(s, '}')
	if first < 0 || last <= first {
		return nil, malformed("judge did not emit JSON: " + safeDetail(utf16Prefix(raw, 200), ""))
	}
	var obj struct {
		Verdicts []json.RawMessage `json:"verdicts"`
	}
	if err := json.Unmarshal([]byte(s[first:last+1]), &obj); err != nil || obj.Verdicts == nil {
		return nil, malformed("judge answer has no \"verdicts\" array")
	}
	return obj.Verdicts, nil
}

// JudgeBatch sends the claims in calls of at most MaxBatchClaims. A single
// claim is judged by Judge, with seed 002's prompt. When a batch answer
// cannot be read (KindMalformed), or the server refuses the request as too
// large (HTTP 400 or 413), each of its claims is judged on its own; any
// other failure (auth, rate limit, timeout, 5xx) is every claim's error.
func (j *llmJudge) JudgeBatch(ctx context.Context, claims []string, source string) ([]Verdict, []error) {
	verdicts, errs := make([]Verdict, len(claims)), make([]error, len(claims))
	for lo := 0; lo < len(claims); lo += MaxBatchClaims {
		hi := min(lo+MaxBatchClaims, len(claims))
		j.judgeGroup(ctx, claims[lo:hi], source, verdicts[lo:hi], errs[lo:hi])
	}
	return verdicts, errs
}

// judgeGroup fills verdicts and errs for one call's claims.
func (j *llmJudge) judgeGroup(ctx context.Context, claims []string, source string, verdicts []Verdict, errs []error) {
	if len(claims) == 1 {
		verdicts[0], errs[0] = j.Judge(ctx, claims[0], source)
		return
	}
	usage, got, err := j.batchCall(ctx, claims, source)
	if err == nil {
		copy(verdicts, got)
		for i := range verdicts {
			verdicts[i].LatencyMS = usage.LatencyMS
		}
		addUsage(&verdicts[0], usage)
		return
	}
	var je *Error
	if !errors.As(err, &je) || (je.Kind != KindMalformed && je.HTTPStatus != http.StatusBadRequest && je.HTTPStatus != http.StatusRequestEntityTooLarge) {
		for i := range claims {
			errs[i] = err
		}
		addUsage(&verdicts[0], usage)
		return
	}
	for i, c := range claims {
		verdicts[i], errs[i] = j.Judge(ctx, c, source)
	}
	// The failed batch was billed too.
	addUsage(&verdicts[0], usage)
}

// addUsage adds u's tokens and cost to v.
func addUsage(v *Verdict, u Verdict) {
	v.InputTokens += u.InputTokens
	v.OutputTokens += u.OutputTokens
	if u.CostUSD != nil {
		c := *u.CostUSD
		if v.CostUSD != nil {
			c += *v.CostUSD
		}
		v.CostUSD = &c
	}
}

// batchCall makes one batch call. usage carries its tokens, cost and
// latency whether or not verdicts could be read.
func (j *llmJudge) batchCall(ctx context.Context, claims []string, source string) (usage Verdict, verdicts []Verdict, err error) {
	body, err := j.batchBody(claims, source)
	if err != nil {
		return usage, nil, &Error{Kind: KindLLM, Message: "encoding request: " + j.sanitize(err.Error())}
	}
	start := time.Now()
	raw, err := j.postRetrying(ctx, body)
	usage.LatencyMS = time.Since(start).Milliseconds()
	if err != nil {
		return usage, nil, err
	}
	ans, err := j.decode(raw)
	usage.InputTokens, usage.OutputTokens = ans.inTok, ans.outTok
	if j.price != nil {
		cost := j.price.Cost(ans.inTok, ans.outTok)
		if !ans.hasUsage {
			for _, c := range claims {
				cost += j.EstimateMaxCostUSD(c, source)
			}
		}
		usage.CostUSD = &cost
	}
	if err != nil {
		return usage, nil, err
	}
	verdicts, err = ParseBatchVerdicts(j.scrub(ans.text), len(claims))
	if err != nil {
		var je *Error
		if errors.As(err, &je) {
			je.Message = j.scrub(je.Message)
		}
		return usage, nil, err
	}
	for i := range verdicts {
		verdicts[i].Rationale = j.scrub(verdicts[i].Rationale)
	}
	return usage, verdicts, nil
}

// batchMaxTokens is the answer budget of a batch: seed 002's per verdict.
func batchMaxTokens(n int) int { return maxTokens * n }
