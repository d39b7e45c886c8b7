package verify

import (
	"fmt"
	"strings"
)

// KindFetchDisabled is the resolve error of a citation whose source was not
// fetched because fetching is off.
const KindFetchDisabled = "fetch_disabled"

// fetchOff is how fetching is turned on for a's caller.
func fetchOff(a Args) string {
	if a.FetchOff != "" {
		return a.FetchOff
	}
	return "pass --allow-fetch"
}

// outcome is the result's passed and reason. Seed 002 fails a result when
// fewer than half of the decided sources support their claims; when no
// judge decided any citation, nothing was checked, and a true there would
// read as "the citations hold" — so passed is null and the reason says why
// and what to change.
func outcome(r *Result, fetchOff string) (*bool, string) {
	if r.OverallScore != nil {
		passed := *r.OverallScore >= 0.5
		return &passed, ""
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
	for _, k := range []string{Uncertain, "unresolvable_kind", "not_citable", "cost_cap_reached"} {
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

func sum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}
