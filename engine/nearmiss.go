package engine

import (
	"fmt"
	"strings"

	"github.com/citegate/citegate/parse"
)

// The warnings of a wave file whose URLs Gate C does not count: a file
// that gives no URL at all, and each list of sources that the Sources rule
// skipped (parse.NearMisses), named with its line, its URL count and the
// exact fix. Without them, a report whose agent titled its list
// "**Sources:**" or "## References" passed Gate C on the rest.

// Unchecked tallies what a run was given but did not check: URLs under
// lists the Sources rule skipped, wave files that gave no URL, and wave
// directory entries not read. Gate C's line names them, so that a pass
// never reads as "everything was checked" when something was not.
type Unchecked struct {
	URLs, Lists, EmptyFiles, Entries int
}

// add counts one wave file's skipped lists and whether it was empty.
func (u *Unchecked) add(urls int, near []parse.NearMiss) {
	if urls == 0 {
		u.EmptyFiles++
	}
	for _, m := range near {
		u.Lists++
		u.URLs += m.URLs
	}
}

// String is the "not checked" clause of Gate C's line, "" when nothing was
// left out.
func (u Unchecked) String() string {
	var parts []string
	if u.URLs > 0 {
		parts = append(parts, fmt.Sprintf("%d URL%s in %d list%s not read as Sources", u.URLs, plural(u.URLs), u.Lists, plural(u.Lists)))
	}
	if u.EmptyFiles > 0 {
		parts = append(parts, fmt.Sprintf("%d wave file%s with no URL", u.EmptyFiles, plural(u.EmptyFiles)))
	}
	if u.Entries > 0 {
		parts = append(parts, fmt.Sprintf("%d wave entr%s not read", u.Entries, map[bool]string{true: "y", false: "ies"}[u.Entries == 1]))
	}
	if len(parts) == 0 {
		return ""
	}
	return "not checked: " + strings.Join(parts, ", ") + " (see warnings)"
}

// sourceTitlesKey is where run-config.json keeps further Sources titles.
const sourceTitlesKey = "run-config.json effective.citations.source_section_titles"

// fileWarnings are one wave file's warnings, in line order; rel is its path
// relative to the run root, urls the links read from it.
func fileWarnings(rel string, urls int, near []parse.NearMiss) []string {
	var out []string
	if urls == 0 {
		out = append(out, rel+`: 0 URLs extracted (no "Sources" section with links); Gate C does not count this file`)
	}
	for _, m := range near {
		out = append(out, nearMissWarning(rel, m))
	}
	return out
}

// nearMissWarning names a skipped list and says how to read it.
func nearMissWarning(rel string, m parse.NearMiss) string {
	where := fmt.Sprintf("%s:%d: %q", rel, m.Line, truncate(m.Text, 120))
	count := fmt.Sprintf("its %d URL%s %s not extracted", m.URLs, plural(m.URLs), map[bool]string{true: "was", false: "were"}[m.URLs == 1])
	if m.Title != "" {
		return fmt.Sprintf(`%s is not a "Sources" section: %s; %s`, where, count, titleFix(m.Title))
	}
	fix := `make it the heading "## Sources"`
	if m.Label != "Sources" {
		fix = fmt.Sprintf(`make it the heading "## %s" and %s`, m.Label, titleFix(m.Label))
	}
	return fmt.Sprintf("%s is a bold or label line, not a heading: %s; %s", where, count, fix)
}

// titleFix says how to read the sections titled title: the flag (run,
// extract, init), or the run-config key when the flag, which splits on
// commas, cannot carry it.
func titleFix(title string) string {
	if strings.Contains(title, ",") {
		return fmt.Sprintf("add %q to %s", title, sourceTitlesKey)
	}
	return fmt.Sprintf("add --source-titles %s (or %q in %s)", shellQuote(title), title, sourceTitlesKey)
}

// shellQuote quotes s for a POSIX shell when it holds anything but letters,
// digits and ._-.
func shellQuote(s string) string {
	plain := s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-')
	}) < 0
	if plain {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
