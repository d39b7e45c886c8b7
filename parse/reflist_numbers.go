// Reference lists: entry targets, entry numbers and markers, and AST position helpers.

package parse

import (
	"bytes"
	"slices"
	"strconv"
	"strings"

	"github.com/yuin/goldmark/ast"
)

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

// entryNumbers reads the numbers an entry starts with: every marker of
// leadingMarkers, or else the one of leadingNumber.
func entryNumbers(b []byte, plain bool) []int {
	if nums := leadingMarkers(b); len(nums) > 0 {
		return nums
	}
	if n, ok := leadingNumber(b, plain); ok {
		return []int{n}
	}
	return nil
}

// leadingNumber reads an entry number at the start of a line or item:
// "[3]", "[3]:", "**[3]**", "3.", "3\." and "(3)" (the last three only
// when plain is set, since in a list item "3." is a nested list; "3\." is
// how an export escapes a number that is not a list).
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
	j := i
	if j > 0 && j+1 < len(b) && b[j] == '\\' && b[j+1] == '.' {
		j++
	}
	if i > 0 && j+1 < len(b) && (b[j] == '.' || b[j] == ')') && (b[j+1] == ' ' || b[j+1] == '\t') {
		return smallNumber(string(b[:i]))
	}
	return 0, false
}

// leadingBracketNumber reads "[3]" at the start of b, after markup.
func leadingBracketNumber(b []byte) (int, bool) {
	if nums := leadingMarkers(b); len(nums) > 0 {
		return nums[0], true
	}
	return 0, false
}

// leadingMarkers reads the run of bracketed numbers a line or item starts
// with, markup and spaces between them allowed: "[3]", "**[3]**", "[3]:",
// "[1] [4] [8]", "[3](https://…)" and the escaped link a docx export
// writes, "[\[3\]](https://…)".
func leadingMarkers(b []byte) []int {
	var nums []int
	i := 0
	for {
		for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '*' || b[i] == '_') {
			i++
		}
		if i >= len(b) || b[i] != '[' {
			return nums
		}
		j := i + 1
		escaped := bytes.HasPrefix(b[j:], []byte(`\[`))
		if escaped {
			j += 2
		}
		k := j
		for k < len(b) && k-j < 8 && b[k] != ']' && b[k] != '\\' {
			k++
		}
		n, ok := smallNumber(string(bytes.TrimSpace(b[j:k])))
		if !ok {
			return nums
		}
		switch {
		case escaped && bytes.HasPrefix(b[k:], []byte(`\]]`)):
			k += 3
		case !escaped && k < len(b) && b[k] == ']':
			k++
		default:
			return nums
		}
		if k < len(b) && b[k] == '(' {
			e := closingParen(b, k)
			if e < 0 {
				return nums
			}
			k = e + 1
		} else if escaped {
			return nums // "[\[3\]]" without a destination is not the export's marker
		}
		if !slices.Contains(nums, n) {
			nums = append(nums, n)
		}
		i = k
	}
}

// closingParen returns the index of the ")" that closes the "(" at open,
// nested pairs allowed (a destination such as …/Foo_(bar)), or -1 when the
// line does not close it.
func closingParen(b []byte, open int) int {
	depth := 0
	for i := open; i < len(b); i++ {
		switch b[i] {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return i
			}
		case '\n':
			return -1
		}
	}
	return -1
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

// headingText is a heading's text without markup: each text run followed
// by a space, code spans and autolinks left out.
func headingText(h *ast.Heading, src []byte) string {
	return string(inlineText(h, src, inlineOpts{spaceAfterText: true, skipCode: true}))
}
