package verify

import (
	"strings"
	"testing"
)

// TestOutcomeNothingChecked (issue 21): passed is true or false only when a
// judge decided a citation; otherwise it is null and the reason says why
// and what to change. Before, every one of these but the first two read
// passed: true.
func TestOutcomeNothingChecked(t *testing.T) {
	score := func(f float64) *float64 { return &f }
	judged := func(verdict string) Citation {
		return Citation{ResolveStatus: "ok", Judge: &JudgeVerdict{Verdict: verdict}}
	}
	failed := func(kind string) Citation {
		return Citation{ResolveStatus: "error", ResolveError: &ResolveError{Kind: kind}}
	}
	for _, tc := range []struct {
		name   string
		res    Result
		passed string // "true", "false" or "null"
		reason string
	}{
		{"half supported", Result{TotalCitationsFound: 2, OverallScore: score(0.5), Citations: []Citation{judged(Supported), judged(Unsupported)}}, "true", ""},
		{"mostly unsupported", Result{TotalCitationsFound: 3, OverallScore: score(0.33), Citations: []Citation{judged(Supported), judged(Unsupported), judged(Unsupported)}}, "false", ""},
		{"no citations", Result{}, "null", "not checked: no citations found in output"},
		{"fetching off", Result{TotalCitationsFound: 2, Citations: []Citation{failed(KindFetchDisabled), failed("unresolvable_kind")}}, "null", "not checked: fetching is off — FIX"},
		{"unresolvable only", Result{TotalCitationsFound: 1, Citations: []Citation{failed("unresolvable_kind")}}, "null", "no judge decided any of the 1 citation(s) listed (1 unresolvable_kind)"},
		{"uncertain and a fetch error", Result{TotalCitationsFound: 2, Citations: []Citation{judged(Uncertain), failed("http_error")}}, "null", "(1 uncertain, 1 not fetched or not judged"},
	} {
		p, reason := outcome(&tc.res, "FIX")
		got := "null"
		if p != nil {
			got = map[bool]string{true: "true", false: "false"}[*p]
		}
		if got != tc.passed || (tc.reason == "" && reason != "") || !strings.Contains(reason, tc.reason) {
			t.Errorf("%s: passed %s reason %q, want %s %q", tc.name, got, reason, tc.passed, tc.reason)
		}
	}
}
