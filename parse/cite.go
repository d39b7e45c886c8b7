package parse

import (
	"bytes"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/citegate/citegate/parse/textkit"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	extast "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// CiteKind is how a citation was written.
type CiteKind string

const (
	// CiteURL is an http(s) URL: bare, <autolink>, or the destination of a
	// markdown link.
	CiteURL CiteKind = "url"
	// CiteDOI is a DOI written as such ("10.1038/…", "doi:10.1038/…") or as
	// a doi.org / dx.doi.org URL.
	CiteDOI CiteKind = "doi"
	// CiteNumbered is a bracketed reference number: [3], [1, 2], [4–6].
	CiteNumbered CiteKind = "numbered"
	// CiteAuthorYear is an author–year citation: (Smith, 2021),
	// (Smith et al., 2021; Jones & Lee, 2020), or Smith et al. (2021).
	CiteAuthorYear CiteKind = "author_year"
	// CiteFootnote is a markdown footnote reference: [^2].
	CiteFootnote CiteKind = "footnote"
)

// MaxClaim is the longest Claim Cite returns, in bytes.
const MaxClaim = 600

// Citation is one citation in an agent's output.
type Citation struct {
	// Raw is the text as written: "[3]", "(Smith et al., 2021)",
	// "https://…", "10.1038/…", "[^2]". It is always
	// input[OffsetStart:OffsetEnd].
	Raw string `json:"raw"`
	// Kind says how the citation was written.
	Kind CiteKind `json:"kind"`
	// Identifier names the cited work: for url the canonical URL (see
	// Canonical); for doi the bare DOI "10.xxxx/…", lower-cased since DOIs
	// are case-insensitive; for numbered the number ("3"); for author_year
	// the authors without "et al." and the year ("Smith 2021",
	// "Smith & Jones 2020"); for footnote the label ("2").
	Identifier string `json:"identifier"`
	// OffsetStart and OffsetEnd are the byte offsets of Raw in the input.
	OffsetStart int `json:"offset_start"`
	OffsetEnd   int `json:"offset_end"`
	// Claim is the text the citation is offered as support for: the
	// sentence holding it, plus the sentence before when the citation opens
	// its sentence or the sentence is very short. Citation markers and
	// markdown syntax are removed and whitespace collapsed; at most
	// MaxClaim bytes.
	Claim string `json:"claim"`
	// Target is where the citation points: for url and doi the Identifier;
	// for numbered, author_year and footnote the first URL or DOI of the
	// entry it resolves to in the document's own reference list or
	// footnotes, and "" when it does not resolve or the entry has neither.
	Target string `json:"target"`
	// TargetKind is CiteURL or CiteDOI when Target is set, else "".
	TargetKind CiteKind `json:"target_kind"`
}

// citeMarkdown is the parser Cite uses. It differs from markdown (see
// sources.go) in having no linkify: bare URLs and DOIs are found by Cite's
// own scanner, which also has to see them inside emphasis and across the
// text nodes goldmark splits prose into.
var citeMarkdown = goldmark.New(goldmark.WithExtensions(
	extension.Table,
	extension.Strikethrough,
))

// Cite extracts the citations in an agent's output, in document order.
//
// It finds bare URLs, <autolinks> and markdown links (kind url, or doi for
// doi.org links), DOIs in text, bracketed reference numbers, footnote
// references, and author–year citations. Code blocks, code spans, raw HTML
// and images are not prose and are skipped.
//
// The document's own bibliography is used to resolve numbered, author–year
// and footnote citations to a URL or DOI (Target). A bibliography is:
//
//   - a section under a heading (any level) titled as a reference list in
//     English, German, French, Spanish, Portuguese, Italian, Russian,
//     Chinese, Japanese or Korean: Sources, References, Bibliography, Works
//     Cited, Citations, Further Reading, Quellenangaben, Références,
//     Fuentes, Referências, Fonti, Источники, 参考文献, 来源, 引用文献, 出典
//     and many more (see isRefTitle). Case, accents, markup, a section
//     number ("## 9. Sources", "## 四、来源列表"), a trailing colon
//     (full-width too) and a trailing parenthetical ("(APA 7th Edition)")
//     do not matter. It runs to the next heading of the same or a higher
//     level; deeper headings inside it group entries. A thematic break ends
//     it when the block after the break is neither a deeper heading nor an
//     entry (a footer such as "*Report compiled by …*");
//   - a title line written as a label ("**Sources:**", "参考文献：",
//     "References:" inside a paragraph), covering the rest of its paragraph
//     and the entry-like blocks right after it, up to the next heading or
//     thematic break;
//   - a top-level list or paragraph every entry of which starts with "[N]",
//     most of them carrying a URL or DOI (the Perplexity-style tail), or a
//     run of such paragraphs each followed by a paragraph holding only its
//     URL (docx exports: "[1] [4] academic.oup.com", then the URL);
//   - "[N] …" lines ending the document's last paragraph (STORM);
//   - footnote definitions "[^id]: …" and link reference definitions
//     "[N]: https://…", wherever they are.
//
// Entries are list items, table rows, definitions, or lines of a
// paragraph. An entry's number is its ordered-list marker or a leading
// "[N]", "N.", "N\." or "(N)"; an entry starting "[1] [4] [8]" has all
// three numbers. Its target is its first URL or DOI. A number is looked up
// in the nearest bibliography after the citation, then in the
// nearest one before it, so documents whose parts each restart numbering
// resolve part by part. An author–year citation resolves to the entry that
// contains the first author's name and the year, preferring the name before
// the year, the exact year suffix (2021a) and the other authors' names.
//
// Citations inside a bibliography are the bibliography, not claims, and are
// not returned.
//
// Each written citation is reported once per cited work: [1, 3–5] gives
// four numbered citations, [^3,^4] two footnote ones and (Smith, 2020;
// Lee, 2021) two author–year ones, each with the whole marker as Raw and
// the same offsets; a number or label repeated inside one marker counts
// once. Occurrences at different offsets
// are never merged, so a URL cited in two sentences gives two citations.
//
// Author–year citations are heuristic. A parenthetical needs a comma before
// the year, "et al." or two authors; a comma-less one ("(Smith 2020)") or a
// narrative one without "et al." ("Smith (2020)") is kept only when it
// resolves through the reference list, which keeps dates such as
// "(March 2024)" and "Python (2020)" out.
//
// Cite never panics, and is linear in the input apart from the markdown
// parse.
func Cite(src []byte) []Citation {
	return runCite(src).out
}

// runCite runs Cite and keeps its state, for tests that look at the reference
// lists it found.
func runCite(src []byte) *citer {
	doc := citeMarkdown.Parser().Parse(text.NewReader(src))
	c := &citer{src: src, skip: map[ast.Node]bool{}}
	prose := c.classify(doc)
	for _, l := range c.lists {
		c.bareNumbers = c.bareNumbers || len(l.byNum) > 0
	}
	for _, n := range prose {
		c.leadIn = ""
		if _, ok := n.(*ast.List); ok && strings.HasSuffix(c.lastSentence, ":") {
			c.leadIn = c.lastSentence
		}
		c.prose(n)
	}
	slices.SortStableFunc(c.out, func(a, b Citation) int { return a.OffsetStart - b.OffsetStart })
	return c
}

type citer struct {
	src       []byte
	lists     []*refList         // in document order
	numLists  map[int][]*refList // lists holding each number, built on first use
	ayMemo    map[ayKey]*refEntry
	footnotes map[string]*refEntry
	skip      map[ast.Node]bool // definitions found inside prose blocks
	cut       map[ast.Node]int  // paragraphs whose prose ends early: a reference list follows in them
	// runScanned counts the blocks markerRun looked at, so that a test can
	// hold it to linear work.
	runScanned int
	out        []Citation

	// Scratch space and caches shared by the blocks of one Cite call.
	rawBuf, tidyBuf, punctBuf []byte
	marks                     map[int]int
	urlCache                  map[string]classified
	authorCache               map[string]parsedAuthors
	candBuf                   []cand

	lastSentence string // last sentence of the previous prose block
	inRow        bool   // scanning the cells of a table row
	rowPending   []int  // indexes into out of citations alone in their cell
	leadIn       string // the sentence ending in ':' that introduces this list
	bareNumbers  bool   // a numbered reference list exists, so bare numbers may cite it (baremarks.go)
}

// ---------------------------------------------------------------------------
// Resolution

const maxRefNumber = 999

// resolveNum finds entry n in the nearest list after pos, else the nearest
// before it, else a footnote labelled n.
func (c *citer) resolveNum(n, pos int) *refEntry {
	if c.numLists == nil {
		c.numLists = map[int][]*refList{}
		for _, l := range c.lists {
			for k := range l.byNum {
				c.numLists[k] = append(c.numLists[k], l)
			}
		}
	}
	if ls := c.numLists[n]; len(ls) > 0 {
		i := sort.Search(len(ls), func(k int) bool { return ls[k].pos > pos })
		if i == len(ls) {
			i--
		}
		return ls[i].byNum[n]
	}
	return c.footnotes[strconv.Itoa(n)]
}

func (c *citer) resolveFootnote(id string, pos int) *refEntry {
	if e := c.footnotes[strings.ToLower(id)]; e != nil {
		return e
	}
	if n, err := strconv.Atoi(id); err == nil && n > 0 && n <= maxRefNumber {
		return c.resolveNum(n, pos)
	}
	return nil
}

// ayKey identifies an author–year lookup: the same citation between the
// same two lists always resolves the same way.
type ayKey struct {
	ident string
	weak  bool
	gap   int // number of lists at or before the citation
}

// resolveAuthorYear finds the entry an author–year citation names, in the
// nearest list after pos that has one, else the nearest before it.
func (c *citer) resolveAuthorYear(ident string, r *ayRef, pos int) *refEntry {
	gap := sort.Search(len(c.lists), func(k int) bool { return c.lists[k].pos > pos })
	key := ayKey{ident, r.weak, gap}
	if e, hit := c.ayMemo[key]; hit {
		return e
	}
	var found *refEntry
	for _, l := range c.lists[gap:] {
		if found = c.matchAuthorYear(l, r); found != nil {
			break
		}
	}
	for i := gap - 1; i >= 0 && found == nil; i-- {
		found = c.matchAuthorYear(c.lists[i], r)
	}
	if c.ayMemo == nil {
		c.ayMemo = map[ayKey]*refEntry{}
	}
	c.ayMemo[key] = found
	return found
}

func (c *citer) index(l *refList) {
	if l.indexed {
		return
	}
	l.indexed = true
	l.byYear = map[string][]*refEntry{}
	for _, e := range l.entries {
		c.tokenize(e)
		seen := map[string]bool{}
		for y := range e.years {
			if len(y) >= 4 && !seen[y[:4]] {
				seen[y[:4]] = true
				l.byYear[y[:4]] = append(l.byYear[y[:4]], e)
			}
		}
		if e.nd >= 0 {
			l.nd = append(l.nd, e)
		}
	}
	// Map iteration above is unordered; keep entries in document order.
	for y, es := range l.byYear {
		slices.SortFunc(es, func(a, b *refEntry) int { return a.start - b.start })
		l.byYear[y] = es
	}
}

// tokenize splits an entry into folded words, leaving its URLs and DOIs out
// (their digits look like years).
func (c *citer) tokenize(e *refEntry) {
	var s scanner
	s.src = c.src
	s.urls(e.start, e.end, -1)
	s.dois(e.start, e.end, -1, 0)
	slices.SortFunc(s.cands, func(a, b cand) int { return a.start - b.start })
	var buf []byte
	pos := e.start
	for _, cd := range s.cands {
		if cd.start < pos {
			continue
		}
		buf = append(buf, c.src[pos:cd.start]...)
		buf = append(buf, ' ')
		pos = cd.end
	}
	buf = append(buf, c.src[pos:e.end]...)
	lower := bytes.ToLower(buf)
	e.tokens = words(string(buf))
	e.years = map[string]int{}
	for i, t := range e.tokens {
		if isYearToken(t) {
			if _, ok := e.years[t]; !ok {
				e.years[t] = i
			}
			if _, ok := e.years[t[:4]]; !ok {
				e.years[t[:4]] = i
			}
		}
	}
	if k := bytes.Index(lower, []byte("n.d")); k >= 0 {
		e.nd = len(words(string(buf[:k])))
	}
}

func (c *citer) matchAuthorYear(l *refList, r *ayRef) *refEntry {
	c.index(l)
	var cands []*refEntry
	if r.year == "n.d." {
		cands = l.nd
	} else if len(r.year) >= 4 {
		cands = l.byYear[r.year[:4]]
	}
	var best *refEntry
	bestScore, bestPos := -1, 0
	for _, e := range cands {
		yi := e.nd
		if r.year != "n.d." {
			yi = e.years[r.year[:4]]
		}
		pos := firstAuthorPos(e.tokens, r.first)
		if pos < 0 {
			continue
		}
		score := 0
		if pos < yi {
			score += 4
		} else if r.weak {
			continue
		}
		if r.year != "n.d." && len(r.year) > 4 {
			if _, ok := e.years[r.year]; ok {
				score += 2
			}
		}
		for _, o := range r.others {
			if slices.Contains(e.tokens, o) {
				score++
			}
		}
		if score > bestScore || score == bestScore && pos < bestPos {
			best, bestScore, bestPos = e, score, pos
		}
	}
	return best
}

// firstAuthorPos returns the index of the first author's first word in
// tokens when all the author's words occur there, else -1.
func firstAuthorPos(tokens, author []string) int {
	if len(author) == 0 {
		return -1
	}
	pos := -1
	for k, w := range author {
		i := slices.Index(tokens, w)
		if i < 0 {
			return -1
		}
		if k == 0 {
			pos = i
		}
	}
	return pos
}

// ---------------------------------------------------------------------------
// Prose

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
	ay         *ayRef // author–year only
	num        int    // numbered only
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
				}
				if e != nil {
					r.target, r.targetKind = e.target, e.targetKind
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

// ---------------------------------------------------------------------------
// Sentences and claims

// sentences splits the block into sentences. A sentence ends at '.', '!' or
// '?' (or their CJK forms), after any closing quotes and brackets, when
// whitespace or a citation follows and the next word does not start in
// lower case; a '.' after an abbreviation or an initial does not count.
// Citations right after the end ("… rose.[1] Next") belong to the sentence
// before them.
func (b *blockScan) sentences(bs, be int) {
	src := b.c.src
	b.starts = []int{bs}
	opaque := make([]span, 0, len(b.holes)+len(b.cands))
	opaque = append(opaque, b.holes...)
	if b.c.marks == nil {
		b.c.marks = map[int]int{}
	}
	marks := b.c.marks
	clear(marks)
	for _, cd := range b.cands {
		opaque = append(opaque, span{cd.start, cd.end}, cd.mark)
		if cd.attach {
			marks[cd.mark.start] = max(marks[cd.mark.start], cd.mark.end)
			if cd.start != cd.mark.start {
				marks[cd.start] = max(marks[cd.start], cd.end)
			}
		}
	}
	opaque = mergeSpans(opaque)
	oi, pos := 0, bs
	for _, seg := range b.segs {
		for i := max(seg.Start, pos); i < seg.Stop; {
			for oi < len(opaque) && opaque[oi].end <= i {
				oi++
			}
			if oi < len(opaque) && opaque[oi].start <= i {
				i = opaque[oi].end
				continue
			}
			tl := terminatorLen(src, i)
			if tl == 0 {
				i++
				continue
			}
			if end, ok := b.boundary(i, tl, be, marks); ok {
				if end > b.starts[len(b.starts)-1] && end < be {
					b.starts = append(b.starts, end)
				}
				i = max(end, i+tl)
				continue
			}
			i += tl
		}
		pos = max(pos, seg.Stop)
	}
}

func terminatorLen(src []byte, i int) int { return textkit.TerminatorLen(src, i) }

// boundary is textkit's sentence rule over the block, with the citations
// that follow a full stop ("… rose.[1] Next") kept in the sentence before.
func (b *blockScan) boundary(i, tl, be int, marks map[int]int) (int, bool) {
	return textkit.SentenceEnd(b.c.src, i, tl, be, func(j int) (int, bool) {
		m, ok := marks[j]
		return m, ok
	})
}

func isSpaceByte(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

// A sentence shorter than shortClaim runes or shortWords words gets the one
// before it as context.
const (
	shortClaim = 25
	shortWords = 4
)

// sentence is what claim needs to know about one sentence, worked out once
// however many citations it holds.
type sentence struct {
	done      bool
	text      string // cleaned
	short     bool
	firstWord int // offset of its first letter or digit outside drops, or -1
}

func (b *blockScan) sentence(si, be int) *sentence {
	if b.sents == nil {
		b.sents = make([]sentence, len(b.starts))
	}
	st := &b.sents[si]
	if st.done {
		return st
	}
	s, e := b.starts[si], be
	if si+1 < len(b.starts) {
		e = b.starts[si+1]
	}
	st.done = true
	st.text = b.clean(s, e)
	st.short = utf8.RuneCountInString(st.text) < shortClaim || countWords(st.text) < shortWords
	st.firstWord = b.firstWord(s, e)
	return st
}

func countWords(t string) int {
	n, in := 0, false
	for i := 0; i < len(t); i++ {
		if t[i] == ' ' {
			in = false
		} else if !in {
			in = true
			n++
		}
	}
	return n
}

// claim builds the claim for one candidate.
func (b *blockScan) claim(cd cand, be int) string {
	at := min(cd.mark.start, cd.start)
	if cd.kind == CiteAuthorYear && cd.drop.start > cd.start {
		at = cd.drop.start // narrative: the authors are part of the sentence
	}
	si := max(0, sort.SearchInts(b.starts, at+1)-1)
	st := b.sentence(si, be)
	t := st.text
	opens := st.firstWord < 0 || st.firstWord >= at
	if opens || st.short {
		var prev string
		if si > 0 {
			prev = b.sentence(si-1, be).text
		} else if t == "" && !b.c.inRow {
			// A block with no words of its own (a table cell, a list of
			// bare links) takes the previous block's last sentence.
			prev = b.c.lastSentence
		} else if st.short {
			// A short list item takes the list's lead-in ("Key findings:").
			prev = b.c.leadIn
		}
		if prev != "" {
			joined := prev
			if t != "" {
				joined = prev + " " + t
			}
			if len(joined) <= MaxClaim || t == "" {
				t = joined
			}
		}
	}
	if len(t) > MaxClaim {
		// Keep the words just before the citation; a window of raw text a
		// few times MaxClaim long is plenty and keeps this linear.
		from := max(b.starts[si], at-4*MaxClaim)
		for from < at && !utf8.RuneStart(b.c.src[from]) {
			from++
		}
		if head := b.clean(from, cd.end); len(head) > MaxClaim {
			t = tailClaim(head)
		} else {
			t = truncateClaim(t)
		}
	}
	return t
}

// truncateClaim cuts t to at most MaxClaim bytes, at a word boundary when one
// is near.
func truncateClaim(t string) string {
	if len(t) <= MaxClaim {
		return t
	}
	cut := MaxClaim
	for cut > 0 && !utf8.RuneStart(t[cut]) {
		cut--
	}
	if sp := strings.LastIndexByte(t[:cut], ' '); sp > MaxClaim-80 {
		cut = sp
	}
	return strings.TrimSpace(t[:cut])
}

// tailClaim keeps the last MaxClaim bytes of t, the words closest to the
// citation.
func tailClaim(t string) string {
	if len(t) <= MaxClaim {
		return t
	}
	cut := len(t) - MaxClaim
	for cut < len(t) && !utf8.RuneStart(t[cut]) {
		cut++
	}
	if sp := strings.IndexByte(t[cut:], ' '); sp >= 0 && sp < 80 {
		cut += sp + 1
	}
	return strings.TrimSpace(t[cut:])
}

// clean renders src[from:to] of the block as claim text: line prefixes,
// drops and markdown punctuation removed, whitespace collapsed.
func (b *blockScan) clean(from, to int) string {
	key := span{from, to}
	if t, ok := b.memo[key]; ok {
		return t
	}
	src := b.c.src
	buf := b.c.rawBuf[:0]
	di := sort.Search(len(b.drops), func(k int) bool { return b.drops[k].end > from })
	for _, seg := range b.segs {
		a, z := max(seg.Start, from), min(seg.Stop, to)
		if a >= z {
			continue
		}
		buf = append(buf, ' ')
		for i := a; i < z; {
			for di < len(b.drops) && b.drops[di].end <= i {
				di++
			}
			if di < len(b.drops) && b.drops[di].start <= i {
				i = b.drops[di].end
				continue
			}
			next := z
			if di < len(b.drops) && b.drops[di].start < next {
				next = b.drops[di].start
			}
			buf = append(buf, src[i:next]...)
			i = next
		}
	}
	b.c.rawBuf = buf
	t := b.c.tidy(buf)
	if b.memo == nil {
		b.memo = map[span]string{}
	}
	b.memo[key] = t
	return t
}

// tidy removes emphasis and code markers and escapes, collapses whitespace
// and cleans up what removing citations leaves: "rose [1]." becomes
// "rose.", "(see https://…)" disappears, "et al. (2021)." ends in one dot.
func tidy(buf []byte) string {
	var c citer
	return c.tidy(buf)
}

func (c *citer) tidy(buf []byte) string {
	out := c.tidyBuf[:0]
	space := false
	prevWord := false
	for i := 0; i < len(buf); {
		ch := buf[i]
		if ch < 0x80 && !tidySpecial[ch] && !space {
			out = append(out, ch)
			prevWord = isAlnum(ch)
			i++
			continue
		}
		if ch < 0x80 {
			switch {
			case ch == '*' || ch == '`':
				i++
				continue
			case ch == '~' && i+1 < len(buf) && buf[i+1] == '~':
				i += 2
				continue
			case ch == '_':
				next, _ := utf8.DecodeRune(buf[min(i+1, len(buf)):])
				if !prevWord || !(unicode.IsLetter(next) || unicode.IsDigit(next)) {
					i++
					continue
				}
			case ch == '\\' && i+1 < len(buf) && buf[i+1] < 0x80 && unicode.IsPunct(rune(buf[i+1])):
				i++
				continue
			case ch <= ' ' || ch == 0x7f:
				space = true
				prevWord = false
				i++
				continue
			}
			if space && len(out) > 0 {
				out = append(out, ' ')
			}
			space = false
			out = append(out, ch)
			prevWord = isAlnum(ch)
			i++
			continue
		}
		r, n := utf8.DecodeRune(buf[i:])
		if unicode.IsSpace(r) {
			space = true
			prevWord = false
			i += n
			continue
		}
		if space && len(out) > 0 {
			out = append(out, ' ')
		}
		space = false
		out = append(out, buf[i:i+n]...)
		prevWord = unicode.IsLetter(r) || unicode.IsDigit(r)
		i += n
	}
	c.tidyBuf = out
	for range 3 {
		next, changed := punctuate(c.punctBuf[:0], out)
		c.punctBuf, out = out, next
		if !changed {
			break
		}
	}
	c.tidyBuf, c.punctBuf = out[:0], c.punctBuf[:0]
	t := bytes.TrimRight(bytes.TrimLeft(out, " ,;:.)]"), " ,;")
	if utf8.Valid(t) {
		return string(t)
	}
	return strings.ToValidUTF8(string(t), "\uFFFD")
}

// punctuate makes one pass of tidy's punctuation fixes over single-spaced
// text: no space before ",.;:!?)]" or after "([", no empty "()" or "[]",
// no ".." that is not an ellipsis.
//
// It reports whether another pass may find more: only removing brackets
// can make new neighbours that a rule applies to.
func punctuate(out, in []byte) ([]byte, bool) {
	changed := false
	parens, brackets := 0, 0
	for i := 0; i < len(in); i++ {
		c := in[i]
		if !punctSpecial[c] {
			out = append(out, c)
			continue
		}
		var next byte
		if i+1 < len(in) {
			next = in[i+1]
		}
		switch {
		case c == ')' && parens > 0 && fillerAside(out):
			// "(see https://…)" lost its URL: drop "(see)" whole.
			out = bytes.TrimRight(out[:bytes.LastIndexByte(out, '(')], " ")
			parens--
			changed = true
			continue
		case c == ')' && parens == 0 || c == ']' && brackets == 0:
			// Left over from a URL that swallowed its opening bracket.
			changed = true
			continue
		case (c == ')' || c == ']') && len(out) > 0 && strings.IndexByte(",;:", out[len(out)-1]) >= 0:
			out = out[:len(out)-1] // "(headache, irritability; [1])"
			i--
			changed = true
			continue
		case c == ' ' && (next != 0 && strings.IndexByte(",.;:!?)]", next) >= 0 || len(out) == 0 || out[len(out)-1] == ' '):
			continue
		case (c == '(' || c == '[') && next == ' ':
			out = append(out, c)
			i++
			continue
		case c == '(' && next == ')' || c == '[' && next == ']':
			i++
			changed = true
			continue
		case c == '.' && len(out) > 0 && out[len(out)-1] == '.' && next != '.' &&
			(len(out) < 2 || out[len(out)-2] != '.'):
			continue
		}
		switch c {
		case '(':
			parens++
		case ')':
			parens--
		case '[':
			brackets++
		case ']':
			brackets--
		}
		out = append(out, c)
	}
	for len(out) > 0 && out[len(out)-1] == ' ' {
		out = out[:len(out)-1]
	}
	return out, changed
}

// punctSpecial marks the bytes punctuate looks at; the rest are copied.
var punctSpecial = [256]bool{'(': true, ')': true, '[': true, ']': true, ' ': true, '.': true}

// tidySpecial marks the ASCII bytes tidy does more with than copy.
var tidySpecial = func() (t [128]bool) {
	for c := 0; c <= ' '; c++ {
		t[c] = true
	}
	for _, c := range "*`~_\\\x7f" {
		t[c] = true
	}
	return t
}()

// fillerAside reports whether the text after the last '(' in out is only a
// word that introduces a citation, such as "see" or "e.g.".
func fillerAside(out []byte) bool {
	k := bytes.LastIndexByte(out, '(')
	if k < 0 || len(out)-k > 16 {
		return false
	}
	switch strings.ToLower(strings.TrimSpace(strings.TrimRight(string(out[k+1:]), " ,;:"))) {
	case "", "see", "see also", "e.g.", "e.g", "eg", "cf.", "cf", "via", "source", "sources", "ref", "refs", "ibid", "ibid.", "from", "in":
		return true
	}
	return false
}

// firstWord returns the offset of the first letter or digit in
// src[from:to] of the block outside drops, or -1.
func (b *blockScan) firstWord(from, to int) int {
	src := b.c.src
	di := sort.Search(len(b.drops), func(k int) bool { return b.drops[k].end > from })
	for _, seg := range b.segs {
		a, z := max(seg.Start, from), min(seg.Stop, to)
		for i := a; i < z; {
			for di < len(b.drops) && b.drops[di].end <= i {
				di++
			}
			if di < len(b.drops) && b.drops[di].start <= i {
				i = b.drops[di].end
				continue
			}
			r, n := utf8.DecodeRune(src[i:z])
			if unicode.IsLetter(r) || unicode.IsDigit(r) {
				return i
			}
			i += n
		}
	}
	return -1
}

// ---------------------------------------------------------------------------
// Text scanning

// scanner finds citation candidates in plain runs of source text.
type scanner struct {
	src   []byte
	cands []cand
	c     *citer // for its caches; nil in one-off scans
}

type classified struct {
	ident string
	kind  CiteKind
	ok    bool
}

// classify is classifyURL through the per-call cache: agents cite the same
// URL many times.
func (s *scanner) classify(raw string) (string, CiteKind, bool) {
	if s.c == nil {
		return classifyURL(raw)
	}
	if r, hit := s.c.urlCache[raw]; hit {
		return r.ident, r.kind, r.ok
	}
	ident, kind, ok := classifyURL(raw)
	if s.c.urlCache == nil {
		s.c.urlCache = map[string]classified{}
	}
	s.c.urlCache[raw] = classified{ident, kind, ok}
	return ident, kind, ok
}

// text scans src[a:z], a run with no code, HTML or links in it.
func (s *scanner) text(a, z int) {
	if a >= z {
		return
	}
	n := len(s.cands)
	s.urls(a, z, -1)
	s.dois(a, z, -1, n)
	s.brackets(a, z)
	s.parens(a, z)
	if s.c != nil && s.c.bareNumbers {
		s.bareNumbers(a, z)
	}
}

// urls finds http(s) URLs, up to limit of them (-1 for all).
func (s *scanner) urls(a, z, limit int) {
	src := s.src
	for i := a; i+7 <= z && limit != 0; i++ {
		if src[i] != 'h' && src[i] != 'H' {
			continue
		}
		if i > 0 && isAlnum(src[i-1]) {
			continue
		}
		var scheme int
		switch {
		case hasPrefixFoldBytes(src[i:z], "https://"):
			scheme = 8
		case hasPrefixFoldBytes(src[i:z], "http://"):
			scheme = 7
		default:
			continue
		}
		end := scanToken(src, i+scheme, z)
		raw := trimCiteTail(string(src[i:end]))
		if len(raw) <= scheme {
			i = end - 1
			continue
		}
		// In markdown text "\_" is "_": exports escape the URLs they
		// write out ("…/Horizontal\_gene\_transfer"), and the URL parser
		// would read the backslash as a "/".
		ident, kind, ok := s.classify(string(util.UnescapePunctuations([]byte(raw))))
		if !ok {
			i = end - 1 // no URL starts later in the same token either
			continue
		}
		e := i + len(raw)
		s.cands = append(s.cands, cand{
			start: i, end: e, kind: kind,
			refs: []ref{{ident: ident, target: ident, targetKind: kind}},
			mark: span{i, e}, drop: span{i, e}, prio: 7, attach: true, preset: true,
		})
		limit--
		i = e - 1
	}
}

// scanToken returns where a URL or DOI starting at i ends: at whitespace,
// '<', '>', '`', a markdown "](" or ")[" (the end of a link destination
// glued to the next link, "[\[1\]](https://…)[\[2\]](…)") or CJK
// punctuation.
func scanToken(src []byte, i, z int) int {
	depth := 0
	for i < z {
		c := src[i]
		switch {
		case c <= ' ' || c == '<' || c == '>' || c == '`' || c == 0x7f:
			return i
		case c == ']' && i+1 < z && src[i+1] == '(':
			return i
		case c == '(':
			depth++
		case c == ')':
			if depth == 0 && i+1 < z && src[i+1] == '[' {
				return i
			}
			depth = max(depth-1, 0)
		case c >= 0x80:
			r, n := utf8.DecodeRune(src[i:z])
			if unicode.IsSpace(r) || unicode.Is(unicode.Z, r) || strings.ContainsRune("。，、；：！？）】」』《》", r) {
				return i
			}
			i += n
			continue
		}
		i++
	}
	return z
}

// trimCiteTail removes trailing punctuation as GFM does, and also an
// unbalanced ']' (a URL at the end of a bracketed aside).
func trimCiteTail(u string) string {
	for {
		v := trimBareURL(u)
		if strings.HasSuffix(v, "]") {
			excess := strings.Count(v, "]") - strings.Count(v, "[")
			for excess > 0 && strings.HasSuffix(v, "]") {
				v = v[:len(v)-1]
				excess--
			}
		}
		if v == u {
			return v
		}
		u = v
	}
}

// classifyURL canonicalizes an http(s) URL; a doi.org URL is a DOI.
func classifyURL(raw string) (string, CiteKind, bool) {
	raw = strings.TrimSpace(raw)
	if !hasPrefixFold(raw, "http://") && !hasPrefixFold(raw, "https://") {
		return "", "", false
	}
	u, err := Canonical(raw)
	if err != nil {
		return "", "", false
	}
	if d := doiFromURL(u); d != "" {
		return d, CiteDOI, true
	}
	return u, CiteURL, true
}

func doiFromURL(u string) string {
	var rest string
	for _, p := range []string{"https://doi.org/", "http://doi.org/", "https://dx.doi.org/",
		"http://dx.doi.org/", "https://www.doi.org/", "http://www.doi.org/"} {
		if r, ok := strings.CutPrefix(u, p); ok {
			rest = r
			break
		}
	}
	if rest == "" {
		return ""
	}
	if k := strings.IndexAny(rest, "?#"); k >= 0 {
		rest = rest[:k]
	}
	if d, err := url.PathUnescape(rest); err == nil {
		rest = d
	}
	if !isDOI(rest) {
		return ""
	}
	return strings.ToLower(rest)
}

// isDOI checks the DOI shape: "10.", a 4–9 digit registrant (optionally
// with ".sub" parts), "/", a non-empty suffix.
func isDOI(s string) bool {
	n := doiPrefixLen(s)
	return n > 0 && n < len(s)
}

// doiPrefixLen returns the length of "10.NNNN/" at the start of s, or 0.
func doiPrefixLen(s string) int {
	if !strings.HasPrefix(s, "10.") {
		return 0
	}
	i, digits := 3, 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
		digits++
	}
	if digits < 4 || digits > 9 {
		return 0
	}
	for i < len(s) && s[i] == '.' { // 10.1000.10/…
		j := i + 1
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		if j == i+1 {
			return 0
		}
		i = j
	}
	if i >= len(s) || s[i] != '/' {
		return 0
	}
	return i + 1
}

// dois finds DOIs in text, up to limit of them (-1 for all), skipping those
// inside URLs already found.
func (s *scanner) dois(a, z, limit, firstURL int) {
	src := s.src
	urls, u := len(s.cands), firstURL
	for i := a; i+8 <= z && limit != 0; {
		k := bytes.Index(src[i:z], []byte("10."))
		if k < 0 {
			return
		}
		i += k
		if i > 0 {
			if p := src[i-1]; isAlnum(p) || p == '.' || p == '-' || p == '_' {
				i += 3
				continue
			}
		}
		for u < urls && s.cands[u].end <= i {
			u++
		}
		if u < urls && s.cands[u].start <= i {
			i = s.cands[u].end // inside a URL
			continue
		}
		if doiPrefixLen(string(src[i:min(z, i+24)])) == 0 {
			i += 3
			continue
		}
		end := scanToken(src, i, z)
		raw := trimCiteTail(string(src[i:end]))
		if !isDOI(raw) {
			i = end
			continue
		}
		e := i + len(raw)
		drop := span{i, e}
		drop.start = doiLabelStart(src, a, i)
		id := strings.ToLower(raw)
		s.cands = append(s.cands, cand{
			start: i, end: e, kind: CiteDOI,
			refs: []ref{{ident: id, target: id, targetKind: CiteDOI}},
			mark: span{drop.start, e}, drop: drop, prio: 6, attach: true, preset: true,
		})
		limit--
		i = e
	}
}

// doiLabelStart extends a DOI at i back over a "doi:" or "DOI " label.
func doiLabelStart(src []byte, a, i int) int {
	j := i
	for j > a && (src[j-1] == ' ' || src[j-1] == '\t') {
		j--
	}
	if j > a && src[j-1] == ':' {
		j--
	}
	if j-3 >= a && strings.EqualFold(string(src[j-3:j]), "doi") && (j-3 == a || !isAlnum(src[j-4])) {
		return j - 3
	}
	return i
}

// brackets finds [N] groups and [^id] footnote references.
func (s *scanner) brackets(a, z int) {
	src := s.src
	for i := a; i < z; i++ {
		if src[i] != '[' {
			continue
		}
		if i > 0 && (src[i-1] == '\\' || src[i-1] == '!') {
			continue
		}
		k := bytes.IndexByte(src[i+1:min(z, i+1+80)], ']')
		if k < 0 {
			continue
		}
		cl := i + 1 + k
		inner := src[i+1 : cl]
		if bytes.IndexByte(inner, '[') >= 0 || bytes.IndexByte(inner, '\n') >= 0 {
			continue
		}
		next := byte(0)
		if cl+1 < z {
			next = src[cl+1]
		}
		whole := span{i, cl + 1}
		if len(inner) > 1 && inner[0] == '^' {
			if next == ':' {
				continue // a definition
			}
			ids := footnoteLabels(string(inner))
			if len(ids) == 0 {
				continue
			}
			cd := cand{start: i, end: cl + 1, kind: CiteFootnote, mark: whole, drop: whole, prio: 5, attach: true}
			for _, id := range ids {
				cd.refs = append(cd.refs, ref{ident: id})
			}
			s.cands = append(s.cands, cd)
			i = cl
			continue
		}
		if next == ':' && lineStart(src, i) {
			continue // a definition
		}
		nums := numberGroup(string(inner))
		if len(nums) == 0 {
			continue
		}
		cd := cand{start: i, end: cl + 1, kind: CiteNumbered, mark: whole, drop: whole, prio: 4, attach: true}
		if i > a && src[i-1] == ']' {
			// "[the survey][3]" with no definition for 3: the text stays in
			// the claim, its brackets do not.
			if o := bytes.LastIndexByte(src[a:i-1], '['); o >= 0 && bytes.IndexByte(src[a+o:i], '\n') < 0 {
				cd.extra = []span{{a + o, a + o + 1}, {i - 1, i}}
			}
		}
		for _, n := range nums {
			cd.refs = append(cd.refs, ref{ident: strconv.Itoa(n), num: n})
		}
		s.cands = append(s.cands, cd)
		i = cl
	}
}

// footnoteLabels reads the labels of a footnote reference: "^2" gives one;
// "^3,^4" and "^3; ^4", several works cited in one bracket, give one each
// (a label repeated counts once). A label holds no white space and is at
// most 64 bytes. A comma not followed by "^" is part of the label, as in
// GFM: "^a,b" is the one label "a,b".
func footnoteLabels(inner string) []string {
	parts := strings.FieldsFunc(inner, func(r rune) bool { return r == ',' || r == ';' })
	multi := len(parts) > 1
	for _, p := range parts {
		if !strings.HasPrefix(strings.TrimSpace(p), "^") {
			multi = false
		}
	}
	if !multi {
		parts = []string{inner}
	}
	var ids []string
	for _, p := range parts {
		if multi {
			p = strings.TrimSpace(p)
		}
		id := p[1:]
		if id == "" || strings.ContainsAny(id, " \t") || len(id) > 64 {
			return nil
		}
		if !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	return ids
}

func lineStart(src []byte, i int) bool {
	for j := i - 1; j >= 0; j-- {
		switch src[j] {
		case '\n':
			return true
		case ' ', '\t', '>':
		default:
			return false
		}
	}
	return true
}

var numberPrefix = regexp.MustCompile(`(?i)^(?:sources?|refs?\.?|references?|citations?|cite|cit\.|ibid\.?,?)\s*`)

// numberGroup parses the inside of a numbered citation: "3", "1, 2",
// "4–6", "1; 3-5", "Ref. 2". Ranges are expanded when they span at most
// maxRange numbers (else only the ends count); numbers run 1–999; a number
// listed twice counts once.
func numberGroup(s string) []int {
	s = strings.TrimSpace(numberPrefix.ReplaceAllString(strings.TrimSpace(s), ""))
	if s == "" {
		return nil
	}
	var out []int
	addOnce := func(n int) {
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	for _, part := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ';' }) {
		part = strings.TrimSpace(part)
		lo, hi, isRange := part, "", false
		for _, d := range []string{"–", "—", "‒", "-"} {
			if l, h, ok := strings.Cut(part, d); ok {
				lo, hi, isRange = strings.TrimSpace(l), strings.TrimSpace(h), true
				break
			}
		}
		a, ok := smallNumber(lo)
		if !ok {
			return nil
		}
		if !isRange {
			addOnce(a)
			continue
		}
		b, ok := smallNumber(hi)
		if !ok {
			return nil
		}
		if b < a || b-a > maxRange {
			addOnce(a)
			addOnce(b)
			continue
		}
		for n := a; n <= b; n++ {
			addOnce(n)
		}
	}
	return out
}

const maxRange = 100

func smallNumber(s string) (int, bool) {
	if s == "" || len(s) > 3 {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
		n = n*10 + int(s[i]-'0')
	}
	return n, n >= 1 && n <= maxRefNumber
}

// ---------------------------------------------------------------------------
// Author–year

// ayRef is one author–year citation, parsed.
type ayRef struct {
	year   string   // "2021", "2021a" or "n.d."
	first  []string // the first author's folded words, particles left out
	others []string // the first folded word of each further author
	weak   bool     // needs a bibliography entry to count
}

var (
	pageSuffix  = regexp.MustCompile(`(?i)\s*[,:]\s*(?:pp?\.?|pages?|ch\.|chap\.?|chapter|paras?\.?|sec\.|section|§+|fig\.?|table|at)\s*[0-9ivxlc][\w.–\-]*(?:\s*[,–\-]\s*[\w.]+)*\s*$`)
	harvardPage = regexp.MustCompile(`:\s*\d+(?:\s*[–-]\s*\d+)?\s*$`)
)

// ayPrefixes are the words that may open an item of a parenthetical.
var ayPrefixes = []string{"see also", "but see", "see", "e.g.,", "e.g.", "eg,", "eg", "cf.", "cf",
	"i.e.,", "i.e.", "as cited in", "cited in", "quoted in", "reviewed in", "compare", "also"}

// parens finds author–year parentheticals, and narrative citations whose
// parenthesis holds only years.
func (s *scanner) parens(a, z int) {
	src := s.src
	for i := a; i < z; i++ {
		if src[i] != '(' {
			continue
		}
		cl := -1
		for j := i + 1; j < min(z, i+400); j++ {
			if src[j] == '(' || src[j] == '\n' && j+1 < z && src[j+1] == '\n' {
				break
			}
			if src[j] == ')' {
				cl = j
				break
			}
		}
		if cl < 0 || !containsYear(src[i+1:cl]) {
			continue
		}
		inner := stripMarkup(string(src[i+1 : cl]))
		whole := span{i, cl + 1}
		if refs := s.parentheticalRefs(inner); len(refs) > 0 {
			s.cands = append(s.cands, cand{start: i, end: cl + 1, kind: CiteAuthorYear, refs: refs,
				mark: whole, drop: whole, prio: 3, attach: true})
			i = cl
			continue
		}
		if authors, _, years := splitItem(stripPage(inner)); len(years) > 0 && strings.TrimSpace(authors) == "" {
			start, names, ok := narrativeAuthors(src, a, i)
			if !ok {
				continue
			}
			_, etal := cutEtAl(names)
			refs := s.authorRefs(names, years, !etal)
			if len(refs) == 0 {
				continue
			}
			s.cands = append(s.cands, cand{start: start, end: cl + 1, kind: CiteAuthorYear, refs: refs,
				mark: span{start, cl + 1}, drop: whole, prio: 2})
			i = cl
		}
	}
}

// containsYear reports whether b holds a year (1500–2099) standing alone or
// "n.d", the cheap test before a parenthesis is parsed.
func containsYear(b []byte) bool {
	run := 0
	for i := 0; i < len(b); i++ {
		c := b[i]
		if c >= '0' && c <= '9' {
			run++
			continue
		}
		if run == 4 && isYearToken(string(b[i-4:i])) {
			return true
		}
		run = 0
		if c == 'n' && i+2 < len(b) && b[i+1] == '.' && (b[i+2] == 'd' || b[i+2] == ' ') {
			return true
		}
	}
	return run == 4 && isYearToken(string(b[len(b)-4:]))
}

func stripMarkup(s string) string {
	if !strings.ContainsAny(s, "*_\n\r\t") {
		return s
	}
	return strings.Map(func(r rune) rune {
		switch r {
		case '*', '_':
			return -1
		case '\n', '\r', '\t':
			return ' '
		}
		return r
	}, s)
}

// stripPage removes a page or section locator after the year: ", p. 12",
// ", pp. 3–5", ": 45".
func stripPage(s string) string {
	if _, _, ok := cutYear(s); ok {
		return s
	}
	s = pageSuffix.ReplaceAllString(s, "")
	return harvardPage.ReplaceAllString(s, "")
}

// cutYear cuts a year ("2021", "2021a", "n.d.") off the end of s.
func cutYear(s string) (rest, year string, ok bool) {
	t := strings.TrimRight(s, " ")
	if strings.HasSuffix(t, ".") || strings.HasSuffix(t, "d") || strings.HasSuffix(t, "D") {
		low := strings.ToLower(t)
		for _, nd := range []string{"n.d.", "n.d", "n. d.", "n. d"} {
			if strings.HasSuffix(low, nd) {
				r := t[:len(t)-len(nd)]
				if r == "" || !isAlnum(r[len(r)-1]) {
					return r, "n.d.", true
				}
			}
		}
	}
	e := len(t)
	if e > 0 && t[e-1] >= 'a' && t[e-1] <= 'z' {
		e--
	}
	if e < 4 || !isYearToken(t[e-4:e]) || e > 4 && isAlnum(t[e-5]) {
		return s, "", false
	}
	return t[:e-4], t[e-4:], true
}

// splitItem splits "Smith & Lee, 2019, 2020a" into its authors, whether a
// comma separates them from the years, and the years.
func splitItem(item string) (authors string, comma bool, years []string) {
	s := item
	for {
		rest, y, ok := cutYear(s)
		if !ok {
			return "", false, nil
		}
		years = append(years, y)
		rest = strings.TrimRight(rest, " ")
		if before, ok := strings.CutSuffix(rest, ","); ok {
			before = strings.TrimRight(before, " ")
			if _, _, more := cutYear(before); more {
				s = before
				continue
			}
			slices.Reverse(years)
			return before, true, years
		}
		slices.Reverse(years)
		return rest, false, years
	}
}

// cutEtAl removes a trailing "et al." from an author string.
func cutEtAl(s string) (string, bool) {
	t := strings.TrimRight(s, " ,")
	if !strings.HasSuffix(t, "l") && !strings.HasSuffix(t, "l.") && !strings.HasSuffix(t, "L") && !strings.HasSuffix(t, "L.") {
		return s, false
	}
	low := strings.ToLower(t)
	for _, suf := range []string{"et al.", "et al", "et. al.", "et. al"} {
		if strings.HasSuffix(low, suf) {
			r := t[:len(t)-len(suf)]
			if r == "" || r[len(r)-1] == ' ' || r[len(r)-1] == ',' {
				return strings.TrimRight(r, " ,"), true
			}
		}
	}
	return s, false
}

// splitAuthors splits an author string at ",", "&" and "and".
func splitAuthors(s string) []string {
	var out []string
	for _, a := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == '&' }) {
		var cur []string
		for _, f := range strings.Fields(a) {
			if f == "and" {
				if len(cur) > 0 {
					out = append(out, strings.Join(cur, " "))
				}
				cur = nil
				continue
			}
			cur = append(cur, f)
		}
		if len(cur) > 0 {
			out = append(out, strings.Join(cur, " "))
		}
	}
	return out
}

// cutPrefixes removes "see", "e.g.," and the like from the start of an item.
func cutPrefixes(item string) string {
	if item == "" || item[0] < 'A' || item[0] > 'z' {
		return item
	}
	for changed := true; changed; {
		changed = false
		low := strings.ToLower(item)
		for _, p := range ayPrefixes {
			if strings.HasPrefix(low, p) && len(item) > len(p) && item[len(p)] == ' ' {
				item = strings.TrimSpace(item[len(p):])
				changed = true
				break
			}
		}
	}
	return item
}

// parentheticalRefs parses "Smith, 2020; Jones & Lee, 2019a, 2021".
func (s *scanner) parentheticalRefs(inner string) []ref {
	var refs []ref
	for _, item := range strings.Split(inner, ";") {
		item = strings.TrimSpace(stripPage(cutPrefixes(strings.TrimSpace(item))))
		authors, comma, years := splitItem(item)
		if len(years) == 0 || authors == "" {
			continue
		}
		bare, etal := cutEtAl(authors)
		weak := !comma && !etal && len(splitAuthors(bare)) < 2
		for _, r := range s.authorRefs(authors, years, weak) {
			if !slices.ContainsFunc(refs, func(o ref) bool { return o.ident == r.ident }) {
				refs = append(refs, r)
			}
		}
	}
	return refs
}

// authorRefs validates an author string and pairs it with each year.
func (s *scanner) authorRefs(authors string, years []string, weak bool) []ref {
	pa := s.parseAuthors(authors)
	names, display := pa.names, pa.display
	if !pa.ok {
		return nil
	}
	var refs []ref
	for _, y := range years {
		r := &ayRef{year: y, first: names[0], weak: weak}
		for _, n := range names[1:] {
			if len(n) > 0 {
				r.others = append(r.others, n[0])
			}
		}
		refs = append(refs, ref{ident: display + " " + y, ay: r})
	}
	return refs
}

var particles = map[string]bool{
	"van": true, "von": true, "der": true, "den": true, "de": true, "del": true, "della": true,
	"di": true, "da": true, "du": true, "le": true, "la": true, "dos": true, "das": true, "do": true,
	"ter": true, "ten": true, "bin": true, "ibn": true, "y": true, "al": true, "el": true, "zu": true,
}

var orgWords = map[string]bool{"of": true, "for": true, "the": true, "on": true, "in": true, "and": true, "des": true, "und": true, "für": true}

// notAuthors are capitalised words that start dates and sentences, not
// author names.
var notAuthors = map[string]bool{
	"january": true, "february": true, "march": true, "april": true, "may": true, "june": true,
	"july": true, "august": true, "september": true, "october": true, "november": true, "december": true,
	"jan": true, "feb": true, "mar": true, "apr": true, "jun": true, "jul": true, "aug": true,
	"sep": true, "sept": true, "oct": true, "nov": true, "dec": true,
	"spring": true, "summer": true, "fall": true, "autumn": true, "winter": true,
	"monday": true, "tuesday": true, "wednesday": true, "thursday": true, "friday": true, "saturday": true, "sunday": true,
	"the": true, "a": true, "an": true, "in": true, "on": true, "at": true, "by": true, "for": true, "from": true,
	"as": true, "according": true, "to": true, "and": true, "but": true, "however": true, "see": true,
	"also": true, "per": true, "while": true, "since": true, "unlike": true, "like": true, "following": true,
	"both": true, "our": true, "their": true, "this": true, "that": true, "these": true, "those": true,
	"it": true, "we": true, "they": true, "he": true, "she": true, "its": true, "his": true, "her": true,
	"here": true, "there": true, "when": true, "where": true, "after": true, "before": true, "during": true,
	"between": true, "under": true, "over": true, "with": true, "without": true, "within": true,
	"figure": true, "fig": true, "table": true, "section": true, "chapter": true, "page": true,
	"version": true, "updated": true, "published": true, "accessed": true, "retrieved": true,
	"released": true, "founded": true, "established": true, "est": true, "born": true, "died": true,
	"copyright": true, "rev": true, "ed": true, "vol": true, "circa": true, "until": true, "through": true,
	"est.": true, "ca": true, "c": true, "fy": true, "cy": true, "q": true, "ad": true, "bc": true, "ce": true, "bce": true,
	"in press": true, "forthcoming": true, "n": true, "i": true, "is": true, "was": true, "if": true, "or": true,
	"all": true, "some": true, "many": true, "most": true, "each": true, "every": true, "new": true,
	"since early": true, "early": true, "late": true, "mid": true, "around": true, "about": true, "approximately": true,
}

type parsedAuthors struct {
	names   [][]string
	display string
	ok      bool
}

// parseAuthors is parseAuthors through the per-call cache.
func (s *scanner) parseAuthors(authors string) parsedAuthors {
	if s.c != nil {
		if pa, hit := s.c.authorCache[authors]; hit {
			return pa
		}
	}
	var pa parsedAuthors
	pa.names, pa.display, pa.ok = parseAuthors(authors)
	if s.c != nil {
		if s.c.authorCache == nil {
			s.c.authorCache = map[string]parsedAuthors{}
		}
		s.c.authorCache[authors] = pa
	}
	return pa
}

// parseAuthors checks that s looks like "Smith", "Smith et al.", "Smith &
// Jones", "van der Berg, Li, and Kim" or "World Health Organization", and
// returns each author's folded words and the display form for Identifier.
func parseAuthors(s string) ([][]string, string, bool) {
	s, _ = cutEtAl(strings.TrimSpace(stripMarkup(s)))
	s = strings.TrimSpace(s)
	if s == "" || len(s) > 120 {
		return nil, "", false
	}
	parts := splitAuthors(s)
	var names [][]string
	var shown []string
	total := 0
	for _, p := range parts {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		toks := strings.Fields(p)
		total += len(toks)
		if total > 10 {
			return nil, "", false
		}
		var sig []string
		for k, t := range toks {
			if r, _ := utf8.DecodeRuneInString(t); unicode.IsUpper(r) {
				if !isNameToken(t) {
					return nil, "", false
				}
				lt := strings.ToLower(strings.TrimSuffix(t, "."))
				if k == 0 && notAuthors[lt] {
					return nil, "", false
				}
				if particles[lt] && k < len(toks)-1 {
					continue // "Van der Berg"; but "Le" alone is a surname
				}
				sig = append(sig, words(t)...)
				continue
			}
			switch {
			case particles[t]:
			case strings.HasPrefix(t, "al-") || strings.HasPrefix(t, "el-"):
				sig = append(sig, words(t[3:])...) // al-Khwarizmi
			case orgWords[t] && k > 0 && k < len(toks)-1:
			default:
				return nil, "", false
			}
		}
		if len(sig) == 0 {
			return nil, "", false
		}
		names = append(names, sig)
		shown = append(shown, strings.Join(toks, " "))
	}
	if len(names) == 0 || len(names) > 6 {
		return nil, "", false
	}
	if len(names) == 1 && notAuthors[names[0][0]] {
		return nil, "", false
	}
	display := shown[0]
	if len(shown) > 1 {
		display = strings.Join(shown[:len(shown)-1], ", ") + " & " + shown[len(shown)-1]
	}
	return names, display, true
}

// isNameToken accepts a capitalised word of letters, hyphens, apostrophes
// and dots: "Smith", "O'Neil", "García-Márquez", "U.S.", "WHO", "J.".
func isNameToken(t string) bool {
	first := true
	letters := 0
	for _, r := range t {
		switch {
		case first:
			if !unicode.IsUpper(r) {
				return false
			}
			letters++
		case unicode.IsLetter(r):
			letters++
		case r == '-' || r == '\'' || r == '’' || r == '.':
		default:
			return false
		}
		first = false
	}
	return letters > 0
}

// narrativeAuthors walks back from the '(' at p over the author names that
// precede it: "Smith et al. (2021)", "Smith and Jones (2020)", "Smith's
// (2019)". It returns where the names start and the names.
func narrativeAuthors(src []byte, a, p int) (int, string, bool) {
	type tok struct {
		start int
		text  string
	}
	var toks []tok
	k := p
	for len(toks) < 12 {
		for k > a && (src[k-1] == ' ' || src[k-1] == '\t' || src[k-1] == '\n' || src[k-1] == '*' || src[k-1] == '_') {
			k--
		}
		e := k
		for k > a && !isSpaceByte(src[k-1]) && e-k <= 64 {
			k--
		}
		if k == e || e-k > 64 {
			break
		}
		raw := string(src[k:e])
		t := strings.Trim(raw, "*_")
		t = strings.TrimSuffix(strings.TrimSuffix(t, "'s"), "’s")
		comma := strings.HasSuffix(t, ",")
		t = strings.TrimSuffix(t, ",")
		lt := strings.ToLower(t)
		ok := false
		switch {
		case lt == "al." || lt == "al":
			ok = len(toks) == 0
		case lt == "et":
			ok = len(toks) > 0 && strings.HasPrefix(strings.ToLower(toks[len(toks)-1].text), "al")
		case lt == "and" || lt == "&":
			ok = len(toks) > 0
		case particles[lt]:
			ok = len(toks) > 0
		case isNameToken(t):
			ok = !notAuthors[strings.TrimSuffix(lt, ".")] &&
				(!strings.HasSuffix(t, ".") || utf8.RuneCountInString(strings.ReplaceAll(t, ".", "")) <= 1 || strings.Count(t, ".") > 1)
		}
		if !ok || comma && len(toks) == 0 {
			break
		}
		shown := t
		if comma {
			shown += ","
		}
		toks = append(toks, tok{k + strings.Index(raw, t), shown})
	}
	// toks runs backwards; drop leading connectors and trailing lone particles.
	for len(toks) > 0 {
		lt := strings.ToLower(toks[len(toks)-1].text)
		if lt == "and" || lt == "&" || lt == "et" || lt == "al." || lt == "al" {
			toks = toks[:len(toks)-1]
			continue
		}
		break
	}
	if len(toks) == 0 {
		return 0, "", false
	}
	var sb strings.Builder
	for i := len(toks) - 1; i >= 0; i-- {
		if sb.Len() > 0 {
			sb.WriteByte(' ')
		}
		sb.WriteString(toks[i].text)
	}
	names := sb.String()
	if strings.HasSuffix(strings.ToLower(names), " et") {
		return 0, "", false
	}
	return toks[len(toks)-1].start, names, true
}

// ---------------------------------------------------------------------------
// Small helpers

// segText is line i of lines as a string.
func segText(lines *text.Segments, i int, src []byte) string {
	seg := lines.At(i)
	return string(seg.Value(src))
}

// words splits s into lower-case, accent-folded words of letters and digits.
func words(s string) []string { return textkit.WordList(s) }

func fold(w string) string { return textkit.Fold(w) }

func isYearToken(t string) bool {
	if len(t) < 4 || len(t) > 5 {
		return false
	}
	for i := 0; i < 4; i++ {
		if t[i] < '0' || t[i] > '9' {
			return false
		}
	}
	y := (int(t[0]-'0')*10+int(t[1]-'0'))*100 + int(t[2]-'0')*10 + int(t[3]-'0')
	if y < 1500 || y > 2099 {
		return false
	}
	return len(t) == 4 || t[4] >= 'a' && t[4] <= 'z'
}

func hasPrefixFoldBytes(b []byte, prefix string) bool {
	if len(b) < len(prefix) {
		return false
	}
	for i := 0; i < len(prefix); i++ {
		c := b[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != prefix[i] {
			return false
		}
	}
	return true
}

func sortSpans(s []span) {
	slices.SortFunc(s, func(a, b span) int {
		if a.start != b.start {
			return a.start - b.start
		}
		return a.end - b.end
	})
}

// mergeSpans sorts and merges overlapping spans, dropping empty ones.
func mergeSpans(s []span) []span {
	s = slices.DeleteFunc(s, func(x span) bool { return x.end <= x.start })
	sortSpans(s)
	out := s[:0]
	for _, x := range s {
		if n := len(out); n > 0 && x.start <= out[n-1].end {
			out[n-1].end = max(out[n-1].end, x.end)
			continue
		}
		out = append(out, x)
	}
	return out
}
