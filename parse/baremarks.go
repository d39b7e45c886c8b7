package parse

import (
	"bytes"
	"strconv"
	"unicode"
	"unicode/utf8"

	"github.com/citegate/citegate/parse/textkit"
	"github.com/yuin/goldmark/ast"
)

// Bare-number markers. Gemini Deep Research exports turn its superscript
// citation numbers into plain digits glued to the punctuation they followed
// ("…for temperate climates.1 Furthermore", "…components".1 These",
// "…by weight.2,3") or keep them as HTML ("运行时 <sup>5</sup>。"). A digit
// is not a citation by itself, so these are taken only when the document has
// a numbered reference list and only for the numbers that resolve in it
// (cand.weak); decimals, versions and thousands ("3.5", "v2.1", "1,000"),
// abbreviations ("Fig.2", "No.1") and exponents ("m<sup>2</sup>") are left
// alone.

// maxBareGroup bounds the numbers of one bare marker ("2,3,7").
const maxBareGroup = 8

// bareNumbers finds numbers glued to a word's closing punctuation in
// src[a:z]: a letter (or a closing quote, bracket or emphasis) then one of
// . , ; : ! ? then 1–3 digits, optionally ",N" more, then white space or
// the end of the run.
func (s *scanner) bareNumbers(a, z int) {
	src := s.src
	for i := a + 2; i < z; i++ {
		if src[i] < '1' || src[i] > '9' || !bareMarkPunct(src[i-1]) {
			continue
		}
		if !bareMarkWordEnd(src, a, i-1) || src[i-1] == '.' && textkit.Abbreviation(src, i-1) {
			continue
		}
		var nums []int
		j := i
		for {
			k := j
			for k < z && k-j < 4 && src[k] >= '0' && src[k] <= '9' {
				k++
			}
			n, ok := smallNumber(string(src[j:k]))
			if !ok {
				nums = nil
				break
			}
			nums = append(nums, n)
			j = k
			if j+1 < z && src[j] == ',' && src[j+1] >= '1' && src[j+1] <= '9' && len(nums) < maxBareGroup {
				j++
				continue
			}
			break
		}
		if len(nums) == 0 || j < z && !isSpaceByte(src[j]) {
			i = j
			continue
		}
		cd := cand{start: i, end: j, kind: CiteNumbered, mark: span{i, j}, drop: span{i, j},
			prio: 2, attach: true, weak: true}
		for _, n := range nums {
			cd.refs = append(cd.refs, ref{ident: strconv.Itoa(n), num: n})
		}
		s.cands = append(s.cands, cd)
		i = j
	}
}

func bareMarkPunct(c byte) bool {
	switch c {
	case '.', ',', ';', ':', '!', '?':
		return true
	}
	return false
}

// bareMarkWordEnd reports whether the punctuation at p closes a word: it
// follows a letter, a closing quote or bracket, emphasis or "%", not a
// digit ("3.5", "1,000") or another mark.
func bareMarkWordEnd(src []byte, a, p int) bool {
	if p <= a {
		return false
	}
	r, _ := utf8.DecodeLastRune(src[a:p])
	switch r {
	case '"', '\'', ')', ']', '*', '_', '%', '”', '’', '»':
		return true
	}
	return unicode.IsLetter(r)
}

// supMarker takes "<sup>5</sup>" (and "<sup>2,3</sup>") as a bare-number
// marker when it does not touch the word before it, which would make it an
// exponent: "m<sup>2</sup>".
func (b *blockScan) supMarker(open *ast.RawHTML, bs, be int) {
	src := b.c.src
	txt, ok := open.NextSibling().(*ast.Text)
	if !ok {
		return
	}
	closing, ok := txt.NextSibling().(*ast.RawHTML)
	if !ok || open.Segments.Len() != 1 || closing.Segments == nil || closing.Segments.Len() != 1 {
		return
	}
	o, c := open.Segments.At(0), closing.Segments.At(0)
	if o.Start < bs || c.Stop > be || !bytes.EqualFold(o.Value(src), []byte("<sup>")) ||
		!bytes.EqualFold(c.Value(src), []byte("</sup>")) {
		return
	}
	if o.Start > 0 {
		if r, _ := utf8.DecodeLastRune(src[:o.Start]); unicode.IsLetter(r) || unicode.IsDigit(r) {
			return
		}
	}
	var nums []int
	for _, part := range bytes.Split(bytes.TrimSpace(txt.Segment.Value(src)), []byte(",")) {
		n, ok := smallNumber(string(bytes.TrimSpace(part)))
		if !ok || len(nums) == maxBareGroup {
			return
		}
		nums = append(nums, n)
	}
	whole := span{o.Start, c.Stop}
	cd := cand{start: whole.start, end: whole.end, kind: CiteNumbered, mark: whole, drop: whole,
		prio: 4, attach: true, weak: true}
	for _, n := range nums {
		cd.refs = append(cd.refs, ref{ident: strconv.Itoa(n), num: n})
	}
	b.cands = append(b.cands, cd)
}
