package engine

import "github.com/citegate/citegate/engine/jsonx"

// Gate C's rule (spec-gate-thresholds-v1), defined once: the batch tool
// (gateC), the run pipeline and the terminal UI's live panel all ask these
// functions; nothing else compares a rate with a threshold.
const (
	// GateMinValidatedRate is the least validated_url_rate that passes.
	GateMinValidatedRate = 0.9
	// GateMaxInvalidRate is the largest invalid_url_rate that passes.
	GateMaxInvalidRate = 0.1
	// GateMaxUncategorizedRate is the largest uncategorized_url_rate that
	// passes: none.
	GateMaxUncategorizedRate = 0.0
)

// GateClass is the class Gate C counts a citation status in.
type GateClass int

const (
	// GateUncategorized is any status other than the five (a missing,
	// misspelt or pending one).
	GateUncategorized GateClass = iota
	// GateValidated is valid or paywalled: the source exists.
	GateValidated
	// GateInvalid is invalid, blocked or mismatch: it must not be cited.
	GateInvalid
)

// GateClassOf is the class of status s. Statuses compare exactly, as the
// reference does: "Valid" is uncategorized.
func GateClassOf(s Status) GateClass {
	switch s {
	case StatusValid, StatusPaywalled:
		return GateValidated
	case StatusInvalid, StatusBlocked, StatusMismatch:
		return GateInvalid
	}
	return GateUncategorized
}

// GateCounts are the numbers Gate C is computed from: Total is |U| (the
// distinct normalized extracted URLs); the three classes count U's members
// by their citation's status. Members not counted yet are pending.
//
// Invalid is the class (invalid, blocked or mismatch), as the rates count
// it; Blocked and Mismatch say how many of it have those statuses, so that a
// line for people can name each (see GateCLine).
type GateCounts struct {
	Validated, Invalid, Uncategorized, Total int
	Blocked, Mismatch                        int
}

// Add counts n members of U with status s.
func (c *GateCounts) Add(s Status, n int) {
	switch GateClassOf(s) {
	case GateValidated:
		c.Validated += n
	case GateInvalid:
		c.Invalid += n
		switch s {
		case StatusBlocked:
			c.Blocked += n
		case StatusMismatch:
			c.Mismatch += n
		}
	default:
		c.Uncategorized += n
	}
}

// Pending is how many members of U have no status yet.
func (c GateCounts) Pending() int {
	return max(0, c.Total-c.Validated-c.Invalid-c.Uncategorized)
}

// Metrics are the three rates rounded like JavaScript toFixed(6); all zero
// when U is empty.
func (c GateCounts) Metrics() GateMetrics {
	if c.Total <= 0 {
		return GateMetrics{}
	}
	rate := func(n int) float64 { return jsonx.Round6(float64(n) / float64(c.Total)) }
	return GateMetrics{rate(c.Validated), rate(c.Invalid), rate(c.Uncategorized)}
}

// Passes applies the thresholds to the rounded rates. An empty U fails
// (NO_URLS_EXTRACTED).
func (c GateCounts) Passes() bool {
	if c.Total <= 0 {
		return false
	}
	m := c.Metrics()
	return m.ValidatedURLRate >= GateMinValidatedRate && m.InvalidURLRate <= GateMaxInvalidRate &&
		m.UncategorizedURLRate <= GateMaxUncategorizedRate
}

// GateVerdict is Gate C's state while statuses are still arriving.
type GateVerdict int

const (
	// GateUndecided: the pending URLs can still change the outcome.
	GateUndecided GateVerdict = iota
	// GatePass: the gate passes however the pending URLs end.
	GatePass
	// GateFail: the gate fails however the pending URLs end.
	GateFail
)

// Decide is Gate C's verdict as early as it is certain. Every pending URL
// will end validated or invalid (a run gives each a status), so if the gate
// passes when all of them fail, it has passed; if it fails when all of them
// pass, it has failed. With nothing pending it is the final verdict.
func (c GateCounts) Decide() GateVerdict {
	if c.Total <= 0 {
		return GateUndecided
	}
	p := c.Pending()
	worst, best := c, c
	worst.Invalid += p
	best.Validated += p
	switch {
	case worst.Passes():
		return GatePass
	case !best.Passes():
		return GateFail
	}
	return GateUndecided
}
