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
	// Citable, when set, holds the run's Gate C statuses by normalized URL
	// (run --verify): citing a source that may not be cited is a finding.
	Citable map[string]Status `json:"-"`
}

// VerifyResult is seed 002's output shape, exactly.
type VerifyResult struct {
	ID                  string             `json:"id"`
	OverallScore        *float64           `json:"overall_score"`
	Passed              bool               `json:"passed"`
	TotalCitationsFound int                `json:"total_citations_found"`
	TotalResolved       int                `json:"total_resolved"`
	TotalSupported      int                `json:"total_supported"`
	TotalCostUSD        float64            `json:"total_cost_usd"`
	Citations           []VerifiedCitation `json:"citations"`
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
	for _, c := range cites[:min(len(cites), maxCit)] {
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
			res.Citations = append(res.Citations, vc)
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
			res.Citations = append(res.Citations, vc)
			continue
		}
		info := src.info
		vc.ResolveStatus, vc.Source = "ok", &info
		res.TotalResolved++
		passage := relevantPassages(src.text, c.Claim, judgeSourceChars)
		if totalCost+j.EstimateMaxCostUSD(c.Claim, passage) > costCap {
			vc.ResolveError = &ResolveError{"cost_cap_reached", fmt.Sprintf("total cost cap $%.2f would be exceeded by the next judge call", costCap)}
			res.Citations = append(res.Citations, vc)
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
			res.Citations = append(res.Citations, vc)
			continue
		}
		if v.Supported {
			res.TotalSupported++
		}
		vc.Judge = &JudgeVerdict{Supported: v.Supported, Confidence: v.Confidence, Rationale: netguard.RedactText(v.Rationale),
			CostUSD: v.CostUSD, LatencyMS: v.LatencyMS, InputTokens: v.InputTokens, OutputTokens: v.OutputTokens}
		res.Citations = append(res.Citations, vc)
	}
	res.TotalCostUSD = math.Round(totalCost*1e6) / 1e6
	if res.TotalResolved > 0 {
		score := math.Round(float64(res.TotalSupported)/float64(res.TotalResolved)*100) / 100
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
		src.text = classify.ReadableText(page)
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

// relevantPassages keeps the sentences of text that share the most words
// with claim, in their original order, up to max characters: the judge reads
// what bears on the claim, not a page's first 12,000 characters.
func relevantPassages(text, claim string, max int) string {
	if len(text) <= max {
		return text
	}
	terms := map[string]bool{}
	for _, w := range strings.Fields(strings.ToLower(claim)) {
		if w = strings.Trim(w, ".,;:!?()[]\"'"); len(w) > 3 {
			terms[w] = true
		}
	}
	sentences := splitSentences(text)
	type scored struct{ i, score int }
	ranked := make([]scored, len(sentences))
	for i, s := range sentences {
		n := 0
		for _, w := range strings.Fields(strings.ToLower(s)) {
			if terms[strings.Trim(w, ".,;:!?()[]\"'")] {
				n++
			}
		}
		ranked[i] = scored{i, n}
	}
	slices.SortStableFunc(ranked, func(a, b scored) int { return b.score - a.score })
	keep := map[int]bool{}
	size := 0
	for _, r := range ranked {
		if size+len(sentences[r.i])+1 > max {
			continue
		}
		keep[r.i] = true
		size += len(sentences[r.i]) + 1
	}
	var b strings.Builder
	for i, s := range sentences {
		if keep[i] {
			b.WriteString(s)
			b.WriteByte(' ')
		}
	}
	return strings.TrimSpace(b.String())
}

func splitSentences(text string) []string {
	var out []string
	start := 0
	for i := 0; i < len(text); i++ {
		if (text[i] == '.' || text[i] == '!' || text[i] == '?') && (i+1 == len(text) || text[i+1] == ' ') {
			out = append(out, strings.TrimSpace(text[start:i+1]))
			start = i + 1
		}
	}
	if rest := strings.TrimSpace(text[start:]); rest != "" {
		out = append(out, rest)
	}
	return out
}

// newUUID returns a random RFC 4122 version-4 UUID (seed 002's id).
func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// VerifyRun is `run --verify`: it checks a synthesis against the run just
// validated, with the offline lexical judge. Every source the synthesis
// cites that citations.jsonl marks blocked, invalid or mismatch is a
// not_citable finding; sources are fetched only in online mode. The result
// is written to citations/verify.json and attached to the summary.
func (e *Engine) VerifyRun(ctx context.Context, sum *RunSummary, output []byte) error {
	records, err := readCitations(sum.Artifacts.Citations)
	if err != nil {
		return err
	}
	citable := make(map[string]Status, len(records))
	for _, r := range records {
		citable[r.NormalizedURL] = r.Status
	}
	res, err := e.Verify(ctx, output, VerifyArgs{Model: "lexical", AllowFetch: sum.Mode == ModeOnline, Citable: citable})
	if err != nil {
		return err
	}
	data, err := jsonx.MarshalFile(res)
	if err != nil {
		return err
	}
	path := filepath.Join(filepath.Dir(sum.Artifacts.Citations), "verify.json")
	if err := writeArtifact(path, data, "cannot write verify.json"); err != nil {
		return err
	}
	sum.Verify = res
	return nil
}
