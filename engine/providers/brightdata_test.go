package providers

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

const (
	bdKey  = "bd-live-key-5c1e0a9b7d3f2e64a8"
	bdZone = "web_unlocker_test"
)

// fakeBDRequest is the documented /request body (apis.md §1.1).
type fakeBDRequest struct {
	Zone       string `json:"zone"`
	URL        string `json:"url"`
	Format     string `json:"format"`
	Method     string `json:"method,omitempty"`
	Country    string `json:"country,omitempty"`
	DataFormat string `json:"data_format,omitempty"`
	Body       string `json:"body,omitempty"`
	Render     any    `json:"render,omitempty"`
}

// fakeBrightData mimics the Web Unlocker Direct API: Bearer auth with a
// plain-text 401, 400 for an unknown zone or missing fields, otherwise an
// outer 200 with x-brd-* headers. The scenario is the target URL's path.
type fakeBrightData struct {
	t        *testing.T
	key      string
	zone     string
	srvURL   string
	requests atomic.Int64
	mu       sync.Mutex
	last     fakeBDRequest
}

func (f *fakeBrightData) lastRequest() fakeBDRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.last
}

func (f *fakeBrightData) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.requests.Add(1)
	if r.Method != http.MethodPost || r.URL.Path != "/request" {
		http.Error(w, "not found", http.StatusNotFound)
		return
	}
	if r.URL.RawQuery != "" {
		f.t.Errorf("unexpected query string %q", r.URL.RawQuery)
		http.Error(w, "unexpected query", http.StatusBadRequest)
		return
	}
	if got := r.Header.Get("Authorization"); got != "Bearer "+f.key {
		// Documented: plain text, no x-brd-* headers. Echo what was sent,
		// so the test proves the client scrubs it.
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusUnauthorized)
		io.WriteString(w, "Invalid credentials: "+strings.TrimPrefix(got, "Bearer "))
		return
	}
	if ct := r.Header.Get("Content-Type"); ct != "application/json" {
		http.Error(w, "content-type must be application/json", http.StatusBadRequest)
		return
	}
	raw, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if bytes.Contains(raw, []byte(f.key)) {
		f.t.Errorf("API key sent in the request body")
	}
	var req fakeBDRequest
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		http.Error(w, "bad json: "+err.Error(), http.StatusBadRequest)
		return
	}
	f.mu.Lock()
	f.last = req
	f.mu.Unlock()
	switch {
	case req.Zone != f.zone:
		http.Error(w, "zone not found", http.StatusBadRequest)
		return
	case req.URL == "":
		http.Error(w, "url is required", http.StatusBadRequest)
		return
	case req.Format != "raw" && req.Format != "json":
		http.Error(w, "format is required", http.StatusBadRequest)
		return
	case req.DataFormat != "" && req.DataFormat != "markdown" && req.DataFormat != "screenshot":
		http.Error(w, "bad data_format", http.StatusBadRequest)
		return
	}
	u, err := url.Parse(req.URL)
	if err != nil || u.Host == "" {
		http.Error(w, "invalid url", http.StatusBadRequest)
		return
	}
	h := w.Header()
	brdError := func(status, header, code, msg string) {
		h.Set("x-brd-status-code", status)
		h.Set(header, code)
		h.Set("x-brd-error", msg)
		w.WriteHeader(http.StatusOK)
	}
	switch u.Path {
	case "/article":
		h.Set("x-brd-status-code", "200")
		if req.DataFormat == "markdown" {
			h.Set("Content-Type", "text/plain; charset=utf-8")
			io.WriteString(w, "# Paper\n\nHello from markdown.")
			return
		}
		h.Set("Content-Type", "text/html; charset=UTF-8")
		io.WriteString(w, "<html><head><title>Paper</title></head><body>Hello</body></html>")
	case "/target-403":
		h.Set("x-brd-status-code", "403")
		h.Set("Content-Type", "text/html")
		io.WriteString(w, "<html>Access denied by the site</html>")
	case "/target-404":
		h.Set("x-brd-status-code", "404")
		h.Set("Content-Type", "text/html")
		io.WriteString(w, "<html>Not Found</html>")
	case "/no-status":
		h.Set("Content-Type", "text/html")
		io.WriteString(w, "<html>ok</html>")
	case "/policy":
		brdError("403", "x-brd-err-code", "policy_20000", "Forbidden: this target site is blocked by Bright Data policy")
	case "/policy-outer-403":
		h.Set("x-brd-err-code", "policy_20051")
		h.Set("x-brd-error", "government site")
		h.Set("Proxy-Status", `brd; error=http_request_denied`)
		w.WriteHeader(http.StatusForbidden)
	case "/reject":
		brdError("502", "x-brd-error-code", "reject_block", "Request blocked by target site; key "+strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "))
	case "/robots":
		brdError("400", "x-brd-error-code", "ub_bad_endpoint_robots", "robots.txt disallows")
	case "/premium":
		brdError("400", "x-brd-error-code", "premium", "zone needs premium domains")
	case "/sr-rate":
		h.Set("Retry-After", "7")
		brdError("429", "x-brd-error-code", "sr_rate_limit", "too many requests")
	case "/usage":
		brdError("403", "x-brd-err-code", "client_10100", "usage limit reached")
	case "/rate":
		h.Set("Retry-After", "30")
		http.Error(w, "Too Many Requests", http.StatusTooManyRequests)
	case "/credit":
		http.Error(w, "Payment Required", http.StatusPaymentRequired)
	case "/outage":
		http.Error(w, "upstream unavailable", http.StatusServiceUnavailable)
	case "/gateway-timeout":
		w.WriteHeader(http.StatusGatewayTimeout)
	case "/async":
		w.WriteHeader(http.StatusAccepted)
		io.WriteString(w, `{"response_id":"abc"}`)
	case "/redirect":
		h.Set("Location", f.srvURL+"/request?stolen=1")
		w.WriteHeader(http.StatusTemporaryRedirect)
	case "/huge":
		h.Set("x-brd-status-code", "200")
		h.Set("Content-Type", "text/html")
		writeForever(w, "<html>")
	case "/slow":
		waitOrDone(r, 10*time.Second)
	case "/slow-body":
		h.Set("x-brd-status-code", "200")
		h.Set("Content-Type", "text/html")
		io.WriteString(w, "<html>")
		w.(http.Flusher).Flush()
		waitOrDone(r, 10*time.Second)
	case "/echo-zone-header":
		// The Bright Data-side error names the zone it was sent.
		h.Set("x-brd-error-code", "zone_"+req.Zone)
		brdError("502", "x-brd-err-code", "client_"+req.Zone, "zone "+req.Zone+" could not unlock the page")
	case "/echo-zone-body":
		http.Error(w, "zone "+req.Zone+" is not active for premium domains", http.StatusBadRequest)
	case "/echo-zone-outer":
		http.Error(w, "brd-customer-hl_0000-zone-"+req.Zone+": upstream unavailable", http.StatusServiceUnavailable)
	case "/echo-zone-page":
		h.Set("x-brd-status-code", "200")
		h.Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, "<html><head><title>Zone "+req.Zone+"</title></head><body>served via "+req.Zone+"</body></html>")
	case "/echo":
		// A page that reflects request headers (as httpbin-like targets
		// do) must not hand the key back to the caller.
		h.Set("x-brd-status-code", "200")
		h.Set("Content-Type", "text/plain; charset=utf-8")
		io.WriteString(w, "you sent: "+r.Header.Get("Authorization"))
	default:
		http.Error(w, "unknown scenario "+u.Path, http.StatusInternalServerError)
	}
}

func newFakeBrightData(t *testing.T) (*fakeBrightData, *httptest.Server) {
	f := &fakeBrightData{t: t, key: bdKey, zone: bdZone}
	srv := httptest.NewServer(f)
	f.srvURL = srv.URL
	t.Cleanup(srv.Close)
	return f, srv
}

func TestBrightDataFetch(t *testing.T) {
	tests := []struct {
		name       string
		path       string // target path on example.org
		mod        func(*BrightData)
		timeout    time.Duration
		wantErr    error
		wantStatus int // Content.StatusCode, or Error.TargetStatus
		wantHTTP   int // Error.HTTPStatus
		wantCT     string
		wantBody   string
		wantTrunc  bool
		wantRetry  time.Duration
		wantCode   string
		wantDetail string
		check      func(t *testing.T, f *fakeBrightData, c *Content)
	}{
		{
			name: "html success", path: "/article",
			wantStatus: 200, wantCT: "text/html", wantBody: "<title>Paper</title>",
			check: func(t *testing.T, f *fakeBrightData, c *Content) {
				if got := f.lastRequest(); got.Format != "raw" || got.DataFormat != "" || got.URL != "https://example.org/article" {
					t.Errorf("request = %+v", got)
				}
				if c.Charset != "utf-8" || c.Provider != "bright_data" || c.Truncated {
					t.Errorf("content = %+v", c)
				}
			},
		},
		{
			name: "markdown success", path: "/article",
			mod:        func(b *BrightData) { b.DataFormat = "markdown"; b.Country = "us" },
			wantStatus: 200, wantCT: "text/markdown", wantBody: "# Paper",
			check: func(t *testing.T, f *fakeBrightData, c *Content) {
				if got := f.lastRequest(); got.DataFormat != "markdown" || got.Country != "us" || got.Format != "raw" {
					t.Errorf("request = %+v", got)
				}
			},
		},
		{name: "target 403 delivered as is", path: "/target-403", wantStatus: 403, wantCT: "text/html", wantBody: "Access denied"},
		{name: "target 404 delivered as is", path: "/target-404", wantStatus: 404, wantBody: "Not Found"},
		{name: "no status header is unknown", path: "/no-status", wantStatus: 0, wantBody: "ok"},
		{
			name: "policy block via x-brd headers", path: "/policy",
			wantErr: ErrProviderBlocked, wantStatus: 403, wantHTTP: 200, wantCode: "policy_20000", wantDetail: "blocked by Bright Data policy",
		},
		{
			name: "policy block with outer 403", path: "/policy-outer-403",
			wantErr: ErrProviderBlocked, wantStatus: 403, wantHTTP: 403, wantCode: "policy_20051",
		},
		{
			name: "unlock failed reject_block", path: "/reject",
			wantErr: ErrProviderBlocked, wantStatus: 502, wantHTTP: 200, wantCode: "reject_block",
			wantDetail: "x-brd-error-code reject_block: Request blocked by target site; key [REDACTED]",
		},
		{name: "robots refusal", path: "/robots", wantErr: ErrProviderBlocked, wantStatus: 400, wantCode: "ub_bad_endpoint_robots"},
		{name: "zone config error", path: "/premium", wantErr: ErrProviderFailed, wantStatus: 400, wantCode: "premium"},
		{name: "bright data rate limit", path: "/sr-rate", wantErr: ErrQuota, wantStatus: 429, wantCode: "sr_rate_limit", wantRetry: 7 * time.Second},
		{name: "account usage limit", path: "/usage", wantErr: ErrQuota, wantCode: "client_10100"},
		{name: "provider 429 with Retry-After", path: "/rate", wantErr: ErrQuota, wantHTTP: 429, wantRetry: 30 * time.Second, wantDetail: "retry after 30s"},
		{name: "provider 402", path: "/credit", wantErr: ErrQuota, wantHTTP: 402},
		{name: "provider 5xx", path: "/outage", wantErr: ErrProviderFailed, wantHTTP: 503, wantDetail: "upstream unavailable"},
		{name: "provider 504", path: "/gateway-timeout", wantErr: ErrProviderTimeout, wantHTTP: 504},
		{name: "unexpected 202", path: "/async", wantErr: ErrProviderFailed, wantHTTP: 202},
		{
			name: "redirect not followed", path: "/redirect", wantErr: ErrProviderFailed, wantHTTP: 307, wantDetail: "not followed",
			check: func(t *testing.T, f *fakeBrightData, _ *Content) {
				if n := f.requests.Load(); n != 1 {
					t.Errorf("%d requests, want 1 (redirect must not be followed)", n)
				}
			},
		},
		{
			name: "wrong key", path: "/article", mod: func(b *BrightData) { b.APIKey = "bd-wrong-key-000111222333" },
			wantErr: ErrUnauthorized, wantHTTP: 401, wantDetail: "http 401: Invalid credentials: [REDACTED]",
		},
		{
			name: "unknown zone", path: "/article", mod: func(b *BrightData) { b.Zone = "nope" },
			wantErr: ErrProviderFailed, wantHTTP: 400, wantDetail: "zone not found",
		},
		{
			name: "huge body capped", path: "/huge", mod: func(b *BrightData) { b.MaxBody = 4096 },
			wantStatus: 200, wantTrunc: true, wantBody: "<html>aaaa",
		},
		{name: "slow provider vs deadline", path: "/slow", timeout: 150 * time.Millisecond, wantErr: ErrProviderTimeout},
		{name: "slow body vs deadline", path: "/slow-body", timeout: 150 * time.Millisecond, wantErr: ErrProviderTimeout},
		{name: "key echoed in body is scrubbed", path: "/echo", wantStatus: 200, wantBody: "you sent: Bearer [REDACTED]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, srv := newFakeBrightData(t)
			client, counter := newCountingClient()
			b := &BrightData{BaseURL: srv.URL, APIKey: bdKey, Zone: bdZone, Client: client}
			if tt.mod != nil {
				tt.mod(b)
			}
			timeout := tt.timeout
			if timeout == 0 {
				timeout = 5 * time.Second
			}
			ctx := ctxTimeout(t, timeout)
			start := time.Now()
			c, err := b.Fetch(ctx, "https://example.org"+tt.path)
			elapsed := time.Since(start)

			assertNoSecret(t, b.APIKey, c, err)
			pe := checkErr(t, err, tt.wantErr)
			if tt.wantErr != nil {
				if c != nil {
					t.Errorf("content %+v returned with error", c)
				}
				if tt.wantStatus != 0 && pe.TargetStatus != tt.wantStatus {
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
				if !strings.HasPrefix(err.Error(), "bright_data: fetch https://example.org"+tt.path+": ") {
					t.Errorf("error %q lacks provider and target", err)
				}
				if tt.timeout != 0 && elapsed > tt.timeout+2*time.Second {
					t.Errorf("took %v with a %v deadline", elapsed, tt.timeout)
				}
				if tt.timeout != 0 && !errors.Is(err, context.DeadlineExceeded) {
					t.Errorf("timeout error %v does not wrap context.DeadlineExceeded", err)
				}
			} else {
				if c.StatusCode != tt.wantStatus {
					t.Errorf("StatusCode = %d, want %d", c.StatusCode, tt.wantStatus)
				}
				if tt.wantCT != "" && c.ContentType != tt.wantCT {
					t.Errorf("ContentType = %q, want %q", c.ContentType, tt.wantCT)
				}
				if !strings.Contains(string(c.Body), tt.wantBody) {
					t.Errorf("Body = %.80q, want it to contain %q", c.Body, tt.wantBody)
				}
				if c.Truncated != tt.wantTrunc {
					t.Errorf("Truncated = %v, want %v", c.Truncated, tt.wantTrunc)
				}
				if c.Verdict != nil || c.Title != "" || c.FinalURL != "" {
					t.Errorf("unexpected fields in %+v", c)
				}
			}
			if tt.wantTrunc {
				if int64(len(c.Body)) != b.MaxBody {
					t.Errorf("len(Body) = %d, want MaxBody %d", len(c.Body), b.MaxBody)
				}
				if n := counter.read.Load(); n > b.MaxBody+1 {
					t.Errorf("read %d body bytes, cap is %d", n, b.MaxBody)
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

// TestBrightDataNoRequest covers every path that must fail before anything
// is sent.
func TestBrightDataNoRequest(t *testing.T) {
	tests := []struct {
		name    string
		env     map[string]string
		base    string // "" = fake server
		target  string
		wantErr error
		want    string
	}{
		{name: "no key", env: map[string]string{EnvBrightDataZone: bdZone}, target: "https://example.org/a", wantErr: ErrNoCredentials, want: "BRIGHTDATA_API_KEY not set"},
		{name: "no zone", env: map[string]string{EnvBrightDataAPIKey: bdKey}, target: "https://example.org/a", wantErr: ErrNoCredentials, want: "BRIGHTDATA_UNLOCKER_ZONE not set"},
		{name: "blank key", env: map[string]string{EnvBrightDataAPIKey: "  \n", EnvBrightDataZone: bdZone}, target: "https://example.org/a", wantErr: ErrNoCredentials},
		{name: "nothing set", env: nil, target: "https://example.org/a", wantErr: ErrNoCredentials},
		{name: "ftp target", env: bdEnv(), target: "ftp://example.org/a", wantErr: ErrInvalidTarget},
		{name: "userinfo target", env: bdEnv(), target: "https://alice:pw@example.org/a", wantErr: ErrInvalidTarget, want: "userinfo"},
		{name: "search words", env: bdEnv(), target: "climate change report", wantErr: ErrInvalidTarget},
		{name: "empty target", env: bdEnv(), target: "", wantErr: ErrInvalidTarget},
		{name: "relative target", env: bdEnv(), target: "/a/b", wantErr: ErrInvalidTarget},
		{name: "plain http to a remote API", env: bdEnv(), base: "http://api.brightdata.example", target: "https://example.org/a", wantErr: ErrProviderFailed, want: "plain http"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, srv := newFakeBrightData(t)
			base := tt.base
			if base == "" {
				base = srv.URL
			}
			b := BrightDataFromEnv(func(k string) string { return tt.env[k] }, base, srv.Client())
			c, err := b.Fetch(context.Background(), tt.target)
			assertRefusedUnsent(t, c, err, tt.wantErr, tt.want, f.requests.Load(), bdKey)
		})
	}
}

func bdEnv() map[string]string {
	return map[string]string{EnvBrightDataAPIKey: bdKey, EnvBrightDataZone: bdZone}
}

func TestBrightDataFromEnv(t *testing.T) {
	env := map[string]string{EnvBrightDataAPIKey: " " + bdKey + "\n", EnvBrightDataZone: bdZone + "\n"}
	b := BrightDataFromEnv(func(k string) string { return env[k] }, "", nil)
	if b.APIKey != bdKey || b.Zone != bdZone || b.BaseURL != "" || b.Client != nil {
		t.Fatalf("BrightDataFromEnv = %+v", b)
	}
	// The default base URL is the public API; prove it without a network
	// by answering from a recording transport.
	rt := &recordingTransport{status: 200, header: http.Header{"X-Brd-Status-Code": {"200"}}, body: "<html></html>"}
	b.Client = &http.Client{Transport: rt}
	c, err := b.Fetch(context.Background(), "https://example.org/")
	if err != nil {
		t.Fatal(err)
	}
	if c.StatusCode != 200 {
		t.Errorf("StatusCode = %d", c.StatusCode)
	}
	if got := rt.url(); got != "https://api.brightdata.com/request" {
		t.Errorf("default endpoint = %q", got)
	}
}

// TestBrightDataZoneScrubbed: a provider that echoes the zone name in an
// error header, an error body, a status message or a page hands back
// [REDACTED] instead, as it does for the key.
func TestBrightDataZoneScrubbed(t *testing.T) {
	tests := []struct {
		path    string
		wantErr error
		want    string // in the error detail or the body
	}{
		{"/echo-zone-header", ErrProviderBlocked, "zone [REDACTED] could not unlock the page"},
		{"/echo-zone-body", ErrProviderFailed, "zone [REDACTED] is not active"},
		{"/echo-zone-outer", ErrProviderFailed, "zone-[REDACTED]: upstream unavailable"},
		{"/echo-zone-page", nil, "<title>Zone [REDACTED]</title></head><body>served via [REDACTED]</body>"},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			f, srv := newFakeBrightData(t)
			b := &BrightData{BaseURL: srv.URL, APIKey: bdKey, Zone: bdZone, Client: srv.Client()}
			c, err := b.Fetch(context.Background(), "https://example.org"+tt.path)
			pe := checkErr(t, err, tt.wantErr)
			if f.lastRequest().Zone != bdZone {
				t.Fatalf("the zone was not sent: %+v", f.lastRequest())
			}
			switch {
			case pe != nil && !strings.Contains(pe.Detail, tt.want):
				t.Errorf("detail %q lacks %q", pe.Detail, tt.want)
			case c != nil && !strings.Contains(string(c.Body), tt.want):
				t.Errorf("body %q lacks %q", c.Body, tt.want)
			}
			assertNoSecret(t, bdZone, c, err)
			assertNoSecret(t, bdKey, c, err)
		})
	}
}

// TestBrightDataTargetRedacted proves target URLs in errors are redacted.
func TestBrightDataTargetRedacted(t *testing.T) {
	_, srv := newFakeBrightData(t)
	b := &BrightData{BaseURL: srv.URL, APIKey: bdKey, Zone: bdZone, Client: srv.Client()}
	_, err := b.Fetch(context.Background(), "https://example.org/reject?token="+targetSecret+"&page=2")
	checkErr(t, err, ErrProviderBlocked)
	if strings.Contains(err.Error(), targetSecret) {
		t.Fatalf("target secret in error: %v", err)
	}
	if !strings.Contains(err.Error(), "https://example.org/reject?token=%5BREDACTED%5D&page=2") {
		t.Errorf("error does not show the redacted target: %v", err)
	}
	assertNoSecret(t, targetSecret, nil, err)
}

// recordingTransport answers every request itself and records its URL.
type recordingTransport struct {
	mu     sync.Mutex
	reqs   []*http.Request
	bodies []string
	status int
	header http.Header
	body   string
}

func (rt *recordingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	b, _ := io.ReadAll(r.Body)
	rt.mu.Lock()
	rt.reqs = append(rt.reqs, r)
	rt.bodies = append(rt.bodies, string(b))
	rt.mu.Unlock()
	h := rt.header.Clone()
	if h == nil {
		h = http.Header{}
	}
	return &http.Response{
		StatusCode: rt.status,
		Header:     h,
		Body:       io.NopCloser(strings.NewReader(rt.body)),
		Request:    r,
	}, nil
}

func (rt *recordingTransport) url() string {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if len(rt.reqs) == 0 {
		return ""
	}
	return rt.reqs[len(rt.reqs)-1].URL.String()
}
