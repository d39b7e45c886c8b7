package engine

import (
	"context"
	"crypto/x509"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/citegate/citegate/engine/verify"
	"github.com/citegate/citegate/netguard"
)

var verifyDir = filepath.Join("..", "testdata", "verify")

// verifyWeb serves the verify corpus's source pages on loopback: http for
// the *.heat.example hosts and https for doi.org, reached through pins and a
// dialer that maps ports 80/443 to the test servers. It returns the guard
// options that admit exactly these servers.
func verifyWeb(t *testing.T) []netguard.Option {
	t.Helper()
	page := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join(verifyDir, "pages", name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	routes := map[string]string{
		"research.heat.example/cold-climate-study": "cold-climate-study.html",
		"news.heat.example/norway-trials":          "norway-trials.html",
		"grid.heat.example/annual-update":          "annual-update.html",
		"paywall.heat.example/cost-survey":         "cost-survey.html",
		"research.heat.example/district-losses":    "district-losses.html",
	}
	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name, ok := routes[r.Host+r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write(page(name))
	}))
	t.Cleanup(web.Close)
	doi := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/10.5555/heat.2026.017" {
			http.NotFound(w, r)
			return
		}
		if strings.Contains(r.Header.Get("Accept"), "citationstyles.csl+json") {
			w.Header().Set("Content-Type", "application/vnd.citationstyles.csl+json")
			_, _ = w.Write(page("doi-metadata.json"))
			return
		}
		// The publisher's landing page is behind a bot wall.
		w.Header().Set("cf-mitigated", "challenge")
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusForbidden)
		_, _ = w.Write(page("doi-landing.html"))
	}))
	t.Cleanup(doi.Close)
	port := func(s *httptest.Server) int {
		_, p, _ := net.SplitHostPort(s.Listener.Addr().String())
		n, _ := strconv.Atoi(p)
		return n
	}
	httpPort, tlsPort := port(web), port(doi)
	pool := x509.NewCertPool()
	pool.AddCert(doi.Certificate())
	lo := netip.MustParseAddr("127.0.0.1")
	opts := []netguard.Option{netguard.AllowCIDR(netip.PrefixFrom(lo, 32)), netguard.AllowPorts(httpPort, tlsPort),
		netguard.WithRootCAs(pool), netguard.Pin("doi.example.com", 443, lo)}
	for _, h := range []string{"research.heat.example", "news.heat.example", "grid.heat.example", "paywall.heat.example", "old.heat.example"} {
		opts = append(opts, netguard.Pin(h, 80, lo))
	}
	var d net.Dialer
	opts = append(opts, netguard.WithDialContext(func(ctx context.Context, network, addr string) (net.Conn, error) {
		host, p, _ := net.SplitHostPort(addr)
		switch p {
		case "80":
			addr = net.JoinHostPort(host, strconv.Itoa(httpPort))
		case "443":
			addr = net.JoinHostPort(host, strconv.Itoa(tlsPort))
		}
		return d.DialContext(ctx, network, addr)
	}))
	return opts
}

// TestVerifyCorpusWithLexicalJudge runs `verify` with the offline lexical
// judge over the labelled corpus: supported, contradicted, unrelated,
// paywalled, dead, DOI-only (landing page walled, metadata read) and [N] /
// author–year references resolved through the document's own lists.
func TestVerifyCorpusWithLexicalJudge(t *testing.T) {
	var labels map[string]map[string]string
	data, err := os.ReadFile(filepath.Join(verifyDir, "labels.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &labels); err != nil {
		t.Fatal(err)
	}
	e := newEngine()
	e.GuardOptions = verifyWeb(t)
	// httptest's certificate is valid for *.example.com, not doi.org.
	e.Net.DOIResolver = "https://doi.example.com"
	correct, total := 0, 0
	for file, want := range labels {
		out, err := os.ReadFile(filepath.Join(verifyDir, file))
		if err != nil {
			t.Fatal(err)
		}
		res, err := e.Verify(context.Background(), out, verify.Args{Model: "lexical", AllowFetch: true})
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		for _, c := range res.Citations {
			switch {
			case c.Judge != nil && c.Judge.Supported:
				got[c.Citation.Raw] = "supported"
			case c.Judge != nil:
				got[c.Citation.Raw] = "unsupported"
			case c.ResolveError != nil:
				got[c.Citation.Raw] = c.ResolveStatus + ":" + c.ResolveError.Kind
			}
			if string(out[c.Citation.OffsetStart:c.Citation.OffsetEnd]) != c.Citation.Raw {
				t.Errorf("%s: offsets %d..%d do not frame %q", file, c.Citation.OffsetStart, c.Citation.OffsetEnd, c.Citation.Raw)
			}
		}
		for raw, w := range want {
			total++
			if got[raw] == w {
				correct++
			} else {
				t.Errorf("%s %s: got %q, want %q", file, raw, got[raw], w)
			}
		}
		if res.TotalCitationsFound != len(want) || res.ID == "" {
			t.Errorf("%s: found %d citations (want %d), id %q", file, res.TotalCitationsFound, len(want), res.ID)
		}
	}
	t.Logf("lexical judge on the verify corpus: %d/%d correct", correct, total)
}

func TestVerifyRefusesFetchUnlessAllowed(t *testing.T) {
	out, err := os.ReadFile(filepath.Join(verifyDir, "output-numbered.md"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := newEngine().Verify(context.Background(), out, verify.Args{Model: "lexical"})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range res.Citations {
		if c.ResolveError == nil || c.ResolveError.Kind != "fetch_disabled" || c.Judge != nil {
			t.Errorf("%s: %+v, want fetch_disabled", c.Citation.Raw, c)
		}
	}
	if res.OverallScore != nil || res.Passed != nil || !strings.Contains(res.Reason, "fetching is off — pass --allow-fetch") {
		t.Errorf("nothing checked must give overall_score null, passed null and the reason: %+v", res)
	}
}

func TestVerifyConfigErrors(t *testing.T) {
	e := newEngine()
	e.Net.Getenv = func(string) string { return "" }
	for _, tt := range []struct{ model, provider string }{{"gpt-unknown-9", ""}, {"claude-haiku-4-5-20251001", ""}, {"", ""}} {
		if _, err := e.Verify(context.Background(), []byte("x"), verify.Args{Model: tt.model, Provider: tt.provider}); err == nil {
			t.Errorf("Verify(model %q) succeeded, want an error (unknown model / missing key / empty)", tt.model)
		}
	}
}

func TestVerifyFlagsNonCitableSources(t *testing.T) {
	out, err := os.ReadFile(filepath.Join(verifyDir, "output-numbered.md"))
	if err != nil {
		t.Fatal(err)
	}
	e := newEngine()
	e.GuardOptions = verifyWeb(t)
	res, err := e.Verify(context.Background(), out, verify.Args{Model: "lexical", AllowFetch: true,
		GateStatus: func(u string) (string, bool, bool) {
			if u == "http://grid.heat.example/annual-update" {
				return string(StatusBlocked), StatusBlocked.Citable(), true
			}
			return "", false, false
		}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range res.Citations {
		if c.Citation.Raw == "[3]" && (c.ResolveError == nil || c.ResolveError.Kind != "not_citable") {
			t.Errorf("[3] cites a blocked source: %+v", c)
		}
	}
}

// TestVerifyWithFakeAnthropic runs verify through the Anthropic judge against
// a fake Messages API that checks the request and answers a canned verdict.
func TestVerifyWithFakeAnthropic(t *testing.T) {
	var calls int
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls++
		var req struct {
			Model     string                     `json:"model"`
			MaxTokens int                        `json:"max_tokens"`
			System    string                     `json:"system"`
			Messages  []struct{ Content string } `json:"messages"`
		}
		if r.URL.Path != "/v1/messages" || r.Header.Get("x-api-key") != "test-anthropic-key" || r.Header.Get("anthropic-version") == "" ||
			json.NewDecoder(r.Body).Decode(&req) != nil || req.MaxTokens != 256 || len(req.Messages) != 1 ||
			!strings.Contains(req.Messages[0].Content, "CLAIM:") || !strings.Contains(req.Messages[0].Content, "SOURCE TEXT:") {
			http.Error(w, "bad request shape", http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"id":"msg_1","type":"message","role":"assistant","model":"` + req.Model + `","content":[{"type":"text","text":"{\"supported\": true, \"confidence\": 0.9, \"rationale\": \"The source says 2.5.\"}"}],"stop_reason":"end_turn","usage":{"input_tokens":900,"output_tokens":40}}`))
	}))
	defer api.Close()
	_, p, _ := net.SplitHostPort(api.Listener.Addr().String())
	apiPort, _ := strconv.Atoi(p)
	e := newEngine()
	e.GuardOptions = append(verifyWeb(t), netguard.AllowPorts(apiPort))
	e.Net.Getenv = func(k string) string {
		// A loopback base URL is the operator's endpoint: it gets the
		// judge key, not ANTHROPIC_API_KEY.
		if k == "CITEGATE_JUDGE_API_KEY" {
			return "test-anthropic-key"
		}
		return ""
	}
	out := []byte("Cold-climate heat pumps keep a seasonal coefficient of performance of about 2.5 [1].\n\n## Sources\n\n1. http://research.heat.example/cold-climate-study\n")
	res, err := e.Verify(context.Background(), out, verify.Args{Model: "claude-haiku-4-5-20251001", Provider: "anthropic", BaseURL: api.URL, AllowFetch: true})
	if err != nil {
		t.Fatal(err)
	}
	if calls != 1 || res.TotalSupported != 1 || res.TotalCostUSD <= 0 || res.Citations[0].Judge == nil ||
		res.Citations[0].Judge.InputTokens != 900 || res.Citations[0].Judge.CostUSD == nil {
		t.Fatalf("calls %d, result %+v", calls, res)
	}
	if strings.Contains(mustJSON(t, res), "test-anthropic-key") {
		t.Error("the API key reached the result")
	}
}

// fakeJudgeAPI is a fake Anthropic Messages API answering every call with
// text; it counts the calls.
func fakeJudgeAPI(t *testing.T, text string) (*httptest.Server, *int, []netguard.Option) {
	t.Helper()
	calls := new(int)
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		*calls++
		body, _ := json.Marshal(map[string]any{"id": "msg", "type": "message", "role": "assistant", "model": "claude-haiku-4-5-20251001",
			"content": []any{map[string]any{"type": "text", "text": text}}, "stop_reason": "end_turn",
			"usage": map[string]any{"input_tokens": 900, "output_tokens": 40}})
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	}))
	t.Cleanup(api.Close)
	_, p, _ := net.SplitHostPort(api.Listener.Addr().String())
	port, _ := strconv.Atoi(p)
	return api, calls, append(verifyWeb(t), netguard.AllowPorts(port))
}

func anthropicEngine(opts []netguard.Option) *Engine {
	e := newEngine()
	e.GuardOptions = opts
	e.Net.Getenv = func(k string) string {
		// A loopback base URL is the operator's endpoint: it gets the
		// judge key, not ANTHROPIC_API_KEY.
		if k == "CITEGATE_JUDGE_API_KEY" {
			return "test-anthropic-key"
		}
		return ""
	}
	return e
}

// TestVerifyCostCap: before each judge call the pessimistic estimate is
// checked against the total cap; a call that could exceed it is not made,
// the citation says why and the loop stops.
func TestVerifyCostCap(t *testing.T) {
	api, calls, opts := fakeJudgeAPI(t, `{"verdict":"supported","supported":true,"confidence":0.9,"rationale":"ok"}`)
	out := []byte("Heat pumps keep a coefficient of performance of about 2.5 [1]. Trials in Norway ran for two winters [2]. The grid plans overnight work [3].\n\n" +
		"## Sources\n\n1. http://research.heat.example/cold-climate-study\n2. http://news.heat.example/norway-trials\n3. http://grid.heat.example/annual-update\n")
	for _, tc := range []struct {
		cap   float64
		calls int
	}{
		{1.00, 3},   // room for all three
		{0.0035, 1}, // one estimate (~0.0027) fits; one spent (0.0011) plus the next estimate does not
		{0.0010, 0}, // not even the first
	} {
		*calls = 0
		capv := tc.cap
		res, err := anthropicEngine(opts).Verify(context.Background(), out, verify.Args{Model: "claude-haiku-4-5-20251001", Provider: "anthropic", BaseURL: api.URL,
			AllowFetch: true, MaxCostUSDTotal: &capv})
		if err != nil {
			t.Fatal(err)
		}
		if *calls != tc.calls || res.TotalCostUSD > tc.cap {
			t.Errorf("cap %v: %d judge calls, total cost %v; want %d calls within the cap", tc.cap, *calls, res.TotalCostUSD, tc.calls)
		}
		capped := 0
		for _, c := range res.Citations {
			if c.ResolveError != nil && c.ResolveError.Kind == "cost_cap_reached" {
				capped++
			}
		}
		if tc.calls < 3 && capped != 1 {
			t.Errorf("cap %v: %d citations say cost_cap_reached, want 1 (the loop stops there)", tc.cap, capped)
		}
	}
}

// TestVerifyUncertain: an "uncertain" verdict is counted apart and left
// out of overall_score's denominator; --no-abstain turns it into the
// judge's best guess.
func TestVerifyUncertain(t *testing.T) {
	api, _, opts := fakeJudgeAPI(t, `{"verdict":"uncertain","supported":true,"confidence":0.4,"rationale":"on topic, not stated"}`)
	out := []byte("Heat pumps keep a coefficient of performance of about 2.5 [1].\n\n## Sources\n\n1. http://research.heat.example/cold-climate-study\n")
	res, err := anthropicEngine(opts).Verify(context.Background(), out, verify.Args{Model: "claude-haiku-4-5-20251001", Provider: "anthropic", BaseURL: api.URL, AllowFetch: true})
	if err != nil {
		t.Fatal(err)
	}
	j := res.Citations[0].Judge
	if j == nil || j.Verdict != "uncertain" || !j.Supported || res.TotalUncertain != 1 || res.TotalSupported != 0 || res.OverallScore != nil || res.Passed != nil || !strings.Contains(res.Reason, "1 uncertain") {
		t.Fatalf("uncertain: judge %+v, result %+v", j, res)
	}
	res, err = anthropicEngine(opts).Verify(context.Background(), out, verify.Args{Model: "claude-haiku-4-5-20251001", Provider: "anthropic", BaseURL: api.URL, AllowFetch: true, NoAbstain: true})
	if err != nil {
		t.Fatal(err)
	}
	if j := res.Citations[0].Judge; j == nil || j.Verdict != "supported" || res.TotalUncertain != 0 || res.TotalSupported != 1 ||
		res.OverallScore == nil || *res.OverallScore != 1 {
		t.Fatalf("no-abstain: judge %+v, result %+v", j, res)
	}
}
