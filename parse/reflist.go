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

type section struct {
	list  *refList
	level int // heading level; 7 for a title paragraph
}

// classify walks the top-level blocks, files every bibliography it finds and
// returns the blocks that are prose.
func (c *citer) classify(doc ast.Node) []ast.Node {
	var prose []ast.Node
	var sec *section
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		switch v := n.(type) {
		case *ast.Heading:
			if sec != nil && v.Level <= sec.level {
				sec = nil
			}
			if isRefTitle(headingText(v, c.src)) {
				sec = &section{list: c.newList(blockStart(v)), level: v.Level}
				continue
			}
			if sec == nil {
				prose = append(prose, n)
			}
			continue
		case *ast.ThematicBreak:
			if sec != nil && sec.level > 6 {
				sec = nil
			}
			continue
		}
		if sec != nil && sec.level > 6 && !c.entryLike(n) {
			sec = nil // a "Sources:" label covers the entries right after it
		}
		if sec != nil {
			c.entries(sec.list, n)
			continue
		}
		if p, ok := n.(*ast.Paragraph); ok {
			if lines := p.Lines(); lines.Len() > 0 && isRefTitle(segText(lines, 0, c.src)) {
				l := c.newList(lines.At(0).Start)
				c.lineEntries(l, lines, 1)
				sec = &section{list: l, level: 7}
				continue
			}
		}
		if c.definitions(n) {
			continue
		}
		if c.autoBibliography(n) {
			continue
		}
		c.nestedDefinitions(n)
		prose = append(prose, n)
	}
	return prose
}

// entryLike reports whether a block after a "Sources:" label paragraph
// still belongs to it: anything but a paragraph, or a paragraph that starts
// with an entry marker or holds a URL or DOI.
func (c *citer) entryLike(n ast.Node) bool {
	p, ok := n.(*ast.Paragraph)
	if !ok {
		return true
	}
	lines := p.Lines()
	if lines.Len() == 0 {
		return true
	}
	first := []byte(segText(lines, 0, c.src))
	if _, ok := leadingNumber(first, true); ok {
		return true
	}
	if _, ok := footnoteDefLabel(first); ok {
		return true
	}
	t, _ := firstTarget(c.src, lines.At(0).Start, lines.At(lines.Len()-1).Stop)
	return t != ""
}

func (c *citer) newList(pos int) *refList {
	l := &refList{pos: pos, byNum: map[int]*refEntry{}}
	c.lists = append(c.lists, l)
	return l
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
			num := 0
			if v.IsOrdered() {
				num = orderedMarker(c.src, start)
				if num <= 0 {
					num = v.Start + i
				}
			} else if cs := contentStart(it); cs >= 0 {
				num, _ = leadingNumber(c.src[cs:min(end, len(c.src))], false)
			}
			if cs := contentStart(it); cs >= 0 && c.footnoteLine(cs, end) {
				i++
				continue
			}
			c.add(l, num, start, end)
			i++
		}
	case *ast.Paragraph, *ast.TextBlock:
		c.lineEntries(l, n.Lines(), 0)
	case *ast.LinkReferenceDefinition:
		c.linkDefinition(l, v)
	case *extast.Table:
		for row := v.FirstChild(); row != nil; row = row.NextSibling() {
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
// line first. A line that starts with a marker ([N], N., (N), [^id]:) starts
// an entry; so does any other line unless the current entry began with a
// marker or the line is a continuation (it starts with a URL, a DOI or a
// lower-case letter).
func (c *citer) lineEntries(l *refList, lines *text.Segments, first int) {
	start, end, num, marked, foot := -1, -1, 0, false, ""
	flush := func() {
		if start < 0 {
			return
		}
		if foot != "" {
			c.footnote(foot, start, end)
		} else {
			c.add(l, num, start, end)
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
			start, end, num, marked, foot = seg.Start, seg.Stop, 0, true, id
			continue
		}
		if n, ok := leadingNumber(line, true); ok {
			flush()
			start, end, num, marked, foot = seg.Start, seg.Stop, n, true, ""
			continue
		}
		if start >= 0 && (marked || isContinuation(line)) {
			end = seg.Stop
			continue
		}
		flush()
		start, end, num, marked, foot = seg.Start, seg.Stop, 0, false, ""
	}
	flush()
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

// autoBibliography recognises an unheaded list of sources: a list or
// paragraph every entry of which starts with "[N]", at least half of them
// with a URL or DOI.
func (c *citer) autoBibliography(n ast.Node) bool {
	type span struct{ num, start, end int }
	var spans []span
	switch v := n.(type) {
	case *ast.List:
		for it := v.FirstChild(); it != nil; it = it.NextSibling() {
			cs, end := contentStart(it), nodeEnd(it)
			if cs < 0 || end <= cs {
				return false
			}
			num, ok := leadingBracketNumber(c.src[cs:end])
			if !ok {
				return false
			}
			spans = append(spans, span{num, blockStart(it), end})
		}
	case *ast.Paragraph:
		lines := v.Lines()
		for i := 0; i < lines.Len(); i++ {
			seg := lines.At(i)
			line := seg.Value(c.src)
			num, ok := leadingBracketNumber(line)
			switch {
			case ok:
				spans = append(spans, span{num, seg.Start, seg.Stop})
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
		c.add(l, s.num, s.start, s.end)
	}
	return true
}

// firstTarget returns the first URL or DOI in src[start:end].
func firstTarget(src []byte, start, end int) (string, CiteKind) {
	start, end = max(start, 0), min(end, len(src))
	if start >= end {
		return "", ""
	}
	var s scanner
	s.src = src
	s.urls(start, end, 1)
	s.dois(start, end, 1, 0)
	var best *cand
	for i := range s.cands {
		if best == nil || s.cands[i].start < best.start {
			best = &s.cands[i]
		}
	}
	if best == nil {
		return "", ""
	}
	return best.refs[0].ident, best.kind
}

// footnoteDefLabel returns the label of a "[^id]:" line.
func footnoteDefLabel(line []byte) (string, bool) {
	line = bytes.TrimLeft(line, " \t")
	if !bytes.HasPrefix(line, []byte("[^")) {
		return "", false
	}
	k := bytes.Index(line, []byte("]:"))
	if k < 3 || k > 66 {
		return "", false
	}
	id := string(line[2:k])
	if strings.ContainsAny(id, " \t[]") {
		return "", false
	}
	return id, true
}

// leadingNumber reads an entry number at the start of a line or item:
// "[3]", "[3]:", "**[3]**", "3." and "(3)" (the last two only when plain
// is set, since in a list item "3." is a nested list).
func leadingNumber(b []byte, plain bool) (int, bool) {
	b = bytes.TrimLeft(b, " \t*_")
	if n, ok := leadingBracketNumber(b); ok {
		return n, true
	}
	if !plain {
		return 0, false
	}
	if len(b) > 0 && b[0] == '(' {
		if k := bytes.IndexByte(b, ')'); k > 1 {
			if n, ok := smallNumber(string(b[1:k])); ok && (k+1 == len(b) || b[k+1] == ' ') {
				return n, true
			}
		}
	}
	i := 0
	for i < len(b) && i < 4 && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	if i > 0 && i+1 < len(b) && (b[i] == '.' || b[i] == ')') && (b[i+1] == ' ' || b[i+1] == '\t') {
		return smallNumber(string(b[:i]))
	}
	return 0, false
}

// leadingBracketNumber reads "[3]" at the start of b, after markup.
func leadingBracketNumber(b []byte) (int, bool) {
	b = bytes.TrimLeft(b, " \t*_")
	if len(b) < 3 || b[0] != '[' {
		return 0, false
	}
	k := bytes.IndexByte(b, ']')
	if k < 2 {
		return 0, false
	}
	return smallNumber(string(bytes.TrimSpace(b[1:k])))
}

// cellNumber reads "3", "3.", "[3]" as a table cell's entire text.
func cellNumber(b []byte) int {
	t := strings.Trim(strings.TrimSpace(string(b)), "[]().*_ ")
	n, _ := smallNumber(t)
	return n
}

// orderedMarker reads the number of an ordered list item's marker at p.
func orderedMarker(src []byte, p int) int {
	if p < 0 {
		return 0
	}
	i := p
	for i < len(src) && i-p < 9 && src[i] >= '0' && src[i] <= '9' {
		i++
	}
	if i == p {
		return 0
	}
	n, err := strconv.Atoi(string(src[p:i]))
	if err != nil || n < 1 || n > maxRefNumber {
		return 0
	}
	return n
}

// contentStart is where the text of a list item begins.
func contentStart(n ast.Node) int {
	for ch := n.FirstChild(); ch != nil; ch = ch.FirstChild() {
		if ch.Type() != ast.TypeBlock {
			break
		}
		if l := ch.Lines(); l.Len() > 0 {
			return l.At(0).Start
		}
	}
	return -1
}

// blockStart is the first byte of a block.
func blockStart(n ast.Node) int {
	if p := n.Pos(); p >= 0 {
		return p
	}
	if n.Type() == ast.TypeBlock {
		if l := n.Lines(); l.Len() > 0 {
			return l.At(0).Start
		}
	}
	for ch := n.FirstChild(); ch != nil; ch = ch.NextSibling() {
		if p := blockStart(ch); p >= 0 {
			return p
		}
	}
	return -1
}

// nodeEnd is the end of the last line of a block and its children.
func nodeEnd(n ast.Node) int {
	end := -1
	_ = ast.Walk(n, func(m ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		if m.Type() != ast.TypeBlock {
			return ast.WalkSkipChildren, nil
		}
		if l := m.Lines(); l.Len() > 0 {
			if s := l.At(l.Len() - 1).Stop; s > end {
				end = s
			}
		}
		return ast.WalkContinue, nil
	})
	return end
}

// headingText is a heading's text without markup.
func headingText(h *ast.Heading, src []byte) string {
	var title []byte
	_ = ast.Walk(h, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Text:
			title = append(title, n.Segment.Value(src)...)
			title = append(title, ' ')
		case *ast.String:
			title = append(title, n.Value...)
		case *ast.CodeSpan:
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	return string(title)
}

var refTitles = map[string]bool{
	"sources": true, "references": true, "bibliography": true, "works cited": true, "work cited": true,
	"citations": true, "cited works": true, "cited sources": true, "sources cited": true,
	"reference list": true, "references list": true, "source list": true, "sources list": true,
	"list of sources": true, "list of references": true, "literature cited": true, "literature": true,
	"footnotes": true, "endnotes": true, "notes and references": true, "references and notes": true,
	"sources and references": true, "references and sources": true, "sources and citations": true,
	"citations and sources": true, "further reading": true, "sources and further reading": true,
	"references and further reading": true, "key sources": true, "sources consulted": true,
	"external links": true, "links": true, "selected references": true, "selected sources": true,
}

// isRefTitle reports whether a heading or label line names a bibliography:
// "Sources", "## References:", "**Works Cited**", "5. Bibliography",
// "📚 Sources & References".
func isRefTitle(s string) bool {
	if len(s) > 80 {
		return false
	}
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		switch {
		case r == '&':
			b.WriteString(" and ")
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		default:
			b.WriteByte(' ')
		}
	}
	f := strings.Fields(b.String())
	for len(f) > 0 && strings.Trim(f[0], "0123456789") == "" {
		f = f[1:]
	}
	return refTitles[strings.Join(f, " ")]
}
