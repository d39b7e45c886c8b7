package parse

import (
	"bytes"
	"strconv"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// LimitError is a wave file Sources refuses to read because parsing it would
// take unbounded time or memory: containers nested too deeply, a table whose
// cells would explode, a single block of too many lines, or too much work
// spent canonicalizing unusual URLs. Real wave files are far below every
// limit; the limits exist so that no input within the 8 MiB wave cap can
// hang a run or exhaust memory.
type LimitError struct {
	// Line is the 1-based line where the offending construct starts.
	Line int
	// Reason says which limit was hit, e.g. "block quotes and lists nested
	// more than 64 deep".
	Reason string
}

func (e *LimitError) Error() string {
	return "line " + strconv.Itoa(e.Line) + ": " + e.Reason
}

// limits bound the parser's work. goldmark's block parser holds a few hundred
// bytes of AST per line, its inline parser is quadratic on several inputs
// (unclosed link destinations, mismatched emphasis, nested brackets), and
// WHATWG URL parsing is quadratic in path segments and userinfo length, so a
// few megabytes of hostile markdown cost gigabytes or hours when handed over
// whole. The document is therefore parsed in windows of lines, restarted at
// top-level block boundaries (which reproduces the whole-document parse
// exactly), and only Sources sections are inline-parsed, within a budget.
// Tests shrink these to exercise every path on small inputs.
type limits struct {
	// wholeLines: a file of fewer lines whose inline cost is bounded by
	// exactBudget (see inlineCostBound) is parsed in one piece, as before
	// the limits; it is what real wave files are. At most
	// maxDefinitionLines, so that both paths refuse the same files.
	wholeLines int
	// windowLines is how many lines one block-structure parse reads.
	windowLines int
	// maxBlockLines is the longest top-level block (list, block quote,
	// paragraph, code block …) accepted; a window grows up to it.
	maxBlockLines int
	// maxNesting bounds the block quotes and lists open at once.
	maxNesting int
	// maxTableCells bounds rows × columns of one table: goldmark pads every
	// row to the header's width, so a wide header over many short rows
	// would allocate billions of cells.
	maxTableCells int
	// maxDefinitionLines bounds a paragraph that opens with a link
	// reference definition: goldmark takes definitions out of a paragraph
	// in time quadratic in its lines.
	maxDefinitionLines int
	// maxHeadingBytes: a heading with more markdown text than this is
	// never a Sources heading (it would have to render as the one word
	// from over a kilobyte of markup).
	maxHeadingBytes int
	// exactBudget is the inline work (see inlineCost) spent parsing
	// Sources blocks whole; blocks beyond it are read piecewise.
	exactBudget int
	// maxExactLeaf is the longest paragraph parsed whole.
	maxExactLeaf int
	// pieceBudget and maxPieceBytes bound one piece of a block read
	// piecewise.
	pieceBudget   int
	maxPieceBytes int
	// urlBudget is the WHATWG parsing work (see slowURLCost) one file may
	// cause; URLs on the fast path cost nothing.
	urlBudget int
}

var defaultLimits = limits{
	wholeLines:         4096,
	windowLines:        256,
	maxBlockLines:      65536,
	maxNesting:         64,
	maxTableCells:      100_000,
	maxDefinitionLines: 4096,
	maxHeadingBytes:    1024,
	exactBudget:        1 << 28,
	maxExactLeaf:       64 << 10,
	pieceBudget:        1 << 16,
	maxPieceBytes:      8 << 10,
	urlBudget:          1 << 28,
}

// limitKey holds the first limit a goldmark parse hit (a *limitHit); the
// guards cannot return errors through goldmark, so they record and decline.
var limitKey = parser.NewContextKey()

type limitHit struct {
	offset int // into the source of that parse
	reason string
}

func recordLimit(pc parser.Context, offset int, reason string) {
	if pc.Get(limitKey) == nil {
		pc.Set(limitKey, &limitHit{offset, reason})
	}
}

// limitKeyMax and tableCellsKey carry the limits of one parse to the guards,
// which are shared by every parse.
var (
	nestingKey         = parser.NewContextKey()
	tableCellsKey      = parser.NewContextKey()
	definitionLinesKey = parser.NewContextKey()
)

func newLimitedContext(lim *limits) parser.Context {
	pc := parser.NewContext()
	pc.Set(nestingKey, lim.maxNesting)
	pc.Set(tableCellsKey, lim.maxTableCells)
	pc.Set(definitionLinesKey, lim.maxDefinitionLines)
	return pc
}

// nestingGuard refuses to open a block quote or list once maxNesting
// containers are open: goldmark re-walks the open containers on every line
// and is quadratic in their depth ("> > > …" over a megabyte takes minutes).
type nestingGuard struct{ parser.BlockParser }

func (g nestingGuard) Open(parent ast.Node, reader text.Reader, pc parser.Context) (ast.Node, parser.State) {
	if max, ok := pc.Get(nestingKey).(int); ok && len(pc.OpenedBlocks()) >= max {
		_, seg := reader.PeekLine()
		recordLimit(pc, seg.Start, "block quotes and lists nested more than "+strconv.Itoa(max)+" deep")
		return nil, parser.NoChildren
	}
	return g.BlockParser.Open(parent, reader, pc)
}

// tableGuard estimates a paragraph's table cells (lines × the widest
// delimiter row, an upper bound of what goldmark would allocate) before
// letting the table extension at it.
type tableGuard struct{ parser.ParagraphTransformer }

func (g tableGuard) Transform(node *ast.Paragraph, reader text.Reader, pc parser.Context) {
	lines := node.Lines()
	if lines.Len() < 2 {
		return
	}
	src := reader.Source()
	cols := 0
	for i := 1; i < lines.Len(); i++ {
		seg := lines.At(i)
		cols = max(cols, delimiterColumns(src[seg.Start:seg.Stop]))
	}
	if max, ok := pc.Get(tableCellsKey).(int); ok && cols > 0 && cols*lines.Len() > max {
		recordLimit(pc, lines.At(0).Start, "a table of more than "+strconv.Itoa(max)+" cells")
		return
	}
	g.ParagraphTransformer.Transform(node, reader, pc)
}

// definitionGuard refuses a paragraph of more than maxDefinitionLines lines
// that starts like a definition ("[" after at most three spaces). A
// paragraph at the top level never gets there, since a window holds fewer
// lines; one inside a list item or block quote can.
type definitionGuard struct{ parser.ParagraphTransformer }

func (g definitionGuard) Transform(node *ast.Paragraph, reader text.Reader, pc parser.Context) {
	lines := node.Lines()
	if max, ok := pc.Get(definitionLinesKey).(int); ok && lines.Len() > max {
		first := lines.At(0)
		if bytes.HasPrefix(bytes.TrimLeft(reader.Source()[first.Start:first.Stop], " "), []byte{'['}) {
			recordLimit(pc, first.Start, "a paragraph of more than "+strconv.Itoa(max)+" lines of link reference definitions")
			return
		}
	}
	g.ParagraphTransformer.Transform(node, reader, pc)
}

// delimiterColumns returns the columns of a GFM table delimiter row, or 0 if
// line is not one.
func delimiterColumns(line []byte) int {
	pipes, dash := 0, false
	for _, c := range line {
		switch c {
		case '|':
			pipes++
		case '-':
			dash = true
		case ':', ' ', '\t', '\n', '\r', '\v', '\f':
		default:
			return 0
		}
	}
	if !dash {
		return 0
	}
	return pipes + 1
}

// blockParsers are goldmark's defaults (same parsers, same priorities) with
// the nesting guard on the two container parsers that can nest.
func blockParsers() []util.PrioritizedValue {
	return []util.PrioritizedValue{
		util.Prioritized(parser.NewSetextHeadingParser(), 100),
		util.Prioritized(parser.NewThematicBreakParser(), 200),
		util.Prioritized(nestingGuard{parser.NewListParser()}, 300),
		util.Prioritized(parser.NewListItemParser(), 400),
		util.Prioritized(parser.NewCodeBlockParser(), 500),
		util.Prioritized(parser.NewATXHeadingParser(), 600),
		util.Prioritized(parser.NewFencedCodeBlockParser(), 700),
		util.Prioritized(nestingGuard{parser.NewBlockquoteParser()}, 800),
		util.Prioritized(parser.NewHTMLBlockParser(), 900),
		util.Prioritized(parser.NewParagraphParser(), 1000),
	}
}

// paragraphTransformers turn paragraphs into link reference definitions and
// tables, as goldmark's defaults plus the table extension do.
func paragraphTransformers() []util.PrioritizedValue {
	return []util.PrioritizedValue{
		util.Prioritized(definitionGuard{parser.LinkReferenceParagraphTransformer}, 100),
		util.Prioritized(tableGuard{extension.NewTableParagraphTransformer()}, 200),
	}
}

// inlineParsers are goldmark's defaults plus strikethrough and linkify.
//
// goldmark's linkify runs its pattern only after a case-sensitive prefix
// check against the allowed protocols. The prefixes "h" and "H" hand the
// decision to bareURL, which is what makes HTTPS:// work. "\t" is there
// because linkify is triggered by a tab but skips only a space before the
// URL, so a URL after a tab would otherwise never be linked; the tab then
// ends up in the link's value and extractor.autolink strips it.
func inlineParsers() []util.PrioritizedValue {
	return append(parser.DefaultInlineParsers(),
		util.Prioritized(extension.NewStrikethroughParser(), 500),
		util.Prioritized(extension.NewLinkifyParser(
			extension.WithLinkifyAllowedProtocols([]string{"h", "H", "\t"}),
			extension.WithLinkifyURLRegexp(bareURL),
		), 999),
	)
}

// The three parsers are safe for concurrent use: each Parse gets its own
// context.
var (
	// structureParser reads block structure only: no inline parsing, so
	// its cost is linear in the window it is given.
	structureParser = parser.NewParser(
		parser.WithBlockParsers(blockParsers()...),
		parser.WithParagraphTransformers(paragraphTransformers()...),
	)
	// fullParser is what GitHub-flavoured rendering of a wave file uses:
	// CommonMark, tables, strikethrough and bare URLs. The task-list
	// extension is left out: goldmark's takes "- [x](url)" for a checked
	// box followed by text, which would turn an inline link into a bare
	// one, and checkboxes carry no URLs.
	fullParser = parser.NewParser(
		parser.WithBlockParsers(blockParsers()...),
		parser.WithInlineParsers(inlineParsers()...),
		parser.WithParagraphTransformers(paragraphTransformers()...),
		parser.WithASTTransformers(util.Prioritized(extension.NewTableASTTransformer(), 0)),
	)
	// pieceParser reads one piece of a line as paragraph text: no block
	// syntax, no definitions, no tables.
	pieceParser = parser.NewParser(
		parser.WithBlockParsers(util.Prioritized(parser.NewParagraphParser(), 1000)),
		parser.WithInlineParsers(inlineParsers()...),
	)
)

// meter counts what the parsers were handed, so tests can assert that the
// work is linear in the input without timing anything.
type meter struct {
	parses int
	bytes  int
}

// parseLimited parses src with p, returning the first limit hit as a
// *LimitError positioned in whole, of which src starts at base.
func parseLimited(m *meter, p parser.Parser, src []byte, pc parser.Context, whole []byte, base int) (ast.Node, error) {
	m.parses++
	m.bytes += len(src)
	doc := p.Parse(text.NewReader(src), parser.WithContext(pc))
	if hit, ok := pc.Get(limitKey).(*limitHit); ok {
		return nil, &LimitError{Line: lineNumber(whole, base+hit.offset), Reason: hit.reason}
	}
	return doc, nil
}

// lineNumber is the 1-based line holding byte offset off.
func lineNumber(src []byte, off int) int {
	off = min(max(off, 0), len(src))
	n := 1
	for _, c := range src[:off] {
		if c == '\n' {
			n++
		}
	}
	return n
}
