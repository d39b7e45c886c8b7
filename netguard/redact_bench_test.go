package netguard

import "testing"

// sourceLines are the shapes of Sources lines a run redacts once per line
// (engine/internal/corpus writes them; real waves look the same).
var sourceLines = []string{
	"- [Source 0 of file 0](https://www.nature.com/articles/item-0)",
	"- https://arxiv.org/abs/item-1",
	"2. <https://en.wikipedia.org/wiki/item-2>",
	"- [Reference 3][r3]",
	`- Author et al. (2024), "Title 4", https://doi.org/10.1016/item-4#section-0.`,
	"7. <https://www.bbc.com/news/item-7?utm_source=agent&utm_medium=wave>",
	"- https://arxiv.org/abs/item-11?utm_source=agent&utm_medium=wave",
	"[r8]: https://www.science.org/doi/item-8#section-5",
}

func BenchmarkRedactTextSourceLines(b *testing.B) {
	for range b.N {
		for _, l := range sourceLines {
			_ = RedactText(l)
		}
	}
}

func BenchmarkRedactURLSourceURLs(b *testing.B) {
	urls := []string{"https://www.nature.com/articles/item-0", "https://arxiv.org/abs/item-1",
		"https://doi.org/10.1016/item-4#section-0", "https://www.bbc.com/news/item-7?utm_source=agent&utm_medium=wave"}
	for range b.N {
		for _, u := range urls {
			_, _ = RedactURL(u)
		}
	}
}
