package gate

import (
	"github.com/citegate/citegate/engine/jsonx"
	"github.com/citegate/citegate/engine/record"
)

// Gate C's rule (spec-gate-thresholds-v1), defined once: the batch tool
// (gateC), the run pipeline and the terminal UI's live panel all ask these
// functions; nothing else compares a rate with a threshold.
const (
	// MinValidatedRate is the least validated_url_rate that passes.
	MinValidatedRate = 0.9
	// MaxInvalidRate is the largest invalid_url_rate that passes.
	MaxInvalidRate = 0.1
	// MaxUncategorizedRate is the largest uncategorized_url_rate that
	// passes: none.
	MaxUncategorizedRate = 0.0
)

// Class is the class Gate C counts a citation status in.
type Class int

const (
	// Uncategorized is any status other than the five (a missing,
	// misspelt or pending one).
	Uncategorized Class = iota
	// Validated is valid or paywalled: the source exists.
	Validated
	// Invalid is invalid, blocked or mismatch: it must not be cited.
	Invalid
)

// ClassOf is the class of status s. Statuses compare exactly, as the
// reference does: "Valid" is uncategorized.
func ClassOf(s record.Status) Class {
	switch s {
	case record.StatusValid, record.StatusPaywalled:
		return Validated
	case record.StatusInvalid, record.StatusBlocked, record.StatusMismatch:
		return Invalid
	}
	return Uncategorized
}

// Counts are the numbers Gate C is computed from: Total is |U| (the
// distinct normalized extracted URLs); the three classes count U's members
// by their citation's status. Members not counted yet are pending.
//
// Invalid is the class (invalid, blocked or mismatch), as the rates count
// it; Blocked and Mismatch say how many of it have those statuses, so that a
// line for people can name each (see GateCLine).
type Counts struct {
	Validated, Invalid, Uncategorized, Total int
	Blocked, Mismatch                        int
}

// Add counts n members of U with status s.
func (c *Counts) Add(s record.Status, n int) {
	switch ClassOf(s) {
	case Validated:
		c.Validated += n
	case Invalid:
		c.Invalid += n
		switch s {
		case record.StatusBlocked:
			c.Blocked += n
		case record.StatusMismatch:
			c.Mismatch += n
		case record.StatusInvalid:
			// Counted by the class alone: its line names only the other two.
		case record.StatusValid, record.StatusPaywalled:
			// Not of the invalid class (ClassOf said so).
		}
	default:
		c.Uncategorized += n
	}
}

// Pending is how many members of U have no status yet.
func (c Counts) Pending() int {
	return max(0, c.Total-c.Validated-c.Invalid-c.Uncategorized)
}

// Metrics are the three rates rounded like JavaScript toFixed(6); all zero
// when U is empty.
func (c Counts) Metrics() Metrics {
	if c.Total <= 0 {
		return Metrics{}
	}
	rate := func(n int) float64 { return jsonx.Round6(float64(n) / float64(c.Total)) }
	return Metrics{rate(c.Validated), rate(c.Invalid), rate(c.Uncategorized)}
}

// Passes applies the thresholds to the rounded rates. An empty U fails
// (NO_URLS_EXTRACTED).
func (c Counts) Passes() bool {
	if c.Total <= 0 {
		return false
	}
	m := c.Metrics()
	return m.ValidatedURLRate >= MinValidatedRate && m.InvalidURLRate <= MaxInvalidRate &&
		m.UncategorizedURLRate <= MaxUncategorizedRate
}

// Verdict is Gate C's state while statuses are still arriving.
type Verdict int

const (
	// Undecided: the pending URLs can still change the outcome.
	Undecided Verdict = iota
	// Pass: the gate passes however the pending URLs end.
	Pass
	// Fail: the gate fails however the pending URLs end.
	Fail
)

// Decide is Gate C's verdict as early as it is certain. Every pending URL
// will end validated or invalid (a run gives each a status), so if the gate
// passes when all of them fail, it has passed; if it fails when all of them
// pass, it has failed. With nothing pending it is the final verdict.
func (c Counts) Decide() Verdict {
	if c.Total <= 0 {
		return Undecided
	}
	p := c.Pending()
	worst, best := c, c
	worst.Invalid += p
	best.Validated += p
	switch {
	case worst.Passes():
		return Pass
	case !best.Passes():
		return Fail
	}
	return Undecided
}

// Metrics are Gate C's three rates, rounded like JavaScript toFixed(6).
type Metrics struct {
	ValidatedURLRate     float64 `json:"validated_url_rate"`
	InvalidURLRate       float64 `json:"invalid_url_rate"`
	UncategorizedURLRate float64 `json:"uncategorized_url_rate"`
}
