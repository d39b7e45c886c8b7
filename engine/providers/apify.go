package providers

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"
)

// Apify defaults and environment variables (apis.md §2).
const (
	ApifyDefaultBaseURL = "https://api.apify.com"
	EnvApifyToken       = "APIFY_TOKEN"
	// apifyPath runs apify/rag-web-browser and returns its dataset items.
	apifyPath = "/v2/acts/apify~rag-web-browser/run-sync-get-dataset-items"
	// apifyMaxSecs is the sync endpoint's hard limit and the Actor's
	// requestTimeoutSecs maximum.
	apifyMaxSecs = 300
)

// Apify fetches a URL by running the apify/rag-web-browser Actor through
// run-sync-get-dataset-items, with the URL as the query (URL mode: only that
// page is fetched) and markdown output.
type Apify struct {
	BaseURL string // default ApifyDefaultBaseURL
	Token   string // sent only as "Authorization: Bearer", never in the query string
	Client  *http.Client
	MaxBody int64 // cap on the markdown; DefaultMaxBody if <= 0
	// ScrapingTool is sent as scrapingTool when set ("raw-http" or
	// "browser-playwright"); empty leaves the Actor's default.
	ScrapingTool string
}

// ApifyFromEnv builds an Apify from APIFY_TOKEN. baseURL may be empty for the
// public API. A nil getenv reads the process environment.
func ApifyFromEnv(getenv func(string) string, baseURL string, c *http.Client) *Apify {
	if getenv == nil {
		getenv = os.Getenv
	}
	return &Apify{BaseURL: baseURL, Token: strings.TrimSpace(getenv(EnvApifyToken)), Client: c}
}

type apifyInput struct {
	Query              string   `json:"query"`
	MaxResults         int      `json:"maxResults"`
	OutputFormats      []string `json:"outputFormats"`
	RequestTimeoutSecs int      `json:"requestTimeoutSecs,omitempty"`
	ScrapingTool       string   `json:"scrapingTool,omitempty"`
}

// apifyItem is the part of a rag-web-browser dataset item this client reads.
type apifyItem struct {
	Crawl *struct {
		HTTPStatusCode    int    `json:"httpStatusCode"`
		HTTPStatusMessage string `json:"httpStatusMessage"`
		RequestStatus     string `json:"requestStatus"`
	} `json:"crawl"`
	Metadata *struct {
		URL           string `json:"url"`
		RedirectedURL string `json:"redirectedUrl"`
		Title         string `json:"title"`
	} `json:"metadata"`
	Markdown *string `json:"markdown"`
	Text     *string `json:"text"`
	HTML     *string `json:"html"`
}

type apifyErrorEnvelope struct {
	Error struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	} `json:"error"`
}

// Check reports a configuration that can never work — a token set but a
// base URL it may not be sent to — without sending anything; nil when the
// rung is usable or not configured.
func (a *Apify) Check() error {
	if strings.TrimSpace(a.Token) == "" {
		return nil
	}
	c := newCall(ProviderApify, "", []string{a.Token}, nil)
	if _, err := c.endpoint(a.BaseURL, ApifyDefaultBaseURL, apifyPath, true); err != nil {
		return err
	}
	return nil
}

// Fetch runs the Actor for target. A 201 with an item whose
// crawl.requestStatus is "handled" is success, whatever the target's
// crawl.httpStatusCode; a "failed" item or an empty dataset is
// ErrProviderBlocked; a failed or timed-out run (400 run-failed, 408) is
// ErrProviderFailed or ErrProviderTimeout.
func (a *Apify) Fetch(ctx context.Context, target string) (*Content, error) {
	c := newCall(ProviderApify, target, []string{a.Token}, nil)
	if strings.TrimSpace(a.Token) == "" {
		return nil, c.fail(ErrNoCredentials, EnvApifyToken+" not set")
	}
	if err := c.checkTarget(); err != nil {
		return nil, err
	}
	endpoint, ferr := c.endpoint(a.BaseURL, ApifyDefaultBaseURL, apifyPath, true)
	if ferr != nil {
		return nil, ferr
	}
	in := apifyInput{
		Query:         target,
		MaxResults:    1,
		OutputFormats: []string{"markdown"},
		ScrapingTool:  a.ScrapingTool,
	}
	if secs, ok := deadlineSecs(ctx); ok {
		// Bound the run itself, so it stops (and stops costing) when the
		// caller stops waiting; the sync call alone would leave it running.
		in.RequestTimeoutSecs = secs
		endpoint += "?" + url.Values{"timeout": {strconv.Itoa(secs)}}.Encode()
	}
	h := http.Header{}
	h.Set("Authorization", "Bearer "+a.Token)
	h.Set("Accept", "application/json")
	resp, ferr := c.post(ctx, a.Client, endpoint, h, in)
	if ferr != nil {
		return nil, ferr
	}
	defer resp.Body.Close()

	if resp.StatusCode != http.StatusCreated && resp.StatusCode != http.StatusOK {
		return nil, c.apifyStatusError(ctx, resp)
	}
	maxBody := effectiveMaxBody(a.MaxBody)
	envelopeCap := 2*maxBody + jsonOverhead
	raw, over, ferr := c.readCapped(ctx, resp.Body, envelopeCap)
	if ferr != nil {
		return nil, ferr
	}
	if over {
		e := c.failStatus(ErrProviderFailed, resp.StatusCode,
			"dataset response larger than "+strconv.FormatInt(envelopeCap, 10)+" bytes")
		return nil, e
	}
	var items []apifyItem
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, c.failStatus(ErrProviderFailed, resp.StatusCode, "invalid dataset JSON: "+c.sanitize(err.Error()))
	}
	if len(items) == 0 {
		return nil, c.failStatus(ErrProviderBlocked, resp.StatusCode, "empty dataset: the Actor returned no item for the URL")
	}
	return c.apifyContent(resp.StatusCode, pickItem(items), maxBody)
}

// pickItem prefers the first handled item (URL mode returns one).
func pickItem(items []apifyItem) *apifyItem {
	for i := range items {
		if it := &items[i]; it.Crawl != nil && it.Crawl.RequestStatus == "handled" {
			return it
		}
	}
	return &items[0]
}

func (c *call) apifyContent(httpStatus int, it *apifyItem, maxBody int64) (*Content, error) {
	if it.Crawl == nil {
		return nil, c.failStatus(ErrProviderFailed, httpStatus, "dataset item has no crawl status")
	}
	cr := it.Crawl
	status := cr.RequestStatus
	if status == "" && cr.HTTPStatusCode > 0 {
		status = "handled" // older Actor builds did not report requestStatus
	}
	switch status {
	case "handled":
	case "failed":
		e := c.failStatus(ErrProviderBlocked, httpStatus, "crawl failed")
		if msg := c.sanitize(cr.HTTPStatusMessage); msg != "" {
			e.Detail += ": " + msg
		}
		if cr.HTTPStatusCode > 0 {
			e.Detail += " (crawl.httpStatusCode " + strconv.Itoa(cr.HTTPStatusCode) + ")"
		}
		e.TargetStatus = cr.HTTPStatusCode
		return nil, e
	case "pending":
		return nil, c.failStatus(ErrProviderFailed, httpStatus, "crawl still pending when the run ended")
	default:
		return nil, c.failStatus(ErrProviderFailed, httpStatus, "unknown crawl.requestStatus "+strconv.Quote(c.sanitize(status)))
	}
	ct := &Content{Provider: ProviderApify, StatusCode: cr.HTTPStatusCode, Charset: "utf-8"}
	switch {
	case it.Markdown != nil:
		ct.ContentType = "text/markdown"
		ct.Body, ct.Truncated = cutUTF8(*it.Markdown, maxBody)
	case it.Text != nil:
		ct.ContentType = "text/plain"
		ct.Body, ct.Truncated = cutUTF8(*it.Text, maxBody)
	case it.HTML != nil:
		ct.ContentType = "text/html"
		ct.Body, ct.Truncated = cutUTF8(*it.HTML, maxBody)
	}
	if m := it.Metadata; m != nil {
		ct.Title = strings.TrimSpace(m.Title)
		ct.FinalURL = m.RedirectedURL
		if ct.FinalURL == "" {
			ct.FinalURL = m.URL
		}
	}
	return c.scrubContent(ct), nil
}

// apifyStatusError maps a non-201 answer of the Apify API, reading its
// {"error":{"type","message"}} envelope when there is one.
func (c *call) apifyStatusError(ctx context.Context, resp *http.Response) *Error {
	status := resp.StatusCode
	kind := statusKind(status)
	detail := statusDetail(status)
	var env apifyErrorEnvelope
	if status < 300 || status >= 400 {
		b, _, err := c.readCapped(ctx, resp.Body, errorBodyCap)
		if err == nil && json.Unmarshal(b, &env) == nil && env.Error.Type != "" {
			detail += ": " + c.sanitize(env.Error.Type)
			if m := c.sanitize(env.Error.Message); m != "" {
				detail += ": " + m
			}
		} else if err == nil {
			if s := c.sanitize(string(b)); s != "" {
				detail += ": " + s
			}
		}
	}
	switch {
	case status >= 200 && status < 300:
		kind = ErrProviderFailed
	case env.Error.Type == "run-timeout-exceeded",
		env.Error.Type == "run-failed" && strings.Contains(env.Error.Message, "TIMED-OUT"):
		kind = ErrProviderTimeout
	}
	e := c.failStatus(kind, status, detail)
	e.Code = c.sanitize(env.Error.Type)
	if errors.Is(kind, ErrQuota) {
		e.RetryAfter = parseRetryAfter(resp.Header.Get("Retry-After"), time.Now())
	}
	return e
}

// deadlineSecs turns the context deadline into whole seconds for the Actor,
// clamped to 1…300.
func deadlineSecs(ctx context.Context) (int, bool) {
	d, ok := ctx.Deadline()
	if !ok {
		return 0, false
	}
	secs := int(time.Until(d) / time.Second)
	return min(max(secs, 1), apifyMaxSecs), true
}
