package tui

import (
	"strings"

	"github.com/citegate/citegate/engine"
	"github.com/citegate/citegate/engine/verify"
)

// The vocabulary both front ends use for `run --verify`'s claims: the
// headless progress lines and the terminal UI's claims list say the same
// thing in the same words. The exported functions below are the part the
// headless printer (package ui) borrows.

// VerdictWord names a verify.json entry's verdict as both front ends spell
// it: "supported", "unsupported", "uncertain", "judge error" or "not judged".
func VerdictWord(vc verify.Citation) string { return verdictOf(vc).word() }

// NotJudged is why no judge read the entry's source, in a few words, or ""
// when a judge was asked (a judge error included: VerdictCell says that).
func NotJudged(vc verify.Citation) string {
	if verdictOf(vc) != verdictNotJudged {
		return ""
	}
	return notJudgedReason(vc)
}

// VerdictCell is the claims list's verdict column for an entry.
func VerdictCell(vc verify.Citation) string { return verdictCell(vc) }

// GateCell is the Gate C status the run gave a claim's source (see
// gateCell).
func GateCell(status engine.Status, url string) string { return gateCell(status, url) }

// OneLine makes text fit a single row (see oneLine).
func OneLine(s string) string { return oneLine(s) }

// Truncate cuts s to at most w terminal cells, marking the cut with "…".
func Truncate(s string, w int) string { return truncate(s, w) }

// claimVerdict is what a claim's row shows: one of the judge's three
// outcomes, that the judge was asked and failed, or that no judge read the
// source.
type claimVerdict int

const (
	verdictNotJudged claimVerdict = iota
	verdictSupported
	verdictUnsupported
	verdictUncertain
	verdictJudgeError
)

// verdictOf reads a verify.json entry. An entry without a verdict (seed
// 002's shape, before issue 11) falls back on the supported boolean.
func verdictOf(vc verify.Citation) claimVerdict {
	switch vc.Outcome() {
	case "":
		return verdictNotJudged
	case verify.Supported:
		return verdictSupported
	case verify.Uncertain:
		return verdictUncertain
	case verify.Error:
		return verdictJudgeError
	}
	return verdictUnsupported
}

// symbol keeps the verdict readable without colour.
func (v claimVerdict) symbol() string {
	switch v {
	case verdictSupported:
		return "✓"
	case verdictUnsupported:
		return "✗"
	case verdictUncertain:
		return "?"
	case verdictJudgeError:
		return "!"
	case verdictNotJudged:
		// The dash, below.
	}
	return "—"
}

func (v claimVerdict) word() string {
	switch v {
	case verdictSupported:
		return "supported"
	case verdictUnsupported:
		return "unsupported"
	case verdictUncertain:
		return "uncertain"
	case verdictJudgeError:
		return "judge error"
	case verdictNotJudged:
		// Below.
	}
	return "not judged"
}

// notJudgedReason is why no judge ruled on the citation, in a few words:
// verify.json's resolve_error kind, spelled for people. The detail view
// shows the kind itself and its message.
func notJudgedReason(vc verify.Citation) string {
	kind := vc.ResolveStatus
	if vc.ResolveError != nil {
		kind = vc.ResolveError.Kind
	}
	switch kind {
	case "unresolvable_kind":
		return "no source"
	case "not_citable":
		return "not citable"
	case "fetch_disabled":
		return "fetch disabled"
	case "cost_cap_reached":
		return "cost cap"
	case "":
		return "no reason given"
	}
	return strings.ReplaceAll(kind, "_", " ")
}

// verdictCell is the claims list's verdict column: the verdict, or for a
// citation no judge read, the reason.
func verdictCell(vc verify.Citation) string {
	v := verdictOf(vc)
	switch v {
	case verdictNotJudged:
		return v.symbol() + " " + notJudgedReason(vc)
	case verdictJudgeError:
		// Not a verdict: the judge's failure, so it is not read as one.
		return v.symbol() + " judge: " + notJudgedReason(vc)
	case verdictSupported, verdictUnsupported, verdictUncertain:
		// The verdict itself, below.
	}
	return v.symbol() + " " + v.word()
}

// gateCell is the Gate C status the run gave a claim's source: one of the
// five, "unchecked" for a source this run never validated, or a dash when
// the citation names no source at all.
func gateCell(status engine.Status, url string) string {
	switch {
	case status != "":
		s := stateOf(status)
		if s == stateUnknown {
			return "? " + clean(string(status))
		}
		return s.symbol() + " " + s.word()
	case url != "":
		return "— unchecked"
	}
	return "—"
}

// oneLine makes text fit a single row: control characters and line breaks
// become spaces, runs of spaces collapse.
func oneLine(s string) string {
	return strings.Join(strings.Fields(clean(s)), " ")
}
