package parse

import (
	"bytes"
	"context"
	"slices"
	"strconv"

	"github.com/yuin/goldmark/ast"
	extast "github.com/yuin/goldmark/extension/ast"
)

// topBlock is one top-level block of the document (or a few that share a
// first line), as a window parse found it.
type topBlock struct {
	nodes []ast.Node
	// start is the offset of the block's first line; end is where the next
	// top-level block's first line starts (blank lines between belong to
	// this block), or the end of the range.
	start, end int
	// base is the offset the nodes' segments and positions count from.
	base int
}

// eachTopLevel calls fn with the top-level blocks of src[from:to], in order,
// from block-structure parses of windows of lines.
//
// goldmark's block parser reads line by line without looking ahead, so a
// parse of a prefix of the document agrees with the whole-document parse on
// every block that the prefix closed; only the last top-level block may
// continue past the window. The next window therefore starts at the first
// line of that block, where the parser was at the document root with nothing
// open, and parses it afresh. from must be such a line too.
//
// A window that closes no block is doubled up to maxBlockLines lines, beyond
// which the block is refused: it is a single list, quote, paragraph or code
// block of tens of thousands of lines, which no wave file has, and parsing it
// whole is what costs a gigabyte.
func eachTopLevel(ctx context.Context, src []byte, from, to int, lim *limits, m *meter, fn func(topBlock) error) error {
	pos := from
	var blocks []topBlock
	for pos < to {
		if err := ctx.Err(); err != nil {
			return err
		}
		for n := lim.windowLines; ; n *= 2 {
			end := advanceLines(src, pos, to, n)
			doc, err := parseLimited(m, structureParser, src[pos:end], newLimitedContext(lim), src, pos)
			if err != nil {
				return err
			}
			blocks = topBlocks(doc, src, pos, blocks[:0])
			next, final := end, len(blocks)
			if end < to && len(blocks) > 0 {
				next = blocks[len(blocks)-1].start
				final = len(blocks) - 1
			}
			if next > pos || end == to {
				for i := range final {
					b := blocks[i]
					b.end = next
					if i+1 < final {
						b.end = blocks[i+1].start
					}
					if err := fn(b); err != nil {
						return err
					}
				}
				pos = next
				break
			}
			if n >= lim.maxBlockLines {
				return &LimitError{Line: lineNumber(src, pos),
					Reason: "a single markdown block (list, block quote, paragraph or code block) of more than " +
						strconv.Itoa(lim.maxBlockLines) + " lines"}
			}
		}
	}
	return nil
}

// topBlocks lists doc's children, merging those that start on one line (a
// table keeps the position of the paragraph it was made from).
func topBlocks(doc ast.Node, src []byte, base int, acc []topBlock) []topBlock {
	for c := doc.FirstChild(); c != nil; c = c.NextSibling() {
		start := base + lineBegin(src[base:], nodeStart(c))
		if k := len(acc) - 1; k >= 0 && start <= acc[k].start {
			acc[k].nodes = append(acc[k].nodes, c)
			continue
		}
		acc = append(acc, topBlock{nodes: []ast.Node{c}, start: start, base: base})
	}
	return acc
}

// nodeStart is the offset of a top-level block's first character. A
// paragraph's position is where it started before definitions were taken out
// of it, and a table's is its paragraph's, so their lines decide.
func nodeStart(n ast.Node) int {
	switch n.(type) {
	case *ast.Paragraph, *ast.TextBlock:
		if n.Lines().Len() > 0 {
			return n.Lines().At(0).Start
		}
	}
	if n.Kind() == extast.KindTable && n.FirstChild() != nil {
		return nodeStart(n.FirstChild())
	}
	if p := n.Pos(); p >= 0 {
		return p
	}
	if n.Type() == ast.TypeBlock && n.Lines().Len() > 0 {
		return n.Lines().At(0).Start
	}
	if c := n.FirstChild(); c != nil {
		return nodeStart(c)
	}
	return 0
}

// lineStart is the offset of the line holding pos.
func lineBegin(src []byte, pos int) int {
	pos = min(max(pos, 0), len(src))
	return bytes.LastIndexByte(src[:pos], '\n') + 1
}

// advanceLines returns the offset just past n more lines from pos, at most to.
func advanceLines(src []byte, pos, to, n int) int {
	for ; n > 0 && pos < to; n-- {
		i := bytes.IndexByte(src[pos:to], '\n')
		if i < 0 {
			return to
		}
		pos += i + 1
	}
	return pos
}

// sourcesSection is the content of one Sources section, the top-level
// blocks after its heading up to the next top-level heading, in runs.
type sourcesSection struct{ runs []run }

// run is a stretch of consecutive top-level blocks of a Sources section, at
// most a window of lines (or one longer block), with their inline cost (see
// inlineCost) and longest leaf, so that the section can be parsed with
// inline syntax without reading its block structure a second time.
type run struct {
	start, end    int
	cost, longest int
	lines         int
}

// addBlock extends the last run with b, or starts a new one.
func addBlock(runs []run, b topBlock, src []byte, lim *limits) []run {
	cost, longest := inlineCost(b, src)
	lines := bytes.Count(src[b.start:b.end], []byte{'\n'})
	if k := len(runs) - 1; k >= 0 && runs[k].end == b.start && runs[k].lines+lines <= lim.windowLines {
		r := &runs[k]
		r.end, r.cost, r.longest, r.lines = b.end, r.cost+cost, max(r.longest, longest), r.lines+lines
		return runs
	}
	return append(runs, run{b.start, b.end, cost, longest, lines})
}

// headingRef is a top-level heading that may name a Sources section, kept
// until that is known.
type headingRef struct {
	start, stop int // the heading's own lines
	level       int
	// parent is the candidate heading whose section this one is inside
	// (a shallower candidate with no heading of its level or higher
	// between them), or -1.
	parent  int
	sources bool
	// pending: the heading has inline markup, so it must be parsed, with
	// the file's definitions (a heading may be a reference link whose
	// definition comes later in the file).
	pending bool
}

// segment is a stretch of blocks between headings whose innermost enclosing
// candidate heading is head: they are in a Sources section if head or any of
// its parents names one.
type segment struct {
	head int
	runs []run
}

// outline reads the whole document's block structure once: it collects
// every link reference definition and finds the Sources sections.
//
// A section runs to the next heading of its level or higher, and whether a
// heading names one may be known only after the whole file is read (see
// decideHeadings), so outline keeps the stack of candidate headings whose
// sections are still open and files each block under the innermost; a block
// is in a Sources section if any candidate on its stack names one.
func outline(ctx context.Context, src []byte, titles titleSet, lim *limits, m *meter) (refStore, []sourcesSection, error) {
	refs := refStore{}
	var heads []headingRef
	var segs []segment
	var open []int // the stack of candidates whose sections are open
	err := eachTopLevel(ctx, src, 0, len(src), lim, m, func(b topBlock) error {
		for _, n := range b.nodes {
			refs.add(n)
		}
		h, ok := b.nodes[0].(*ast.Heading)
		if !ok {
			if len(open) > 0 {
				s := &segs[len(segs)-1]
				s.runs = addBlock(s.runs, b, src, lim)
			}
			return nil
		}
		for len(open) > 0 && heads[open[len(open)-1]].level >= h.Level {
			open = open[:len(open)-1]
		}
		if ref, ok := candidateHeading(h, b, src, titles, lim); ok {
			ref.parent = -1
			if len(open) > 0 {
				ref.parent = open[len(open)-1]
			}
			heads = append(heads, ref)
			open = append(open, len(heads)-1)
		}
		if len(open) > 0 {
			if top := open[len(open)-1]; len(segs) == 0 || segs[len(segs)-1].head != top {
				segs = append(segs, segment{head: top})
			}
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	if err := decideHeadings(ctx, src, heads, refs, titles, lim, m); err != nil {
		return nil, nil, err
	}
	in := make([]bool, len(heads)) // parents come before their children
	for i, h := range heads {
		in[i] = h.sources || h.parent >= 0 && in[h.parent]
	}
	var out []sourcesSection
	for _, s := range segs {
		if in[s.head] && len(s.runs) > 0 {
			out = append(out, sourcesSection{s.runs})
		}
	}
	return refs, out, nil
}

// candidateHeading says whether a top-level heading may name a Sources section,
// deciding it at once when its markdown has no inline syntax.
func candidateHeading(h *ast.Heading, b topBlock, src []byte, titles titleSet, lim *limits) (headingRef, bool) {
	ref := headingRef{start: b.start, stop: trimBlankTail(src, b.start, b.end), level: h.Level}
	text := headingSource(h, src[b.base:])
	if len(text) > lim.maxHeadingBytes || !titles.mightName(text) {
		return ref, false
	}
	if slices.ContainsFunc(text, func(c byte) bool { return inlineSpecial[c] }) {
		ref.pending = true
		return ref, true
	}
	// Markdown without inline syntax renders as itself.
	ref.sources = titles.text(string(text))
	return ref, ref.sources
}

// decideHeadings parses the pending headings, many to a parse: each heading
// on its own lines, after a blank line, parses as the heading it was (its
// inline content does not depend on the blocks around it), so a batch of
// them gives one heading each, in order. A batch that does not is parsed
// heading by heading.
func decideHeadings(ctx context.Context, src []byte, heads []headingRef, refs refStore, titles titleSet, lim *limits, m *meter) error {
	const maxBatch = 64 << 10
	var buf []byte
	var batch []int
	decide := func() error {
		if err := ctx.Err(); err != nil {
			return err
		}
		doc, err := parseLimited(m, fullParser, buf, newRefContext(refs, lim), buf, 0)
		if err == nil && doc.ChildCount() == len(batch) {
			i := 0
			for c := doc.FirstChild(); c != nil; c = c.NextSibling() {
				h, ok := c.(*ast.Heading)
				heads[batch[i]].sources = ok && titles.heading(h, buf)
				i++
			}
		} else {
			for _, i := range batch {
				if heads[i].sources, err = isSourcesHeadingAt(src, heads[i].start, heads[i].stop, refs, titles, lim, m); err != nil {
					return err
				}
			}
		}
		buf, batch = buf[:0], batch[:0]
		return nil
	}
	for i, h := range heads {
		if !h.pending {
			continue
		}
		buf = append(buf, src[h.start:h.stop]...)
		if !bytes.HasSuffix(buf, []byte{'\n'}) {
			buf = append(buf, '\n')
		}
		buf = append(buf, '\n')
		batch = append(batch, i)
		if len(buf) >= maxBatch {
			if err := decide(); err != nil {
				return err
			}
		}
	}
	if len(batch) > 0 {
		return decide()
	}
	return nil
}

// trimBlankTail drops the blank lines at the end of src[start:end].
func trimBlankTail(src []byte, start, end int) int {
	stop := start + len(bytes.TrimRight(src[start:end], " \t\r\n\v\f"))
	if i := bytes.IndexByte(src[stop:end], '\n'); i >= 0 {
		return stop + i + 1
	}
	return end
}

// headingSource is the markdown of a heading's text (without "#"s or the
// setext underline), its lines joined by "\n".
func headingSource(h *ast.Heading, src []byte) []byte {
	var b []byte
	for i := range h.Lines().Len() {
		seg := h.Lines().At(i)
		if i > 0 {
			b = append(b, '\n')
		}
		b = append(b, bytes.TrimRight(src[seg.Start:seg.Stop], "\r\n")...)
	}
	return b
}

// isSourcesHeadingAt parses the heading on src[start:stop] on its own, with
// the file's definitions, and reports whether it names a Sources section.
func isSourcesHeadingAt(src []byte, start, stop int, refs refStore, titles titleSet, lim *limits, m *meter) (bool, error) {
	sub := src[start:stop]
	doc, err := parseLimited(m, fullParser, sub, newRefContext(refs, lim), src, start)
	if err != nil {
		return false, err
	}
	h, ok := doc.FirstChild().(*ast.Heading)
	return ok && titles.heading(h, sub), nil
}
