package tui

import (
	"slices"
	"strings"
	"testing"
)

// TestNatKeySortsNaturally: numbers compare by value, so "Field report 2"
// comes before "Field report 10" (text order put it after 11).
func TestNatKeySortsNaturally(t *testing.T) {
	in := []string{"Field report 10", "field report 2", "Field report 1", "Field report 11", "Field report 02b", "Field report", "https://a.example/p9", "https://a.example/p10"}
	slices.SortStableFunc(in, func(a, b string) int { return strings.Compare(natKey(a), natKey(b)) })
	want := []string{"Field report", "Field report 1", "field report 2", "Field report 02b", "Field report 10", "Field report 11", "https://a.example/p9", "https://a.example/p10"}
	if !slices.Equal(in, want) {
		t.Errorf("natural order:\n got %q\nwant %q", in, want)
	}
}

func TestURLPath(t *testing.T) {
	for in, want := range map[string]string{
		"https://a.example/x/y?q=1": "/x/y?q=1",
		"https://a.example":         "/",
		"https://a.example?q":       "?q",
		"https://a.example#f":       "#f",
	} {
		if got := urlPath(in); got != want {
			t.Errorf("urlPath(%q) = %q, want %q", in, got, want)
		}
	}
}
