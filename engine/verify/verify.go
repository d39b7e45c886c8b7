package verify

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/citegate/citegate/engine/judge"
	"github.com/citegate/citegate/engine/registry"
	"github.com/citegate/citegate/netguard"
	"github.com/citegate/citegate/parse"
)

// Seed 002's defaults and caps for verify.
const (
	DefaultMaxCitations       = 20
	HardMaxCitations          = 50
	DefaultMaxCostUSDTotal    = 1.00
	DefaultPerSourceTimeoutMS = 10000
	DefaultPerSourceMaxBytes  = 5 << 20
	// DefaultJudgeTimeoutMS bounds one judge call (each attempt of it).
	DefaultJudgeTimeoutMS = int(judge.DefaultTimeout / time.Millisecond)
	// DefaultJudgeConcurrency is how many judge calls run at once.
	DefaultJudgeConcurrency = 4
	// HardMaxJudgeConcurrency caps --judge-concurrency.
	HardMaxJudgeConcurrency = 32
	// MaxOutputBytes bounds the agent output verify reads.
	MaxOutputBytes = 16 << 20
	maxRedirects   = 3
	// judgeSourceChars is what the judge reads of a source: the passages
	// most relevant to the claim, up to seed 002's 12,000 characters.
	judgeSourceChars = 12000
)

// Args mirrors seed 002's verify_citations parameters.
type Args struct {
	Model              string   `json:"model"`
	Provider           string   `json:"provider,omitempty"`
	BaseURL            string   `json:"base_url,omitempty"`
	AllowFetch         bool     `json:"allow_fetch,omitempty"`
	DomainAllowlist    []string `json:"domain_allowlist,omitempty"`
	MaxCostUSDTotal    *float64 `json:"max_cost_usd_total,omitempty"`
	MaxCitations       int      `json:"max_citations,omitempty"`
	PerSourceTimeoutMS int      `json:"per_source_timeout_ms,omitempty"`
	PerSourceMaxBytes  int      `json:"per_source_max_bytes,omitempty"`
	TraceID            string   `json:"trace_id,omitempty"`
	// JudgeTimeoutMS bounds one judge call (0: DefaultJudgeTimeoutMS);
	// sources are fetched under PerSourceTimeoutMS, judges under this.
	JudgeTimeoutMS int `json:"judge_timeout_ms,omitempty"`
	// JudgeConcurrency is how many judge calls may run at once (0:
	// DefaultJudgeConcurrency, at most HardMaxJudgeConcurrency).
	JudgeConcurrency int `json:"judge_concurrency,omitempty"`
	// FetchOff is what to tell the caller when AllowFetch is false: how
	// fetching is turned on where the call came from ("" is "pass
	// --allow-fetch", the command line's flag).
	FetchOff string `json:"-"`
	// NoAbstain turns every "uncertain" verdict into the judge's best guess
	// (forced choice): verdicts are then only supported or unsupported.
	NoAbstain bool `json:"no_abstain,omitempty"`
	// GateStatus, when set, gives the run's Gate C status of a normalized
	// URL and whether synthesis may cite it (run --verify): citing a source
	// that may not be cited is a finding. ok is false for a URL the run did
	// not validate.
	GateStatus func(normalizedURL string) (status string, citable, ok bool) `json:"-"`
}

// Settled hears of each citation as soon as it has its entry (run
// --verify's live view): its index and the number Run will list, the
// citation, the entry, and the text the judge read ("" when no judge read
// any). An error (cancellation) stops Run and is returned as it is.
type Settled func(ctx context.Context, i, total int, c parse.Citation, vc Citation, passage string) error

// Env is what Run needs from its caller: the operator's network options
// (every fetch goes through a netguard.Guard built from them), the
// environment for the judges' API keys, and the DOI resolver's base URL
// ("" is https://doi.org).
type Env struct {
	GuardOptions []netguard.Option
	Getenv       func(string) string
	DOIResolver  string
	// Registries are where a title-only reference is looked up (empty
	// fields: CITEGATE_*_BASE through Getenv, then the public registries);
	// Contact is the operator's e-mail for Crossref's and OpenAlex's
	// polite pools (default CITEGATE_CONTACT_EMAIL).
	Registries registry.Bases
	Contact    string
}

// ArgError is a configuration problem (empty or unknown model, missing key):
// the caller reports it as an INVALID_ARGS envelope.
type ArgError struct {
	Message string
	Details map[string]any
}

func (e *ArgError) Error() string { return e.Message }

// Result is seed 002's output shape, exactly.
type Result struct {
	ID           string   `json:"id"`
	OverallScore *float64 `json:"overall_score"`
	// Passed is the document gate (see gate): false when a judge found a
	// claim unsupported, true when it confirmed one and found none
	// unsupported; null when that is undecided, and Reason says why.
	Passed *bool `json:"passed"`
	// Reason says why Passed is null ("" when it is not): "not judged: …"
	// when judge calls failed, "not checked: …" when nothing was.
	Reason              string `json:"reason,omitempty"`
	TotalCitationsFound int    `json:"total_citations_found"`
	TotalResolved       int    `json:"total_resolved"`
	TotalSupported      int    `json:"total_supported"`
	// TotalUncertain counts judge verdicts of "uncertain", which are left
	// out of OverallScore's denominator.
	TotalUncertain int `json:"total_uncertain"`
	// TotalJudgeErrors counts citations whose source was read but whose
	// judge call failed (outcome Error): no verdict, left out of
	// OverallScore and of the gate's pass.
	TotalJudgeErrors int        `json:"total_judge_errors"`
	TotalCostUSD     float64    `json:"total_cost_usd"`
	Citations        []Citation `json:"citations"`
}

// Citation is one citation's outcome.
type Citation struct {
	Citation      CitationRef   `json:"citation"`
	ResolveStatus string        `json:"resolve_status"` // ok | skipped | error
	ResolveError  *ResolveError `json:"resolve_error,omitempty"`
	Source        *SourceInfo   `json:"source,omitempty"`
	Judge         *JudgeVerdict `json:"judge,omitempty"`
}

// CitationRef locates a citation in the output.
type CitationRef struct {
	Raw         string `json:"raw"`
	Kind        string `json:"kind"`
	Identifier  string `json:"identifier"`
	OffsetStart int    `json:"offset_start"`
	OffsetEnd   int    `json:"offset_end"`
}

// ResolveError says why a citation was not (fully) verified.
type ResolveError struct {
	Kind    string `json:"kind"`
	Message string `json:"message"`
}

// SourceInfo describes the fetched source.
type SourceInfo struct {
	URL          string `json:"url"`
	Status       int    `json:"status"`
	ContentType  string `json:"content_type"`
	BytesFetched int    `json:"bytes_fetched"`
	Truncated    bool   `json:"truncated"`
}

// JudgeVerdict is the judge's answer for one citation.
type JudgeVerdict struct {
	// Verdict is "supported", "unsupported" or "uncertain" (issue 11);
	// Supported is seed 002's boolean: the judge's best guess.
	Verdict      string   `json:"verdict"`
	Supported    bool     `json:"supported"`
	Confidence   float64  `json:"confidence"`
	Rationale    string   `json:"rationale"`
	CostUSD      *float64 `json:"cost_usd"`
	LatencyMS    int64    `json:"latency_ms"`
	InputTokens  int      `json:"input_tokens"`
	OutputTokens int      `json:"output_tokens"`
}

// fetchedSource is a resolved source, cached per URL within one call.
type fetchedSource struct {
	info SourceInfo
	text string
	err  *ResolveError
}

// Run checks whether each source cited in output supports its claim
// (seed 002, with [N], author–year and footnote citations resolved through
// the document's own reference list). Configuration problems (unknown model,
// missing key) are errors; per-citation problems are in the result.
func Run(ctx context.Context, env Env, output []byte, a Args, settled Settled) (*Result, error) {
	if strings.TrimSpace(a.Model) == "" {
		return nil, &ArgError{Message: "model must be non-empty"}
	}
	maxCit := a.MaxCitations
	if maxCit <= 0 {
		maxCit = DefaultMaxCitations
	}
	maxCit = min(maxCit, HardMaxCitations)
	costCap := DefaultMaxCostUSDTotal
	if a.MaxCostUSDTotal != nil {
		costCap = *a.MaxCostUSDTotal
	}
	timeout := time.Duration(orInt(a.PerSourceTimeoutMS, DefaultPerSourceTimeoutMS)) * time.Millisecond
	opts := slices.Clone(env.GuardOptions)
	for _, d := range a.DomainAllowlist {
		if d = strings.Trim(strings.ToLower(strings.TrimSpace(d)), "."); d != "" {
			opts = append(opts, netguard.DomainAllowlist(d))
		}
	}
	opts = append(opts, netguard.WithLimits(netguard.Limits{HopTimeout: timeout,
		MaxRedirects: maxRedirects, MaxBodyBytes: int64(orInt(a.PerSourceMaxBytes, DefaultPerSourceMaxBytes))}))
	guard := netguard.New(opts...)
	judgeTimeout := time.Duration(orInt(a.JudgeTimeoutMS, DefaultJudgeTimeoutMS)) * time.Millisecond
	base := judgeBase(a.Provider, a.BaseURL)
	j, err := judge.New(judge.Config{Model: a.Model, Provider: a.Provider, BaseURL: base, Getenv: env.Getenv,
		Client: judgeClient(env, base, judgeTimeout), Timeout: judgeTimeout})
	if err != nil {
		var je *judge.Error
		if errors.As(err, &je) {
			return nil, &ArgError{Message: netguard.RedactText(je.Message), Details: map[string]any{"kind": je.Kind}}
		}
		return nil, &ArgError{Message: netguard.RedactText(err.Error())}
	}

	cites := parse.Cite(output)
	res := &Result{ID: newUUID(), TotalCitationsFound: len(cites), Citations: []Citation{}}
	sources := map[string]*fetchedSource{}
	refs := newRefLookup(env, opts)
	todo := cites[:min(len(cites), maxCit)]
	q := newJudgeQueue(ctx, j, min(orInt(a.JudgeConcurrency, DefaultJudgeConcurrency), HardMaxJudgeConcurrency))
	defer q.stop()
	// settle lists vc and reports it before the next citation starts.
	settle := func(c parse.Citation, vc Citation, passage string) error {
		res.Citations = append(res.Citations, vc)
		if settled == nil {
			return nil
		}
		return settled(ctx, len(res.Citations)-1, len(todo), c, vc, passage)
	}
	// finish turns a judge call's answer into c's entry, in citation
	// order, whatever order the calls end in.
	q.finish = func(c parse.Citation, vc Citation, passage string, v judge.Verdict, err error) error {
		if err != nil {
			kind := judge.KindLLM
			var je *judge.Error
			if errors.As(err, &je) {
				kind = je.Kind
			}
			msg := netguard.RedactText(err.Error())
			if kind == judge.KindTimeout {
				msg += "; raise --judge-timeout-ms"
			}
			vc.ResolveError = &ResolveError{kind, msg}
			return settle(c, vc, passage)
		}
		outcome := v.Outcome
		if outcome == "" || (a.NoAbstain && outcome == judge.VerdictUncertain) {
			outcome = judge.VerdictUnsupported
			if v.Supported {
				outcome = judge.VerdictSupported
			}
		}
		switch outcome {
		case judge.VerdictSupported:
			res.TotalSupported++
		case judge.VerdictUncertain:
			res.TotalUncertain++
		}
		vc.Judge = &JudgeVerdict{Verdict: outcome, Supported: v.Supported, Confidence: v.Confidence, Rationale: netguard.RedactText(v.Rationale),
			CostUSD: v.CostUSD, LatencyMS: v.LatencyMS, InputTokens: v.InputTokens, OutputTokens: v.OutputTokens}
		return settle(c, vc, passage)
	}
	q.settle = settle
	plan := planBatches(j, todo, func(c parse.Citation) bool {
		st, _ := preflight(a, c, "")
		return st == ""
	})
	for _, c := range todo {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		vc := Citation{Citation: CitationRef{Raw: netguard.RedactText(c.Raw), Kind: string(c.Kind),
			Identifier: netguard.RedactText(c.Identifier), OffsetStart: c.OffsetStart, OffsetEnd: c.OffsetEnd}}
		c, vc.ResolveStatus, vc.ResolveError = refs.preflight(ctx, a, c, vc.Citation.Raw)
		if vc.ResolveStatus != "" {
			if err := q.done(c, vc, ""); err != nil {
				return nil, err
			}
			continue
		}
		src := sources[c.Target]
		if src == nil {
			src = resolveSource(ctx, guard, env.DOIResolver, c.Target, c.TargetKind)
			sources[c.Target] = src
		}
		if src.err != nil {
			vc.ResolveStatus, vc.ResolveError = "error", src.err
			if src.info.URL != "" {
				info := src.info
				vc.Source = &info
			}
			if err := q.done(c, vc, ""); err != nil {
				return nil, err
			}
			continue
		}
		info := src.info
		vc.ResolveStatus, vc.Source = "ok", &info
		res.TotalResolved++
		stop, err := judgeResolved(q, plan, j, c, vc, src.text, costCap)
		if err != nil {
			return nil, err
		}
		if stop {
			break
		}
	}
	if err := q.drain(); err != nil {
		return nil, err
	}
	totalCost := q.cost
	res.TotalCostUSD = math.Round(totalCost*1e6) / 1e6
	t := count(res.Citations)
	res.TotalJudgeErrors = t.errors
	// Only verdicts are scored: an uncertain verdict, a failed judge call
	// and a call the cost cap stopped are in no denominator.
	if decided := t.supported + t.unsupported; decided > 0 {
		score := math.Round(float64(t.supported)/float64(decided)*100) / 100
		res.OverallScore = &score
	}
	res.Passed, res.Reason = outcome(res, fetchOff(a))
	return res, nil
}

// preflight is the entry of a citation verify does not fetch (a status
// and why), or "" for one it fetches; raw names the citation in messages.
func preflight(a Args, c parse.Citation, raw string) (string, *ResolveError) {
	switch {
	case c.Target == "":
		return "skipped", &ResolveError{"unresolvable_kind", fmt.Sprintf("no source to fetch for %s citation %s: the document's references do not give a URL or DOI for it", c.Kind, raw)}
	case notCitable(a.GateStatus, c):
		st, _, _ := a.GateStatus(CitableKey(c))
		return "error", &ResolveError{"not_citable", fmt.Sprintf("citations.jsonl marks this source %s: synthesis must not cite it", st)}
	case !a.AllowFetch:
		return "error", &ResolveError{KindFetchDisabled, "citation fetch is disabled; " + fetchOff(a)}
	}
	return "", nil
}

// judgeResolved queues the judge call of c, whose source reads text: with
// the other claims citing it in one batch when the plan has one (unless
// the batch's estimate would pass the cost cap: its claims are then judged
// one by one), else on its own. stop reports that the cost cap stopped
// the run at c.
func judgeResolved(q *judgeQueue, p *batchPlan, j judge.Judge, c parse.Citation, vc Citation, text string, costCap float64) (stop bool, err error) {
	if b := p.runs[c.Target]; b != nil {
		return false, q.member(c, vc, b, 0)
	}
	if claims := p.claims[c.Target]; claims != nil && !p.tried[c.Target] {
		p.tried[c.Target] = true
		passage, est := batchInput(j, text, claims)
		over, err := q.overCap(est, costCap)
		if err != nil {
			return false, err
		}
		if !over {
			b, err := q.batch(p.bj, claims, passage)
			if err != nil {
				return false, err
			}
			p.runs[c.Target] = b
			return false, q.member(c, vc, b, est)
		}
	}
	passage := judgeText(j, text, c.Claim)
	est := j.EstimateMaxCostUSD(c.Claim, passage)
	over, err := q.overCap(est, costCap)
	if err != nil {
		return false, err
	}
	if over {
		vc.ResolveError = &ResolveError{KindCostCap, fmt.Sprintf("total cost cap $%.2f would be exceeded by the next judge call", costCap)}
		return true, q.done(c, vc, "")
	}
	return false, q.judge(c, vc, passage, est)
}

// newUUID returns a random RFC 4122 version-4 UUID (seed 002's id).
func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// The three outcomes of a judged citation (the judges' verdicts), and the
// outcome of a citation whose judge call failed.
const (
	Supported   = judge.VerdictSupported
	Unsupported = judge.VerdictUnsupported
	Uncertain   = judge.VerdictUncertain
	// Error: the source was read, the judge was asked and gave no verdict
	// (HTTP error, timeout, an answer without a verdict). The entry keeps
	// seed 002's shape — resolve_status ok, no judge, the failure in
	// resolve_error — so that no reader takes it for "not supported".
	Error = "error"
)

// Outcome is the judge's verdict on c: supported, unsupported or uncertain;
// Error when the judge was asked and failed; "" when no judge was asked
// (the source was not resolved, or the cost cap stopped the call). An entry
// without a verdict (seed 002's shape, before three outcomes) falls back on
// its supported boolean.
func (c Citation) Outcome() string {
	j := c.Judge
	switch {
	case j == nil && c.ResolveStatus == "ok" && c.ResolveError != nil && c.ResolveError.Kind != KindCostCap:
		return Error
	case j == nil:
		return ""
	case j.Verdict == judge.VerdictSupported, j.Verdict == "" && j.Supported:
		return judge.VerdictSupported
	case j.Verdict == judge.VerdictUncertain:
		return judge.VerdictUncertain
	}
	return judge.VerdictUnsupported
}
