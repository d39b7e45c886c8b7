package icu

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"golang.org/x/text/collate"
	"golang.org/x/text/language"
)

func sign(n int) int {
	switch {
	case n < 0:
		return -1
	case n > 0:
		return 1
	}
	return 0
}

// TestFastPathAgreesWithCollator pins the ASCII fast path to the real
// collator: every pair of printable ASCII characters, and many random
// URL-like strings, must compare the same both ways.
func TestFastPathAgreesWithCollator(t *testing.T) {
	c := collate.New(language.English)
	var alphabet []string
	for b := byte(0x20); b < 0x7f; b++ {
		alphabet = append(alphabet, string(b))
	}
	check := func(a, b string) {
		t.Helper()
		if got, want := fastCompare(a, b), sign(c.CompareString(a, b)); got != want {
			t.Fatalf("fastCompare(%q, %q) = %d, collator says %d", a, b, got, want)
		}
	}
	for _, a := range alphabet {
		for _, b := range alphabet {
			check(a, b)
			check(a+"x", b)
			check("a"+a, "A"+b)
		}
	}
	r := rand.New(rand.NewPCG(7, 11))
	pieces := []string{"https://", "http://", "example.com", "Example.COM", "/", "?", "&", "=", "#", "%20", "%2F", "_", "-", ".", "~", "a", "A", "b", "1", "10", "2", ":", "(", ")", " ", "'", "\"", "*", "+", "!", "@", "$", ";", ",", "[", "]", "{", "}", "|", "\\", "^", "`", "<", ">"}
	gen := func() string {
		n := r.IntN(7)
		s := ""
		for range n {
			s += pieces[r.IntN(len(pieces))]
		}
		return s
	}
	for range 200000 {
		a := gen()
		b := a
		if r.IntN(2) == 0 {
			b = gen()
		} else if len(b) > 0 {
			// Near-equal strings exercise the later comparison levels.
			i := r.IntN(len(b))
			b = b[:i] + pieces[r.IntN(len(pieces))] + b[i:]
		}
		check(a, b)
	}
}

func TestSortByMixesFastAndCollatorColumns(t *testing.T) {
	// The non-ASCII string forces the collator for that column; the result
	// must still be in collation order.
	in := []string{"https://b.example/", "https://bücher.de/", "https://a.example/", "https://B.example/"}
	Sort(in)
	want := []string{"https://a.example/", "https://b.example/", "https://B.example/", "https://bücher.de/"}
	for i := range want {
		if in[i] != want[i] {
			t.Fatalf("Sort = %q, want %q", in, want)
		}
	}
}

func BenchmarkSortURLs(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	urls := make([]string, 20000)
	for i := range urls {
		urls[i] = "https://www.example.org/articles/item-" + string(rune('a'+r.IntN(26))) + "/" + string(rune('0'+r.IntN(10)))
	}
	b.ResetTimer()
	for range b.N {
		s := append([]string(nil), urls...)
		Sort(s)
	}
}

// SortBy's shortcuts (already-sorted input left alone, index tie-break
// instead of a stable sort) must give exactly what a stable sort by
// Compare gives, for sorted, reversed, shuffled and tied inputs.
func TestSortByMatchesStableCompare(t *testing.T) {
	type rec struct {
		a, b string
		id   int // not a key: shows whether ties kept their order
	}
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []string{"a", "A", "b", "B", "-", "_", "1", "é", "E", "/", "?"}
	word := func() string {
		var sb strings.Builder
		for range 1 + rng.IntN(4) {
			sb.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		return sb.String()
	}
	for round := range 200 {
		n := 1 + rng.IntN(60)
		in := make([]rec, n)
		for i := range in {
			in[i] = rec{word(), word(), i}
			if round%3 == 0 {
				in[i].a = strings.ToValidUTF8(strings.ReplaceAll(in[i].a, "é", "e"), "")
			}
		}
		want := slices.Clone(in)
		slices.SortStableFunc(want, func(x, y rec) int {
			if c := Compare(x.a, y.a); c != 0 {
				return c
			}
			return Compare(x.b, y.b)
		})
		reversed := slices.Clone(want)
		slices.Reverse(reversed)
		firstOnly := slices.Clone(in) // in order by a, not by b
		slices.SortStableFunc(firstOnly, func(x, y rec) int { return Compare(x.a, y.a) })
		for _, variant := range [][]rec{in, want, reversed, firstOnly} {
			got := slices.Clone(variant)
			SortBy(got, func(r rec) string { return r.a }, func(r rec) string { return r.b })
			ref := slices.Clone(variant)
			slices.SortStableFunc(ref, func(x, y rec) int {
				if c := Compare(x.a, y.a); c != 0 {
					return c
				}
				return Compare(x.b, y.b)
			})
			if !slices.Equal(got, ref) {
				t.Fatalf("round %d: SortBy(%v) = %v, stable sort by Compare = %v", round, variant, got, ref)
			}
		}
	}
}

// Ranks agrees with Compare on every pair and with Sort on the order, for
// ASCII-only columns (fast keys) and columns with other strings (collator
// keys), with and without strings that collate equal.
func TestRanksMatchCompare(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	alphabet := []string{"a", "A", "b", "-", "_", "1", "é", "e", "/", "\u0301"}
	for round := range 200 {
		in := randomWords(rng, alphabet, rng.IntN(40))
		if round%2 == 0 {
			for i := range in {
				in[i] = strings.NewReplacer("é", "e", "\u0301", "").Replace(in[i])
			}
		}
		sorted, rank := Ranks(in)
		want := slices.Clone(in)
		Sort(want)
		if !slices.Equal(sorted, want) {
			t.Fatalf("Ranks(%q) sorted %q, Sort %q", in, sorted, want)
		}
		for i := range in {
			for j := range in {
				if got, want := cmp.Compare(rank[i], rank[j]), Compare(in[i], in[j]); got != want {
					t.Fatalf("%q vs %q: ranks %d %d, Compare %d", in[i], in[j], rank[i], rank[j], want)
				}
			}
		}
	}
}

// fastEligible's eight-byte test agrees with the byte loop for every byte
// value at every position of strings of every length up to 24.
func TestFastEligibleWordAtATime(t *testing.T) {
	loop := func(s string) bool {
		for i := 0; i < len(s); i++ {
			if s[i] < 0x20 || s[i] >= 0x7f {
				return false
			}
		}
		return true
	}
	for n := range 25 {
		for pos := range n {
			for c := range 256 {
				b := []byte(strings.Repeat("a~ Z", 7)[:n])
				b[pos] = byte(c)
				if s := string(b); fastEligible(s) != loop(s) {
					t.Fatalf("fastEligible(%q) = %v", s, fastEligible(s))
				}
			}
		}
	}
}

// IsSortedBy never says "sorted" of input SortBy would change, and says it
// of printable-ASCII input in SortBy's order.
func TestIsSortedBy(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	alphabet := []string{"a", "A", "b", "-", "1", "é", "/"}
	for round := range 300 {
		in := randomWords(rng, alphabet, rng.IntN(12))
		if round%2 == 0 {
			Sort(in)
		}
		id := func(s string) string { return s }
		sorted := slices.Clone(in)
		SortBy(sorted, id)
		if IsSortedBy(in, id) && !slices.Equal(in, sorted) {
			t.Fatalf("IsSortedBy(%q) = true, SortBy gives %q", in, sorted)
		}
		ascii := !slices.ContainsFunc(in, func(s string) bool { return strings.Contains(s, "é") })
		if ascii && slices.Equal(in, sorted) && !IsSortedBy(in, id) {
			t.Fatalf("IsSortedBy(%q) = false for sorted ASCII input", in)
		}
	}
}

// randomWords is n words of one to three pieces of alphabet.
func randomWords(rng *rand.Rand, alphabet []string, n int) []string {
	out := make([]string, n)
	for i := range out {
		var sb strings.Builder
		for range 1 + rng.IntN(3) {
			sb.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		out[i] = sb.String()
	}
	return out
}
