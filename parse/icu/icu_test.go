package icu

import (
	"slices"
	"testing"
)

// Orders verified against Node 20 / ICU 78 localeCompare (origin.md §2.2).
func TestSortMatchesLocaleCompare(t *testing.T) {
	tests := []struct {
		name string
		want []string
	}{
		{"query before slash-query", []string{
			"https://example.com/doc?id=2",
			"https://example.com/doc/?utm_source=news&id=2",
		}},
		{"colon before slash", []string{
			"http://example.com:80/dir/?fbclid=zzz",
			"http://example.com/dir",
		}},
		{"punctuation ladder", []string{
			"https://x.org/a", "https://x.org/A", "https://x.org/a_b", "https://x.org/a-b",
			"https://x.org/a?b", "https://x.org/a.b", "https://x.org/a/b", "https://x.org/a%20b",
			"https://x.org/a=b", "https://x.org/a~b", "https://x.org/a1", "https://x.org/B",
		}},
		{"not numeric", []string{"u1", "u10", "u2"}},
		{"json keys", []string{"a_b", "a1", "ab", "aB", "Ab"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := slices.Clone(tt.want)
			slices.Reverse(got)
			Sort(got)
			if !slices.Equal(got, tt.want) {
				t.Fatalf("Sort = %q, want %q", got, tt.want)
			}
			for i := 0; i+1 < len(tt.want); i++ {
				if Compare(tt.want[i], tt.want[i+1]) >= 0 {
					t.Errorf("Compare(%q, %q) >= 0", tt.want[i], tt.want[i+1])
				}
			}
		})
	}
}

func TestSortByIsStableAndMultiKey(t *testing.T) {
	type rec struct {
		a, b string
		id   int
	}
	in := []rec{{"x", "2", 1}, {"X", "1", 2}, {"x", "1", 3}, {"x", "2", 4}}
	SortBy(in, func(r rec) string { return r.a }, func(r rec) string { return r.b })
	// Records 1 and 4 tie on both keys: stability keeps 1 before 4.
	want := []int{3, 1, 4, 2}
	for i, r := range in {
		if r.id != want[i] {
			t.Fatalf("SortBy order = %v, want ids %v", in, want)
		}
	}
}
