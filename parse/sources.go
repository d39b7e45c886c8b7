package parse

import (
	"bytes"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/text"
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
}

// bareURL decides what a bare URL is. It follows cmark-gfm's url_match (the
// GFM reference implementation): the scheme matched case-insensitively, then
// everything up to whitespace or '<'; trailing punctuation is removed
// afterwards by trimBareURL. goldmark's default pattern is much narrower (an
// ASCII host with a lowercase TLD, a fixed path alphabet), so it drops
// https://Example.COM:443/x, https://bücher.de/straße, https://example.com/a*b
// and IPv6 hosts; the host is left for the WHATWG parser to judge instead.
// Unicode spaces end a URL too: a no-break space pasted after one is not
// part of it. The optional leading tab is explained at markdown.
var bareURL = regexp.MustCompile(`^\t?(?i:https?)://[^\s\p{Z}<]+`)

// markdown is safe for concurrent use: each Parse gets its own context.
//
// goldmark's linkify runs its pattern only after a case-sensitive prefix
// check against the allowed protocols. The prefixes "h" and "H" hand the
// decision to bareURL, which is what makes HTTPS:// work. "\t" is there
// because linkify is triggered by a tab but skips only a space before the
// URL, so a URL after a tab would otherwise never be linked; the tab then
// ends up in the link's value and extractor.autolink strips it.
//
// Tables and strikethrough are on so that a table of sources or ~~struck~~
// text parse the way GitHub shows them. The task-list extension is left out:
// goldmark's takes "- [x](url)" for a checked box followed by text, which
// would turn an inline link into a bare one, and checkboxes carry no URLs.
var markdown = goldmark.New(goldmark.WithExtensions(
	extension.Table,
	extension.Strikethrough,
	extension.NewLinkify(
		extension.WithLinkifyAllowedProtocols([]string{"h", "H", "\t"}),
		extension.WithLinkifyURLRegexp(bareURL),
	),
))

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
func Sources(src []byte) []Link {
	return SourcesWith(src, SourcesOptions{})
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

// SourcesWith is Sources with options; SourcesWith(src, SourcesOptions{})
// is Sources(src).
func SourcesWith(src []byte, opt SourcesOptions) []Link {
	titles := map[string]bool{"Sources": true}
	for _, t := range opt.Titles {
		if t = strings.TrimSpace(t); t != "" {
			titles[t] = true
		}
	}
	doc := markdown.Parser().Parse(text.NewReader(src))
	x := extractor{src: src}
	level := 0 // the open section's heading level; 0 outside one
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		if h, ok := n.(*ast.Heading); ok {
			if level > 0 && h.Level > level {
				continue // a sub-heading inside the section
			}
			level = 0
			if titles[stripSectionNumber(renderedTitle(h, src))] {
				level = h.Level
			}
			continue
		}
		if level > 0 {
			x.block(n)
		}
	}
	x.finish()
	return x.links
}

// renderedTitle is a heading's rendered text, so closing #s, setext
// underlines and inline markup around the words do not matter.
func renderedTitle(h *ast.Heading, src []byte) string {
	var title []byte
	_ = ast.Walk(h, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Text:
			title = append(title, n.Segment.Value(src)...)
			if n.SoftLineBreak() {
				title = append(title, '\n')
			}
		case *ast.String:
			title = append(title, n.Value...)
		case *ast.AutoLink:
			title = append(title, n.Label(src)...)
		}
		return ast.WalkContinue, nil
	})
	return string(bytes.TrimSpace(title))
}

type extractor struct {
	src        []byte
	found      []candidate // in AST order
	lineStarts []int       // byte offset of each line; built on the first link
	links      []Link
	seen       map[lineURL]struct{}

	// The text of the line of the previous link, shared by every link on
	// that line: copying a long line once per link is quadratic.
	lastLine int
	lastText string
}

type lineURL struct {
	line int
	url  string
}

// candidate is a destination found in the AST, not yet canonicalized.
type candidate struct {
	pos  int // byte offset of the link in the source
	raw  string
	kind Kind
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
			x.add(n, linkDestination(n.Destination), KindReference)
			return ast.WalkSkipChildren, nil
		case *ast.Link:
			kind := KindInline
			if n.Reference != nil {
				kind = KindReference
			}
			x.add(n, linkDestination(n.Destination), kind)
			// CommonMark forbids links inside link text, and linkify
			// does not run there, so nothing below can be a citation.
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
	raw := n.URL(x.src)
	if p := n.Pos(); p >= 0 && p < len(x.src) && x.src[p] == '<' {
		x.add(n, string(raw), KindAutolink)
		return
	}
	x.add(n, trimBareURL(string(bytes.TrimPrefix(raw, []byte{'\t'}))), KindBare)
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

func (x *extractor) add(n ast.Node, raw string, kind Kind) {
	if x.found == nil {
		x.found = make([]candidate, 0, 32) // a typical Sources section in one allocation
	}
	x.found = append(x.found, candidate{nodePos(n), raw, kind})
}

// finish turns the candidates into links in document order. The walk
// visits them in that order already (goldmark puts a definition where its
// paragraph started); sorting by position is a guard, since which of two
// forms of one URL on a line is kept depends on it.
func (x *extractor) finish() {
	byPos := func(a, b candidate) int { return a.pos - b.pos }
	if !slices.IsSortedFunc(x.found, byPos) {
		slices.SortStableFunc(x.found, byPos)
	}
	for _, c := range x.found {
		x.emit(c)
	}
}

func (x *extractor) emit(c candidate) {
	u, err := Canonical(c.raw)
	if err != nil {
		return
	}
	line := x.line(c.pos)
	key := lineURL{line, u}
	if _, dup := x.seen[key]; dup {
		return
	}
	if x.seen == nil {
		x.seen = make(map[lineURL]struct{})
	}
	x.seen[key] = struct{}{}
	if len(x.links) == 0 || line != x.lastLine {
		x.lastLine, x.lastText = line, string(bytes.TrimSpace(x.lineText(line)))
	}
	x.links = append(x.links, Link{URL: u, Line: line + 1, SourceLine: x.lastText, Kind: c.kind})
}

// nodePos returns the byte offset of n in the source. goldmark gives every
// link and autolink a position; the walk up to a block is a guard against a
// future extension that creates one without.
func nodePos(n ast.Node) int {
	for ; n != nil; n = n.Parent() {
		if p := n.Pos(); p >= 0 {
			return p
		}
	}
	return 0
}

// line returns the 0-based index of the line holding byte offset pos.
func (x *extractor) line(pos int) int {
	if x.lineStarts == nil {
		x.lineStarts = []int{0}
		for i := 0; ; {
			j := bytes.IndexByte(x.src[i:], '\n')
			if j < 0 {
				break
			}
			i += j + 1
			x.lineStarts = append(x.lineStarts, i)
		}
	}
	return sort.SearchInts(x.lineStarts, pos+1) - 1
}

// lineText returns line i without its "\n".
func (x *extractor) lineText(i int) []byte {
	start, end := x.lineStarts[i], len(x.src)
	if i+1 < len(x.lineStarts) {
		end = x.lineStarts[i+1] - 1
	}
	return x.src[start:end]
}
