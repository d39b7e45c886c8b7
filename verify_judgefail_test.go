package main

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/citegate/citegate/ui/cli"
)

// chatAnswer is an OpenAI chat-completions body whose message is content.
func chatAnswer(content string) string {
	b, _ := json.Marshal(map[string]any{"choices": []any{map[string]any{"message": map[string]any{"role": "assistant", "content": content}}}})
	return string(b)
}

// TestVerifyJudgeFailureIsNotAVerdict (issue 23): when every judge call
// fails — HTTP 500, a body that is not JSON, an empty answer, an answer
// without JSON, a timeout — verify says "not judged" (passed null, the
// reason, total_judge_errors) and exits 5, not 4 as for sources that do not
// support their claims; the score leaves the failures out. A run where one
// call fails and the other finds its claim unsupported still fails (4).
// Before, each of these gave overall_score 0, passed false and exit 4.
func TestVerifyJudgeFailureIsNotAVerdict(t *testing.T) {
	src := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<html><head><title>Tide gauge report</title></head><body><article><p>Sea level at the harbour tide gauge rose by 21 centimetres between 1900 and 2020, according to the national survey.</p></article></body></html>`)
	}))
	defer src.Close()
	unsupported := chatAnswer(`{"verdict":"unsupported","supported":false,"confidence":0.9,"rationale":"The page says it rose."}`)
	failures := map[string]func(w http.ResponseWriter, r *http.Request){
		"http 500": func(w http.ResponseWriter, _ *http.Request) {
			http.Error(w, `{"error":"boom"}`, http.StatusInternalServerError)
		},
		"not JSON": func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, "<html>bad gateway</html>")
		},
		"empty content": func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, chatAnswer("")) },
		"no JSON in the answer": func(w http.ResponseWriter, _ *http.Request) {
			fmt.Fprint(w, chatAnswer("I think the source supports the claim."))
		},
		"timeout": func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-r.Context().Done():
			case <-time.After(3 * time.Second):
				w.WriteHeader(http.StatusGatewayTimeout)
			}
		},
	}
	for name, fail := range failures {
		for _, mixed := range []bool{false, true} {
			var calls atomic.Int32
			api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				if mixed && calls.Add(1) == 2 {
					fmt.Fprint(w, unsupported)
					return
				}
				fail(w, r)
			}))
			code, res, stdout := verifyAgainst(t, src, api)
			api.Close()
			label := fmt.Sprintf("%s (mixed %v)", name, mixed)
			if !mixed {
				if code != cli.ExitNotJudged || res.Passed != nil || res.OverallScore != nil || res.TotalJudgeErrors != 2 ||
					!strings.HasPrefix(res.Reason, "not judged: the judge failed on 2 of the 2 citation(s)") {
					t.Errorf("%s: exit %d, want %d and not judged\n%s", label, code, cli.ExitNotJudged, stdout)
				}
				continue
			}
			if code != cli.ExitGateFailed || res.Passed == nil || *res.Passed || res.OverallScore == nil || *res.OverallScore != 0 ||
				res.TotalJudgeErrors != 1 || res.Reason != "" {
				t.Errorf("%s: exit %d, want %d, passed false, score 0 over the one verdict\n%s", label, code, cli.ExitGateFailed, stdout)
			}
		}
	}
}

type verifyResult struct {
	OverallScore     *float64 `json:"overall_score"`
	Passed           *bool    `json:"passed"`
	Reason           string   `json:"reason"`
	TotalJudgeErrors int      `json:"total_judge_errors"`
}

// verifyAgainst runs `citegate verify` on two claims citing src, judged by
// the openai-compatible server api, both on loopback admitted by flags.
func verifyAgainst(t *testing.T, src, api *httptest.Server) (int, verifyResult, string) {
	t.Helper()
	_, srcPort, _ := net.SplitHostPort(src.Listener.Addr().String())
	_, apiPort, _ := net.SplitHostPort(api.Listener.Addr().String())
	out := filepath.Join(t.TempDir(), "synthesis.md")
	doc := "Sea level at the harbour rose by 21 centimetres [1]. Sea level at the harbour fell by 40 centimetres [2].\n\n## Sources\n\n1. http://tides.example.org:" + srcPort + "/a\n2. http://tides.example.org:" + srcPort + "/b\n"
	if err := os.WriteFile(out, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := invoke(t, "verify", "--output-file", out, "--model", "judge-model", "--provider", "openai-compatible",
		"--base-url", api.URL, "--allow-fetch", "--per-source-timeout-ms", "500",
		"--resolve", "tides.example.org:"+srcPort+":127.0.0.1", "--allow-cidr", "127.0.0.1/32", "--allow-port", srcPort, "--allow-port", apiPort)
	var res verifyResult
	if err := json.Unmarshal([]byte(stdout), &res); err != nil {
		t.Fatalf("exit %d, not JSON: %v\n%s\n%s", code, err, stdout, stderr)
	}
	return code, res, stdout
}
