package providers

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

const apifyToken = "apify_api_T3stT0kenAbCdEf0123456789"

// fakeApifyInput is the apify/rag-web-browser input (apis.md §2.2); unknown
// fields are rejected, as the Actor's input schema would.
type fakeApifyInput struct {
	Query              string   `json:"query"`
	MaxResults         *int     `json:"maxResults"`
	OutputFormats      []string `json:"outputFormats"`
	RequestTimeoutSecs *int     `json:"requestTimeoutSecs"`
	ScrapingTool       string   `json:"scrapingTool"`
}

// fakeApify mimics POST /v2/acts/apify~rag-web-browser/run-sync-get-dataset-items:
// Bearer auth with the JSON error envelope, 201 + an array of dataset items,
// failures as items or as run errors. The scenario is the target's path.
type fakeApify struct {
	t        *testing.T
	token    string
	requests atomic.Int64
	mu       sync.Mutex
	last     fakeApifyInput
	lastQ    url.Values
}

const apifyTestPath = "/v2/acts/apify~rag-web-browser/run-sync-get-dataset-items"

func (f *fakeApify) lastRequest() (fakeApifyInput, url.Values) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.last, f.lastQ
}

func apifyErr(w http.ResponseWriter, status int, typ, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{"error": map[string]string{"type": typ, "message": msg}})
}

func (f *fakeApify) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.requests.Add(1)
	if r.Method != http.MethodPost || r.URL.Path != apifyTestPath {
		apifyErr(w, http.StatusNotFound, "page-not-found", "not found")
		return
	}
	q := r.URL.Query()
	if q.Has("token") {
		f.t.Errorf("token sent in the query string")
	}
	if strings.Contains(r.URL.String(), f.token) {
		f.t.Errorf("token in the request URL")
	}
	if got := r.Header.Get("Authorization"); got != "Bearer "+f.token {
		// Echo the token back: the client must scrub it.
		apifyErr(w, http.StatusUnauthorized, "token-not-valid", "Authentication token is not valid: "+strings.TrimPrefix(got, "Bearer "))
		return
	}
	if ct := r.Header.Get("Content-Type"); ct != "application/json" {
		apifyErr(w, http.StatusBadRequest, "invalid-input", "content-type must be application/json")
		return
	}
	raw, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if bytes.Contains(raw, []byte(f.token)) {
		f.t.Errorf("token sent in the request body")
	}
	var in fakeApifyInput
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		apifyErr(w, http.StatusBadRequest, "invalid-input", err.Error())
		return
	}
	if t := q.Get("timeout"); t != "" {
		if n, err := strconv.Atoi(t); err != nil || n < 1 || n > 300 {
			apifyErr(w, http.StatusBadRequest, "invalid-parameter", "bad timeout "+t)
			return
		}
	}
	f.mu.Lock()
	f.last, f.lastQ = in, q
	f.mu.Unlock()
	switch {
	case in.Query == "":
		apifyErr(w, http.StatusBadRequest, "invalid-input", "Field input.query is required")
		return
	case in.MaxResults == nil || *in.MaxResults != 1:
		apifyErr(w, http.StatusBadRequest, "invalid-input", "this fake expects maxResults 1")
		return
	case len(in.OutputFormats) != 1 || in.OutputFormats[0] != "markdown":
		apifyErr(w, http.StatusBadRequest, "invalid-input", "this fake expects outputFormats [markdown]")
		return
	}
	u, err := url.Parse(in.Query)
	if err != nil || u.Host == "" {
		apifyErr(w, http.StatusBadRequest, "invalid-input", "this fake only does URL mode")
		return
	}
	item := func(reqStatus string, code int, msg, title, markdown string) map[string]any {
		it := map[string]any{
			"query": in.Query,
			"crawl": map[string]any{
				"httpStatusCode": code, "httpStatusMessage": msg, "loadedAt": "2026-01-01T00:00:00.000Z",
				"uniqueKey": "k1", "requestStatus": reqStatus,
			},
			"searchResult": map[string]any{"title": title, "description": "", "url": in.Query, "rank": 1, "resultType": "ORGANIC"},
			"metadata": map[string]any{"url": in.Query, "redirectedUrl": in.Query + "/", "title": title,
				"description": "d", "author": nil, "languageCode": "en"},
			"markdown": markdown, "text": nil, "html": nil,
		}
		return it
	}
	items := func(its ...any) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Apify-Pagination-Total", strconv.Itoa(len(its)))
		w.WriteHeader(http.StatusCreated)
		json.NewEncoder(w).Encode(its)
	}
	switch u.Path {
	case "/article":
		items(item("handled", 200, "OK", "  A Paper  ", "# A Paper\n\nBody text."))
	case "/failed-then-handled":
		items(item("failed", 500, "boom", "", ""), item("handled", 200, "OK", "Second", "# second"))
	case "/target-404":
		items(item("handled", 404, "Not Found", "Not Found", "# 404"))
	case "/text-only":
		it := item("handled", 200, "OK", "T", "")
		delete(it, "markdown")
		it["text"] = "plain text"
		items(it)
	case "/failed":
		it := item("failed", 500, "Request blocked - received 403 status code. See https://example.org/x?token="+targetSecret, "", "")
		it["metadata"].(map[string]any)["title"] = ""
		items(it)
	case "/unparseable":
		items(item("failed", 200, "Couldn't parse the content", "", ""))
	case "/pending":
		items(item("pending", 0, "", "", ""))
	case "/no-crawl":
		it := item("handled", 200, "OK", "T", "x")
		delete(it, "crawl")
		items(it)
	case "/empty":
		items()
	case "/run-failed":
		apifyErr(w, http.StatusBadRequest, "run-failed", "Actor run did not succeed (run ID: abc, status: FAILED)")
	case "/run-timed-out":
		apifyErr(w, http.StatusBadRequest, "run-failed", "Actor run did not succeed (run ID: abc, status: TIMED-OUT)")
	case "/sync-timeout":
		apifyErr(w, http.StatusRequestTimeout, "run-timeout-exceeded", "Actor run exceeded timeout of 300 seconds for this API endpoint")
	case "/rate":
		w.Header().Set("Retry-After", "12")
		apifyErr(w, http.StatusTooManyRequests, "rate-limit-exceeded", "You have exceeded the rate limit")
	case "/credit":
		apifyErr(w, http.StatusPaymentRequired, "not-enough-usage-to-run-paid-actor", "out of credit")
	case "/forbidden":
		apifyErr(w, http.StatusForbidden, "permission-denied", "Insufficient permissions for the Actor")
	case "/outage":
		w.WriteHeader(http.StatusBadGateway)
		io.WriteString(w, "<html>502 Bad Gateway</html>")
	case "/bad-json":
		w.WriteHeader(http.StatusCreated)
		io.WriteString(w, `[{"crawl": {"requestStatus": "handled",`)
	case "/not-array":
		w.WriteHeader(http.StatusCreated)
		io.WriteString(w, `{"items": []}`)
	case "/big-markdown":
		// 3000 bytes of two-byte runes: the cap must not split one.
		items(item("handled", 200, "OK", "Big", strings.Repeat("é", 1500)))
	case "/huge":
		w.WriteHeader(http.StatusCreated)
		writeForever(w, `[{"crawl":{"httpStatusCode":200,"requestStatus":"handled"},"markdown":"`)
	case "/slow":
		waitOrDone(r, 10*time.Second)
	case "/echo":
		items(item("handled", 200, "OK", "token "+f.token, "auth was "+r.Header.Get("Authorization")))
	default:
		apifyErr(w, http.StatusInternalServerError, "internal-error", "unknown scenario "+u.Path)
	}
}

func newFakeApify(t *testing.T) (*fakeApify, *httptest.Server) {
	f := &fakeApify{t: t, token: apifyToken}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return f, srv
}

func TestApifyFetch(t *testing.T) {
	tests := []struct {
		name       string
		path       string
		mod        func(*Apify)
		timeout    time.Duration // 0: no deadline at all
		wantErr    error
		wantStatus int
		wantHTTP   int
		wantCT     string
		wantBody   string
		wantTitle  string
		wantFinal  string
		wantTrunc  bool
		wantRetry  time.Duration
		wantCode   string
		wantDetail string
		check      func(t *testing.T, f *fakeApify, c *Content)
	}{
		{
			name: "markdown success", path: "/article", timeout: 30 * time.Second,
			wantStatus: 200, wantCT: "text/markdown", wantBody: "# A Paper", wantTitle: "A Paper",
			wantFinal: "https://example.org/article/",
			check: func(t *testing.T, f *fakeApify, c *Content) {
				in, q := f.lastRequest()
				if in.Query != "https://example.org/article" || in.ScrapingTool != "" {
					t.Errorf("input = %+v", in)
				}
				// The deadline bounds the run and the Actor's request budget.
				if in.RequestTimeoutSecs == nil || *in.RequestTimeoutSecs < 25 || *in.RequestTimeoutSecs > 30 {
					t.Errorf("requestTimeoutSecs = %v", in.RequestTimeoutSecs)
				}
				if q.Get("timeout") != strconv.Itoa(*in.RequestTimeoutSecs) {
					t.Errorf("run timeout = %q", q.Get("timeout"))
				}
				if c.Charset != "utf-8" || c.Provider != "apify" {
					t.Errorf("content = %+v", c)
				}
			},
		},
		{
			name: "no deadline sends no timeout", path: "/article", mod: func(a *Apify) { a.ScrapingTool = "browser-playwright" },
			wantStatus: 200, wantBody: "Body text.",
			check: func(t *testing.T, f *fakeApify, _ *Content) {
				in, q := f.lastRequest()
				if in.RequestTimeoutSecs != nil || q.Has("timeout") {
					t.Errorf("timeout sent without a deadline: %+v %v", in, q)
				}
				if in.ScrapingTool != "browser-playwright" {
					t.Errorf("scrapingTool = %q", in.ScrapingTool)
				}
			},
		},
		{name: "handled item preferred", path: "/failed-then-handled", wantStatus: 200, wantBody: "# second", wantTitle: "Second"},
		{name: "target 404 handled", path: "/target-404", wantStatus: 404, wantBody: "# 404"},
		{name: "text fallback", path: "/text-only", wantStatus: 200, wantCT: "text/plain", wantBody: "plain text"},
		{
			name: "crawl failed", path: "/failed", wantErr: ErrProviderBlocked, wantStatus: 500, wantHTTP: 201,
			wantDetail: "crawl failed: Request blocked - received 403 status code.",
		},
		{name: "unparseable content", path: "/unparseable", wantErr: ErrProviderBlocked, wantStatus: 200, wantDetail: "Couldn't parse the content"},
		{name: "pending item", path: "/pending", wantErr: ErrProviderFailed, wantDetail: "pending"},
		{name: "item without crawl", path: "/no-crawl", wantErr: ErrProviderFailed, wantDetail: "no crawl status"},
		{name: "empty dataset", path: "/empty", wantErr: ErrProviderBlocked, wantHTTP: 201, wantDetail: "empty dataset"},
		{name: "run failed", path: "/run-failed", wantErr: ErrProviderFailed, wantHTTP: 400, wantCode: "run-failed", wantDetail: "status: FAILED"},
		{name: "run timed out", path: "/run-timed-out", wantErr: ErrProviderTimeout, wantHTTP: 400, wantCode: "run-failed"},
		{name: "sync call timeout 408", path: "/sync-timeout", wantErr: ErrProviderTimeout, wantHTTP: 408, wantCode: "run-timeout-exceeded"},
		{name: "rate limited", path: "/rate", wantErr: ErrQuota, wantHTTP: 429, wantCode: "rate-limit-exceeded", wantRetry: 12 * time.Second},
		{name: "out of credit", path: "/credit", wantErr: ErrQuota, wantHTTP: 402, wantCode: "not-enough-usage-to-run-paid-actor"},
		{name: "permission denied", path: "/forbidden", wantErr: ErrUnauthorized, wantHTTP: 403, wantCode: "permission-denied"},
		{
			name: "wrong token", path: "/article", mod: func(a *Apify) { a.Token = "apify_api_wrongWRONGwrong0000" },
			wantErr: ErrUnauthorized, wantHTTP: 401, wantCode: "token-not-valid", wantDetail: "Authentication token is not valid: [REDACTED]",
		},
		{name: "provider 5xx", path: "/outage", wantErr: ErrProviderFailed, wantHTTP: 502, wantDetail: "502 Bad Gateway"},
		{name: "malformed JSON", path: "/bad-json", wantErr: ErrProviderFailed, wantHTTP: 201, wantDetail: "invalid dataset JSON"},
		{name: "JSON not an array", path: "/not-array", wantErr: ErrProviderFailed, wantDetail: "invalid dataset JSON"},
		{
			name: "markdown over MaxBody truncated", path: "/big-markdown", mod: func(a *Apify) { a.MaxBody = 1001 },
			wantStatus: 200, wantTrunc: true, wantBody: "éé",
			check: func(t *testing.T, _ *fakeApify, c *Content) {
				if len(c.Body) != 1000 || !utf8Valid(c.Body) {
					t.Errorf("len(Body) = %d (valid UTF-8: %v), want 1000 bytes cut at a rune boundary", len(c.Body), utf8Valid(c.Body))
				}
			},
		},
		{
			name: "huge response capped", path: "/huge", mod: func(a *Apify) { a.MaxBody = 1024 },
			wantErr: ErrProviderFailed, wantHTTP: 201, wantDetail: "larger than",
		},
		{name: "slow provider vs deadline", path: "/slow", timeout: 150 * time.Millisecond, wantErr: ErrProviderTimeout},
		{name: "token echoed in item is scrubbed", path: "/echo", wantStatus: 200, wantBody: "auth was Bearer [REDACTED]", wantTitle: "token [REDACTED]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, srv := newFakeApify(t)
			client, counter := newCountingClient()
			a := &Apify{BaseURL: srv.URL, Token: apifyToken, Client: client}
			if tt.mod != nil {
				tt.mod(a)
			}
			ctx := context.Background()
			if tt.timeout > 0 {
				ctx = ctxTimeout(t, tt.timeout)
			}
			start := time.Now()
			c, err := a.Fetch(ctx, "https://example.org"+tt.path)
			elapsed := time.Since(start)

			assertNoSecret(t, a.Token, c, err)
			assertNoSecret(t, targetSecret, nil, err)
			pe := checkErr(t, err, tt.wantErr)
			if tt.wantErr != nil {
				if c != nil {
					t.Errorf("content %+v returned with error", c)
				}
				if pe.TargetStatus != tt.wantStatus {
					t.Errorf("TargetStatus = %d, want %d", pe.TargetStatus, tt.wantStatus)
				}
				if tt.wantHTTP != 0 && pe.HTTPStatus != tt.wantHTTP {
					t.Errorf("HTTPStatus = %d, want %d", pe.HTTPStatus, tt.wantHTTP)
				}
				if pe.Code != tt.wantCode {
					t.Errorf("Code = %q, want %q", pe.Code, tt.wantCode)
				}
				if pe.RetryAfter != tt.wantRetry {
					t.Errorf("RetryAfter = %v, want %v", pe.RetryAfter, tt.wantRetry)
				}
				if !strings.Contains(err.Error(), tt.wantDetail) {
					t.Errorf("error %q does not contain %q", err, tt.wantDetail)
				}
				if !strings.HasPrefix(err.Error(), "apify: fetch https://example.org"+tt.path+": ") {
					t.Errorf("error %q lacks provider and target", err)
				}
				if tt.timeout > 0 && tt.timeout < time.Second {
					if elapsed > tt.timeout+2*time.Second {
						t.Errorf("took %v with a %v deadline", elapsed, tt.timeout)
					}
					if !errors.Is(err, context.DeadlineExceeded) {
						t.Errorf("timeout error %v does not wrap context.DeadlineExceeded", err)
					}
				}
			} else {
				if c.StatusCode != tt.wantStatus {
					t.Errorf("StatusCode = %d, want %d", c.StatusCode, tt.wantStatus)
				}
				wantCT := tt.wantCT
				if wantCT == "" {
					wantCT = "text/markdown"
				}
				if c.ContentType != wantCT {
					t.Errorf("ContentType = %q, want %q", c.ContentType, wantCT)
				}
				if !strings.Contains(string(c.Body), tt.wantBody) {
					t.Errorf("Body = %.80q, want it to contain %q", c.Body, tt.wantBody)
				}
				if tt.wantTitle != "" && c.Title != tt.wantTitle {
					t.Errorf("Title = %q, want %q", c.Title, tt.wantTitle)
				}
				if tt.wantFinal != "" && c.FinalURL != tt.wantFinal {
					t.Errorf("FinalURL = %q, want %q", c.FinalURL, tt.wantFinal)
				}
				if c.Truncated != tt.wantTrunc {
					t.Errorf("Truncated = %v, want %v", c.Truncated, tt.wantTrunc)
				}
				if c.Verdict != nil {
					t.Errorf("Verdict set: %+v", c.Verdict)
				}
			}
			if a.MaxBody > 0 {
				if n, limit := counter.read.Load(), 2*a.MaxBody+jsonOverhead+1; n > limit {
					t.Errorf("read %d body bytes, envelope cap is %d", n, limit)
				}
			}
			if n := f.requests.Load(); n != 1 {
				t.Errorf("fake saw %d requests, want 1", n)
			}
			if tt.check != nil {
				tt.check(t, f, c)
			}
		})
	}
}

func utf8Valid(b []byte) bool { return bytes.Equal(b, bytes.ToValidUTF8(b, []byte("\uFFFD"))) }

func TestApifyNoRequest(t *testing.T) {
	tests := []struct {
		name    string
		env     map[string]string
		base    string
		target  string
		wantErr error
		want    string
	}{
		{name: "no token", env: nil, target: "https://example.org/a", wantErr: ErrNoCredentials, want: "APIFY_TOKEN not set"},
		{name: "blank token", env: map[string]string{EnvApifyToken: " \t"}, target: "https://example.org/a", wantErr: ErrNoCredentials},
		{name: "other env name ignored", env: map[string]string{"APIFY_API_TOKEN": apifyToken}, target: "https://example.org/a", wantErr: ErrNoCredentials},
		// The Actor would run a Google search for a non-URL query.
		{name: "search words", env: map[string]string{EnvApifyToken: apifyToken}, target: "best climate papers", wantErr: ErrInvalidTarget},
		{name: "URL with a space", env: map[string]string{EnvApifyToken: apifyToken}, target: "https://example.org/a b", wantErr: ErrInvalidTarget},
		{name: "javascript URL", env: map[string]string{EnvApifyToken: apifyToken}, target: "javascript:alert(1)", wantErr: ErrInvalidTarget},
		{name: "plain http to a remote API", env: map[string]string{EnvApifyToken: apifyToken}, base: "http://api.apify.example", target: "https://example.org/a", wantErr: ErrProviderFailed, want: "plain http"},
		{name: "base URL with query", env: map[string]string{EnvApifyToken: apifyToken}, base: "https://api.apify.example/?x=1", target: "https://example.org/a", wantErr: ErrProviderFailed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, srv := newFakeApify(t)
			base := tt.base
			if base == "" {
				base = srv.URL
			}
			a := ApifyFromEnv(func(k string) string { return tt.env[k] }, base, srv.Client())
			c, err := a.Fetch(context.Background(), tt.target)
			assertRefusedUnsent(t, c, err, tt.wantErr, tt.want, f.requests.Load(), apifyToken)
		})
	}
}

func TestApifyFromEnvDefaultEndpoint(t *testing.T) {
	a := ApifyFromEnv(func(k string) string { return map[string]string{EnvApifyToken: apifyToken + "\n"}[k] }, "", nil)
	if a.Token != apifyToken || a.BaseURL != "" {
		t.Fatalf("ApifyFromEnv = %+v", a)
	}
	body, _ := json.Marshal([]any{map[string]any{"crawl": map[string]any{"httpStatusCode": 200, "requestStatus": "handled"}, "markdown": "# x"}})
	rt := &recordingTransport{status: http.StatusCreated, body: string(body)}
	a.Client = &http.Client{Transport: rt}
	c, err := a.Fetch(context.Background(), "https://example.org/")
	if err != nil {
		t.Fatal(err)
	}
	if string(c.Body) != "# x" {
		t.Errorf("Body = %q", c.Body)
	}
	if got := rt.url(); got != "https://api.apify.com/v2/acts/apify~rag-web-browser/run-sync-get-dataset-items" {
		t.Errorf("default endpoint = %q", got)
	}
	r := rt.reqs[0]
	if r.Header.Get("Authorization") != "Bearer "+apifyToken || r.URL.RawQuery != "" {
		t.Errorf("auth header %q, query %q", r.Header.Get("Authorization"), r.URL.RawQuery)
	}
	want := `{"query":"https://example.org/","maxResults":1,"outputFormats":["markdown"]}`
	if rt.bodies[0] != want {
		t.Errorf("input = %s\nwant    %s", rt.bodies[0], want)
	}
}

// TestApifyCanceled keeps cancellation distinct from a deadline.
func TestApifyCanceled(t *testing.T) {
	_, srv := newFakeApify(t)
	a := &Apify{BaseURL: srv.URL, Token: apifyToken, Client: srv.Client()}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	_, err := a.Fetch(ctx, "https://example.org/slow")
	checkErr(t, err, ErrProviderFailed)
	if !errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v, want context.Canceled only", err)
	}
	if !strings.HasSuffix(err.Error(), ": canceled") {
		t.Errorf("err = %v", fmt.Sprint(err))
	}
}
