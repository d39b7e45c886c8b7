package engine

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/citegate/citegate/engine/gate"
)

// The job summary (`--annotations github` with GITHUB_STEP_SUMMARY set): a
// markdown page GitHub shows on the run's summary. Gate C's table (each
// metric, its threshold, met or not), the tally, and the failing citations
// grouped by file, in line order. GitHub refuses a step summary over 1 MiB,
// so the list stops short of MaxStepSummaryBytes and its last line says how
// many citations it left out. Text from the records is escaped so that a
// URL or a note cannot open markup of its own.

// MaxStepSummaryBytes bounds the summary (GitHub's limit is 1 MiB).
const MaxStepSummaryBytes = 1 << 20

// summaryTail is room kept below the limit: for the summary's last line,
// and for a few lines the same step may add to its summary file.
const summaryTail = 16 << 10

// StepSummary renders the report as a job summary.
func (r *CIReport) StepSummary() []byte {
	var b strings.Builder
	title := "citegate: " + r.Name
	if g := r.Gate; g != nil {
		title += " — Gate C " + g.Status
	}
	fmt.Fprintf(&b, "## %s\n\n", mdText(title))
	if g := r.Gate; g != nil {
		fmt.Fprintf(&b, "%s\n\n", mdText(g.Line))
		m := g.Metrics
		b.WriteString("| metric | value | threshold | met |\n|---|---|---|---|\n")
		for _, row := range []struct {
			name     string
			v, limit float64
			op       string
			ok       bool
		}{
			{"validated URL rate", m.ValidatedURLRate, gate.MinValidatedRate, ">=", m.ValidatedURLRate >= gate.MinValidatedRate},
			{"invalid URL rate", m.InvalidURLRate, gate.MaxInvalidRate, "<=", m.InvalidURLRate <= gate.MaxInvalidRate},
			{"uncategorized URL rate", m.UncategorizedURLRate, gate.MaxUncategorizedRate, "<=", m.UncategorizedURLRate <= gate.MaxUncategorizedRate},
		} {
			fmt.Fprintf(&b, "| %s | %v | %s %v | %s |\n", row.name, row.v, mdText(row.op), row.limit, yesNo(row.ok))
		}
		b.WriteString("\n")
	}
	if len(r.Counts) > 0 {
		b.WriteString("| class | citations |\n|---|---|\n")
		for _, c := range r.Counts {
			fmt.Fprintf(&b, "| %s | %d |\n", mdText(c.Label), c.N)
		}
		b.WriteString("\n")
	}
	r.summaryFindings(&b)
	return []byte(b.String())
}

// summaryFindings lists the findings by file, in line order, as many as fit.
func (r *CIReport) summaryFindings(b *strings.Builder) {
	if len(r.Findings) == 0 {
		b.WriteString("No failing citations.\n")
		return
	}
	fmt.Fprintf(b, "### Failing citations (%d)\n", len(r.Findings))
	byFile := slices.Clone(r.Findings)
	slices.SortStableFunc(byFile, func(a, c Finding) int {
		return cmp.Or(strings.Compare(a.Place.Path, c.Place.Path), cmp.Compare(a.Place.Line, c.Place.Line), cmp.Compare(a.Place.Col.Byte, c.Place.Col.Byte))
	})
	file := "\x00"
	for i, f := range byFile {
		var item strings.Builder
		if f.Place.Path != file {
			fmt.Fprintf(&item, "\n#### %s\n\n", mdText(f.Place.Path))
		}
		where := "file"
		if f.Place.Line > 0 {
			where = fmt.Sprintf("line %d, col %d", f.Place.Line, f.Place.Col.Rune)
		}
		fmt.Fprintf(&item, "- %s: **%s** %s", where, f.Class, mdText(f.URL))
		if f.Notes != "" {
			fmt.Fprintf(&item, " — %s", mdText(f.Notes))
		}
		item.WriteString("\n")
		if b.Len()+item.Len() > MaxStepSummaryBytes-summaryTail {
			fmt.Fprintf(b, "\n_%d more failing citations left out to keep this summary under 1 MiB (GitHub's limit); the SARIF and JUnit reports list them all._\n", len(byFile)-i)
			return
		}
		file = f.Place.Path
		b.WriteString(item.String())
	}
}

func yesNo(ok bool) string {
	if ok {
		return "yes"
	}
	return "**no**"
}

// mdText escapes text for a markdown line: one line, and every character
// that could start markup (emphasis, links, HTML, tables, code) escaped.
func mdText(s string) string {
	s = oneLine(s)
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '\\', '`', '*', '_', '[', ']', '|', '~', '#', '!':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '&':
			b.WriteString("&amp;")
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
