package gate

import (
	"testing"

	"github.com/citegate/citegate/engine/record"
)

func TestGateClassOf(t *testing.T) {
	for _, tc := range []struct {
		s    record.Status
		want Class
	}{
		{record.StatusValid, Validated}, {record.StatusPaywalled, Validated},
		{record.StatusInvalid, Invalid}, {record.StatusBlocked, Invalid}, {record.StatusMismatch, Invalid},
		// Statuses compare exactly, as the reference does.
		{"", Uncategorized}, {"Valid", Uncategorized}, {" paywalled ", Uncategorized}, {"pending", Uncategorized},
	} {
		s, want := tc.s, tc.want
		if got := ClassOf(s); got != want {
			t.Errorf("ClassOf(%q) = %v, want %v", s, got, want)
		}
	}
}

func TestGateCountsPasses(t *testing.T) {
	for _, tc := range []struct {
		name string
		c    Counts
		want bool
		m    Metrics
	}{
		{"empty U fails", Counts{}, false, Metrics{}},
		{"exactly at the thresholds", Counts{Validated: 90, Invalid: 10, Uncategorized: 0, Total: 100}, true, Metrics{0.9, 0.1, 0}},
		{"one over the invalid threshold", Counts{Validated: 89, Invalid: 11, Uncategorized: 0, Total: 100}, false, Metrics{0.89, 0.11, 0}},
		{"one uncategorized fails", Counts{Validated: 99, Invalid: 0, Uncategorized: 1, Total: 100}, false, Metrics{0.99, 0, 0.01}},
		// 9/10 rounds to 0.9 exactly; 2/3 must round like toFixed(6).
		{"rounded rates", Counts{Validated: 2, Invalid: 1, Uncategorized: 0, Total: 3}, false, Metrics{0.666667, 0.333333, 0}},
		{"all validated", Counts{Validated: 27, Invalid: 0, Uncategorized: 0, Total: 27}, true, Metrics{1, 0, 0}},
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
		want                                 Verdict
	}{
		{"nothing yet", 0, 0, 0, 10, Undecided},
		{"no urls", 0, 0, 0, 0, Undecided},
		{"pass decided early", 9, 0, 0, 10, Pass},
		{"pass needs the last one", 8, 0, 0, 10, Undecided},
		{"fail decided: too many invalid", 1, 2, 0, 10, Fail},
		{"fail decided: unknown status", 5, 0, 1, 10, Fail},
		{"all done pass", 10, 0, 0, 10, Pass},
		{"exactly at the thresholds", 90, 10, 0, 100, Pass},
		{"one over the invalid threshold", 89, 11, 0, 100, Fail},
	} {
		c := Counts{Validated: tc.validated, Invalid: tc.invalid, Uncategorized: tc.uncategorized, Total: tc.n}
		if got := c.Decide(); got != tc.want {
			t.Errorf("%s: Decide = %v, want %v", tc.name, got, tc.want)
		}
		// With nothing pending the live verdict is the batch verdict.
		if c.Pending() == 0 && c.Total > 0 && (c.Decide() == Pass) != c.Passes() {
			t.Errorf("%s: Decide and Passes disagree with nothing pending", tc.name)
		}
	}
}
