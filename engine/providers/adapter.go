package providers

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Adapter calls an operator-run endpoint that follows the reference
// implementation's contract (origin.md §5.3, rungs 3b/3c): POST
// {"url","ladder_step"} with no credentials, answer {status, notes?, url?,
// http_status?, title?, publisher?, evidence_snippet?}. The endpoint judges
// the page itself, so the result is a verdict, not content.
type Adapter struct {
	Endpoint string // full URL of the adapter; empty means not configured
	Step     string // ladder_step sent, e.g. "bright_data" or "apify"
	Client   *http.Client
	MaxBody  int64 // cap on the endpoint's JSON answer; DefaultMaxBody if <= 0
}

type adapterRequest struct {
	URL        string `json:"url"`
	LadderStep string `json:"ladder_step"`
}

// adapterStatuses are the five citation statuses.
var adapterStatuses = map[string]bool{
	"valid": true, "paywalled": true, "blocked": true, "mismatch": true, "invalid": true,
}

// Fetch posts target to the endpoint. As in the reference, a non-2xx answer,
// JSON that is not an object, and a missing or unknown status are failures,
// and "blocked" is ErrProviderBlocked (escalate). Any other status is returned
// in Content.Verdict, with StatusCode, FinalURL and Title mirrored from it;
// Body is empty.
func (a *Adapter) Fetch(ctx context.Context, target string) (*Content, error) {
	label := adapterPrefix + a.Step
	if a.Step == "" {
		label = strings.TrimSuffix(adapterPrefix, ":")
	}
	c := &call{provider: label, target: target}
	if strings.TrimSpace(a.Endpoint) == "" {
		return nil, c.fail(ErrNoCredentials, "endpoint not configured")
	}
	if err := c.checkTarget(); err != nil {
		return nil, err
	}
	endpoint, ferr := c.endpoint(a.Endpoint, "", "", false)
	if ferr != nil {
		return nil, ferr
	}
	resp, ferr := c.post(ctx, a.Client, endpoint, http.Header{"Accept": {"application/json"}},
		adapterRequest{URL: target, LadderStep: a.Step})
	if ferr != nil {
		return nil, ferr
	}
	defer resp.Body.Close()

	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		kind := statusKind(resp.StatusCode)
		detail := "endpoint " + statusDetail(resp.StatusCode)
		e := c.failStatus(kind, resp.StatusCode, detail)
		if errors.Is(kind, ErrQuota) {
			e.RetryAfter = parseRetryAfter(resp.Header.Get("Retry-After"), time.Now())
		}
		return nil, e
	}
	limit := effectiveMaxBody(a.MaxBody)
	raw, over, ferr := c.readCapped(ctx, resp.Body, limit)
	if ferr != nil {
		return nil, ferr
	}
	if over {
		return nil, c.failStatus(ErrProviderFailed, resp.StatusCode,
			"endpoint response larger than "+strconv.FormatInt(limit, 10)+" bytes")
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, c.failStatus(ErrProviderFailed, resp.StatusCode, "invalid endpoint json: "+c.sanitize(err.Error()))
	}
	obj, _ := v.(map[string]any)
	status, _ := obj["status"].(string)
	if !adapterStatuses[status] {
		return nil, c.failStatus(ErrProviderFailed, resp.StatusCode, "endpoint response missing citation status")
	}
	verdict := &AdapterVerdict{
		Status:          status,
		Notes:           jsonString(obj, "notes"),
		URL:             jsonString(obj, "url"),
		Title:           jsonString(obj, "title"),
		Publisher:       jsonString(obj, "publisher"),
		EvidenceSnippet: jsonString(obj, "evidence_snippet"),
		HTTPStatus:      jsonStatus(obj, "http_status"),
	}
	if status == "blocked" {
		e := c.failStatus(ErrProviderBlocked, resp.StatusCode, "endpoint returned blocked")
		if n := c.sanitize(verdict.Notes); n != "" {
			e.Detail += ": " + n
		}
		e.TargetStatus = verdict.HTTPStatus
		return nil, e
	}
	return c.scrubContent(&Content{
		Provider:   label,
		StatusCode: verdict.HTTPStatus,
		FinalURL:   verdict.URL,
		Title:      verdict.Title,
		Verdict:    verdict,
	}), nil
}

// jsonString returns obj[key] trimmed if it is a JSON string, else "".
func jsonString(obj map[string]any, key string) string {
	s, _ := obj[key].(string)
	return strings.TrimSpace(s)
}

// jsonStatus returns obj[key] truncated to an integer if it is a JSON number
// in 0…999 (the reference truncates), else 0.
func jsonStatus(obj map[string]any, key string) int {
	f, ok := obj[key].(float64)
	if !ok || math.IsNaN(f) {
		return 0
	}
	f = math.Trunc(f)
	if f < 0 || f > 999 {
		return 0
	}
	return int(f)
}
