package providers

import (
	"context"
	"errors"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"
)

// Bright Data defaults and environment variables (apis.md §1.1).
const (
	BrightDataDefaultBaseURL = "https://api.brightdata.com"
	EnvBrightDataAPIKey      = "BRIGHTDATA_API_KEY"
	EnvBrightDataZone        = "BRIGHTDATA_UNLOCKER_ZONE"
)

// BrightData fetches a URL through the Bright Data Web Unlocker Direct API
// (POST /request, format "raw").
type BrightData struct {
	BaseURL string // default BrightDataDefaultBaseURL
	APIKey  string // sent only as "Authorization: Bearer"
	Zone    string // Web Unlocker zone name
	Client  *http.Client
	MaxBody int64 // cap on the page body; DefaultMaxBody if <= 0
	// DataFormat is sent as data_format when set; "markdown" makes Bright
	// Data convert the page, and Content.ContentType is then
	// "text/markdown". Empty means the target's raw body (HTML etc.).
	DataFormat string
	// Country is the optional two-letter proxy exit country.
	Country string
}

// BrightDataFromEnv builds a BrightData from BRIGHTDATA_API_KEY and
// BRIGHTDATA_UNLOCKER_ZONE. baseURL may be empty for the public API. A nil
// getenv reads the process environment.
func BrightDataFromEnv(getenv func(string) string, baseURL string, c *http.Client) *BrightData {
	if getenv == nil {
		getenv = os.Getenv
	}
	return &BrightData{
		BaseURL: baseURL,
		APIKey:  strings.TrimSpace(getenv(EnvBrightDataAPIKey)),
		Zone:    strings.TrimSpace(getenv(EnvBrightDataZone)),
		Client:  c,
	}
}

type brightDataRequest struct {
	Zone       string `json:"zone"`
	URL        string `json:"url"`
	Format     string `json:"format"`
	DataFormat string `json:"data_format,omitempty"`
	Country    string `json:"country,omitempty"`
}

// Bright Data response headers (apis.md §1.1, Web Unlocker error codes).
const (
	hdrBrdStatus    = "X-Brd-Status-Code" // the target's status (or Bright Data's, with x-brd-error)
	hdrBrdError     = "X-Brd-Error"       // present iff the error came from Bright Data, not the target
	hdrBrdErrorCode = "X-Brd-Error-Code"  // unlocker-level code: reject_block, sr_rate_limit, premium, …
	hdrBrdErrCode   = "X-Brd-Err-Code"    // proxy-level code: policy_20000, client_10100, …
)

// Check reports a configuration that can never work — credentials set but a
// base URL they may not be sent to (plain http to a remote host, userinfo,
// not http(s)) — without sending anything; nil when the rung is usable or
// not configured.
func (b *BrightData) Check() error {
	if strings.TrimSpace(b.APIKey) == "" || strings.TrimSpace(b.Zone) == "" {
		return nil
	}
	c := newCall(ProviderBrightData, "", []string{b.APIKey}, []string{b.Zone})
	if _, err := c.endpoint(b.BaseURL, BrightDataDefaultBaseURL, "/request", true); err != nil {
		return err
	}
	return nil
}

// Fetch asks the Web Unlocker for target. The outer status of the Direct API
// is 200 whenever the request was accepted; the target's status is then in
// x-brd-status-code and Content.StatusCode, whatever it is. A response that
// carries x-brd-error (or an x-brd error code) failed on Bright Data's side
// and becomes an error: policy refusals and failed unlocks are
// ErrProviderBlocked, sr_rate_limit and client_10100 are ErrQuota.
func (b *BrightData) Fetch(ctx context.Context, target string) (*Content, error) {
	c := newCall(ProviderBrightData, target, []string{b.APIKey}, []string{b.Zone})
	switch {
	case strings.TrimSpace(b.APIKey) == "":
		return nil, c.fail(ErrNoCredentials, EnvBrightDataAPIKey+" not set")
	case strings.TrimSpace(b.Zone) == "":
		return nil, c.fail(ErrNoCredentials, EnvBrightDataZone+" not set")
	}
	if err := c.checkTarget(); err != nil {
		return nil, err
	}
	endpoint, ferr := c.endpoint(b.BaseURL, BrightDataDefaultBaseURL, "/request", true)
	if ferr != nil {
		return nil, ferr
	}
	req := brightDataRequest{
		Zone:       b.Zone,
		URL:        target,
		Format:     "raw",
		DataFormat: b.DataFormat,
		Country:    b.Country,
	}
	h := http.Header{}
	h.Set("Authorization", "Bearer "+b.APIKey)
	resp, ferr := c.post(ctx, b.Client, endpoint, h, req)
	if ferr != nil {
		return nil, ferr
	}
	defer resp.Body.Close()

	if e := c.brightDataError(ctx, resp); e != nil {
		return nil, e
	}
	body, truncated, ferr := c.readCapped(ctx, resp.Body, effectiveMaxBody(b.MaxBody))
	if ferr != nil {
		return nil, ferr
	}
	ct, charset := mediaType(resp.Header.Get("Content-Type"))
	if strings.EqualFold(b.DataFormat, "markdown") {
		ct = "text/markdown"
	}
	return c.scrubContent(&Content{
		Provider:    ProviderBrightData,
		StatusCode:  headerStatus(resp.Header.Get(hdrBrdStatus)),
		ContentType: ct,
		Charset:     charset,
		Body:        body,
		Truncated:   truncated,
	}), nil
}

// brightDataError returns nil when resp carries the target's response.
func (c *call) brightDataError(ctx context.Context, resp *http.Response) *Error {
	h := resp.Header
	brdFailed := h.Get(hdrBrdError) != "" || h.Get(hdrBrdErrorCode) != "" || h.Get(hdrBrdErrCode) != ""
	status := resp.StatusCode
	switch {
	case status == http.StatusOK && !brdFailed:
		return nil
	case brdFailed && (status == http.StatusOK || status == http.StatusBadRequest ||
		status == http.StatusForbidden || status == http.StatusProxyAuthRequired):
		// The Direct API reports its own failures as 200 + x-brd-*; 400,
		// 403 and 407 may carry the same headers (with Proxy-Status).
		return c.brdHeaderError(resp)
	}
	kind := statusKind(status)
	detail := statusDetail(status)
	switch {
	case status >= 200 && status < 300:
		// Only 200 is the Direct API's success; async-style answers (202)
		// and other 2xx are not something this client asked for.
		kind, detail = ErrProviderFailed, "unexpected http "+strconv.Itoa(status)
	case status == http.StatusBadRequest:
		detail = "request rejected (unknown zone or invalid URL)"
	}
	if status < 300 || status >= 400 {
		if s := c.errorSnippet(ctx, resp.Body); s != "" {
			detail += ": " + s
		}
	}
	e := c.failStatus(kind, status, detail)
	if errors.Is(kind, ErrQuota) {
		e.RetryAfter = parseRetryAfter(h.Get("Retry-After"), time.Now())
	}
	return e
}

// brdHeaderError maps a Bright Data-side failure signalled by x-brd-*
// headers (apis.md §1.1 error-code catalogue).
func (c *call) brdHeaderError(resp *http.Response) *Error {
	h := resp.Header
	brdStatus := headerStatus(h.Get(hdrBrdStatus))
	if brdStatus == 0 {
		brdStatus = resp.StatusCode
	}
	errCode := strings.TrimSpace(h.Get(hdrBrdErrorCode))
	proxyCode := strings.TrimSpace(h.Get(hdrBrdErrCode))
	var kind error
	switch {
	case proxyCode == "client_10100", errCode == "sr_rate_limit", brdStatus == http.StatusTooManyRequests:
		kind = ErrQuota // account usage limit, or Bright Data's own rate limit
	case brdStatus == http.StatusProxyAuthRequired:
		kind = ErrUnauthorized
	case strings.HasPrefix(proxyCode, "policy_"), strings.HasPrefix(errCode, "policy_"),
		errCode == "ub_bad_endpoint_robots":
		kind = ErrProviderBlocked // Bright Data refuses this site
	case brdStatus == http.StatusBadRequest:
		kind = ErrProviderFailed // premium, feature_not_active: zone configuration
	default:
		kind = ErrProviderBlocked // reject_block, resolve_failed_*, expect_element, timeouts, …
	}
	var d strings.Builder
	d.WriteString("x-brd-status-code ")
	d.WriteString(strconv.Itoa(brdStatus))
	code := errCode
	if errCode != "" {
		d.WriteString(", x-brd-error-code ")
		d.WriteString(c.sanitize(errCode))
	}
	if proxyCode != "" {
		d.WriteString(", x-brd-err-code ")
		d.WriteString(c.sanitize(proxyCode))
		if code == "" {
			code = proxyCode
		}
	}
	if msg := h.Get(hdrBrdError); msg != "" {
		d.WriteString(": ")
		d.WriteString(c.sanitize(msg))
	}
	e := c.failStatus(kind, resp.StatusCode, d.String())
	e.TargetStatus = brdStatus
	e.Code = c.sanitize(code)
	if errors.Is(kind, ErrQuota) {
		e.RetryAfter = parseRetryAfter(h.Get("Retry-After"), time.Now())
	}
	return e
}

// headerStatus parses a status-code header; 0 if absent or not a status.
func headerStatus(v string) int {
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n < 100 || n > 999 {
		return 0
	}
	return n
}
