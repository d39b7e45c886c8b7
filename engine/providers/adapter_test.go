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
	"sync/atomic"
	"testing"
	"time"
)

// fakeAdapter follows the reference contract (origin.md §5.3 3b/3c): POST
// {url, ladder_step} with only a JSON content type; answers a citation
// status object. The scenario is the target's path.
type fakeAdapter struct {
	t        *testing.T
	step     string
	requests atomic.Int64
}

func (f *fakeAdapter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.requests.Add(1)
	if r.Method != http.MethodPost || r.URL.Path != "/verify" {
		http.Error(w, "not found", http.StatusNotFound)
		return
	}
	if r.Header.Get("Content-Type") != "application/json" {
		http.Error(w, "want json", http.StatusUnsupportedMediaType)
		return
	}
	for _, h := range []string{"Authorization", "Cookie", "X-Api-Key"} {
		if r.Header.Get(h) != "" {
			f.t.Errorf("adapter request carries %s", h)
		}
	}
	raw, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	var req struct {
		URL        string `json:"url"`
		LadderStep string `json:"ladder_step"`
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil || req.LadderStep != f.step {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	u, err := url.Parse(req.URL)
	if err != nil || u.Host == "" {
		http.Error(w, "bad url", http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	switch u.Path {
	case "/valid":
		io.WriteString(w, `{"status":"valid","notes":"  rendered via unlocker  ","url":"https://example.org/valid/","http_status":200.9,
			"title":" A Paper ","publisher":"Example Press","evidence_snippet":"  Abstract: we show …  ","extra":true}`)
	case "/paywalled":
		io.WriteString(w, `{"status":"paywalled","http_status":402}`)
	case "/mismatch":
		io.WriteString(w, `{"status":"mismatch","notes":"page is about something else","http_status":"200","title":7}`)
	case "/blocked":
		io.WriteString(w, `{"status":"blocked","notes":"captcha at https://example.org/c?session=`+targetSecret+`","http_status":403}`)
	case "/missing-status":
		io.WriteString(w, `{"notes":"no status here"}`)
	case "/unknown-status":
		io.WriteString(w, `{"status":"ok"}`)
	case "/status-case":
		io.WriteString(w, `{"status":"Valid"}`)
	case "/array":
		io.WriteString(w, `[{"status":"valid"}]`)
	case "/bad-json":
		io.WriteString(w, `{"status":"valid"`)
	case "/html":
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, `<html>proxy error</html>`)
	case "/http500":
		http.Error(w, "internal", http.StatusInternalServerError)
	case "/http404":
		http.Error(w, "no such route", http.StatusNotFound)
	case "/http429":
		w.Header().Set("Retry-After", "3")
		http.Error(w, "slow down", http.StatusTooManyRequests)
	case "/huge":
		writeForever(w, `{"status":"valid","notes":"`)
	case "/slow":
		waitOrDone(r, 10*time.Second)
	default:
		http.Error(w, "unknown scenario", http.StatusInternalServerError)
	}
}

func TestAdapterFetch(t *testing.T) {
	tests := []struct {
		name       string
		path       string
		timeout    time.Duration
		maxBody    int64
		wantErr    error
		wantHTTP   int
		wantRetry  time.Duration
		wantDetail string
		want       *AdapterVerdict
	}{
		{
			name: "valid", path: "/valid",
			want: &AdapterVerdict{Status: "valid", Notes: "rendered via unlocker", URL: "https://example.org/valid/", HTTPStatus: 200,
				Title: "A Paper", Publisher: "Example Press", EvidenceSnippet: "Abstract: we show …"},
		},
		{name: "paywalled", path: "/paywalled", want: &AdapterVerdict{Status: "paywalled", HTTPStatus: 402}},
		{name: "mismatch ignores mistyped fields", path: "/mismatch", want: &AdapterVerdict{Status: "mismatch", Notes: "page is about something else"}},
		{name: "blocked escalates", path: "/blocked", wantErr: ErrProviderBlocked, wantDetail: "endpoint returned blocked: captcha at https://example.org/c?session=%5BREDACTED%5D"},
		{name: "missing status", path: "/missing-status", wantErr: ErrProviderFailed, wantDetail: "endpoint response missing citation status"},
		{name: "unknown status", path: "/unknown-status", wantErr: ErrProviderFailed, wantDetail: "missing citation status"},
		{name: "status is case-sensitive", path: "/status-case", wantErr: ErrProviderFailed, wantDetail: "missing citation status"},
		{name: "JSON array", path: "/array", wantErr: ErrProviderFailed, wantDetail: "missing citation status"},
		{name: "bad JSON", path: "/bad-json", wantErr: ErrProviderFailed, wantDetail: "invalid endpoint json"},
		{name: "HTML answer", path: "/html", wantErr: ErrProviderFailed, wantDetail: "invalid endpoint json"},
		{name: "non-2xx 500", path: "/http500", wantErr: ErrProviderFailed, wantHTTP: 500, wantDetail: "endpoint http 500"},
		{name: "non-2xx 404", path: "/http404", wantErr: ErrProviderFailed, wantHTTP: 404, wantDetail: "endpoint http 404"},
		{name: "non-2xx 429", path: "/http429", wantErr: ErrQuota, wantHTTP: 429, wantRetry: 3 * time.Second},
		{name: "huge answer capped", path: "/huge", maxBody: 2048, wantErr: ErrProviderFailed, wantDetail: "larger than 2048 bytes"},
		{name: "slow endpoint vs deadline", path: "/slow", timeout: 150 * time.Millisecond, wantErr: ErrProviderTimeout},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fakeAdapter{t: t, step: "bright_data"}
			srv := httptest.NewServer(f)
			defer srv.Close()
			client, counter := newCountingClient()
			a := &Adapter{Endpoint: srv.URL + "/verify", Step: "bright_data", Client: client, MaxBody: tt.maxBody}
			timeout := tt.timeout
			if timeout == 0 {
				timeout = 5 * time.Second
			}
			target := "https://example.org" + tt.path + "?access_token=" + targetSecret
			c, err := a.Fetch(ctxTimeout(t, timeout), target)
			assertNoSecret(t, targetSecret, c, err)
			pe := checkErr(t, err, tt.wantErr)
			if tt.wantErr != nil {
				if c != nil {
					t.Errorf("content returned with error: %+v", c)
				}
				if !strings.Contains(err.Error(), tt.wantDetail) {
					t.Errorf("error %q does not contain %q", err, tt.wantDetail)
				}
				if !strings.HasPrefix(err.Error(), "adapter:bright_data: fetch https://example.org"+tt.path+"?access_token=%5BREDACTED%5D: ") {
					t.Errorf("error %q lacks provider and redacted target", err)
				}
				if tt.wantHTTP != 0 && pe.HTTPStatus != tt.wantHTTP {
					t.Errorf("HTTPStatus = %d, want %d", pe.HTTPStatus, tt.wantHTTP)
				}
				if pe.RetryAfter != tt.wantRetry {
					t.Errorf("RetryAfter = %v, want %v", pe.RetryAfter, tt.wantRetry)
				}
			} else {
				if *c.Verdict != *tt.want {
					t.Errorf("Verdict = %+v\nwant      %+v", *c.Verdict, *tt.want)
				}
				if c.Provider != "adapter:bright_data" || c.StatusCode != tt.want.HTTPStatus ||
					c.FinalURL != tt.want.URL || c.Title != tt.want.Title || c.Body != nil {
					t.Errorf("Content = %+v", c)
				}
			}
			if tt.maxBody > 0 {
				if n := counter.read.Load(); n > tt.maxBody+1 {
					t.Errorf("read %d bytes, cap %d", n, tt.maxBody)
				}
			}
			if n := f.requests.Load(); n != 1 {
				t.Errorf("fake saw %d requests, want 1", n)
			}
		})
	}
}

func TestAdapterNotConfigured(t *testing.T) {
	f := &fakeAdapter{t: t, step: "apify"}
	srv := httptest.NewServer(f)
	defer srv.Close()
	for _, a := range []*Adapter{{Step: "apify"}, {Endpoint: "  ", Step: "apify"}} {
		c, err := a.Fetch(context.Background(), "https://example.org/valid")
		checkErr(t, err, ErrNoCredentials)
		if c != nil || !strings.Contains(err.Error(), "endpoint not configured") {
			t.Errorf("c=%v err=%v", c, err)
		}
	}
	if n := f.requests.Load(); n != 0 {
		t.Errorf("%d requests", n)
	}
}

// TestAdapterEndpointRedacted: an endpoint URL can carry its own secret in
// the query; a transport error (which quotes the URL) must not show it.
func TestAdapterEndpointRedacted(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	base := srv.URL
	srv.Close() // nothing listens any more: the dial fails
	a := &Adapter{Endpoint: base + "/verify?api_key=" + targetSecret, Step: "apify"}
	c, err := a.Fetch(context.Background(), "https://example.org/valid")
	checkErr(t, err, ErrProviderFailed)
	assertNoSecret(t, targetSecret, c, err)
	if !strings.Contains(err.Error(), "api_key=%5BREDACTED%5D") {
		t.Errorf("error does not show the redacted endpoint: %v", err)
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("dial failure classified as a context error: %v", err)
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		in   string
		want time.Duration
	}{
		{"", 0},
		{"30", 30 * time.Second},
		{" 5 ", 5 * time.Second},
		{"0", 0},
		{"-3", 0},
		{"soon", 0},
		{"Fri, 01 May 2026 12:01:30 GMT", 90 * time.Second},
		{"Fri, 01 May 2026 11:59:00 GMT", 0},
		{"99999999999999999", time.Duration(1<<63 - 1)},
	}
	for _, tt := range tests {
		if got := parseRetryAfter(tt.in, now); got != tt.want {
			t.Errorf("parseRetryAfter(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestRetryAfterHelper(t *testing.T) {
	if d, ok := RetryAfter(&Error{Kind: ErrQuota, RetryAfter: time.Second}); !ok || d != time.Second {
		t.Errorf("RetryAfter = %v %v", d, ok)
	}
	if _, ok := RetryAfter(errors.New("x")); ok {
		t.Error("RetryAfter on a plain error")
	}
	// A zero-value Error still satisfies the one-sentinel rule.
	if !errors.Is(&Error{}, ErrProviderFailed) {
		t.Error("zero Error is not ErrProviderFailed")
	}
}

func TestSanitize(t *testing.T) {
	c := newCall("", "", []string{"k3y-abcdefgh", " ", "s3cond-t0ken"}, []string{"web_unlocker1", ""})
	long := strings.Repeat("é", 300)
	tests := []struct{ in, want string }{
		{"line1\n\tline2\x00 end", "line1 line2 end"},
		{"see https://x.example/?token=abc and k3y-abcdefgh", "see https://x.example/?token=%5BREDACTED%5D and [REDACTED]"},
		{"bad \xff byte", "bad \uFFFD byte"},
		// Every secret is scrubbed, not only the first.
		{"keys k3y-abcdefgh,s3cond-t0kenXY", "keys [REDACTED],[REDACTED]XY"},
		// The zone goes where it stands as a word, and only there.
		{"Zone not found: web_unlocker1", "Zone not found: [REDACTED]"},
		{"brd-customer-hl_1-zone-web_unlocker1-country-us", "brd-customer-hl_1-zone-[REDACTED]-country-us"},
		{`{"zone":"web_unlocker1"} web_unlocker1`, `{"zone":"[REDACTED]"} [REDACTED]`},
		{"code zone_web_unlocker1", "code zone_[REDACTED]"},
		{"web_unlocker12 and myweb_unlocker1 differ", "web_unlocker12 and myweb_unlocker1 differ"},
	}
	for _, tt := range tests {
		if got := c.sanitize(tt.in); got != tt.want {
			t.Errorf("sanitize(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	got := c.sanitize(long)
	if !strings.HasSuffix(got, "…") || len(got) > maxDetail+len("…") || !utf8Valid([]byte(got)) {
		t.Errorf("long sanitize = %d bytes %q", len(got), got[len(got)-8:])
	}
}

func TestErrorTargetBounded(t *testing.T) {
	c := &call{provider: "apify", target: "https://example.org/" + strings.Repeat("ü", 3000)}
	e := c.fail(ErrProviderFailed, "x")
	if len(e.Target) > maxTargetShown+len("…") || !strings.HasSuffix(e.Target, "…") || !utf8Valid([]byte(e.Target)) {
		t.Errorf("Target is %d bytes", len(e.Target))
	}
}
