package engine

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/citegate/citegate/engine/classify"
	"github.com/citegate/citegate/engine/jsonx"
	"github.com/citegate/citegate/engine/judge"
	"github.com/citegate/citegate/engine/pdftext"
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
	verifyMaxRedirects        = 3
	// judgeSourceChars is what the judge reads of a source: the passages
	// most relevant to the claim, up to seed 002's 12,000 characters.
	judgeSourceChars = 12000
)

// VerifyArgs mirrors seed 002's verify_citations parameters.
type VerifyArgs struct {
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
	// NoAbstain turns every "uncertain" verdict into the judge's best guess
	// (forced choice): verdicts are then only supported or unsupported.
	NoAbstain bool `json:"no_abstain,omitempty"`
	// Citable, when set, holds the run's Gate C statuses by normalized URL
	// (run --verify): citing a source that may not be cited is a finding.
	Citable map[string]Status `json:"-"`
	// settled, when set, hears of each citation as soon as it has its entry
	// (run --verify's live view, see verifyProgress): its index and the
	// number Verify will list, the citation, the entry, and the text the
	// judge read ("" when no judge read any). An error (cancellation) stops
	// Verify.
	settled func(ctx context.Context, i, total int, c parse.Citation, vc VerifiedCitation, passage string) error
}

// VerifyResult is seed 002's output shape, exactly.
type VerifyResult struct {
	ID                  string   `json:"id"`
	OverallScore        *float64 `json:"overall_score"`
	Passed              bool     `json:"passed"`
	TotalCitationsFound int      `json:"total_citations_found"`
	TotalResolved       int      `json:"total_resolved"`
	TotalSupported      int      `json:"total_supported"`
	// TotalUncertain counts judge verdicts of "uncertain", which are left
	// out of OverallScore's denominator.
	TotalUncertain int                `json:"total_uncertain"`
	TotalCostUSD   float64            `json:"total_cost_usd"`
	Citations      []VerifiedCitation `json:"citations"`
}

// VerifiedCitation is one citation's outcome.
type VerifiedCitation struct {
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

// Verify checks whether each source cited in output supports its claim
// (seed 002, with [N], author–year and footnote citations resolved through
// the document's own reference list). Configuration problems (unknown model,
// missing key) are errors; per-citation problems are in the result.
func (e *Engine) Verify(ctx context.Context, output []byte, a VerifyArgs) (*VerifyResult, error) {
	if strings.TrimSpace(a.Model) == "" {
		return nil, newError(CodeInvalidArgs, "model must be non-empty", nil)
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
	opts := slices.Clone(e.GuardOptions)
	for _, d := range a.DomainAllowlist {
		if d = strings.Trim(strings.ToLower(strings.TrimSpace(d)), "."); d != "" {
			opts = append(opts, netguard.DomainAllowlist(d))
		}
	}
	guard := netguard.New(append(opts, netguard.WithLimits(netguard.Limits{HopTimeout: timeout,
		MaxRedirects: verifyMaxRedirects, MaxBodyBytes: int64(orInt(a.PerSourceMaxBytes, DefaultPerSourceMaxBytes))}))...)
	j, err := judge.New(judge.Config{Model: a.Model, Provider: a.Provider, BaseURL: a.BaseURL, Getenv: e.Net.Getenv,
		Client: &http.Client{Transport: guard.Transport()}})
	if err != nil {
		var je *judge.Error
		if errors.As(err, &je) {
			return nil, newError(CodeInvalidArgs, netguard.RedactText(je.Message), map[string]any{"kind": je.Kind})
		}
		return nil, newError(CodeInvalidArgs, netguard.RedactText(err.Error()), nil)
	}

	cites := parse.Cite(output)
	res := &VerifyResult{ID: newUUID(), TotalCitationsFound: len(cites), Citations: []VerifiedCitation{}}
	sources := map[string]*fetchedSource{}
	var totalCost float64
	todo := cites[:min(len(cites), maxCit)]
	// settle lists vc and reports it before the next citation starts.
	settle := func(c parse.Citation, vc VerifiedCitation, passage string) error {
		res.Citations = append(res.Citations, vc)
		if a.settled == nil {
			return nil
		}
		return a.settled(ctx, len(res.Citations)-1, len(todo), c, vc, passage)
	}
	for _, c := range todo {
		if ctx.Err() != nil {
			return nil, cancelled()
		}
		vc := VerifiedCitation{Citation: CitationRef{Raw: netguard.RedactText(c.Raw), Kind: string(c.Kind),
			Identifier: netguard.RedactText(c.Identifier), OffsetStart: c.OffsetStart, OffsetEnd: c.OffsetEnd}}
		target := c.Target
		switch {
		case target == "":
			vc.ResolveStatus = "skipped"
			vc.ResolveError = &ResolveError{"unresolvable_kind", fmt.Sprintf("no source to fetch for %s citation %s: the document's references do not give a URL or DOI for it", c.Kind, vc.Citation.Raw)}
		case notCitable(a.Citable, c):
			st := a.Citable[citableKey(c)]
			vc.ResolveStatus = "error"
			vc.ResolveError = &ResolveError{"not_citable", fmt.Sprintf("citations.jsonl marks this source %s: synthesis must not cite it", st)}
		case !a.AllowFetch:
			vc.ResolveStatus = "error"
			vc.ResolveError = &ResolveError{"fetch_disabled", "citation fetch is disabled; pass --allow-fetch"}
		}
		if vc.ResolveStatus != "" {
			if err := settle(c, vc, ""); err != nil {
				return nil, err
			}
			continue
		}
		src := sources[target]
		if src == nil {
			src = e.resolveSource(ctx, guard, target, c.TargetKind)
			sources[target] = src
		}
		if src.err != nil {
			vc.ResolveStatus, vc.ResolveError = "error", src.err
			if src.info.URL != "" {
				info := src.info
				vc.Source = &info
			}
			if err := settle(c, vc, ""); err != nil {
				return nil, err
			}
			continue
		}
		info := src.info
		vc.ResolveStatus, vc.Source = "ok", &info
		res.TotalResolved++
		passage := judgeText(j, src.text, c.Claim)
		if totalCost+j.EstimateMaxCostUSD(c.Claim, passage) > costCap {
			vc.ResolveError = &ResolveError{"cost_cap_reached", fmt.Sprintf("total cost cap $%.2f would be exceeded by the next judge call", costCap)}
			if err := settle(c, vc, ""); err != nil {
				return nil, err
			}
			break
		}
		v, err := j.Judge(ctx, c.Claim, passage)
		if v.CostUSD != nil {
			totalCost += *v.CostUSD
		}
		if err != nil {
			kind := judge.KindLLM
			var je *judge.Error
			if errors.As(err, &je) {
				kind = je.Kind
			}
			vc.ResolveError = &ResolveError{kind, netguard.RedactText(err.Error())}
			if err := settle(c, vc, passage); err != nil {
				return nil, err
			}
			continue
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
		if err := settle(c, vc, passage); err != nil {
			return nil, err
		}
	}
	res.TotalCostUSD = math.Round(totalCost*1e6) / 1e6
	if decided := res.TotalResolved - res.TotalUncertain; decided > 0 {
		score := math.Round(float64(res.TotalSupported)/float64(decided)*100) / 100
		res.OverallScore = &score
	}
	// Seed 002: fail when fewer than half of the resolved sources support
	// their claims; nothing resolvable is not a failure.
	res.Passed = res.OverallScore == nil || *res.OverallScore >= 0.5
	return res, nil
}

func orInt(v, d int) int {
	if v <= 0 {
		return d
	}
	return v
}

// citableKey is the normalized form of a citation's target, the key of
// citations.jsonl.
func citableKey(c parse.Citation) string {
	u := c.Target
	if c.TargetKind == parse.CiteDOI {
		u = "https://doi.org/" + c.Target
	}
	n, err := parse.Normalize(u)
	if err != nil {
		return ""
	}
	r, _ := netguard.RedactURL(n)
	return r
}

func notCitable(citable map[string]Status, c parse.Citation) bool {
	if citable == nil {
		return false
	}
	st, ok := citable[citableKey(c)]
	return ok && !st.Citable()
}

// resolveSource fetches a cited URL or DOI through the guard and reduces it
// to readable text. A paywall or bot wall is reported as such (the same
// classifier as validation), not as a bad status. A DOI whose landing page
// is walled falls back to its registration metadata (title and abstract
// from doi.org content negotiation), which settles that the work exists.
func (e *Engine) resolveSource(ctx context.Context, guard *netguard.Guard, target string, kind parse.CiteKind) *fetchedSource {
	url := target
	if kind == parse.CiteDOI {
		url = e.doiURL(target)
	}
	resp, err := guard.Fetch(ctx, netguard.Request{Method: http.MethodGet, URL: url,
		Header: http.Header{"Accept": {"text/html,application/xhtml+xml,text/plain;q=0.9,*/*;q=0.5"}}})
	src := &fetchedSource{}
	if resp != nil {
		src.info = SourceInfo{URL: orDefault(resp.FinalURL, netguard.RedactText(url)), Status: resp.StatusCode,
			ContentType: resp.Header.Get("Content-Type"), BytesFetched: len(resp.Body), Truncated: resp.Truncated}
	}
	if err != nil && !errors.Is(err, netguard.ErrBodyTooLarge) {
		src.err = &ResolveError{fetchErrorKind(err), netguard.Reason(err)}
		return e.doiFallback(ctx, guard, target, kind, src)
	}
	page := classify.Page{RequestedURL: url, FinalURL: resp.FinalURL, StatusCode: resp.StatusCode, Header: resp.Header,
		Body: resp.Body, Truncated: resp.Truncated, ContentType: resp.Header.Get("Content-Type")}
	v := classify.Classify(page, classify.Citation{}, classify.Standard)
	isPDF := pdftext.Is(src.info.ContentType, resp.Body)
	switch {
	case v.Outcome == classify.Paywalled:
		src.err = &ResolveError{"paywalled", "the source is behind a paywall or login wall: " + v.Reason}
	case v.Outcome == classify.Escalate && strings.HasPrefix(v.Reason, "bot wall"):
		src.err = &ResolveError{"blocked", "the source site blocks automated access: " + v.Reason}
	case resp.StatusCode < 200 || resp.StatusCode >= 300:
		src.err = &ResolveError{"bad_status", fmt.Sprintf("bad status %d", resp.StatusCode)}
	case isPDF:
		src.text, src.err = readPDF(ctx, resp.Body)
	case !textLike(src.info.ContentType):
		src.err = &ResolveError{"not_text", "refusing non-text content-type: " + src.info.ContentType}
	}
	if src.err != nil {
		return e.doiFallback(ctx, guard, target, kind, src)
	}
	if !isPDF {
		src.text = readableSource(page)
	}
	return src
}

// doiFallback asks doi.org for a DOI's metadata when its landing page could
// not be read.
func (e *Engine) doiFallback(ctx context.Context, guard *netguard.Guard, doi string, kind parse.CiteKind, failed *fetchedSource) *fetchedSource {
	if kind != parse.CiteDOI {
		return failed
	}
	resp, err := guard.Fetch(ctx, netguard.Request{Method: http.MethodGet, URL: e.doiURL(doi),
		Header: http.Header{"Accept": {"application/vnd.citationstyles.csl+json"}}})
	if err != nil || resp.StatusCode != http.StatusOK {
		return failed
	}
	var meta struct {
		Title    any    `json:"title"`
		Abstract string `json:"abstract"`
		Issued   struct {
			DateParts [][]any `json:"date-parts"`
		} `json:"issued"`
	}
	if json.Unmarshal(resp.Body, &meta) != nil {
		return failed
	}
	title := fmt.Sprint(meta.Title)
	if t, ok := meta.Title.([]any); ok && len(t) > 0 {
		title = fmt.Sprint(t[0])
	}
	if dp := meta.Issued.DateParts; len(dp) > 0 && len(dp[0]) > 0 {
		title += fmt.Sprintf(" (%v)", dp[0][0])
	}
	text := strings.TrimSpace(title + ". " + stripTags(meta.Abstract))
	if len(text) < 20 {
		return failed
	}
	return &fetchedSource{info: SourceInfo{URL: orDefault(resp.FinalURL, e.doiURL(doi)), Status: resp.StatusCode,
		ContentType: "application/vnd.citationstyles.csl+json", BytesFetched: len(resp.Body), Truncated: resp.Truncated}, text: text}
}

// doiURL is a DOI's resolver URL.
func (e *Engine) doiURL(doi string) string {
	return strings.TrimSuffix(orDefault(e.Net.DOIResolver, "https://doi.org"), "/") + "/" + doi
}

// stripTags removes JATS/HTML tags from an abstract.
func stripTags(s string) string {
	var b strings.Builder
	in := false
	for _, r := range s {
		switch {
		case r == '<':
			in = true
		case r == '>':
			in = false
			b.WriteByte(' ')
		case !in:
			b.WriteRune(r)
		}
	}
	return strings.Join(strings.Fields(b.String()), " ")
}

func textLike(ct string) bool {
	ct = strings.ToLower(ct)
	return ct == "" || strings.Contains(ct, "text/") || strings.Contains(ct, "html") || strings.Contains(ct, "xml") || strings.Contains(ct, "json")
}

// fetchErrorKind maps netguard's sentinels to seed 002's error kinds.
func fetchErrorKind(err error) string {
	switch {
	case errors.Is(err, netguard.ErrScheme):
		return "bad_scheme"
	case errors.Is(err, netguard.ErrNotAllowlisted):
		return "not_allowed_domain"
	case errors.Is(err, netguard.ErrRedirectLimit), errors.Is(err, netguard.ErrRedirectLoop):
		return "redirect_loop"
	case netguard.IsRefusal(err):
		return "ssrf"
	case errors.Is(err, netguard.ErrTimeout):
		return "timeout"
	case errors.Is(err, netguard.ErrBodyTooLarge):
		return "too_large"
	}
	return "bad_status"
}

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

// newUUID returns a random RFC 4122 version-4 UUID (seed 002's id).
func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// verifyRecords is `run --verify`: it checks a synthesis against the
// citations the run just validated, with the offline lexical judge, and
// returns the result and its verify.json encoding; each citation goes out
// on em as an EventVerified as soon as it is settled. Every source the
// synthesis cites that the records mark blocked, invalid or mismatch is a
// not_citable finding; sources are fetched only in online mode. Run writes
// verify.json in its own commit, so a run with --verify writes everything or
// nothing.
func (e *Engine) verifyRecords(ctx context.Context, mode string, records []Citation, output []byte, em *emitter) (*VerifyResult, []byte, error) {
	citable := make(map[string]Status, len(records))
	for _, r := range records {
		citable[r.NormalizedURL] = r.Status
	}
	res, err := e.Verify(ctx, output, VerifyArgs{Model: "lexical", AllowFetch: mode == ModeOnline, Citable: citable,
		settled: verifyProgress(em, citable)})
	if err != nil {
		return nil, nil, err
	}
	data, err := jsonx.MarshalFile(res)
	if err != nil {
		return nil, nil, err
	}
	return res, data, nil
}

// verifyPath is citations/verify.json, beside citations.jsonl.
func verifyPath(citationsPath string) string {
	return filepath.Join(filepath.Dir(citationsPath), "verify.json")
}
