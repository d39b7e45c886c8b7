package parse

import (
	"slices"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/text"
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
	// Reference is the text of the reference-list entry or footnote a
	// numbered, author–year or footnote citation resolved to, when that
	// entry gives no URL or DOI (a title-only reference a registry search
	// can still find): markdown removed, whitespace collapsed, at most
	// MaxReference bytes. "" otherwise.
	Reference string `json:"reference,omitempty"`
	// Entry is the text of the entry a numbered, author–year or footnote
	// citation resolved to, whatever the entry gives (Reference's form);
	// verify compares it with the title a registry holds for the entry's
	// DOI. Not part of the golden JSON: Reference says what a reader needs.
	Entry string `json:"-"`
}

// MaxReference is the longest Citation.Reference, in bytes.
const MaxReference = 500

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
