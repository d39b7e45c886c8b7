package parse

import (
	"bytes"
	"context"
	"unicode/utf8"

	"github.com/yuin/goldmark/ast"
)

// readSection extracts the links of one Sources section. Its blocks are
// parsed whole, with inline syntax, while the file stays within
// limits.exactBudget of inline work; a block beyond it is read piecewise
// (see split). Parsing whole is exact; piecewise reading finds the same links
// except those whose markup spans a line or a cut.
func (x *extractor) readSection(ctx context.Context, s sourcesSection) error {
	for _, r := range s.runs {
		if err := ctx.Err(); err != nil {
			return err
		}
		if x.fits(r.cost, r.longest) {
			if err := x.exact(ctx, r.start, r.end); err != nil {
				return err
			}
			continue
		}
		err := eachTopLevel(ctx, x.src, r.start, r.end, x.lim, &x.meter, func(b topBlock) error {
			if x.fits(inlineCost(b, x.src)) {
				return x.exact(ctx, b.start, b.end)
			}
			return x.split(ctx, b)
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// fits charges cost to the exact budget if there is room.
func (x *extractor) fits(cost, longest int) bool {
	if longest > x.lim.maxExactLeaf || x.exactSpent+cost > x.lim.exactBudget {
		return false
	}
	x.exactSpent += cost
	return true
}

// exact parses the top-level blocks on src[start:end] with inline syntax
// and the file's definitions, and walks them.
func (x *extractor) exact(ctx context.Context, start, end int) error {
	sub := x.src[start:end]
	doc, err := parseLimited(&x.meter, fullParser, sub, newRefContext(x.refs, x.lim), x.src, start)
	if err != nil {
		return err
	}
	x.cur, x.base, x.cutLo, x.cutHi = sub, start, false, false
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		x.block(n)
	}
	return x.flush(ctx)
}

// inlineSpecial marks the bytes that start an inline construct in goldmark
// (code spans, links, images, autolinks and raw HTML, emphasis,
// strikethrough, escapes, entities) or a linkify attempt (the ':' of "://").
// goldmark's inline parser is superlinear only through these: an unclosed
// "[a](b" scans to the end of its paragraph, unmatched emphasis rescans the
// delimiter stack.
var inlineSpecial = func() (t [256]bool) {
	for _, c := range []byte("`[]!<*_~(:\\&") {
		t[c] = true
	}
	return t
}()

// inlineCost bounds the inline parsing work of a block: for each paragraph
// (or other leaf with inline content), (specials+1) × length. It also
// returns the longest leaf.
func inlineCost(b topBlock, src []byte) (cost, longest int) {
	for _, n := range b.nodes {
		_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
			if !entering {
				return ast.WalkContinue, nil
			}
			if c.IsRaw() {
				return ast.WalkSkipChildren, nil
			}
			if !isLeaf(c) {
				return ast.WalkContinue, nil
			}
			length, specials := 0, 0
			for i := range c.Lines().Len() {
				seg := c.Lines().At(i)
				length += seg.Len()
				for _, ch := range src[b.base+seg.Start : b.base+seg.Stop] {
					if inlineSpecial[ch] {
						specials++
					}
				}
			}
			cost += (specials + 1) * length
			longest = max(longest, length)
			return ast.WalkSkipChildren, nil
		})
	}
	return cost, longest
}

// inlineCostBound bounds inlineCost over every block of src at once.
func inlineCostBound(src []byte) int {
	specials := 0
	for _, c := range src {
		if inlineSpecial[c] {
			specials++
		}
	}
	return (specials + 1) * len(src)
}

// isLeaf reports a block whose lines goldmark parses as inline text:
// paragraphs, headings, table cells.
func isLeaf(n ast.Node) bool {
	if _, def := n.(*ast.LinkReferenceDefinition); def {
		return false
	}
	return n.Type() == ast.TypeBlock && !n.IsRaw() && n.Lines().Len() > 0
}

// split reads a block piecewise from its block-structure parse: each
// definition as it is, each line of a paragraph, heading or table cell on
// its own, a long line in pieces cut at white space (see cutPieces), each
// piece parsed as paragraph text with the file's definitions. The work is
// bounded per piece, so the whole is linear in the block's size.
func (x *extractor) split(ctx context.Context, b topBlock) error {
	var err error
	for _, n := range b.nodes {
		_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
			if err != nil {
				return ast.WalkStop, nil
			}
			if !entering {
				return ast.WalkContinue, nil
			}
			if d, ok := c.(*ast.LinkReferenceDefinition); ok {
				x.base = b.base
				x.add(d, linkDestination(d.Destination), KindReference, "")
				return ast.WalkSkipChildren, nil
			}
			if c.IsRaw() {
				return ast.WalkSkipChildren, nil
			}
			if !isLeaf(c) {
				return ast.WalkContinue, nil
			}
			for i := range c.Lines().Len() {
				seg := c.Lines().At(i)
				if err = x.pieces(ctx, b.base+seg.Start, x.src[b.base+seg.Start:b.base+seg.Stop]); err != nil {
					return ast.WalkStop, nil
				}
			}
			return ast.WalkSkipChildren, nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// pieces parses one line of a leaf (starting at offset off) in pieces.
func (x *extractor) pieces(ctx context.Context, off int, line []byte) error {
	line = bytes.TrimRight(line, " \t\r\n\v\f")
	return cutPieces(line, x.lim, func(lo, hi int, cutLo, cutHi bool) error {
		if x.sinceCheck += hi - lo; x.sinceCheck >= 32<<10 {
			x.sinceCheck = 0
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		sub := line[lo:hi]
		doc, err := parseLimited(&x.meter, pieceParser, sub, newRefContext(x.refs, x.lim), x.src, off+lo)
		if err != nil {
			return err
		}
		x.cur, x.base, x.cutLo, x.cutHi = sub, off+lo, cutLo, cutHi
		for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
			x.block(n)
		}
		x.cutLo, x.cutHi = false, false
		return x.flush(ctx)
	})
}

// cutPieces splits line into pieces of at most maxPieceBytes whose inline
// cost ((specials+1) × length) is at most pieceBudget, preferring to cut at
// white space, where no link can straddle the cut. A run without white space
// that is too costly is cut inside (cutHi and the next piece's cutLo are
// then set). Leading white space is dropped from each piece, since the
// paragraph parser would read four spaces as code. Each byte is scanned at
// most twice.
func cutPieces(line []byte, lim *limits, fn func(lo, hi int, cutLo, cutHi bool) error) error {
	lo, cutLo := 0, false
	for {
		for lo < len(line) && isBlank(line[lo]) {
			lo, cutLo = lo+1, false
		}
		if lo >= len(line) {
			return nil
		}
		// ws is where the last run of white space in the piece begins.
		specials, ws, i := 0, -1, lo
		for ; i < len(line); i++ {
			c := line[i]
			if isBlank(c) {
				if !isBlank(line[i-1]) {
					ws = i
				}
				continue
			}
			if inlineSpecial[c] {
				specials++
			}
			if (specials+1)*(i+1-lo) > lim.pieceBudget || i+1-lo > lim.maxPieceBytes {
				break
			}
		}
		switch {
		case i == len(line):
			return fn(lo, i, cutLo, false)
		case ws > lo:
			if err := fn(lo, ws, cutLo, false); err != nil {
				return err
			}
			lo, cutLo = ws, false
		default:
			hi := max(i, lo+1)
			for hi > lo+1 && hi < len(line) && !utf8.RuneStart(line[hi]) {
				hi--
			}
			if err := fn(lo, hi, cutLo, true); err != nil {
				return err
			}
			lo, cutLo = hi, true
		}
	}
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' }
