// Package icu orders strings the way the reference implementation does:
// JavaScript's String.prototype.localeCompare, i.e. ICU root collation.
//
// Every ordering that reaches an artifact or a digest goes through this package,
// because byte order gives different files (a reference test depends on
// "https://example.com/doc?id=2" sorting before "https://example.com/doc/?...").
//
// Computing collation keys is the slowest part of a large run, and nearly
// every string we sort (URLs, file names, JSON keys) is printable ASCII. For
// those, the key is computed from a table derived at start-up from the real
// collator itself, and tests check the two agree; anything else goes through
// golang.org/x/text/collate.
package icu

import (
	"bytes"
	"slices"
	"sync"

	"golang.org/x/text/collate"
	"golang.org/x/text/language"
)

// collators are not safe for concurrent use, so each caller borrows one.
var pool = sync.Pool{New: func() any { return newCollator() }}

func newCollator() *collate.Collator { return collate.New(language.English) }

// borrow takes a collator from the pool; give it back with pool.Put. Only
// collators are put there, but a fresh one is as good as any.
func borrow() *collate.Collator {
	if c, ok := pool.Get().(*collate.Collator); ok {
		return c
	}
	return newCollator()
}

// asciiPrimary holds each printable ASCII byte's primary weight rank
// (letters share a rank with their other case); 0 means "not eligible".
var asciiPrimary [128]byte

func init() {
	c := collate.New(language.English)
	fold := collate.New(language.English, collate.IgnoreCase)
	var chars []string
	for b := byte(0x20); b < 0x7f; b++ {
		chars = append(chars, string(b))
	}
	slices.SortStableFunc(chars, c.CompareString)
	rank := byte(1)
	for i, s := range chars {
		if i > 0 && fold.CompareString(chars[i-1], s) != 0 {
			rank++
		}
		asciiPrimary[s[0]] = rank
	}
}

// The ASCII fast path (fastEligible, fastKey, fastCompare) is kept because a
// benchmark of the whole run shows it (2,000 wave files, 50,000 URLs; medians
// of three interleaved runs, issue 12): BenchmarkRunOffline 0.89 s → 1.42 s
// and twice the allocated bytes without it, BenchmarkToolChainOffline 1.95 s →
// 2.58 s. TestFastPathAgreesWithCollator holds it to x/text/collate.

// fastEligible reports whether s is printable ASCII (space to tilde).
func fastEligible(s string) bool {
	i := 0
	for ; i+8 <= len(s); i += 8 {
		w := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
		// Every byte below 0x80; then none is 0x7f (adding one sets its high
		// bit) and none is below 0x20 (subtracting 0x20 borrows): no carry
		// or borrow crosses bytes unless one of them already failed.
		const ones, highs = 0x0101010101010101, 0x8080808080808080
		if w&highs != 0 || (w+ones)&highs != 0 || (w-0x20*ones)&highs != 0 {
			return false
		}
	}
	for ; i < len(s); i++ {
		if s[i] < 0x20 || s[i] >= 0x7f {
			return false
		}
	}
	return true
}

func tertiary(b byte) byte {
	if 'A' <= b && b <= 'Z' {
		return 2
	}
	return 1
}

// fastKey is a sort key for an eligible string: primary ranks, a 0
// terminator (so a prefix sorts first), then per-byte case weights (lower
// before upper), which is how the collator compares ASCII.
func fastKey(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		dst = append(dst, asciiPrimary[s[i]])
	}
	dst = append(dst, 0)
	for i := 0; i < len(s); i++ {
		dst = append(dst, tertiary(s[i]))
	}
	return dst
}

// Compare returns -1, 0 or +1 as a sorts before, equal to, or after b.
func Compare(a, b string) int {
	if fastEligible(a) && fastEligible(b) {
		return fastCompare(a, b)
	}
	c := borrow()
	defer pool.Put(c)
	return c.CompareString(a, b)
}

func fastCompare(a, b string) int {
	n := min(len(a), len(b))
	// Equal bytes have equal weights at every level: sorted URLs share long
	// prefixes (and ties compare a string with itself), so the weights are
	// looked up only from the first byte that differs.
	p := commonPrefix(a[:n], b[:n])
	for i := p; i < n; i++ {
		if pa, pb := asciiPrimary[a[i]], asciiPrimary[b[i]]; pa != pb {
			if pa < pb {
				return -1
			}
			return 1
		}
	}
	switch {
	case len(a) < len(b):
		return -1
	case len(a) > len(b):
		return 1
	}
	for i := p; i < n; i++ {
		if ta, tb := tertiary(a[i]), tertiary(b[i]); ta != tb {
			if ta < tb {
				return -1
			}
			return 1
		}
	}
	return 0
}

// commonPrefix is the length of the longest common prefix of a and b, which
// have the same length; eight bytes are compared at a time.
func commonPrefix(a, b string) int {
	i := 0
	for ; i+8 <= len(a); i += 8 {
		if a[i:i+8] != b[i:i+8] {
			break
		}
	}
	for i < len(a) && a[i] == b[i] {
		i++
	}
	return i
}

// Sort sorts s in place in collation order. The sort is stable, as JavaScript's
// Array.prototype.sort is, so strings that collate equal keep their input order.
func Sort(s []string) {
	if len(s) < 2 {
		return // before SortBy's arguments are built: runs sort many one-element lists
	}
	SortBy(s, func(v string) string { return v })
}

// IsSortedBy reports whether s is already in the order SortBy gives, by one
// pass of comparisons and no allocation. It may answer false for input that
// is in order but holds strings outside printable ASCII; a caller then
// sorts, which changes nothing.
func IsSortedBy[T any](s []T, keys ...func(T) string) bool {
	return len(s) < 2 || len(keys) > 0 && sortedFast(s, keys)
}

// SortBy stably sorts s by one or more string keys, each compared in collation
// order, the first key deciding unless it ties. The first key is computed
// once per element, which is what makes sorting tens of thousands of URLs
// cheap; the others are compared (Compare) only for elements the first one
// ties, which in a run's sorts is the exception.
//
// Input that is already in order — most sorts of a run see the order an
// earlier stage produced — is recognised by one pass of comparisons and left
// as it is. Otherwise the sort moves small (key, index) pairs, not the
// elements, and breaks ties by index, so an unstable sort gives the stable
// order.
func SortBy[T any](s []T, keys ...func(T) string) {
	if len(s) < 2 || len(keys) == 0 || sortedFast(s, keys) {
		return
	}
	strs := make([]string, len(s))
	for i, v := range s {
		strs[i] = keys[0](v)
	}
	ks := collationKeys(strs)
	rest := keys[1:]
	slices.SortFunc(ks, func(a, b keyed) int {
		if r := bytes.Compare(a.key, b.key); r != 0 {
			return r
		}
		for _, f := range rest {
			if r := Compare(f(s[a.i]), f(s[b.i])); r != 0 {
				return r
			}
		}
		return a.i - b.i
	})
	permute(s, ks)
}

// permute puts s in the order ks gives (s[i] becomes the old s[ks[i].i]) in
// place, cycle by cycle: a copy of a 20,000-file run's provenance would be
// 60 MB. It uses up ks.
func permute[T any](s []T, ks []keyed) {
	for i := range ks {
		if ks[i].i == i || ks[i].i < 0 {
			continue
		}
		first, j := s[i], i
		for {
			next := ks[j].i
			ks[j].i = -1
			if next == i {
				s[j] = first
				break
			}
			s[j], j = s[next], next
		}
	}
}

// keyed is a string's collation key and its index in the input.
type keyed struct {
	key []byte
	i   int
}

// collationKeys computes every string's key, in one kind for the whole
// column: fast and collator keys are not comparable with each other.
func collationKeys(strs []string) []keyed {
	ks := make([]keyed, len(strs))
	eligible := true
	size := 0
	for _, str := range strs {
		eligible = eligible && fastEligible(str)
		size += 2*len(str) + 1
	}
	if eligible {
		// One allocation: growing the arena by appends would copy it
		// repeatedly, and these sorts run over 50,000 items.
		arena := make([]byte, 0, size)
		for i, str := range strs {
			start := len(arena)
			arena = fastKey(arena, str)
			ks[i] = keyed{arena[start:len(arena):len(arena)], i}
		}
		return ks
	}
	c := borrow()
	var buf collate.Buffer
	for i, str := range strs {
		ks[i] = keyed{c.KeyFromString(&buf, str), i}
	}
	pool.Put(c)
	return ks
}

// Ranks gives each string of s its place in collation order: rank[i] is the
// number of distinct (collation-unequal) strings that sort before s[i], so
// strings that collate equal share a rank. sorted is s in the order Sort
// gives. A caller that must sort many records by one of few strings ranks
// the strings once and sorts the records by integer.
func Ranks(s []string) (sorted []string, rank []int32) {
	ks := collationKeys(s)
	slices.SortFunc(ks, func(a, b keyed) int {
		if r := bytes.Compare(a.key, b.key); r != 0 {
			return r
		}
		return a.i - b.i
	})
	sorted, rank = make([]string, len(s)), make([]int32, len(s))
	r := int32(-1)
	for k, x := range ks {
		if k == 0 || !bytes.Equal(ks[k-1].key, x.key) {
			r++
		}
		sorted[k], rank[x.i] = s[x.i], r
	}
	return sorted, rank
}

// sortedFast reports whether s is already in order, when every key it
// compares is printable ASCII (fastCompare agrees with the keys SortBy would
// build); it gives up, reporting false, at the first other string or the
// first pair out of order.
func sortedFast[T any](s []T, keys []func(T) string) bool {
	// The first column's strings are each checked once, as the second of a
	// pair; the other columns are compared only on ties.
	if len(s) > 0 && !fastEligible(keys[0](s[0])) {
		return false
	}
	for i := 1; i < len(s); i++ {
		for k, f := range keys {
			a, b := f(s[i-1]), f(s[i])
			if !fastEligible(b) || k > 0 && !fastEligible(a) {
				return false
			}
			c := fastCompare(a, b)
			if c > 0 {
				return false
			}
			if c < 0 {
				break
			}
		}
	}
	return true
}
