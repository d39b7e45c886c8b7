package verify

import (
	"fmt"
	"slices"
	"strings"
)

// KindFetchDisabled is the resolve error of a citation whose source was not
// fetched because fetching is off.
const KindFetchDisabled = "fetch_disabled"

// KindCostCap is the resolve error of a citation whose judge call was not
// made because it could exceed the total cost cap.
const KindCostCap = "cost_cap_reached"

// ReasonNotJudged starts the reason of a result whose judge failed on a
// citation that could decide the document (exit code 5, not 4).
const ReasonNotJudged = "not judged"

// fetchOff is how fetching is turned on for a's caller.
func fetchOff(a Args) string {
	if a.FetchOff != "" {
		return a.FetchOff
	}
	return "pass --allow-fetch"
}

// tally counts the citations' outcomes; refuted counts the citations a
// registry showed to cite no such work or another work than the entry
// names (not_registered, mismatch): a finding, like an unsupported claim.
type tally struct{ supported, unsupported, uncertain, errors, refuted int }

// refutedKinds are the resolve errors that are findings against the
// citation, not failures to check it.
var refutedKinds = []string{KindNotRegistered, KindMismatch}

func count(cs []Citation) tally {
	var t tally
	for _, c := range cs {
		if c.ResolveError != nil && slices.Contains(refutedKinds, c.ResolveError.Kind) {
			t.refuted++
			continue
		}
		switch c.Outcome() {
		case Supported:
			t.supported++
		case Unsupported:
			t.unsupported++
		case Uncertain:
			t.uncertain++
		case Error:
			t.errors++
		}
	}
	return t
}

// gate is the document verdict from the outcomes of its citations: a
// document fails when a judge found one claim its source does not support,
// passes when a judge confirmed at least one claim and found none
// unsupported, and is undecided otherwise. An uncertain verdict is the
// judge's answer that the text does not settle the claim, so it neither
// fails nor passes a document; a judge error is no answer at all, so a
// document with one and no unsupported claim is undecided — the failed call
// could have found the claim that fails it. The rule asks a failing
// document for a claim a reader can check (the lexical judge's committed
// "unsupported" was right 45 times in 46 on wice-dev), where a ratio of
// supported to decided claims is biased by which claims a judge abstains on.
func gate(t tally) *bool {
	var passed bool
	switch {
	case t.unsupported > 0 || t.refuted > 0:
	case t.errors > 0 || t.supported == 0:
		return nil
	default:
		passed = true
	}
	return &passed
}

// outcome is the result's passed and reason: the gate, and when it is
// undecided why — the judge failed (ReasonNotJudged) or nothing was checked.
func outcome(r *Result, fetchOff string) (*bool, string) {
	t := count(r.Citations)
	if p := gate(t); p != nil {
		if t.refuted > 0 {
			return p, refutedReason(r.Citations, t)
		}
		return p, ""
	}
	if t.errors > 0 {
		return nil, notJudged(r.Citations, t)
	}
	if r.TotalCitationsFound == 0 {
		return nil, "not checked: no citations found in output (citations are [N] markers, (Author, Year) or footnotes resolved through the output's own reference list, or bare URLs)"
	}
	kinds := map[string]int{}
	for _, c := range r.Citations {
		switch {
		case c.ResolveError != nil:
			kinds[c.ResolveError.Kind]++
		case c.Outcome() == Uncertain:
			kinds[Uncertain]++
		}
	}
	if kinds[KindFetchDisabled] > 0 {
		return nil, "not checked: fetching is off — " + fetchOff
	}
	var parts []string
	for _, k := range []string{Uncertain, "unresolvable_kind", KindUnresolved, "not_citable", KindCostCap} {
		if kinds[k] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", kinds[k], k))
			delete(kinds, k)
		}
	}
	if other := sum(kinds); other > 0 {
		parts = append(parts, fmt.Sprintf("%d not fetched or not judged (see each citation's resolve_error)", other))
	}
	return nil, fmt.Sprintf("not checked: no judge decided any of the %d citation(s) listed (%s)", len(r.Citations), strings.Join(parts, ", "))
}

// refutedReason names the citations a registry refuted: the document
// fails on them as on an unsupported claim.
func refutedReason(cs []Citation, t tally) string {
	kinds := map[string]int{}
	for _, c := range cs {
		if c.ResolveError != nil && slices.Contains(refutedKinds, c.ResolveError.Kind) {
			kinds[c.ResolveError.Kind]++
		}
	}
	var parts []string
	for _, k := range refutedKinds {
		if kinds[k] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", kinds[k], k))
		}
	}
	return fmt.Sprintf("%d citation(s) name a work the registries refute (%s; see each citation's resolve_error)",
		t.refuted, strings.Join(parts, ", "))
}

// notJudged says how many judge calls failed, with what, and what the
// others found.
func notJudged(cs []Citation, t tally) string {
	kinds := map[string]int{}
	for _, c := range cs {
		if c.Outcome() == Error {
			kinds[c.ResolveError.Kind]++
		}
	}
	names := make([]string, 0, len(kinds))
	for k := range kinds {
		names = append(names, k)
	}
	slices.Sort(names)
	parts := make([]string, len(names))
	for i, k := range names {
		parts[i] = fmt.Sprintf("%d %s", kinds[k], k)
	}
	return fmt.Sprintf("%s: the judge failed on %d of the %d citation(s) it was asked about (%s; see each citation's resolve_error); the %d it decided found none unsupported",
		ReasonNotJudged, t.errors, t.supported+t.unsupported+t.uncertain+t.errors, strings.Join(parts, ", "), t.supported+t.unsupported)
}

// JudgeFailed reports whether the result is undecided because judge calls
// failed: the operator's judge, not the document, needs attention.
func (r *Result) JudgeFailed() bool {
	return r.Passed == nil && strings.HasPrefix(r.Reason, ReasonNotJudged+":")
}

func sum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}
