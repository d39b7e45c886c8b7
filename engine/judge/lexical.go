package judge

import (
	"context"
	"regexp"
	"strings"
	"time"
)

// The lexical judge is the offline judge of offline.go: transparent,
// free and deterministic — the same claim and source always give the same
// verdict and rationale. Its weights:
const (
	weightEntity = 1.5  // a name (capitalised inside a sentence, acronym, mixed case)
	weightWord   = 1.0  // another content word
	weightNumber = 1.0  // a figure, in passage scoring
	weightLight  = 0.25 // a reporting word ("a study found")
)

// NewLexical returns the lexical judge: offline, free and deterministic.
func NewLexical() Judge { return lexicalJudge{} }

type lexicalJudge struct{}

func (lexicalJudge) Name() string                           { return ProviderLexical }
func (lexicalJudge) EstimateMaxCostUSD(_, _ string) float64 { return 0 }

func (lexicalJudge) Judge(ctx context.Context, claim, source string) (Verdict, error) {
	if err := ctx.Err(); err != nil {
		return Verdict{}, &Error{Kind: KindLLM, Message: "lexical: call canceled", cause: err}
	}
	start := time.Now()
	o := judgeOffline(claim, source)
	zero := 0.0
	return Verdict{
		Outcome:    o.verdict,
		Supported:  o.supported,
		Confidence: o.conf,
		Rationale:  o.rationale,
		CostUSD:    &zero,
		LatencyMS:  time.Since(start).Milliseconds(),
	}, nil
}

// claimTerm is one distinct content term of the claim.
type claimTerm struct {
	key     string
	display string // as first written in the claim
	weight  float64
	number  bool
	entity  bool
	opp     string // opposite concept key, or ""
}

// predicate reports a term that is neither a name nor a figure: what the
// claim says about its names and figures.
func (t claimTerm) predicate() bool { return !t.number && !t.entity }

// citationMarks are the parts of a claim that cite rather than claim:
// [1], [2, 3], [^4], URLs, DOIs and (Author, 2020) parentheticals. Their
// figures must not count as the claim's. A bare "(1937)" is a claim and
// stays.
var citationMarks = regexp.MustCompile(`\[\^?\s*\w{1,6}(?:\s*[-–,;]\s*\w{1,6})*\s*\]` +
	`|https?://\S+|\b10\.\d{4,9}/\S+` +
	`|\([A-Z][^()]{0,80}?,?\s+(?:1[5-9]|20)\d{2}[a-z]?(?:;[^()]{0,80})?\)`)

// nonCue reports cues that do not negate: "not only", "not just", "not
// merely", and "with and without" / "with or without".
func nonCue(toks []token, i int) bool {
	if toks[i].low == "without" && i >= 2 && toks[i-2].low == "with" &&
		(toks[i-1].low == "and" || toks[i-1].low == "or") {
		return true
	}
	alts, ok := negationNonCue[toks[i].low]
	if !ok || i+1 >= len(toks) {
		return false
	}
	for _, a := range strings.Split(alts, "|") {
		if toks[i+1].low == a {
			return true
		}
	}
	return false
}
