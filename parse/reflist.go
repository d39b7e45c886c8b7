package parse

import (
	"bytes"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/yuin/goldmark/ast"
	extast "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
)

// Reference lists: finding the document's own bibliographies and footnote
// definitions, which resolve numbered, author–year and footnote citations.

// refEntry is one entry of a reference list or one footnote definition.
type refEntry struct {
	num        int // 0 when unnumbered
	start, end int // byte range in the source
	target     string
	targetKind CiteKind

	// For author–year matching, built on first use.
	tokens []string       // folded words, URLs and DOIs left out
	years  map[string]int // "2021" and "2021a" → first token index
	nd     int            // token index of "n.d.", or -1
}

// refList is one bibliography.
type refList struct {
	pos     int // where it starts, for choosing the nearest list
	entries []*refEntry
	byNum   map[int]*refEntry // first entry with each number
	indexed bool
	byYear  map[string][]*refEntry // year digits → entries, built on first use
	nd      []*refEntry
}

// section is the reference list being read and how it ends.
type section struct {
	list  *refList
	level int // heading level; labelLevel for a title paragraph
	// broken is set by a thematic break inside a heading's section: the
	// block after it decides whether the list goes on.
	broken bool
	// listy is set once a label's section holds a markdown list: a
	// paragraph after it continues the list only if it starts with an
	// entry marker, since a note below a bulleted list is not an entry.
	listy bool
}

// labelLevel is the level of a section opened by a title line rather than a
// heading: any heading ends it.
const labelLevel = 7

// classify walks the top-level blocks, files every bibliography it finds and
// returns the blocks that are prose.
//
// A heading whose text is a reference-list title (isRefTitle) opens a
// section that runs to the next heading of the same or a higher level;
// deeper headings inside it ("### Journal articles" under "## References")
// group its entries and do not end it. A thematic break ends it when the
// block after the break is neither a deeper heading nor entry-like: the
// footer or appendix an agent writes after "---" is not part of the list.
// A title line ("**Sources:**", "参考文献：", see labelAt) opens a section
// that covers the rest of its paragraph and the entry-like blocks right
// after it; a heading or a thematic break ends it.
func (c *citer) classify(doc ast.Node) []ast.Node {
	var prose []ast.Node
	var sec *section
	runEnd := -1 // the start of the last paragraph of a run markerRun refused
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		if sec != nil && sec.broken {
			sec.broken = false
			if h, ok := n.(*ast.Heading); !(ok && h.Level > sec.level) && !c.entryLike(n, false) {
				sec = nil
			}
		}
		switch v := n.(type) {
		case *ast.Heading:
			if sec != nil && v.Level > sec.level {
				continue // a sub-heading inside the list
			}
			sec = nil
			if isRefTitle(headingText(v, c.src)) {
				sec = &section{list: c.newList(blockStart(v)), level: v.Level}
				continue
			}
			prose = append(prose, n)
			continue
		case *ast.ThematicBreak:
			if sec != nil && sec.level == labelLevel {
				sec = nil
			} else if sec != nil {
				sec.broken = true
			}
			continue
		}
		if sec != nil && sec.level == labelLevel && !c.entryLike(n, sec.listy) {
			sec = nil // a "Sources:" label covers the entries right after it
		}
		if sec != nil {
			c.entries(sec.list, n)
			if _, ok := n.(*ast.List); ok {
				sec.listy = true
			}
			continue
		}
		if p, ok := n.(*ast.Paragraph); ok {
			if i, ok := c.labelAt(p); ok {
				lines := p.Lines()
				l := c.newList(lines.At(i).Start)
				c.lineEntries(l, lines, i+1)
				sec = &section{list: l, level: labelLevel}
				if i > 0 {
					c.cutProse(n, lines.At(i).Start) // the lines before the title are prose
					prose = append(prose, n)
				}
				continue
			}
		}
		if c.definitions(n) {
			continue
		}
		if pos := blockStart(n); pos > runEnd {
			last, ok := c.markerRun(n)
			if ok {
				n = last
				continue
			}
			// A failed run is not tried again from each of its paragraphs,
			// which would be quadratic in its length.
			runEnd = max(runEnd, blockStart(last))
		}
		if c.autoBibliography(n) {
			continue
		}
		if n.NextSibling() == nil {
			c.trailingEntries(n)
		}
		c.nestedDefinitions(n)
		prose = append(prose, n)
	}
	return prose
}

// labelAt finds the line of a paragraph that titles a reference list, and
// reports whether there is one. The first line counts when it is a title
// and either stands alone, is marked as a label (a trailing colon, bold or
// italics, a hard line break) or is followed by an entry; a later line
// counts only when it is marked and followed by an entry or ends the
// paragraph. An unmarked title wrapped into running text ("Other
// sources\nsuggest that…") is prose.
func (c *citer) labelAt(p *ast.Paragraph) (int, bool) {
	lines := p.Lines()
	for i := 0; i < lines.Len(); i++ {
		seg := lines.At(i)
		line := seg.Value(c.src)
		marked := labelMarked(line)
		if len(line) > maxTitle || i > 0 && !marked || !isRefTitle(string(line)) {
			continue
		}
		last := i == lines.Len()-1
		next := !last && c.entryLine(lines.At(i+1))
		if i == 0 && (last || marked || next) || i > 0 && marked && (last || next) {
			return i, true
		}
	}
	return 0, false
}

// labelMarked reports whether a title line is written as a label: it ends
// in a colon (ASCII or full-width), is wrapped in emphasis, or ends in a
// hard line break.
func labelMarked(line []byte) bool {
	line = bytes.TrimRight(line, "\r\n")
	if bytes.HasSuffix(line, []byte("  ")) || bytes.HasSuffix(line, []byte("\\")) {
		return true
	}
	t := bytes.TrimSpace(line)
	t = bytes.TrimRight(t, "*_")
	if bytes.HasSuffix(t, []byte(":")) || bytes.HasSuffix(t, []byte("：")) {
		return true
	}
	t = bytes.TrimSpace(line)
	return len(t) > 2 && (t[0] == '*' || t[0] == '_') && (t[len(t)-1] == '*' || t[len(t)-1] == '_' || t[len(t)-1] == ':')
}

// entryLine reports whether a paragraph line looks like a list entry: it
// starts with an entry marker or holds a URL or DOI.
func (c *citer) entryLine(seg text.Segment) bool {
	line := seg.Value(c.src)
	if len(entryNumbers(line, true)) > 0 {
		return true
	}
	if _, ok := footnoteDefLabel(line); ok {
		return true
	}
	t, _ := firstTarget(c.src, seg.Start, seg.Stop)
	return t != ""
}

// cutProse limits the prose of a top-level paragraph to what comes before
// pos; the rest is a reference list.
func (c *citer) cutProse(n ast.Node, pos int) {
	if c.cut == nil {
		c.cut = map[ast.Node]int{}
	}
	c.cut[n] = pos
}

// entryLike reports whether a block after a "Sources:" label paragraph
// still belongs to it: anything but a paragraph, or a paragraph that starts
// with an entry marker or, unless markerOnly is set, holds a URL or DOI.
func (c *citer) entryLike(n ast.Node, markerOnly bool) bool {
	p, ok := n.(*ast.Paragraph)
	if !ok {
		return true
	}
	lines := p.Lines()
	if lines.Len() == 0 {
		return true
	}
	first := []byte(segText(lines, 0, c.src))
	if len(entryNumbers(first, true)) > 0 {
		return true
	}
	if _, ok := footnoteDefLabel(first); ok {
		return true
	}
	if markerOnly {
		return false
	}
	t, _ := firstTarget(c.src, lines.At(0).Start, lines.At(lines.Len()-1).Stop)
	return t != ""
}

func (c *citer) newList(pos int) *refList {
	l := &refList{pos: pos, byNum: map[int]*refEntry{}}
	c.lists = append(c.lists, l)
	return l
}

// addNums files an entry that several numbers point to: the docx exports
// of ChatGPT and OpenAI deep research list "[1] [4] [8] academic.oup.com"
// for one source cited as [1], [4] and [8].
func (c *citer) addNums(l *refList, nums []int, start, end int) *refEntry {
	if len(nums) == 0 {
		return c.add(l, 0, start, end)
	}
	e := c.add(l, nums[0], start, end)
	if e != nil {
		for _, n := range nums[1:] {
			if n > 0 && l.byNum[n] == nil {
				l.byNum[n] = e
			}
		}
	}
	return e
}

func (c *citer) add(l *refList, num, start, end int) *refEntry {
	if start < 0 || end > len(c.src) || start >= end {
		return nil
	}
	e := &refEntry{num: num, start: start, end: end, nd: -1}
	e.target, e.targetKind = firstTarget(c.src, start, end)
	l.entries = append(l.entries, e)
	if num > 0 && l.byNum[num] == nil {
		l.byNum[num] = e
	}
	return e
}

// entries files the entries of one block of a bibliography section.
func (c *citer) entries(l *refList, n ast.Node) {
	switch v := n.(type) {
	case *ast.List:
		i := 0
		for it := v.FirstChild(); it != nil; it = it.NextSibling() {
			start, end := blockStart(it), nodeEnd(it)
			var nums []int
			if v.IsOrdered() {
				num := orderedMarker(c.src, start)
				if num <= 0 {
					num = v.Start + i
				}
				nums = []int{num}
			} else if cs := contentStart(it); cs >= 0 && cs < end {
				nums = entryNumbers(c.src[cs:min(end, len(c.src))], false)
			}
			if cs := contentStart(it); cs >= 0 && c.footnoteLine(cs, end) {
				i++
				continue
			}
			c.addNums(l, nums, start, end)
			i++
		}
	case *ast.Paragraph, *ast.TextBlock:
		c.lineEntries(l, n.Lines(), 0)
	case *ast.LinkReferenceDefinition:
		c.linkDefinition(l, v)
	case *extast.Table:
		for row := v.FirstChild(); row != nil; row = row.NextSibling() {
			if _, ok := row.(*extast.TableHeader); ok {
				continue // column names, not an entry
			}
			start, end := blockStart(row), nodeEnd(row)
			num := 0
			if cell := row.FirstChild(); cell != nil {
				if lines := cell.Lines(); lines.Len() > 0 {
					num = cellNumber([]byte(segText(lines, 0, c.src)))
				}
			}
			c.add(l, num, start, end)
		}
	case *ast.Blockquote:
		for ch := v.FirstChild(); ch != nil; ch = ch.NextSibling() {
			c.entries(l, ch)
		}
	}
}

// lineEntries splits a paragraph of a bibliography into entries, starting at
// line first. A line that starts with a marker ([N], N., N\., (N), [^id]:,
// or several: [1] [4]) starts
// an entry; so does any other line unless the current entry began with a
// marker or the line is a continuation (it starts with a URL, a DOI or a
// lower-case letter).
func (c *citer) lineEntries(l *refList, lines *text.Segments, first int) {
	start, end, marked, foot := -1, -1, false, ""
	var nums []int
	flush := func() {
		if start < 0 {
			return
		}
		if foot != "" {
			c.footnote(foot, start, end)
		} else {
			c.addNums(l, nums, start, end)
		}
		start = -1
	}
	for i := first; i < lines.Len(); i++ {
		seg := lines.At(i)
		line := seg.Value(c.src)
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if id, ok := footnoteDefLabel(line); ok {
			flush()
			start, end, nums, marked, foot = seg.Start, seg.Stop, nil, true, id
			continue
		}
		if ns := entryNumbers(line, true); len(ns) > 0 {
			flush()
			start, end, nums, marked, foot = seg.Start, seg.Stop, ns, true, ""
			for _, cut := range runOnEntries(line, ns[0]) {
				end = seg.Start + cut.start
				flush()
				start, end, nums, marked = seg.Start+cut.start, seg.Stop, []int{cut.num}, true
			}
			continue
		}
		if start >= 0 && (marked || isContinuation(line)) {
			end = seg.Stop
			continue
		}
		flush()
		start, end, nums, marked, foot = seg.Start, seg.Stop, nil, false, ""
	}
	flush()
}

// runOnCut is where a run-on line starts its next entry.
type runOnCut struct{ start, num int }

// runOnEntries finds the further entries of a line that holds several, as
// a Gemini export writes a list it did not format as one: "1\. One,
// https://… 2\. Two, https://… 3\. …". Only the escaped "N\." counts, and
// only numbers in sequence after first, so "see 2. below" never splits.
func runOnEntries(line []byte, first int) []runOnCut {
	var cuts []runOnCut
	next := first + 1
	for i := 1; i < len(line); i++ {
		if line[i-1] != ' ' || line[i] < '1' || line[i] > '9' {
			continue
		}
		want := strconv.Itoa(next)
		if bytes.HasPrefix(line[i:], []byte(want+"\\. ")) {
			cuts = append(cuts, runOnCut{i, next})
			next++
			i += len(want)
		}
	}
	return cuts
}

func isContinuation(line []byte) bool {
	line = bytes.TrimLeft(line, " \t*_")
	if len(line) == 0 {
		return true
	}
	if hasPrefixFoldBytes(line, "http://") || hasPrefixFoldBytes(line, "https://") ||
		hasPrefixFoldBytes(line, "doi:") || bytes.HasPrefix(line, []byte("10.")) {
		return true
	}
	r, _ := utf8.DecodeRune(line)
	return unicode.IsLower(r)
}

// footnote files a footnote definition; the first one for a label wins, as
// in GFM.
func (c *citer) footnote(id string, start, end int) {
	if start < 0 || end > len(c.src) || start >= end {
		return
	}
	key := strings.ToLower(id)
	if c.footnotes == nil {
		c.footnotes = map[string]*refEntry{}
	}
	if _, dup := c.footnotes[key]; dup {
		return
	}
	e := &refEntry{start: start, end: end, nd: -1}
	e.target, e.targetKind = firstTarget(c.src, start, end)
	c.footnotes[key] = e
}

// footnoteLine files a footnote definition written as a list item's text.
func (c *citer) footnoteLine(start, end int) bool {
	if start >= end || end > len(c.src) {
		return false
	}
	id, ok := footnoteDefLabel(c.src[start:end])
	if ok {
		c.footnote(id, start, end)
	}
	return ok
}

// linkDefinition files "[N]: url" and "[^id]: url" definitions. Other labels
// need no filing: goldmark resolves the links that use them.
func (c *citer) linkDefinition(l *refList, d *ast.LinkReferenceDefinition) {
	lines := d.Lines()
	if lines.Len() == 0 {
		return
	}
	start, end := lines.At(0).Start, lines.At(lines.Len()-1).Stop
	label := string(d.Label)
	if id, ok := strings.CutPrefix(label, "^"); ok && id != "" {
		c.footnote(id, start, end)
		return
	}
	if l != nil {
		num, _ := strconv.Atoi(strings.TrimSpace(label))
		if num < 0 || num > maxRefNumber {
			num = 0
		}
		c.add(l, num, start, end)
	}
}

// definitions handles a top-level block that is only definitions.
func (c *citer) definitions(n ast.Node) bool {
	switch v := n.(type) {
	case *ast.LinkReferenceDefinition:
		c.linkDefinition(nil, v)
		return true
	case *ast.Paragraph:
		if c.footnoteParagraph(v) {
			return true
		}
	}
	return false
}

// footnoteParagraph files a paragraph that starts with "[^id]:"; further
// "[^id]:" lines in it start further definitions.
func (c *citer) footnoteParagraph(n ast.Node) bool {
	lines := n.Lines()
	if lines.Len() == 0 {
		return false
	}
	if _, ok := footnoteDefLabel([]byte(segText(lines, 0, c.src))); !ok {
		return false
	}
	id, start, end := "", -1, -1
	for i := 0; i < lines.Len(); i++ {
		seg := lines.At(i)
		if l, ok := footnoteDefLabel(seg.Value(c.src)); ok {
			if start >= 0 {
				c.footnote(id, start, end)
			}
			id, start = l, seg.Start
		}
		end = seg.Stop
	}
	c.footnote(id, start, end)
	return true
}

// nestedDefinitions files definitions inside a prose block (a footnote in a
// list item, a definition in a blockquote) and marks them so that the prose
// walk leaves them alone.
func (c *citer) nestedDefinitions(n ast.Node) {
	_ = ast.Walk(n, func(m ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering || m == n {
			return ast.WalkContinue, nil
		}
		if m.Type() != ast.TypeBlock {
			return ast.WalkSkipChildren, nil
		}
		switch v := m.(type) {
		case *ast.LinkReferenceDefinition:
			c.linkDefinition(nil, v)
			c.skip[m] = true
			return ast.WalkSkipChildren, nil
		case *ast.Paragraph, *ast.TextBlock:
			if c.footnoteParagraph(v) {
				c.skip[m] = true
			}
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
}
