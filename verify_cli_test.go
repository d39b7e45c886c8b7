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
	"testing"

	"github.com/citegate/citegate/ui/cli"
)

// TestVerifyCLI runs `citegate verify` as an operator would against a
// loopback source admitted with --resolve/--allow-cidr/--allow-port.
func TestVerifyCLI(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<html><head><title>Tide gauge report</title></head><body><article><p>Sea level at the harbour tide gauge rose by 21 centimetres between 1900 and 2020, according to the national survey.</p><p>The rise accelerated after 1990, when the annual rate roughly doubled.</p></article></body></html>`)
	}))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	out := filepath.Join(t.TempDir(), "synthesis.md")
	doc := "Sea level at the harbour rose by 21 centimetres between 1900 and 2020 [1]. Sea level at the harbour fell by 40 centimetres between 1900 and 2020 [1].\n\n## Sources\n\n1. http://tides.example.org:" + port + "/report\n"
	if err := os.WriteFile(out, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	sarif := filepath.Join(t.TempDir(), "verify.sarif")
	code, stdout, stderr := invoke(t, "verify", "--output-file", out, "--model", "lexical", "--allow-fetch",
		"--resolve", "tides.example.org:"+port+":127.0.0.1", "--allow-cidr", "127.0.0.1/32", "--allow-port", port,
		"--report-sarif", sarif, "--annotations", "gitlab")
	var res struct {
		OverallScore        *float64 `json:"overall_score"`
		Passed              *bool
		TotalCitationsFound int `json:"total_citations_found"`
		TotalResolved       int `json:"total_resolved"`
		TotalSupported      int `json:"total_supported"`
		Citations           []struct {
			ResolveStatus string `json:"resolve_status"`
			Judge         *struct{ Supported bool }
		}
	}
	if err := json.Unmarshal([]byte(stdout), &res); err != nil {
		t.Fatalf("exit %d, not JSON: %v\n%s\n%s", code, err, stdout, stderr)
	}
	if res.TotalCitationsFound != 2 || res.TotalResolved != 2 || res.TotalSupported != 1 || res.OverallScore == nil || *res.OverallScore != 0.5 || res.Passed == nil || *res.Passed || code != cli.ExitGateFailed {
		// One claim its source contradicts fails the document (issue 23's
		// gate), whatever the score.
		t.Fatalf("exit %d result %+v\n%s", code, res, stdout)
	}
	if res.Citations[0].Judge == nil || !res.Citations[0].Judge.Supported || res.Citations[1].Judge == nil || res.Citations[1].Judge.Supported {
		t.Errorf("verdicts: %s", stdout)
	}
	// The unsupported claim is a SARIF result and a log line at its marker:
	// the second "[1]", line 1, column 146.
	report, err := os.ReadFile(sarif)
	if err != nil {
		t.Fatal(err)
	}
	firstLine, _, _ := strings.Cut(doc, "\n")
	col := strings.LastIndex(firstLine, "[1]") + 1
	if !strings.Contains(string(report), `"ruleId": "citegate/unsupported"`) || !strings.Contains(string(report), fmt.Sprintf(`"startLine": 1,
                  "startColumn": %d`, col)) || strings.Count(string(report), `"ruleId"`) != 1 {
		t.Errorf("SARIF lacks the unsupported claim at 1:%d:\n%s", col, report)
	}
	if want := fmt.Sprintf("synthesis.md:1:%d: error: unsupported: claim not supported by http://tides.example.org:%s/report", col, port); !strings.Contains(stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, stderr)
	}
	// Without --allow-fetch nothing is fetched, so nothing is checked
	// (issue 21): passed is null with the reason, and the exit code is not
	// a pass; the same for an output without citations.
	code, stdout, stderr = invoke(t, "verify", "--output-file", out, "--model", "lexical")
	if code != cli.ExitGateFailed || !strings.Contains(stdout, `"fetch_disabled"`) || !strings.Contains(stdout, `"overall_score": null`) ||
		!strings.Contains(stdout, `"passed": null`) || !strings.Contains(stdout, `"reason": "not checked: fetching is off — pass --allow-fetch"`) ||
		!strings.Contains(stderr, "not checked: fetching is off") {
		t.Errorf("without --allow-fetch: exit %d\n%s\n%s", code, stdout, stderr)
	}
	plain := filepath.Join(t.TempDir(), "plain.md")
	if err := os.WriteFile(plain, []byte("Sea level rose.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, _ = invoke(t, "verify", "--output-file", plain, "--model", "lexical", "--allow-fetch")
	if code != cli.ExitGateFailed || !strings.Contains(stdout, `"passed": null`) || !strings.Contains(stdout, "no citations found in output") {
		t.Errorf("no citations: exit %d\n%s", code, stdout)
	}
	// An unknown model is an error envelope, not a verdict.
	if code, stdout, _ = invoke(t, "verify", "--output-file", out, "--model", "gpt-nonexistent"); code != cli.ExitFailure || !strings.Contains(stdout, "Unknown model") {
		t.Errorf("unknown model: exit %d\n%s", code, stdout)
	}
}

// TestRunVerifyFlagsNonCitable: `run --verify` reports a synthesis that cites
// a source Gate C's statuses forbid.
func TestRunVerifyFlagsNonCitable(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "d")
	if code, out, errOut := invoke(t, "demo", "--offline", "--dir", dir); code != cli.ExitOK {
		t.Fatalf("demo: %d\n%s\n%s", code, out, errOut)
	}
	syn := filepath.Join(dir, "synthesis.md")
	doc := "Solid-state cells suppress dendrites [1]. Battery packs got cheaper [2].\n\n## Sources\n\n1. https://www.science.org/doi/10.1126/science.adg7942\n2. https://www.iea.org/reports/global-ev-outlook-2024\n"
	if err := os.WriteFile(syn, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := invoke(t, "run", dir, "--headless", "--verify", syn)
	if code != cli.ExitOK {
		t.Fatalf("run --verify: %d\n%s\n%s", code, out, errOut)
	}
	if !strings.Contains(out, `"not_citable"`) || !strings.Contains(out, "marks this source blocked") {
		t.Errorf("the blocked source was not flagged:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(dir, "citations", "verify.json")); err != nil {
		t.Error(err)
	}
}
