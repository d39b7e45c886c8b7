// Cite: resolving numbered markers and footnotes to reference-list entries.

package parse

import (
	"bytes"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

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

// entryText is a reference entry's text for a registry search: the list
// marker and markdown emphasis removed, whitespace collapsed, cut at
// MaxReference bytes on a rune boundary.
func entryText(src []byte, e *refEntry) string {
	t := strings.Join(strings.Fields(string(src[e.start:e.end])), " ")
	t = strings.TrimLeft(t, "-*+ ")
	if i := strings.IndexAny(t, ".)]"); i > 0 && i <= 4 && strings.Trim(t[:i], "[0123456789^") == "" {
		t = strings.TrimSpace(t[i+1:])
	}
	t = strings.TrimLeft(t, ": ")
	t = strings.NewReplacer("**", "", "__", "", "*", "", "_", " ", "`", "").Replace(t)
	t = strings.Join(strings.Fields(t), " ")
	if len(t) > MaxReference {
		t = t[:MaxReference]
		for len(t) > 0 && !utf8.ValidString(t) {
			t = t[:len(t)-1]
		}
	}
	return t
}
