// Two-stage judging: a claim-focused excerpt first, the full passages only
// when the excerpt does not show support.

package verify

import (
	"context"

	"github.com/citegate/citegate/engine/classify"
	"github.com/citegate/citegate/engine/judge"
)

// focusedSourceChars is the first stage's budget: the claim's best
// sentences, each with its neighbours (judge.FocusedPassages).
const focusedSourceChars = 2000

// JudgeInputs are the two stages' texts of a fetched page for claim: the
// focused excerpt and the full passages (JudgeInput). They are equal when
// the page's readable text fits the excerpt.
func JudgeInputs(body []byte, contentType, claim string) (focused, full string) {
	text := readableSource(classify.Page{StatusCode: 200, Body: body, ContentType: contentType})
	return judge.FocusedPassages(text, claim, focusedSourceChars), relevantPassages(text, claim, judgeSourceChars)
}

// JudgeTwoStage asks j about the focused excerpt, and again about the full
// passages unless the first answer is supported (a claim the excerpt
// supports needs no more reading; any other answer may come from what the
// excerpt left out). The verdict's tokens, cost and latency add up both
// calls. A failed first call is returned as is.
func JudgeTwoStage(ctx context.Context, j judge.Judge, claim, focused, full string) (judge.Verdict, error) {
	v, err := j.Judge(ctx, claim, focused)
	if err != nil || v.Outcome == judge.VerdictSupported || focused == full {
		return v, err
	}
	v2, err := j.Judge(ctx, claim, full)
	v2.InputTokens += v.InputTokens
	v2.OutputTokens += v.OutputTokens
	v2.LatencyMS += v.LatencyMS
	if v.CostUSD != nil {
		c := *v.CostUSD
		if v2.CostUSD != nil {
			c += *v2.CostUSD
		}
		v2.CostUSD = &c
	}
	return v2, err
}
