package engine

import "testing"

func TestGateClassOf(t *testing.T) {
	for _, tc := range []struct {
		s    Status
		want GateClass
	}{
		{StatusValid, GateValidated}, {StatusPaywalled, GateValidated},
		{StatusInvalid, GateInvalid}, {StatusBlocked, GateInvalid}, {StatusMismatch, GateInvalid},
		// Statuses compare exactly, as the reference does.
		{"", GateUncategorized}, {"Valid", GateUncategorized}, {" paywalled ", GateUncategorized}, {"pending", GateUncategorized},
	} {
		s, want := tc.s, tc.want
		if got := GateClassOf(s); got != want {
			t.Errorf("GateClassOf(%q) = %v, want %v", s, got, want)
		}
	}
}

func TestGateCountsPasses(t *testing.T) {
	for _, tc := range []struct {
		name string
		c    GateCounts
		want bool
		m    GateMetrics
	}{
		{"empty U fails", GateCounts{}, false, GateMetrics{}},
		{"exactly at the thresholds", GateCounts{Validated: 90, Invalid: 10, Uncategorized: 0, Total: 100}, true, GateMetrics{0.9, 0.1, 0}},
		{"one over the invalid threshold", GateCounts{Validated: 89, Invalid: 11, Uncategorized: 0, Total: 100}, false, GateMetrics{0.89, 0.11, 0}},
		{"one uncategorized fails", GateCounts{Validated: 99, Invalid: 0, Uncategorized: 1, Total: 100}, false, GateMetrics{0.99, 0, 0.01}},
		// 9/10 rounds to 0.9 exactly; 2/3 must round like toFixed(6).
		{"rounded rates", GateCounts{Validated: 2, Invalid: 1, Uncategorized: 0, Total: 3}, false, GateMetrics{0.666667, 0.333333, 0}},
		{"all validated", GateCounts{Validated: 27, Invalid: 0, Uncategorized: 0, Total: 27}, true, GateMetrics{1, 0, 0}},
	} {
		if got := tc.c.Passes(); got != tc.want {
			t.Errorf("%s: Passes = %v, want %v", tc.name, got, tc.want)
		}
		if got := tc.c.Metrics(); got != tc.m {
			t.Errorf("%s: Metrics = %+v, want %+v", tc.name, got, tc.m)
		}
	}
}

func TestGateCountsDecide(t *testing.T) {
	for _, tc := range []struct {
		name                                 string
		validated, invalid, uncategorized, n int
		want                                 GateVerdict
	}{
		{"nothing yet", 0, 0, 0, 10, GateUndecided},
		{"no urls", 0, 0, 0, 0, GateUndecided},
		{"pass decided early", 9, 0, 0, 10, GatePass},
		{"pass needs the last one", 8, 0, 0, 10, GateUndecided},
		{"fail decided: too many invalid", 1, 2, 0, 10, GateFail},
		{"fail decided: unknown status", 5, 0, 1, 10, GateFail},
		{"all done pass", 10, 0, 0, 10, GatePass},
		{"exactly at the thresholds", 90, 10, 0, 100, GatePass},
		{"one over the invalid threshold", 89, 11, 0, 100, GateFail},
	} {
		c := GateCounts{Validated: tc.validated, Invalid: tc.invalid, Uncategorized: tc.uncategorized, Total: tc.n}
		if got := c.Decide(); got != tc.want {
			t.Errorf("%s: Decide = %v, want %v", tc.name, got, tc.want)
		}
		// With nothing pending the live verdict is the batch verdict.
		if c.Pending() == 0 && c.Total > 0 && (c.Decide() == GatePass) != c.Passes() {
			t.Errorf("%s: Decide and Passes disagree with nothing pending", tc.name)
		}
	}
}
