package verify

import (
	"strings"
	"testing"
)

func judged(verdict string) Citation {
	return Citation{ResolveStatus: "ok", Judge: &JudgeVerdict{Verdict: verdict}}
}

func failed(kind string) Citation {
	return Citation{ResolveStatus: "error", ResolveError: &ResolveError{Kind: kind}}
}

// judgeFailed is a citation whose source was read and whose judge call
// failed with kind.
func judgeFailed(kind string) Citation {
	return Citation{ResolveStatus: "ok", ResolveError: &ResolveError{Kind: kind, Message: "judge: " + kind}}
}

// TestOutcomeNothingChecked (issue 21): passed is true or false only when a
// judge decided a citation; otherwise it is null and the reason says why
// and what to change.
func TestOutcomeNothingChecked(t *testing.T) {
	for _, tc := range []struct {
		name   string
		res    Result
		passed string // "true", "false" or "null"
		reason string
	}{
		{"no citations", Result{}, "null", "not checked: no citations found in output"},
		{"fetching off", Result{TotalCitationsFound: 2, Citations: []Citation{failed(KindFetchDisabled), failed("unresolvable_kind")}}, "null", "not checked: fetching is off — FIX"},
		{"unresolvable only", Result{TotalCitationsFound: 1, Citations: []Citation{failed("unresolvable_kind")}}, "null", "no judge decided any of the 1 citation(s) listed (1 unresolvable_kind)"},
		{"uncertain and a fetch error", Result{TotalCitationsFound: 2, Citations: []Citation{judged(Uncertain), failed("http_error")}}, "null", "(1 uncertain, 1 not fetched or not judged"},
		{"cost cap only", Result{TotalCitationsFound: 1, Citations: []Citation{judgeFailed(KindCostCap)}}, "null", "(1 cost_cap_reached)"},
	} {
		checkOutcome(t, tc.name, tc.res, tc.passed, tc.reason)
	}
}

func checkOutcome(t *testing.T, name string, res Result, passed, reason string) {
	t.Helper()
	p, got := outcome(&res, "FIX")
	gotPassed := "null"
	if p != nil {
		gotPassed = map[bool]string{true: "true", false: "false"}[*p]
	}
	if gotPassed != passed || (reason == "" && got != "") || !strings.Contains(got, reason) {
		t.Errorf("%s: passed %s reason %q, want %s %q", name, gotPassed, got, passed, reason)
	}
}

// TestGate (issue 23) is the document gate over the outcomes: a claim a
// judge found unsupported fails the document; a document passes when a
// judge confirmed at least one claim and found none unsupported; uncertain
// verdicts neither fail nor pass it; a failed judge call is no verdict, so
// with no unsupported claim it leaves the document "not judged". Before,
// the gate was supported ÷ (resolved − uncertain) ≥ 0.5 with judge errors
// counted as unsupported: "half supported" passed, "all judge errors"
// failed like a document whose sources do not hold.
func TestGate(t *testing.T) {
	S, U, A := judged(Supported), judged(Unsupported), judged(Uncertain)
	for _, tc := range []struct {
		name   string
		cites  []Citation
		passed string
		reason string
	}{
		{"all supported", []Citation{S, S}, "true", ""},
		{"supported and uncertain", []Citation{S, A, A, A}, "true", ""},
		{"supported and a fetch error", []Citation{S, failed("http_error")}, "true", ""},
		{"half supported", []Citation{S, U}, "false", ""},
		{"one unsupported among many supported", []Citation{S, S, S, S, U}, "false", ""},
		{"unsupported only", []Citation{U, A}, "false", ""},
		{"only uncertain", []Citation{A, A}, "null", "not checked: no judge decided any of the 2"},
		{"all judge errors", []Citation{judgeFailed("llm_judge_error"), judgeFailed("timeout"), judgeFailed("llm_judge_error")}, "null",
			"not judged: the judge failed on 3 of the 3 citation(s) it was asked about (2 llm_judge_error, 1 timeout;"},
		{"judge errors and supported", []Citation{S, judgeFailed("malformed_judge_response")}, "null", "not judged: the judge failed on 1 of the 2"},
		{"judge errors and uncertain", []Citation{A, judgeFailed("timeout")}, "null", "the 0 it decided found none unsupported"},
		{"judge errors and unsupported", []Citation{S, U, judgeFailed("timeout")}, "false", ""},
		{"cost cap is not a judge error", []Citation{S, judgeFailed(KindCostCap)}, "true", ""},
		{"a phantom DOI fails", []Citation{S, S, failed(KindNotRegistered)}, "false", "1 citation(s) name a work the registries refute (1 not_registered"},
		{"a swapped DOI fails", []Citation{S, failed(KindMismatch)}, "false", "(1 mismatch;"},
		{"a title no registry finds does not", []Citation{S, failed(KindUnresolved)}, "true", ""},
	} {
		checkOutcome(t, tc.name, Result{TotalCitationsFound: len(tc.cites), Citations: tc.cites}, tc.passed, tc.reason)
	}
}

// TestOutcomeOfACitation: a judge call that failed is its own outcome,
// not "unsupported" and not "no judge asked".
func TestOutcomeOfACitation(t *testing.T) {
	for _, tc := range []struct {
		c    Citation
		want string
	}{
		{judged(Supported), Supported},
		{judged(Uncertain), Uncertain},
		{Citation{ResolveStatus: "ok", Judge: &JudgeVerdict{Supported: false}}, Unsupported},
		{Citation{ResolveStatus: "ok", Judge: &JudgeVerdict{Supported: true}}, Supported},
		{judgeFailed("llm_judge_error"), Error},
		{judgeFailed("timeout"), Error},
		{judgeFailed(KindCostCap), ""},
		{failed("timeout"), ""}, // the fetch timed out: no judge was asked
		{failed(KindFetchDisabled), ""},
	} {
		if got := tc.c.Outcome(); got != tc.want {
			t.Errorf("%+v: outcome %q, want %q", tc.c, got, tc.want)
		}
	}
}
