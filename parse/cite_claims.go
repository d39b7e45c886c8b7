// Cite: sentence splitting and claim windows (which text a citation supports).

package parse

import (
	"bytes"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/citegate/citegate/parse/textkit"
)

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
		switch {
		case si > 0:
			prev = b.sentence(si-1, be).text
		case t == "" && !b.c.inRow:
			// A block with no words of its own (a table cell, a list of
			// bare links) takes the previous block's last sentence.
			prev = b.c.lastSentence
		case st.short:
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
			if end, dropped := b.skipDrop(i, &di); dropped {
				i = end
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

// skipDrop moves *di past the drops that end at or before i; when i is
// inside a drop it returns the drop's end and true.
func (b *blockScan) skipDrop(i int, di *int) (int, bool) {
	for *di < len(b.drops) && b.drops[*di].end <= i {
		*di++
	}
	if *di < len(b.drops) && b.drops[*di].start <= i {
		return b.drops[*di].end, true
	}
	return i, false
}

// firstWord returns the offset of the first letter or digit in
// src[from:to] of the block outside drops, or -1.
func (b *blockScan) firstWord(from, to int) int {
	src := b.c.src
	di := sort.Search(len(b.drops), func(k int) bool { return b.drops[k].end > from })
	for _, seg := range b.segs {
		a, z := max(seg.Start, from), min(seg.Stop, to)
		for i := a; i < z; {
			if end, dropped := b.skipDrop(i, &di); dropped {
				i = end
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
