package gate

import (
	"fmt"
	"slices"
	"strings"
)

// Line is Gate C's outcome in one sentence for people: the terminal
// UI, stderr, the run summary's gate_c.line and the JUnit report all print
// it, and nothing else words it. It names each must-not-cite status, since
// the reference's notes ("…, 12 invalid, …", kept in gates.json for
// conformance) count blocked and mismatch under "invalid" while every
// counter calls only the status invalid so:
//
//	Gate C fail: 73/85 validated; must not cite: 7 invalid, 3 blocked, 2 mismatch; 0 uncategorized.
//
// A run that could not reach the network was not checked, whatever the
// counts say (warnings holds WarningNetworkUnreachable): the line
// says so first.
//
// What the run was given but did not check (notChecked, "" when
// nothing) follows the counts.
func Line(status string, c Counts, notChecked string, warnings ...string) string {
	if c.Total <= 0 {
		if notChecked != "" {
			return "Gate C failed: NO_URLS_EXTRACTED; " + notChecked
		}
		return "Gate C failed: NO_URLS_EXTRACTED"
	}
	line := fmt.Sprintf("Gate C %s: %d/%d validated; must not cite: %s; %d uncategorized.", status, c.Validated, c.Total,
		MustNotCite(c.Invalid-c.Blocked-c.Mismatch, c.Blocked, c.Mismatch, 0), c.Uncategorized)
	if notChecked != "" {
		line = strings.TrimSuffix(line, ".") + "; " + notChecked + "."
	}
	if slices.Contains(warnings, WarningNetworkUnreachable) {
		line = "Gate C not checked: network unreachable; " + strings.TrimPrefix(line, "Gate C ")
	}
	return line
}

// MustNotCite names the must-not-cite statuses with their counts, in the
// order invalid, blocked, mismatch, then records whose status is none of
// the five; a zero count is left out, and none at all is "none":
// "7 invalid, 3 blocked, 2 mismatch". Gate C's line and the report's
// must-not-cite line both use it.
func MustNotCite(invalid, blocked, mismatch, unknown int) string {
	var parts []string
	for _, p := range []struct {
		n    int
		name string
	}{{invalid, "invalid"}, {blocked, "blocked"}, {mismatch, "mismatch"}, {unknown, "unknown status"}} {
		if p.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", p.n, p.name))
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// WarningNetworkUnreachable is Gate C's warning code for a run that
// reached no server: the run was not checked.
const WarningNetworkUnreachable = "NETWORK_UNREACHABLE"
