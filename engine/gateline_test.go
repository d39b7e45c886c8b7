package engine

import (
	"strings"
	"testing"
)

// TestGateCLine: the line for people names each must-not-cite status with
// its own count (issue 20: it said "12 invalid" beside an invalid counter
// of 7, and "10 invalid" when all 10 were blocked).
func TestGateCLine(t *testing.T) {
	counts := func(valid, invalid, blocked, mismatch, other, total int) GateCounts {
		var c GateCounts
		c.Total = total
		c.Add(StatusValid, valid)
		c.Add(StatusInvalid, invalid)
		c.Add(StatusBlocked, blocked)
		c.Add(StatusMismatch, mismatch)
		c.Add("pending", other)
		return c
	}
	for _, tc := range []struct {
		name   string
		status string
		c      GateCounts
		want   string
	}{
		{"every class", "fail", counts(73, 7, 3, 2, 0, 85),
			"Gate C fail: 73/85 validated; must not cite: 7 invalid, 3 blocked, 2 mismatch; 0 uncategorized."},
		{"network down", "fail", counts(0, 0, 10, 0, 0, 10),
			"Gate C fail: 0/10 validated; must not cite: 10 blocked; 0 uncategorized."},
		{"nothing to refuse", "pass", counts(10, 0, 0, 0, 0, 10),
			"Gate C pass: 10/10 validated; must not cite: none; 0 uncategorized."},
		{"uncategorized", "fail", counts(8, 1, 0, 0, 1, 10),
			"Gate C fail: 8/10 validated; must not cite: 1 invalid; 1 uncategorized."},
		{"no URLs", "fail", counts(0, 0, 0, 0, 0, 0), "Gate C failed: NO_URLS_EXTRACTED"},
	} {
		if got := GateCLine(tc.status, tc.c, Unchecked{}); got != tc.want {
			t.Errorf("%s: GateCLine = %q, want %q", tc.name, got, tc.want)
		}
	}
	for _, tc := range []struct {
		name, want string
		warnings   []string
	}{
		{"not checked", "Gate C not checked: network unreachable; fail: 18/20 validated; must not cite: 2 blocked; 0 uncategorized.",
			[]string{GateWarningNetworkUnreachable}},
		{"other warnings", "Gate C fail: 18/20 validated; must not cite: 2 blocked; 0 uncategorized.", []string{"INVALID_RATE_EXCEEDED"}},
	} {
		if got := GateCLine("fail", counts(18, 0, 2, 0, 0, 20), Unchecked{}, tc.warnings...); got != tc.want {
			t.Errorf("%s: GateCLine = %q, want %q", tc.name, got, tc.want)
		}
	}
	for _, tc := range []struct {
		u    Unchecked
		want string
	}{
		{Unchecked{URLs: 8, Lists: 2, EmptyFiles: 1}, "Gate C pass: 10/10 validated; must not cite: none; 0 uncategorized; " +
			"not checked: 8 URLs in 2 lists not read as Sources, 1 wave file with no URL (see warnings)."},
		{Unchecked{URLs: 1, Lists: 1, Entries: 2}, "Gate C pass: 10/10 validated; must not cite: none; 0 uncategorized; " +
			"not checked: 1 URL in 1 list not read as Sources, 2 wave entries not read (see warnings)."},
	} {
		if got := GateCLine("pass", counts(10, 0, 0, 0, 0, 10), tc.u); got != tc.want {
			t.Errorf("GateCLine(%+v) = %q, want %q", tc.u, got, tc.want)
		}
	}
}

// TestRunSummaryGateLine: a run's summary carries the line, whose counts are
// the summary's own status counts; gate_c.notes stays the reference's
// sentence, the one gates.json holds.
func TestRunSummaryGateLine(t *testing.T) {
	r := newRun(t, runSpec{RunID: "RUN", Sensitivity: "no_web", Files: map[string]string{
		"wave-1/p1.md": "## Sources\n\n- https://a.example/1\n- https://a.example/2\n- https://a.example/3\n- https://a.example/4\n- https://a.example/5\n",
		"offline-fixtures.json": `{"https://a.example/1": "valid", "https://a.example/2": "blocked", "https://a.example/3": "blocked",` +
			` "https://a.example/4": "mismatch", "https://a.example/5": "invalid"}`,
	}})
	sum, err := newEngine().Run(bg, RunArgs{ManifestPath: r.Manifest, Reason: "test"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := sum.Counts
	if c.Invalid != 1 || c.Blocked != 2 || c.Mismatch != 1 {
		t.Fatalf("counts = %+v", c)
	}
	const want = "Gate C fail: 1/5 validated; must not cite: 1 invalid, 2 blocked, 1 mismatch; 0 uncategorized."
	if sum.GateC.Line != want {
		t.Errorf("gate_c.line = %q, want %q", sum.GateC.Line, want)
	}
	var doc GatesDoc
	decodeJSONFile(t, r.path("gates.json"), &doc)
	if sum.GateC.Notes != "Gate C fail: 1/5 validated, 4 invalid, 0 uncategorized." || doc.Gates.C.Notes != sum.GateC.Notes {
		t.Errorf("gate_c.notes = %q, gates.json C.notes = %q: want the reference's sentence in both", sum.GateC.Notes, doc.Gates.C.Notes)
	}
	// The JUnit report's failing Gate C test case says the same.
	report, err := newEngine().JUnitReport(sum)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(report), `<failure message="`+want+`" type="gate_c">`+want+`</failure>`) {
		t.Errorf("JUnit report lacks the line:\n%s", report)
	}
}
