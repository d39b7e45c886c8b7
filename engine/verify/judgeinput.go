// What a judge reads of a resolved source.

package verify

import (
	"github.com/citegate/citegate/engine/classify"
	"github.com/citegate/citegate/engine/judge"
)

// JudgeInput is what a judge reads of a fetched page for claim: its
// readable text narrowed to the passages most relevant to the claim, within
// the judge's budget (the development tools use it to judge pages on disk
// exactly as verify judges fetched ones).
func JudgeInput(body []byte, contentType, claim string) string {
	return JudgeInputWithin(body, contentType, claim, judgeSourceChars)
}

// JudgeInputWithin is JudgeInput with another budget (in bytes).
func JudgeInputWithin(body []byte, contentType, claim string, budget int) string {
	page := classify.Page{StatusCode: 200, Body: body, ContentType: contentType}
	return relevantPassages(readableSource(page), claim, budget)
}

// OfflineJudgeInput is what the offline (lexical) judge reads of a page:
// its whole readable text (see judgeText).
func OfflineJudgeInput(body []byte, contentType string) string {
	return readableSource(classify.Page{StatusCode: 200, Body: body, ContentType: contentType})
}

// readableSource is the text a judge reads of a page: the classifier's
// readable text (markup, scripts, hidden elements, navigation and footers
// removed). go-readability (codeberg.org/readeck/go-readability/v2, a port
// of Firefox's Reader View) was measured against it on
// ../shared/eval/wice-dev and lost: it dropped supporting sentences of 2 of
// the 68 supported cases and the offline judge's forced-choice accuracy fell
// from 0.797 to 0.777 (README, "verify").
func readableSource(page classify.Page) string {
	return classify.ReadableText(page)
}

// judgeText is what judge j reads of a source: an LLM judge, billed per
// token, the passages most relevant to the claim within seed 002's 12,000
// characters; the offline judge, which searches the text itself and counts
// a fact found anywhere on the page, the whole readable text.
func judgeText(j judge.Judge, text, claim string) string {
	if j.Name() == judge.ProviderLexical {
		return text
	}
	return relevantPassages(text, claim, judgeSourceChars)
}

// relevantPassages is what the judge reads: judge.Passages, which keeps
// the sentences (and their neighbours) that carry most of the claim.
func relevantPassages(text, claim string, max int) string {
	return judge.Passages(text, claim, max)
}
