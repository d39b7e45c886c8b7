package parse

import (
	"bytes"
	"context"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/util"
)

// Kind says how a link was written.
type Kind int

const (
	// KindInline is an inline link: [text](url).
	KindInline Kind = iota
	// KindReference is a full, collapsed or shortcut reference link
	// ([text][label], [label][], [label]) resolved through a definition,
	// which may sit anywhere in the file, or a link reference definition
	// ([label]: url) written inside the Sources section itself.
	KindReference
	// KindAutolink is a CommonMark autolink: <url>.
	KindAutolink
	// KindBare is a URL in running text, recognised by the GFM
	// extended-autolink rules.
	KindBare
)

var kindNames = [...]string{"inline", "reference", "autolink", "bare"}

// String returns "inline", "reference", "autolink" or "bare".
func (k Kind) String() string {
	if k >= 0 && int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// Link is one citation URL found in a Sources section.
type Link struct {
	// URL is the WHATWG href (see Canonical). It is not redacted: userinfo
	// and query secrets are kept, and redacting is the caller's job.
	URL string
	// Line is the 1-based line the link starts on.
	Line int
	// SourceLine is that whole line with surrounding whitespace trimmed.
	SourceLine string
	// Kind says how the link was written.
	Kind Kind
	// Col is where the URL starts on Line (the link's start when the URL is
	// not written there: a reference link, an escaped destination).
	Col Column
	// Text is the link's own text as it renders, whitespace collapsed:
	// "Report" for [Report](url) or [Report][ref]. It is empty for bare
	// URLs, <autolinks> and definitions, which have none. Two links on one
	// line each have their own.
	Text string
}

// bareURL decides what a bare URL is. It follows cmark-gfm's url_match (the
// GFM reference implementation): the scheme matched case-insensitively, then
// everything up to whitespace or '<'; trailing punctuation is removed
// afterwards by trimBareURL. goldmark's default pattern is much narrower (an
// ASCII host with a lowercase TLD, a fixed path alphabet), so it drops
// https://Example.COM:443/x, https://bücher.de/straße, https://example.com/a*b
// and IPv6 hosts; the host is left for the WHATWG parser to judge instead.
// Unicode spaces end a URL too: a no-break space pasted after one is not
// part of it. The optional leading tab is explained at inlineParsers.
var bareURL = regexp.MustCompile(`^\t?(?i:https?)://[^\s\p{Z}<]+`)

// Sources returns every http(s) link inside the file's Sources sections, in
// document order.
//
// A Sources section is the run of top-level blocks after a heading (ATX of
// any level, or setext) whose text is exactly "Sources", up to the next
// heading of the same or a higher level; a deeper heading inside it
// ("### Papers" under "## Sources") groups its links and does not end it,
// and its own text is not a citation. The heading may carry a section
// number: "## 9. Sources", "## IV. Sources", "## 四、Sources" count. Every
// such section in the file counts. Links are inline, reference,
// <autolink> and bare URLs; links in code, raw HTML and images are not
// citations and are skipped. Destinations that are not absolute http(s)
// URLs are ignored. A URL repeated on one line is reported once; repeats
// on other lines are all reported.
//
// A link reference definition ("[1]: https://example.com/a") inside the
// section is a citation too, reported on the line of its "[", although it
// renders as nothing: agents write source lists that way. One outside the
// section counts only through the reference links inside it that use it.
// Either way a definition is a block, so one inside a code block, raw HTML
// or a code span is text and never counts.
//
// The work is bounded for any input (see limits): Sources returns a
// *LimitError for a file beyond a limit, and ctx.Err() once ctx is done,
// which it checks between bounded steps.
func Sources(ctx context.Context, src []byte) ([]Link, error) {
	return SourcesWith(ctx, src, SourcesOptions{})
}

// SourcesOptions widens what Sources reads.
type SourcesOptions struct {
	// Titles are further section titles that count as "Sources" does, for
	// teams whose agents title the list "References" or "Bibliography".
	// Each is compared with the heading exactly as "Sources" is: after
	// markup and a leading section number are removed and surrounding
	// white space trimmed, case and punctuation matter. Blank titles are
	// ignored.
	Titles []string
}

// SourcesWith is Sources with options; SourcesWith(ctx, src,
// SourcesOptions{}) is Sources(ctx, src).
func SourcesWith(ctx context.Context, src []byte, opt SourcesOptions) ([]Link, error) {
	links, _, err := meteredSources(ctx, src, newTitleSet(opt.Titles), &defaultLimits)
	return links, err
}

func sources(ctx context.Context, src []byte, lim *limits) ([]Link, error) {
	links, _, err := meteredSources(ctx, src, defaultTitles, lim)
	return links, err
}

// meteredSources is Sources with its titles and limits given and its work
// reported.
func meteredSources(ctx context.Context, src []byte, titles titleSet, lim *limits) ([]Link, meter, error) {
	x := &extractor{src: src, lim: lim, titles: titles}
	if bytes.Count(src, []byte{'\n'}) < lim.wholeLines {
		if cost := inlineCostBound(src); cost <= lim.exactBudget {
			x.exactSpent = cost
			if err := x.whole(ctx); err != nil {
				return nil, x.meter, err
			}
			return x.links, x.meter, nil
		}
	}
	refs, sections, err := outline(ctx, src, titles, lim, &x.meter)
	if err != nil {
		return nil, x.meter, err
	}
	x.refs = refs
	for _, s := range sections {
		if err := x.readSection(ctx, s); err != nil {
			return nil, x.meter, err
		}
	}
	if err := x.flush(ctx); err != nil {
		return nil, x.meter, err
	}
	return x.links, x.meter, nil
}

// whole is Sources for a small file whose inline work is bounded by the
// budget however it is spread: one parse of the whole document, with
// inline syntax, as CommonMark defines it. (The windowed path gives the same
// links; the tests hold both to this one.)
func (x *extractor) whole(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	doc, err := parseLimited(&x.meter, fullParser, x.src, newLimitedContext(x.lim), x.src, 0)
	if err != nil {
		return err
	}
	x.cur = x.src
	level := 0 // the open section's heading level; 0 outside one
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		if h, ok := n.(*ast.Heading); ok {
			if level > 0 && h.Level > level {
				continue // a sub-heading inside the section
			}
			level = 0
			if len(headingSource(h, x.src)) <= x.lim.maxHeadingBytes && x.titles.heading(h, x.src) {
				level = h.Level
			}
			continue
		}
		if level > 0 {
			x.block(n)
		}
	}
	return x.flush(ctx)
}

// renderedTitle is a heading's rendered text, so closing #s, setext
// underlines and inline markup around the words do not matter.
func renderedTitle(h *ast.Heading, src []byte) string {
	return string(bytes.TrimSpace(inlineText(h, src, inlineOpts{autoLinks: true})))
}

// inlineOpts are the ways the two heading readers differ.
type inlineOpts struct {
	spaceAfterText bool // a space after every text run (else a newline at soft breaks)
	skipCode       bool // leave code spans out
	autoLinks      bool // include autolinks' labels
}

// inlineText concatenates the text of n's inline nodes.
func inlineText(n ast.Node, src []byte, o inlineOpts) []byte {
	var out []byte
	_ = ast.Walk(n, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Text:
			out = append(out, n.Segment.Value(src)...)
			if o.spaceAfterText {
				out = append(out, ' ')
			} else if n.SoftLineBreak() {
				out = append(out, '\n')
			}
		case *ast.String:
			out = append(out, n.Value...)
		case *ast.CodeSpan:
			if o.skipCode {
				return ast.WalkSkipChildren, nil
			}
		case *ast.AutoLink:
			if o.autoLinks {
				out = append(out, n.Label(src)...)
			}
		}
		return ast.WalkContinue, nil
	})
	return out
}

type extractor struct {
	src    []byte
	lim    *limits
	titles titleSet
	refs   refStore

	// The parse being walked: its source, where that starts in src, and
	// whether it starts or ends at a cut inside a word (see pieces).
	cur            []byte
	base           int
	cutLo, cutHi   bool
	meter          meter
	exactSpent     int         // inline work spent on blocks parsed whole
	urlWork        int         // WHATWG parsing work spent
	sinceCheck     int         // bytes parsed in pieces since ctx was checked
	found          []candidate // of the parse being walked
	links          []Link
	seen           map[string]struct{} // URLs of the current line
	scanPos        int                 // the newline count of src[:scanPos] is scanLine
	scanLine       int
	lastLine       int // the line of the previous link and its text, shared
	lastText       string
	lastLineLinked bool
	lastStart      int // the offsets of lastLine's start and end in src
	lastEnd        int
	cols           columns
}

// candidate is a destination found in the AST, not yet canonicalized.
type candidate struct {
	pos  int // byte offset of the link in src
	raw  string
	kind Kind
	text string
}

func (x *extractor) block(b ast.Node) {
	_ = ast.Walk(b, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Image:
			// Alt text is a description, not a citation.
			return ast.WalkSkipChildren, nil
		case *ast.LinkReferenceDefinition:
			// goldmark leaves a definition in the tree, in place of the
			// start of the paragraph it was parsed from, at its '['.
			x.add(n, linkDestination(n.Destination), KindReference, "")
			return ast.WalkSkipChildren, nil
		case *ast.Link:
			kind := KindInline
			if n.Reference != nil {
				kind = KindReference
			}
			x.add(n, linkDestination(n.Destination), kind, linkText(n, x.cur))
			// CommonMark forbids links inside link text, and linkify does
			// not run there, so nothing below can be a citation.
			return ast.WalkSkipChildren, nil
		case *ast.AutoLink:
			// Email autolinks are not citations. A non-nil Protocol
			// marks a scheme-less "www." link, which we do not take.
			if n.AutoLinkType == ast.AutoLinkURL && n.Protocol == nil {
				x.autolink(n)
			}
		}
		return ast.WalkContinue, nil
	})
}

// autolink tells <url> from a bare URL by the node's position: goldmark puts
// a <url> autolink at its '<', while linkify's node starts at the URL or at
// the space, '*', '_', '~' or '(' that triggered it, never at a '<'.
func (x *extractor) autolink(n *ast.AutoLink) {
	raw := n.URL(x.cur)
	p := n.Pos()
	if p >= 0 && p < len(x.cur) && x.cur[p] == '<' {
		x.add(n, string(raw), KindAutolink, "")
		return
	}
	if x.cutLo || x.cutHi {
		// A bare URL that touches a cut inside a word is a fragment of a
		// longer one; reporting it would cite a URL nobody wrote.
		start := max(p, 0)
		if i := bytes.Index(x.cur[start:], raw); i >= 0 {
			start += i
		}
		if x.cutLo && start == 0 || x.cutHi && start+len(raw) >= len(x.cur) {
			return
		}
	}
	x.add(n, trimBareURL(string(bytes.TrimPrefix(raw, []byte{'\t'}))), KindBare, "")
}

// linkText renders a link's content as text: the words a reader sees, with
// markup dropped and white space collapsed.
func linkText(link ast.Node, src []byte) string {
	var b []byte
	_ = ast.Walk(link, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Text:
			b = append(b, n.Segment.Value(src)...)
			if n.SoftLineBreak() || n.HardLineBreak() {
				b = append(b, ' ')
			}
		case *ast.String:
			b = append(b, n.Value...)
		case *ast.RawHTML:
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	return strings.Join(strings.Fields(string(b)), " ")
}

// linkDestination undoes the escaping CommonMark allows in a destination, as
// goldmark's HTML renderer does before writing href.
func linkDestination(d []byte) string {
	d = util.UnescapePunctuations(d)
	d = util.ResolveNumericReferences(d)
	d = util.ResolveEntityNames(d)
	return string(d)
}

// trimBareURL removes trailing punctuation the way cmark-gfm's autolink_delim
// does. goldmark trims most of it already but stops at a ';' that does not
// end an entity and never trims quotes, so "https://example.com/trail).;:!?"
// would keep ").;".
func trimBareURL(u string) string {
	opening, closing := 0, 0
	for i := 0; i < len(u); i++ {
		switch u[i] {
		case '(':
			opening++
		case ')':
			closing++
		}
	}
	for len(u) > 0 {
		switch u[len(u)-1] {
		case '?', '!', '.', ',', ':', '*', '_', '~', '\'', '"':
			u = u[:len(u)-1]
		case ')':
			// Balanced parentheses stay: .../wiki/Foo_(bar).
			if closing <= opening {
				return u
			}
			closing--
			u = u[:len(u)-1]
		case ';':
			// "&amp;" and the like go as a whole; a lone ';' goes alone.
			j := len(u) - 2
			for j >= 0 && isAlnum(u[j]) {
				j--
			}
			if j >= 0 && j < len(u)-2 && u[j] == '&' {
				u = u[:j]
			} else {
				u = u[:len(u)-1]
			}
		default:
			return u
		}
	}
	return u
}

func isAlnum(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

func (x *extractor) add(n ast.Node, raw string, kind Kind, text string) {
	if x.found == nil {
		x.found = make([]candidate, 0, 32) // a typical Sources section in one allocation
	}
	x.found = append(x.found, candidate{x.base + nodePos(n), raw, kind, text})
}

// flush turns the candidates found so far into links. Every parse is flushed
// when walked, and parses come in document order, so links come out in
// document order while only one parse's candidates are held. Within a parse
// the walk visits them in that order already (goldmark puts a definition
// where its paragraph started); sorting by position is a guard, since which
// of two forms of one URL on a line is kept depends on it.
func (x *extractor) flush(ctx context.Context) error {
	byPos := func(a, b candidate) int { return a.pos - b.pos }
	if !slices.IsSortedFunc(x.found, byPos) {
		slices.SortStableFunc(x.found, byPos)
	}
	// Room for every candidate at once: grown one append at a time, the
	// links of a typical Sources section were copied five times over.
	x.links = slices.Grow(x.links, len(x.found))
	for i, c := range x.found {
		if i%1024 == 1023 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if err := x.emit(c); err != nil {
			return err
		}
	}
	x.found = x.found[:0]
	return nil
}

func (x *extractor) emit(c candidate) error {
	line := x.line(c.pos)
	u, ok := fastCanonical(c.raw)
	if !ok {
		x.urlWork += slowURLCost(c.raw)
		if x.urlWork > x.lim.urlBudget {
			return &LimitError{Line: line + 1, Reason: "too many long or unusual URLs: canonicalizing them would cost over " +
				strconv.Itoa(x.lim.urlBudget) + " units of WHATWG parsing"}
		}
		var err error
		if u, err = slowCanonical(c.raw); err != nil {
			return nil
		}
	}
	if !x.lastLineLinked || line != x.lastLine {
		x.lastStart, x.lastEnd = x.lineSpan(c.pos)
		x.lastLine, x.lastText, x.lastLineLinked = line, string(bytes.TrimSpace(x.src[x.lastStart:x.lastEnd])), true
		// Repeats are dropped per line, and lines come in order.
		if len(x.seen) > 64 {
			x.seen = nil
		}
		clear(x.seen)
	}
	if _, dup := x.seen[u]; dup {
		return nil
	}
	if x.seen == nil {
		x.seen = make(map[string]struct{})
	}
	x.seen[u] = struct{}{}
	// A URL written as it is canonical is also in its line: a slice of the
	// line's string holds it, and the candidate's own copy is garbage at
	// once (a run keeps every URL and every line until its artifacts are
	// written).
	if i := strings.Index(x.lastText, u); i >= 0 {
		u = x.lastText[i : i+len(u)]
	}
	col := x.cols.at(x.src, x.lastStart, urlOffset(x.src, min(max(c.pos, x.lastStart), x.lastEnd), x.lastEnd, c.raw))
	x.links = append(x.links, Link{URL: u, Line: line + 1, SourceLine: x.lastText, Kind: c.kind, Text: c.text, Col: col})
	return nil
}

// nodePos returns the byte offset of n in the source of its parse. goldmark
// gives every link and autolink a position; the walk up to a block is a
// guard against a future extension that creates one without.
func nodePos(n ast.Node) int {
	for ; n != nil; n = n.Parent() {
		if p := n.Pos(); p >= 0 {
			return p
		}
	}
	return 0
}

// line returns the 0-based line holding byte offset pos. Links are emitted
// in document order, so counting newlines from the previous one is linear in
// the file; a line table would cost a word per line of an 8 MiB file.
func (x *extractor) line(pos int) int {
	pos = min(max(pos, 0), len(x.src))
	if pos < x.scanPos {
		x.scanPos, x.scanLine = 0, 0
	}
	x.scanLine += bytes.Count(x.src[x.scanPos:pos], []byte{'\n'})
	x.scanPos = pos
	return x.scanLine
}

// lineSpan returns the offsets of the start and end (its "\n") of the line
// holding pos.
func (x *extractor) lineSpan(pos int) (start, end int) {
	start = lineBegin(x.src, pos)
	end = len(x.src)
	if i := bytes.IndexByte(x.src[start:], '\n'); i >= 0 {
		end = start + i
	}
	return start, end
}
