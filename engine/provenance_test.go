package engine

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/citegate/citegate/parse/icu"
)

// provenanceByGrouping is the straightforward provenance (group the items
// per URL, then convert and sort each group), kept as the oracle for the
// one-array version.
func provenanceByGrouping(items []FoundByItem) map[string][]FoundByEntry {
	out := map[string][]FoundByItem{}
	for _, it := range items {
		out[it.URLOriginal] = append(out[it.URLOriginal], it)
	}
	res := make(map[string][]FoundByEntry, len(out))
	for url, list := range out {
		entries := make([]FoundByEntry, len(list))
		for i, it := range list {
			wave := 1
			if it.Wave == "wave-2" {
				wave = 2
			}
			pid := cmp.Or(it.PerspectiveID, "unknown")
			entries[i] = FoundByEntry{
				Wave: wave, PerspectiveID: pid, AgentType: "unknown",
				ArtifactPath: cmp.Or(it.ArtifactPath, fmt.Sprintf("wave-%d/%s.md", wave, pid)),
				SourceLine:   it.SourceLine,
			}
		}
		icu.SortBy(entries,
			func(e FoundByEntry) string { return padInt(e.Wave) },
			func(e FoundByEntry) string { return e.PerspectiveID },
			func(e FoundByEntry) string { return e.ArtifactPath })
		res[url] = entries
	}
	return res
}

func TestProvenanceMatchesGrouping(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	pick := func(xs ...string) string { return xs[r.IntN(len(xs))] }
	for round := range 200 {
		var items []FoundByItem
		for range r.IntN(40) {
			items = append(items, FoundByItem{
				URLOriginal: pick("https://a.example/1", "https://b.example/2", "https://c.example/é", "https://a.example/1?x"),
				Wave:        pick("wave-1", "wave-2", ""), PerspectiveID: pick("p1", "p2", "", "P1"),
				ArtifactPath: pick("wave-1/p1.md", "wave-2/p2.md", ""), SourceLine: pick("- one", "- two"), Ordinal: r.IntN(5) + 1,
			})
		}
		if round%2 == 0 {
			// found-by order: each URL's items together (the grouped path)
			slices.SortStableFunc(items, func(a, b FoundByItem) int { return strings.Compare(a.URLOriginal, b.URLOriginal) })
		}
		want := provenanceByGrouping(items)
		// Work items as validate makes them: each URL alone, or (odd
		// rounds) pairs of URLs written two ways, plus one URL no item
		// cites.
		var urls []string
		for u := range want {
			urls = append(urls, u)
		}
		slices.Sort(urls)
		// The uncited URL first: paired (odd rounds) with a cited one, the
		// citation's first original is the second of its originals.
		urls = append([]string{"https://uncited.example/"}, urls...)
		var work []workItem
		for i := 0; i < len(urls); i++ {
			w := workItem{originals: []string{urls[i]}}
			if round%2 == 1 && i+1 < len(urls) {
				w.originals = append(w.originals, urls[i+1])
				i++
			}
			work = append(work, w)
		}
		forWork, first := provenance(work, items)
		for i, w := range work {
			var concat []FoundByEntry
			wantFirst := ""
			for _, o := range w.originals {
				if wantFirst == "" && len(want[o]) > 0 {
					wantFirst = o
				}
				concat = append(concat, want[o]...)
			}
			if first[i] != wantFirst {
				t.Fatalf("round %d: work %v: first original %q, want %q", round, w.originals, first[i], wantFirst)
			}
			if len(concat) != len(forWork[i]) || len(concat) > 0 && !reflect.DeepEqual(forWork[i], concat) {
				t.Fatalf("round %d: work %v: found_by %v, want %v", round, w.originals, forWork[i], concat)
			}
			if cap(forWork[i]) != len(forWork[i]) {
				t.Fatalf("round %d: %v's list has spare capacity: an append would write into the next citation's entries", round, w.originals)
			}
		}
	}
}

// sortFoundByRank (the extract stage's sort) gives sortFoundBy's order: URLs
// that collate equal but differ ("e\u0301" and "é") stay one group, items
// within a URL are ordered by wave, perspective and ordinal.
func TestSortFoundByRankMatchesSortFoundBy(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	pick := func(xs ...string) string { return xs[r.IntN(len(xs))] }
	for round := range 300 {
		var items []FoundByItem
		for range r.IntN(50) {
			items = append(items, FoundByItem{
				URLOriginal: pick("https://a.example/1", "https://b.example/2", "https://c.example/é", "https://c.example/e\u0301", "https://A.example/1", "https://a.example/1?x"),
				Wave:        pick("wave-1", "wave-2"), PerspectiveID: pick("p1", "p2", "P1", "p10"), SourceLine: pick("- one", "- two"), Ordinal: r.IntN(12) + 1,
			})
		}
		if round%3 == 0 {
			for i := range items {
				items[i].URLOriginal = strings.ReplaceAll(strings.ReplaceAll(items[i].URLOriginal, "é", "e"), "\u0301", "")
			}
		}
		// What extract builds: the distinct URLs in first-seen order and,
		// per item, its URL's index among them.
		var unique []string
		index := map[string]int32{}
		group := make([]int32, len(items))
		for j, it := range items {
			k, ok := index[it.URLOriginal]
			if !ok {
				k = int32(len(unique))
				index[it.URLOriginal] = k
				unique = append(unique, it.URLOriginal)
			}
			group[j] = k
		}
		want := slices.Clone(items)
		sortFoundBy(want)
		got := slices.Clone(items)
		_, rank := icu.Ranks(unique)
		sortFoundByRank(got, group, rank)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("round %d:\n got  %v\n want %v", round, got, want)
		}
	}
}
