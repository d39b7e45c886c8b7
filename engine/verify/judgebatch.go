// Claims that cite the same source share one judge call (issue 23, cost).

package verify

import (
	"strings"

	"github.com/citegate/citegate/engine/judge"
	"github.com/citegate/citegate/parse"
)

// batchPlan holds the sources cited by at least two of the claims verify
// will judge, when the judge can decide several claims in one call. The
// lexical judge and MiniCheck (one claim per prompt, as trained) cannot:
// their plan is empty and every claim is judged on its own.
type batchPlan struct {
	bj judge.BatchJudge
	// claims are each shared source's claims, in citation order.
	claims map[string][]string
	// runs are the batches started; tried marks the sources whose batch
	// was considered (a batch the cost cap refused is judged claim by
	// claim).
	runs  map[string]*batchRun
	tried map[string]bool
}

// planBatches groups the claims of todo that will be fetched (fetched
// reports which) by their target.
func planBatches(j judge.Judge, todo []parse.Citation, fetched func(parse.Citation) bool) *batchPlan {
	p := &batchPlan{claims: map[string][]string{}, runs: map[string]*batchRun{}, tried: map[string]bool{}}
	bj, ok := j.(judge.BatchJudge)
	if !ok {
		return p
	}
	p.bj = bj
	for _, c := range todo {
		if fetched(c) {
			p.claims[c.Target] = append(p.claims[c.Target], c.Claim)
		}
	}
	for t, cs := range p.claims {
		if len(cs) < 2 {
			delete(p.claims, t)
		}
	}
	return p
}

// batchRun is one batch call: its claims' verdicts and errors, in citation
// order, once done is closed.
type batchRun struct {
	passage string
	done    chan struct{}
	vs      []judge.Verdict
	errs    []error
	// next is the index of the next citation of the batch to be queued.
	next int
}

// batchInput is what the judge reads for a batch: the passages of the
// source most relevant to any of its claims, in one budget, and the
// batch's pessimistic cost, the sum of its claims' estimates.
func batchInput(j judge.Judge, text string, claims []string) (passage string, est float64) {
	passage = judgeText(j, text, strings.Join(claims, " "))
	for _, c := range claims {
		est += j.EstimateMaxCostUSD(c, passage)
	}
	return passage, est
}
