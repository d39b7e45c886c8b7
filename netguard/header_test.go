package netguard

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestRequestHeader(t *testing.T) {
	g := New(WithUserAgent("custom/1.0"))
	h, err := g.requestHeader(http.Header{"accept-language": {"fr"}})
	if err != nil || h.Get("Accept-Language") != "fr" || h.Get("Accept") != defaultAccept ||
		h.Get("User-Agent") != "custom/1.0" || h.Get("Accept-Encoding") != acceptEncoding {
		t.Errorf("requestHeader = %v, %v", h, err)
	}
	if New(WithUserAgent("")).userAgent != DefaultUserAgent {
		t.Error("an empty User-Agent should keep the default")
	}
	for _, bad := range []http.Header{
		{"Authorization": {"Bearer x"}},
		{"Cookie": {"a=b"}},
		{"Referer": {"https://example.com/"}},
		{"Proxy-Authorization": {"x"}},
		{"Host": {"10.0.0.1"}},
		{"User-Agent": {"spoof"}},
		{"Accept-Encoding": {"identity"}},
		{"X-Api-Key": {"k"}},
		{"Accept": {"text/html\r\nX-Injected: 1"}},
	} {
		if _, err := g.requestHeader(bad); !errors.Is(err, ErrRequest) {
			t.Errorf("requestHeader(%v) = %v, want ErrRequest", bad, err)
		}
	}
}

// Refused requests cost no network at all.
func TestFetchRefusesRequest(t *testing.T) {
	r := newRig(t, 8080)
	for _, req := range []Request{
		{Method: http.MethodPost, URL: r.base},
		{Method: "DELETE", URL: r.base},
		{URL: r.base, Header: http.Header{"Authorization": {"Bearer SECRET"}}},
		{URL: r.base, Header: http.Header{"Cookie": {"session=SECRET"}}},
		{URL: r.base, Header: http.Header{"Referer": {"https://example.com/?token=SECRET"}}},
	} {
		resp, err := r.g.Fetch(t.Context(), req)
		if !errors.Is(err, ErrRequest) || resp != nil {
			t.Errorf("Fetch(%+v) = %v, %v; want ErrRequest", req, resp, err)
		}
	}
	if d := r.dial.dials(); len(d) != 0 {
		t.Errorf("dialled %v", d)
	}
}

func TestResponseHeader(t *testing.T) {
	in := http.Header{
		"Set-Cookie":       {"session=SECRET"},
		"Location":         {"https://example.com/next?token=SECRET"},
		"Content-Location": {"https://user:SECRET@example.com/"},
		"Link":             {"<https://example.com/?sig=SECRET>; rel=canonical"},
		"Content-Encoding": {"gzip"},
		"Content-Length":   {"123"},
		"Content-Type":     {"text/html"},
	}
	out := responseHeader(in, true)
	for key, values := range out {
		for _, v := range values {
			if strings.Contains(v, "SECRET") {
				t.Errorf("%s: %q leaks", key, v)
			}
		}
	}
	if out.Get("Content-Type") != "text/html" || out.Get("Content-Encoding") != "" || out.Get("Content-Length") != "" {
		t.Errorf("responseHeader = %v", out)
	}
	if in.Get("Set-Cookie") == "" {
		t.Error("responseHeader modified its input")
	}
	if kept := responseHeader(in, false); kept.Get("Content-Encoding") != "gzip" {
		t.Error("undecoded response lost Content-Encoding")
	}
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	const limit = time.Minute
	rows := []struct {
		value string
		want  time.Duration
	}{
		{"", 0},
		{"0", 0},
		{"30", 30 * time.Second},
		{" 60 ", time.Minute},
		{"61", limit},
		{"999999", limit},
		{"99999999999999999999999", limit},
		{"-5", 0},
		{"1.5", 0},
		{"soon", 0},
		{"Thu, 01 Jan 2026 12:00:10 GMT", 10 * time.Second},
		{"Thu, 01 Jan 2026 11:00:00 GMT", 0},
		{"Fri, 31 Dec 9999 23:59:59 GMT", limit},
	}
	for _, row := range rows {
		h := http.Header{}
		if row.value != "" {
			h.Set("Retry-After", row.value)
		}
		if got := retryAfter(h, now, limit); got != row.want {
			t.Errorf("Retry-After %q = %v, want %v", row.value, got, row.want)
		}
	}
}

func TestLimits(t *testing.T) {
	if got := New().limits; got != (Limits{DefaultHopTimeout, DefaultMaxRedirects, DefaultMaxBodyBytes, DefaultMaxHeaderBytes, DefaultMaxRetryAfter}) {
		t.Errorf("default limits = %+v", got)
	}
	// The seed's policy.json: 5000 ms, 5 redirects, 2 MiB.
	if DefaultHopTimeout != 5000*time.Millisecond || DefaultMaxRedirects != 5 || DefaultMaxBodyBytes != 2097152 {
		t.Error("defaults drifted from citations_ladder_policy_v1")
	}
	g := New(WithLimits(Limits{HopTimeout: time.Second, MaxBodyBytes: -1}))
	if g.limits.HopTimeout != time.Second || g.limits.MaxBodyBytes != DefaultMaxBodyBytes || g.limits.MaxRedirects != DefaultMaxRedirects {
		t.Errorf("partial limits = %+v", g.limits)
	}
	if g.fetch.ResponseHeaderTimeout != time.Second {
		t.Error("the fetch transport ignores HopTimeout")
	}
}
