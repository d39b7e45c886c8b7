// Package icu orders strings the way the reference implementation does:
// JavaScript's String.prototype.localeCompare, i.e. ICU root collation.
//
// Every ordering that reaches an artifact or a digest goes through this package,
// because byte order gives different files (a reference test depends on
// "https://example.com/doc?id=2" sorting before "https://example.com/doc/?...").
package icu

import (
	"bytes"
	"slices"
	"sync"

	"golang.org/x/text/collate"
	"golang.org/x/text/language"
)

// collators are not safe for concurrent use, so each caller borrows one.
var pool = sync.Pool{New: func() any { return collate.New(language.English) }}

// Compare returns -1, 0 or +1 as a sorts before, equal to, or after b.
func Compare(a, b string) int {
	c := pool.Get().(*collate.Collator)
	defer pool.Put(c)
	return c.CompareString(a, b)
}

// Sort sorts s in place in collation order. The sort is stable, as JavaScript's
// Array.prototype.sort is, so strings that collate equal keep their input order.
func Sort(s []string) {
	SortBy(s, func(v string) string { return v })
}

// SortBy stably sorts s by one or more string keys, each compared in collation
// order, the first key deciding unless it ties. Keys are computed once per
// element, which is what makes sorting tens of thousands of URLs cheap.
func SortBy[T any](s []T, keys ...func(T) string) {
	if len(s) < 2 || len(keys) == 0 {
		return
	}
	c := pool.Get().(*collate.Collator)
	defer pool.Put(c)
	var buf collate.Buffer
	type keyed struct {
		keys [][]byte
		v    T
	}
	ks := make([]keyed, len(s))
	for i, v := range s {
		k := make([][]byte, len(keys))
		for j, f := range keys {
			k[j] = c.KeyFromString(&buf, f(v))
		}
		ks[i] = keyed{k, v}
	}
	slices.SortStableFunc(ks, func(a, b keyed) int {
		for j := range a.keys {
			if r := bytes.Compare(a.keys[j], b.keys[j]); r != 0 {
				return r
			}
		}
		return 0
	})
	for i := range ks {
		s[i] = ks[i].v
	}
}
