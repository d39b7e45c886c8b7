// Reference lists without a heading: docx exports, marker runs, STORM's trailing entries.

package parse

import (
	"bytes"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
)

// autoBibliography recognises an unheaded list of sources: a list or
// paragraph every entry of which starts with "[N]", at least half of them
// with a URL or DOI.
func (c *citer) autoBibliography(n ast.Node) bool {
	type span struct {
		nums       []int
		start, end int
	}
	var spans []span
	switch v := n.(type) {
	case *ast.List:
		for it := v.FirstChild(); it != nil; it = it.NextSibling() {
			cs, end := contentStart(it), nodeEnd(it)
			if cs < 0 || end <= cs {
				return false
			}
			nums := leadingMarkers(c.src[cs:end])
			if len(nums) == 0 {
				return false
			}
			spans = append(spans, span{nums, blockStart(it), end})
		}
	case *ast.Paragraph:
		lines := v.Lines()
		for i := 0; i < lines.Len(); i++ {
			seg := lines.At(i)
			line := seg.Value(c.src)
			nums := leadingMarkers(line)
			switch {
			case len(nums) > 0:
				spans = append(spans, span{nums, seg.Start, seg.Stop})
			case i > 0 && isContinuation(line):
				spans[len(spans)-1].end = seg.Stop
			default:
				return false
			}
		}
	default:
		return false
	}
	if len(spans) == 0 || len(spans) == 1 && spans[0].end-spans[0].start > 300 {
		return false // one long "[1] …" paragraph is prose that opens with a citation
	}
	withTarget := 0
	for _, s := range spans {
		if t, _ := firstTarget(c.src, s.start, s.end); t != "" {
			withTarget++
		}
	}
	if 2*withTarget < len(spans) {
		return false
	}
	l := c.newList(spans[0].start)
	for _, s := range spans {
		c.addNums(l, s.nums, s.start, s.end)
	}
	return true
}

// markerEntry is an entry of an unheaded list being collected.
type markerEntry struct {
	nums       []int
	start, end int
	urlBlock   bool // its URL paragraph has been attached
}

// markerRun recognises an unheaded reference list spread over several
// paragraphs, as docx exports of ChatGPT and OpenAI deep research write it:
// each entry a paragraph that starts with one or more markers
// ("[1] [4] [8] academic.oup.com", "[\[1\]](https://…) Page title"), its URL
// often alone in the paragraph after it. At least two entries, at least
// half of them with a URL or DOI. It returns the run's last block, also
// when it refuses the run. A run of one paragraph is left to
// autoBibliography.
func (c *citer) markerRun(n ast.Node) (ast.Node, bool) {
	var ents []markerEntry
	last := n
	for m := n; m != nil; m = m.NextSibling() {
		c.runScanned++
		p, ok := m.(*ast.Paragraph)
		if !ok || p.Lines().Len() == 0 {
			break
		}
		lines := p.Lines()
		if len(leadingMarkers([]byte(segText(lines, 0, c.src)))) > 0 {
			if ents, ok = c.markerLines(ents, lines); !ok {
				break
			}
			last = m
			continue
		}
		if k := len(ents) - 1; k >= 0 && !ents[k].urlBlock && c.urlOnly(lines) {
			ents[k].end, ents[k].urlBlock = lines.At(lines.Len()-1).Stop, true
			last = m
			continue
		}
		break
	}
	if last == n || len(ents) < 2 {
		return last, false
	}
	withTarget := 0
	for _, e := range ents {
		if t, _ := firstTarget(c.src, e.start, e.end); t != "" {
			withTarget++
		}
	}
	if 2*withTarget < len(ents) {
		return last, false
	}
	l := c.newList(ents[0].start)
	for _, e := range ents {
		c.addNums(l, e.nums, e.start, e.end)
	}
	return last, true
}

// markerLines appends the entries of a paragraph whose every line starts
// with a marker or continues the entry before it; ok is false, and ents
// unchanged, when a line does neither.
func (c *citer) markerLines(ents []markerEntry, lines *text.Segments) ([]markerEntry, bool) {
	n := len(ents)
	for i := 0; i < lines.Len(); i++ {
		seg := lines.At(i)
		line := seg.Value(c.src)
		if nums := leadingMarkers(line); len(nums) > 0 {
			ents = append(ents, markerEntry{nums: nums, start: seg.Start, end: seg.Stop})
			continue
		}
		if i > 0 && isContinuation(line) {
			ents[len(ents)-1].end = seg.Stop
			continue
		}
		return ents[:n], false
	}
	return ents, true
}

// urlOnly reports whether a paragraph is a single URL: bare, <autolink> or
// a link whose text is the URL.
func (c *citer) urlOnly(lines *text.Segments) bool {
	if lines.Len() != 1 {
		return false
	}
	seg := lines.At(0)
	t := bytes.TrimSpace(seg.Value(c.src))
	if len(t) == 0 || bytes.ContainsAny(t, " \t") {
		return false
	}
	t = bytes.TrimLeft(t, "<[")
	if !hasPrefixFoldBytes(t, "http://") && !hasPrefixFoldBytes(t, "https://") {
		return false
	}
	u, _ := firstTarget(c.src, seg.Start, seg.Stop)
	return u != ""
}

// trailingEntries files the "[N] …" lines that end the document's last
// paragraph as a reference list, and leaves the lines before them to the
// prose: STORM appends its one-line reference list to the last paragraph
// of the article. The tail must start with a marked line carrying a URL or
// DOI in at least half of its entries, and every later line must start an
// entry or continue one.
func (c *citer) trailingEntries(n ast.Node) {
	p, ok := n.(*ast.Paragraph)
	if !ok || p.Lines().Len() < 2 {
		return
	}
	lines := p.Lines()
	first := -1
	for i := lines.Len() - 1; i >= 1; i-- {
		seg := lines.At(i)
		line := seg.Value(c.src)
		if len(leadingMarkers(line)) > 0 {
			first = i
			continue
		}
		if !isContinuation(line) {
			break
		}
	}
	if first < 0 {
		return
	}
	var ents []markerEntry
	for i := first; i < lines.Len(); i++ {
		seg := lines.At(i)
		if nums := leadingMarkers(seg.Value(c.src)); len(nums) > 0 {
			ents = append(ents, markerEntry{nums: nums, start: seg.Start, end: seg.Stop})
		} else {
			ents[len(ents)-1].end = seg.Stop
		}
	}
	withTarget := 0
	for _, e := range ents {
		if t, _ := firstTarget(c.src, e.start, e.end); t != "" {
			withTarget++
		}
	}
	if 2*withTarget < len(ents) {
		return
	}
	l := c.newList(ents[0].start)
	for _, e := range ents {
		c.addNums(l, e.nums, e.start, e.end)
	}
	c.cutProse(n, ents[0].start)
}
