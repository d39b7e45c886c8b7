// Cite: walking the prose blocks of agent output and collecting citations with their claims.

package parse

import (
	"bytes"
	"slices"
	"strconv"
	"strings"

	"github.com/yuin/goldmark/ast"
	extast "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
)

// prose scans the leaf blocks of one top-level prose block.
func (c *citer) prose(n ast.Node) {
	_ = ast.Walk(n, func(m ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		if m.Type() != ast.TypeBlock || c.skip[m] {
			return ast.WalkSkipChildren, nil
		}
		switch v := m.(type) {
		case *extast.TableHeader, *extast.TableRow:
			c.row(v)
			return ast.WalkSkipChildren, nil
		case *ast.Paragraph, *ast.TextBlock, *ast.Heading:
			c.block(m)
			return ast.WalkSkipChildren, nil
		case *ast.FencedCodeBlock, *ast.CodeBlock, *ast.HTMLBlock, *ast.LinkReferenceDefinition:
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
}

// row scans a table row cell by cell. A citation alone in its cell takes
// the rest of the row, labelled with the column headers, as its claim:
// "| SCOP at −25 °C | 2.5–2.9 | [1] |" under "Metric | Value | Source"
// gives "Metric: SCOP at −25 °C; Value: 2.5–2.9".
func (c *citer) row(r ast.Node) {
	var headers []string
	if h, ok := r.Parent().FirstChild().(*extast.TableHeader); ok && h != r {
		for cell := h.FirstChild(); cell != nil; cell = cell.NextSibling() {
			headers = append(headers, cellText(cell, c.src))
		}
	}
	c.inRow, c.rowPending = true, c.rowPending[:0]
	var parts []string
	i := 0
	for cell := r.FirstChild(); cell != nil; cell = cell.NextSibling() {
		if t := c.block(cell); t != "" {
			if i < len(headers) && headers[i] != "" {
				t = headers[i] + ": " + t
			}
			parts = append(parts, t)
		}
		i++
	}
	c.inRow = false
	if len(c.rowPending) == 0 {
		return
	}
	ctx := truncateClaim(strings.Join(parts, "; "))
	for _, k := range c.rowPending {
		c.out[k].Claim = ctx
	}
	if ctx != "" {
		c.lastSentence = ctx
	}
}

// cellText is a header cell's text without markup.
func cellText(cell ast.Node, src []byte) string {
	lines := cell.Lines()
	var buf []byte
	for i := 0; i < lines.Len(); i++ {
		seg := lines.At(i)
		buf = append(buf, seg.Value(src)...)
		buf = append(buf, ' ')
	}
	return tidy(buf)
}

// span is a half-open byte range.
type span struct{ start, end int }

// ref is one cited work of a marker.
type ref struct {
	ident      string
	target     string
	targetKind CiteKind
	// reference is the text of the entry the marker resolved to when
	// that entry gives no URL or DOI (a title-only reference).
	reference string
	// entry is the text of the entry the marker resolved to, if any.
	entry string
	ay    *ayRef // author–year only
	num   int    // numbered only
}

// cand is one citation marker: its Raw span, the works it cites, and how it
// affects claims.
type cand struct {
	start, end int // Raw
	kind       CiteKind
	refs       []ref
	mark       span   // the whole marker (a link's full syntax); sentence-attaching
	drop       span   // what the claim leaves out
	extra      []span // more to leave out: the brackets of "[text][3]"
	prio       int    // higher wins an overlap
	attach     bool   // belongs to the sentence before it when it follows a full stop
	preset     bool   // targets already known (url, doi, resolved reference link)
	weak       bool   // a bare number: kept only for the works it resolves to
}

// blockScan holds one leaf block while it is scanned.
type blockScan struct {
	c      *citer
	segs   []text.Segment
	holes  []span // not scanned: code, HTML, links, images
	drops  []span // left out of claims
	cands  []cand
	starts []int // sentence starts
	sents  []sentence
	memo   map[span]string
}

// block scans one leaf block and returns its claim text (used for table
// rows).
func (c *citer) block(n ast.Node) string {
	lines := n.Lines()
	if lines.Len() == 0 {
		return ""
	}
	cut, hasCut := c.cut[n]
	b := &blockScan{c: c, segs: make([]text.Segment, 0, lines.Len())}
	for i := 0; i < lines.Len(); i++ {
		seg := lines.At(i)
		if seg.Start < 0 || seg.Stop > len(c.src) || seg.Start > seg.Stop {
			return ""
		}
		if hasCut && seg.Start >= cut {
			break
		}
		b.segs = append(b.segs, seg)
	}
	if len(b.segs) == 0 {
		return ""
	}
	bs, be := b.segs[0].Start, b.segs[len(b.segs)-1].Stop
	if bs >= be {
		return ""
	}
	b.inlines(n, bs, be)
	sortSpans(b.holes)

	// Scan the text between holes.
	s := scanner{src: c.src, c: c, cands: c.candBuf[:0]}
	pos := bs
	for _, h := range b.holes {
		if h.start > pos {
			s.text(pos, min(h.start, be))
		}
		pos = max(pos, h.end)
	}
	if pos < be {
		s.text(pos, be)
	}
	b.cands = append(b.cands, s.cands...)
	c.candBuf = s.cands[:0]
	b.settle()
	for _, cd := range b.cands {
		b.drops = append(b.drops, cd.drop)
		b.drops = append(b.drops, cd.extra...)
	}
	b.drops = mergeSpans(b.drops)
	b.sentences(bs, be)
	for _, cd := range b.cands {
		claim := b.claim(cd, be)
		raw := string(c.src[cd.start:cd.end])
		for _, r := range cd.refs {
			if claim == "" && c.inRow {
				c.rowPending = append(c.rowPending, len(c.out))
			}
			cit := Citation{
				Raw:         raw,
				Kind:        cd.kind,
				Identifier:  r.ident,
				OffsetStart: cd.start,
				OffsetEnd:   cd.end,
				Claim:       claim,
				Target:      r.target,
				TargetKind:  r.targetKind,
				Reference:   r.reference,
				Entry:       r.entry,
			}
			if cit.Target == "" {
				cit.TargetKind = ""
			}
			c.out = append(c.out, cit)
		}
	}
	c.remember(b, be)
	if c.inRow {
		return b.clean(bs, be)
	}
	return ""
}

// remember keeps the block's last sentence for the next block's claims.
func (c *citer) remember(b *blockScan, be int) {
	for i := len(b.starts) - 1; i >= 0; i-- {
		if t := b.sentence(i, be).text; t != "" {
			c.lastSentence = truncateClaim(t)
			return
		}
	}
}

// settle orders the candidates, resolves overlaps, resolves references and
// drops weak author–year candidates that resolve to nothing.
func (b *blockScan) settle() {
	c := b.c
	slices.SortStableFunc(b.cands, func(x, y cand) int { return x.start - y.start })
	kept := b.cands[:0]
	for _, cd := range b.cands {
		if n := len(kept); n > 0 && cd.start < kept[n-1].end {
			if cd.prio > kept[n-1].prio {
				kept[n-1] = cd
			}
			continue
		}
		kept = append(kept, cd)
	}
	out := kept[:0]
	for _, cd := range kept {
		if !cd.preset {
			refs := cd.refs[:0]
			for _, r := range cd.refs {
				var e *refEntry
				switch cd.kind {
				case CiteNumbered:
					e = c.resolveNum(r.num, cd.start)
					if e == nil && cd.weak {
						continue
					}
				case CiteFootnote:
					e = c.resolveFootnote(r.ident, cd.start)
				case CiteAuthorYear:
					e = c.resolveAuthorYear(r.ident, r.ay, cd.start)
					if e == nil && r.ay.weak {
						continue
					}
				case CiteURL, CiteDOI:
					// Their own targets: such candidates are preset and
					// never reach this loop.
				}
				if e != nil {
					r.target, r.targetKind = e.target, e.targetKind
					r.entry = entryText(c.src, e)
					if e.target == "" {
						r.reference = r.entry
					}
				}
				refs = append(refs, r)
			}
			cd.refs = refs
		}
		if len(cd.refs) == 0 {
			continue
		}
		out = append(out, cd)
	}
	b.cands = out
}

// inlines records the holes and drops of a block's inline content and turns
// links, autolinks and resolved reference links into candidates.
func (b *blockScan) inlines(n ast.Node, bs, be int) {
	src := b.c.src
	inBlock := func(p int) bool { return p >= bs && p < be }
	for ch := n.FirstChild(); ch != nil; ch = ch.NextSibling() {
		switch v := ch.(type) {
		case *ast.Text, *ast.String:
		case *ast.CodeSpan:
			p := v.Pos()
			if !inBlock(p) || src[p] != '`' {
				continue
			}
			k := 0
			for p+k < be && src[p+k] == '`' {
				k++
			}
			end := closingBackticks(src, p+k, be, k)
			b.holes = append(b.holes, span{p, end})
			b.drops = append(b.drops, span{p, p + k})
			if end-k >= p+k {
				b.drops = append(b.drops, span{end - k, end})
			}
		case *ast.RawHTML:
			if v.Segments == nil {
				continue
			}
			if b.c.bareNumbers {
				b.supMarker(v, bs, be)
			}
			for i := 0; i < v.Segments.Len(); i++ {
				seg := v.Segments.At(i)
				if seg.Start >= bs && seg.Stop <= be && seg.Start < seg.Stop {
					b.holes = append(b.holes, span{seg.Start, seg.Stop})
					b.drops = append(b.drops, span{seg.Start, seg.Stop})
				}
			}
		case *ast.AutoLink:
			b.autolink(v, bs, be)
		case *ast.Image:
			p := v.Pos()
			if !inBlock(p) {
				continue
			}
			open := p
			if src[open] == '!' {
				open++
			}
			ls, ok := linkSpan(src, v, open, be, v.Reference)
			if ok {
				b.holes = append(b.holes, span{p, ls.end})
				b.drops = append(b.drops, span{p, ls.end})
			}
		case *ast.Link:
			b.link(v, bs, be)
		default:
			b.inlines(ch, bs, be)
		}
	}
}

func (b *blockScan) autolink(v *ast.AutoLink, bs, be int) {
	src := b.c.src
	p := v.Pos()
	if p < bs || p >= be || src[p] != '<' {
		return
	}
	label := v.Label(src)
	start, end := p+1, p+1+len(label)
	if end >= be || src[end] != '>' {
		return
	}
	whole := span{p, end + 1}
	b.holes = append(b.holes, whole)
	if v.AutoLinkType != ast.AutoLinkURL {
		return
	}
	ident, kind, ok := classifyURL(string(label))
	if !ok {
		return
	}
	b.cands = append(b.cands, cand{
		start: start, end: end, kind: kind,
		refs: []ref{{ident: ident, target: ident, targetKind: kind}},
		mark: whole, drop: whole, prio: 9, attach: true, preset: true,
	})
}

// linkParts is the anatomy of a link in the source.
type linkParts struct {
	open, close int // '[' and the ']' closing the text
	dest        span
	label       span // "[label]" of a full reference link
	end         int
}

// linkSpan finds the parts of a link or image whose text starts at open.
func linkSpan(src []byte, n ast.Node, open, limit int, refl *ast.ReferenceLink) (linkParts, bool) {
	lp := linkParts{open: open, dest: span{-1, -1}, label: span{-1, -1}}
	if open >= limit || src[open] != '[' {
		return lp, false
	}
	from := max(open+1, textStop(n))
	cl := -1
	for i := from; i < limit; i++ {
		if src[i] == '\\' {
			i++
			continue
		}
		if src[i] == ']' {
			cl = i
			break
		}
	}
	if cl < 0 {
		return lp, false
	}
	lp.close, lp.end = cl, cl+1
	if refl != nil {
		switch refl.Type {
		case ast.ReferenceLinkFull:
			if cl+1 < limit && src[cl+1] == '[' {
				if k := bytes.IndexByte(src[cl+2:limit], ']'); k >= 0 {
					lp.label = span{cl + 1, cl + 3 + k}
					lp.end = lp.label.end
				}
			}
		case ast.ReferenceLinkCollapsed:
			if cl+2 < limit && src[cl+1] == '[' && src[cl+2] == ']' {
				lp.end = cl + 3
			}
		}
		return lp, true
	}
	// Inline link: ( ws dest ws title? ws )
	i := cl + 1
	if i >= limit || src[i] != '(' {
		return lp, true
	}
	i = skipSpace(src, i+1, limit)
	if i < limit && src[i] == '<' {
		k := bytes.IndexByte(src[i+1:limit], '>')
		if k < 0 {
			return lp, true
		}
		lp.dest = span{i + 1, i + 1 + k}
		i = i + 2 + k
	} else {
		depth, j := 0, i
		for ; j < limit; j++ {
			ch := src[j]
			if ch == '\\' && j+1 < limit {
				j++
				continue
			}
			if ch <= ' ' {
				break
			}
			if ch == '(' {
				depth++
			} else if ch == ')' {
				if depth == 0 {
					break
				}
				depth--
			}
		}
		lp.dest = span{i, j}
		i = j
	}
	i = skipSpace(src, i, limit)
	if i < limit && (src[i] == '"' || src[i] == '\'' || src[i] == '(') {
		q := src[i]
		if q == '(' {
			q = ')'
		}
		for i++; i < limit && src[i] != q; i++ {
			if src[i] == '\\' {
				i++
			}
		}
		i = skipSpace(src, i+1, limit)
	}
	if i < limit && src[i] == ')' {
		lp.end = i + 1
	} else {
		lp.end = min(max(lp.dest.end, cl+1), limit)
	}
	return lp, true
}

// link turns a link into a candidate when it points at a source, and into a
// hole either way.
func (b *blockScan) link(v *ast.Link, bs, be int) {
	src := b.c.src
	p := v.Pos()
	if p < bs || p >= be {
		return
	}
	lp, ok := linkSpan(src, v, p, be, v.Reference)
	if !ok {
		return
	}
	whole := span{p, lp.end}
	b.holes = append(b.holes, whole)
	linkText := src[p+1 : lp.close]
	dropAll := citationLikeText(linkText)
	keepText := func() {
		if dropAll {
			b.drops = append(b.drops, whole)
		} else {
			b.drops = append(b.drops, span{p, p + 1}, span{lp.close, lp.end})
		}
	}
	dest := linkDestination(v.Destination)
	ident, kind, isURL := classifyURL(dest)

	if v.Reference != nil {
		label := string(v.Reference.Value)
		cd := cand{start: whole.start, end: whole.end, mark: whole, prio: 8}
		marker := true
		if id, isFoot := strings.CutPrefix(label, "^"); isFoot && id != "" {
			cd.kind = CiteFootnote
			cd.refs = []ref{{ident: id}}
		} else if nums := numberGroup(label); len(nums) == 1 {
			cd.kind = CiteNumbered
			cd.refs = []ref{{ident: strconv.Itoa(nums[0]), num: nums[0]}}
		} else if isURL {
			cd.kind = kind
			cd.refs = []ref{{ident: ident}}
			marker = false
		} else {
			keepText()
			return
		}
		if marker && lp.label.start >= 0 {
			cd.start, cd.end = lp.label.start, lp.label.end // "[text][3]": Raw is "[3]"
		}
		if isURL {
			cd.refs[0].target, cd.refs[0].targetKind = ident, kind
			cd.preset = true
		}
		if dropAll || marker && lp.label.start < 0 {
			cd.drop, cd.attach = whole, true
		} else {
			keepText()
			cd.attach = marker
		}
		b.cands = append(b.cands, cd)
		return
	}

	if isURL && lp.dest.start >= 0 {
		cd := cand{
			start: lp.dest.start, end: lp.dest.end, kind: kind,
			refs: []ref{{ident: ident, target: ident, targetKind: kind}},
			mark: whole, prio: 8, attach: dropAll, preset: true,
		}
		if lp.dest.start >= lp.dest.end {
			return
		}
		if dropAll {
			cd.drop = whole
		} else {
			keepText()
		}
		b.cands = append(b.cands, cd)
		return
	}
	// "[1](#ref-1)" and "[[2]](#cite-2)": an in-page jump to a numbered
	// reference.
	if t := bytes.Trim(bytes.TrimSpace(linkText), "[]^"); len(t) > 0 {
		if nums := numberGroup(string(t)); len(nums) > 0 && !isURL {
			cd := cand{start: whole.start, end: whole.end, kind: CiteNumbered, mark: whole,
				drop: whole, prio: 8, attach: true}
			for _, k := range nums {
				cd.refs = append(cd.refs, ref{ident: strconv.Itoa(k), num: k})
			}
			b.cands = append(b.cands, cd)
			return
		}
	}
	keepText()
}

// citationLikeText reports link text that is itself a citation marker or a
// URL ("[1]", "^2", "source", "https://…"), which a claim should not keep.
func citationLikeText(t []byte) bool {
	t = bytes.TrimSpace(bytes.Trim(bytes.TrimSpace(t), "[]()^*_"))
	if len(t) == 0 {
		return true
	}
	if hasPrefixFoldBytes(t, "http://") || hasPrefixFoldBytes(t, "https://") || hasPrefixFoldBytes(t, "www.") ||
		hasPrefixFoldBytes(t, "doi:") || bytes.HasPrefix(t, []byte("10.")) {
		return true
	}
	if len(numberGroup(string(t))) > 0 || looksLikeDomain(t) {
		return true
	}
	switch strings.ToLower(string(t)) {
	case "source", "sources", "link", "here", "ref", "reference", "cite", "citation", "pdf", "doi":
		return true
	}
	return false
}

// looksLikeDomain reports link text such as "nature.com" or
// "en.wikipedia.org/wiki/X", the way search-backed agents label sources.
func looksLikeDomain(t []byte) bool {
	host, _, _ := bytes.Cut(t, []byte("/"))
	dot := bytes.LastIndexByte(host, '.')
	if dot <= 0 || len(host)-dot-1 < 2 {
		return false
	}
	for _, c := range host[dot+1:] {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
			return false
		}
	}
	for _, c := range t {
		if !isAlnum(c) && !strings.ContainsRune(".-/_~%", rune(c)) {
			return false
		}
	}
	return true
}

// textStop is the end of the last text inside a link, from which its
// closing ']' is searched.
func textStop(n ast.Node) int {
	end := -1
	_ = ast.Walk(n, func(m ast.Node, entering bool) (ast.WalkStatus, error) {
		if entering {
			if t, ok := m.(*ast.Text); ok && t.Segment.Stop > end {
				end = t.Segment.Stop
			}
		}
		return ast.WalkContinue, nil
	})
	return end
}

func closingBackticks(src []byte, from, limit, k int) int {
	for i := from; i < limit; {
		if src[i] != '`' {
			i++
			continue
		}
		j := i
		for j < limit && src[j] == '`' {
			j++
		}
		if j-i == k {
			return j
		}
		i = j
	}
	return limit
}

func skipSpace(src []byte, i, limit int) int {
	for i < limit && (src[i] == ' ' || src[i] == '\t' || src[i] == '\n' || src[i] == '\r') {
		i++
	}
	return i
}
