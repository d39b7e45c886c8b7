package parse

import (
	"bytes"
	"slices"
	"sort"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/text"
)

// wholeMarkdown is how Sources parsed before it was bounded: goldmark's own
// configuration of the same extensions, over the whole document at once.
// The tests hold the windowed parse to it.
var wholeMarkdown = goldmark.New(goldmark.WithExtensions(
	extension.Table,
	extension.Strikethrough,
	extension.NewLinkify(
		extension.WithLinkifyAllowedProtocols([]string{"h", "H", "\t"}),
		extension.WithLinkifyURLRegexp(bareURL),
	),
))

// wholeDocumentSources is the unbounded reference implementation: one
// goldmark parse of the whole file, then the same walk and emit. It is
// exact and quadratic-or-worse on hostile input, so tests give it only small
// files.
func wholeDocumentSources(src []byte) []Link {
	doc := wholeMarkdown.Parser().Parse(text.NewReader(src))
	x := &extractor{src: src, cur: src, lim: &limits{urlBudget: 1 << 62}}
	level := 0
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		if h, ok := n.(*ast.Heading); ok {
			if level > 0 && h.Level > level {
				continue
			}
			level = 0
			if defaultTitles.heading(h, src) {
				level = h.Level
			}
			continue
		}
		if level > 0 {
			x.block(n)
		}
	}
	byPos := func(a, b candidate) int { return a.pos - b.pos }
	slices.SortStableFunc(x.found, byPos)
	// The line arithmetic of the original, kept independent of the
	// extractor's incremental version.
	starts := []int{0}
	for i, c := range src {
		if c == '\n' {
			starts = append(starts, i+1)
		}
	}
	type lineURL struct {
		line int
		url  string
	}
	var out []Link
	seen := map[lineURL]bool{}
	for _, c := range x.found {
		u, err := Canonical(c.raw)
		if err != nil {
			continue
		}
		line := sort.SearchInts(starts, c.pos+1) - 1
		if seen[lineURL{line, u}] {
			continue
		}
		seen[lineURL{line, u}] = true
		end := len(src)
		if line+1 < len(starts) {
			end = starts[line+1] - 1
		}
		out = append(out, Link{URL: u, Line: line + 1, SourceLine: string(bytes.TrimSpace(src[starts[line]:end])), Kind: c.kind, Text: c.text,
			Col: naiveColumn(src[starts[line]:end], c.pos-starts[line], c.raw)})
	}
	return out
}

// naiveColumn counts the column of the URL raw at or after offset pos of
// line from the line's start, independently of the extractor's incremental
// count.
func naiveColumn(line []byte, pos int, raw string) Column {
	if i := bytes.Index(line[min(pos, len(line)):], []byte(raw)); i >= 0 && raw != "" {
		pos += i
	}
	prefix := string(line[:min(pos, len(line))])
	col := Column{Byte: len(prefix) + 1, Rune: utf8.RuneCountInString(prefix) + 1, UTF16: len(utf16.Encode([]rune(prefix))) + 1}
	return col
}
