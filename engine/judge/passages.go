package judge

import (
	"slices"
	"strings"
)

// Passages narrows a source's readable text to what bears on claim, within
// budget bytes: what every judge reads (issue 11). The source is split into
// sentences; each is scored by the claim's words, figures, dates and names
// it carries (names count more, as in the offline judge); the best are
// taken with the sentence on each side (a claim is often stated across two
// sentences, and the offline judge reads that window too), best first,
// until the budget is spent. The page's lead — its title and dateline, the
// first leadBytes — is always kept, since a claim's date is often only
// there. Kept text is in page order; a gap between kept passages is marked
// with " … ".
func Passages(source, claim string, budget int) string {
	return passages(source, claim, budget, false)
}

// FocusedPassages is Passages for a small budget: each sentence that
// carries the claim is taken with its neighbours before the next best
// one, so a few thousand bytes hold the claim's best few sentences in
// context rather than many scattered ones.
func FocusedPassages(source, claim string, budget int) string {
	return passages(source, claim, budget, true)
}

func passages(source, claim string, budget int, focused bool) string {
	if len(source) <= budget {
		return source
	}
	page, score := scoreSentences(source, claim)
	n := len(page.units)
	keep := make([]bool, n)
	size := 0
	take := func(i int) bool {
		if i < 0 || i >= n || keep[i] {
			return true
		}
		l := page.units[i].end - page.units[i].start + 3
		if size+l > budget {
			return false
		}
		keep[i] = true
		size += l
		return true
	}
	for i := 0; i < n && page.units[i].start < min(leadBytes, budget/10); i++ {
		take(i)
	}
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case score[a] > score[b]:
			return -1
		case score[a] < score[b]:
			return 1
		}
		return 0
	})
	// Every sentence that carries something of the claim, best first; then,
	// while the budget lasts, the neighbours of the best (focused: each
	// sentence's neighbours right after it).
	var taken []int
	for _, i := range order {
		if score[i] == 0 {
			break
		}
		if take(i) {
			taken = append(taken, i)
			if focused {
				take(i - 1)
				take(i + 1)
			}
		}
	}
	for _, i := range taken {
		take(i - 1)
		take(i + 1)
	}
	var b strings.Builder
	last := -2
	for i, k := range keep {
		if !k {
			continue
		}
		switch {
		case last < 0:
		case i == last+1:
			b.WriteByte(' ')
		default:
			b.WriteString(" … ")
		}
		b.WriteString(strings.TrimSpace(source[page.units[i].start:page.units[i].end]))
		last = i
	}
	return b.String()
}

// scoreSentences splits source into sentences and scores each by the
// claim's words, figures, dates and names it carries.
func scoreSentences(source, claim string) (*pageFacts, []float64) {
	page, capSeen := readPage(source)
	c := readClaim(citationMarks.ReplaceAllString(claim, " "), capSeen)
	weight := map[string]float64{}
	for _, t := range c.terms {
		weight[t.key] = max(weight[t.key], t.weight)
	}
	for _, f := range c.figures {
		if f.number {
			weight[f.key] = max(weight[f.key], weightNumber)
		}
	}
	months := map[string]bool{}
	for _, f := range c.figures {
		if f.month {
			months[f.key] = true
		}
	}
	score := make([]float64, len(page.units))
	for i, toks := range page.toks {
		seen := map[string]bool{}
		for _, t := range toks {
			k := t.key
			if m, ok := monthNames[t.low]; ok && months["@"+itoa(m)] {
				k = "@" + itoa(m)
				if !seen[k] {
					score[i] += weightNumber
				}
				seen[k] = true
				continue
			}
			if w := weight[k]; w > 0 && !seen[k] {
				score[i] += w
			}
			seen[k] = true
		}
	}
	return page, score
}

// leadBytes is how much of the start of a page (title, byline, dateline)
// every narrowed source keeps.
const leadBytes = 300

func itoa(n int) string {
	if n < 10 {
		return string(rune('0' + n))
	}
	return string(rune('0'+n/10)) + string(rune('0'+n%10))
}
