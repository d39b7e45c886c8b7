package tui

import (
	"slices"

	"github.com/citegate/citegate/engine"
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

// TestListOrderPutsNumbersByValue (issue 27): the list's default order is
// the engine's, but "Field report 1, 10, 11, 2" becomes 1, 2, 10, 11.
func TestListOrderPutsNumbersByValue(t *testing.T) {
	h := newHarness(t, Options{})
	base := "https://reports.example.org/field-report-"
	var evs []engine.Event
	// The engine's (text) order.
	for i, n := range []string{"1", "10", "11", "2", "2a"} {
		evs = append(evs, engine.Event{Kind: engine.EventQueued, Index: i, Total: 6, URL: base + n, CID: "c" + n})
	}
	evs = append(evs, engine.Event{Kind: engine.EventQueued, Index: 5, Total: 6, URL: "https://a.example/x", CID: "cx"})
	h.events(0, evs...)
	var got []string
	for _, r := range h.m.list.view {
		got = append(got, strings.TrimPrefix(r.url, base))
	}
	want := []string{"1", "2", "2a", "10", "11", "https://a.example/x"}
	if !slices.Equal(got, want) {
		t.Errorf("order %q, want %q", got, want)
	}
	if numberFirst("a/2", "a/10") >= 0 || numberFirst("a/10", "a/9") <= 0 || numberFirst("a/x", "b/1") != 0 || numberFirst("a/007", "a/7") != 0 {
		t.Error("numberFirst")
	}
}
