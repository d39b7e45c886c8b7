package registry

import (
	"fmt"
	"strings"
)

// Outcome is what the registry rung concluded.
type Outcome int

// The rung's outcomes. Unavailable leaves the citation to the ordinary
// ladder: a registry that is down never makes a citation invalid.
const (
	Unavailable Outcome = iota
	Valid
	Invalid
	Mismatch
)

// Verdict is the rung's conclusion for one citation.
type Verdict struct {
	Outcome Outcome
	// Notes say which registry answered and why.
	Notes string
	// Title and Publisher are the registry's.
	Title, Publisher string
	Score            float64
}

// Decide turns a lookup into a verdict for a citation whose own title is
// linkText / its reference line. Retracted and withdrawn works are valid
// with a note (see the statuses help topic): the identifier exists and
// names the work cited; whether to rely on it is the reader's call.
func Decide(id ID, a Answer, linkText, line string) Verdict {
	switch {
	case a.Err != nil:
		return Verdict{Outcome: Unavailable, Notes: "registry unavailable: " + clipNote(a.Err.Error())}
	case !a.Found:
		return Verdict{Outcome: Invalid, Notes: notFound(id, a.NotFoundBy)}
	}
	w := a.Work
	v := Verdict{Title: w.Title, Publisher: w.Publisher}
	if w.Title == "" {
		v.Outcome, v.Notes = Valid, fmt.Sprintf("registry: %s registered at %s; no title to compare", id, w.Registry)
		return v.withRetraction(w)
	}
	if NamesVenue(linkText, w.Venue, w.Publisher) {
		linkText = ""
	}
	cmp := Compare(w.Title, linkText, line)
	v.Score = cmp.Score
	switch {
	case !cmp.Compared:
		v.Outcome, v.Notes = Valid, fmt.Sprintf("registry: %s found in %s; the citation gives no title to compare", id, w.Registry)
	case cmp.Agree:
		v.Outcome, v.Notes = Valid, fmt.Sprintf("registry: %s found in %s; title agrees (score %.2f)", id, w.Registry, cmp.Score)
	default:
		v.Outcome, v.Notes = Mismatch, fmt.Sprintf("registry: %s belongs to %q in %s (title score %.2f)", id,
			clipNote(w.Title), w.Registry, cmp.Score)
	}
	return v.withRetraction(w)
}

func (v Verdict) withRetraction(w Work) Verdict {
	if w.Retracted != "" {
		v.Notes += "; " + w.Retracted
	}
	return v
}

// notFound is the invalid verdict's note.
func notFound(id ID, by string) string {
	if id.Kind == DOI {
		return "registry: DOI " + id.Value + " not registered at doi.org"
	}
	return fmt.Sprintf("registry: %s not found in %s", id, by)
}

// clipNote keeps a note short and on one line.
func clipNote(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 160 {
		return string(r[:159]) + "…"
	}
	return s
}
