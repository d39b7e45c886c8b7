package gate

import (
	"testing"

	"github.com/citegate/citegate/engine/record"
)

// TestGateCLine: the line for people names each must-not-cite status with
// its own count (issue 20: it said "12 invalid" beside an invalid counter
// of 7, and "10 invalid" when all 10 were blocked).
func TestLine(t *testing.T) {
	counts := func(valid, invalid, blocked, mismatch, other, total int) Counts {
		var c Counts
		c.Total = total
		c.Add(record.StatusValid, valid)
		c.Add(record.StatusInvalid, invalid)
		c.Add(record.StatusBlocked, blocked)
		c.Add(record.StatusMismatch, mismatch)
		c.Add("pending", other)
		return c
	}
	for _, tc := range []struct {
		name   string
		status string
		c      Counts
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
		if got := Line(tc.status, tc.c, ""); got != tc.want {
			t.Errorf("%s: GateCLine = %q, want %q", tc.name, got, tc.want)
		}
	}
	for _, tc := range []struct {
		name, want string
		warnings   []string
	}{
		{"not checked", "Gate C not checked: network unreachable; fail: 18/20 validated; must not cite: 2 blocked; 0 uncategorized.",
			[]string{WarningNetworkUnreachable}},
		{"other warnings", "Gate C fail: 18/20 validated; must not cite: 2 blocked; 0 uncategorized.", []string{"INVALID_RATE_EXCEEDED"}},
	} {
		if got := Line("fail", counts(18, 0, 2, 0, 0, 20), "", tc.warnings...); got != tc.want {
			t.Errorf("%s: GateCLine = %q, want %q", tc.name, got, tc.want)
		}
	}
	for _, tc := range []struct {
		u    string
		want string
	}{
		{"not checked: 8 URLs in 2 lists not read as Sources, 1 wave file with no URL (see warnings)", "Gate C pass: 10/10 validated; must not cite: none; 0 uncategorized; " +
			"not checked: 8 URLs in 2 lists not read as Sources, 1 wave file with no URL (see warnings)."},
		{"not checked: 1 URL in 1 list not read as Sources, 2 wave entries not read (see warnings)", "Gate C pass: 10/10 validated; must not cite: none; 0 uncategorized; " +
			"not checked: 1 URL in 1 list not read as Sources, 2 wave entries not read (see warnings)."},
	} {
		if got := Line("pass", counts(10, 0, 0, 0, 0, 10), tc.u); got != tc.want {
			t.Errorf("Line(%q) = %q, want %q", tc.u, got, tc.want)
		}
	}
}
