package parse

import (
	"context"
	"errors"
	"fmt"
	"testing"
)

// NearMisses names each list of sources the Sources rule skipped, with its
// line, the title that would read it (or the label's words) and how many
// links it holds.
func TestNearMisses(t *testing.T) {
	tests := []struct {
		name   string
		src    string
		titles []string
		want   []string // "line|title|label|urls"
	}{
		{"bold label", "# R\n\nText.\n\n**Sources:**\n- https://a.example/1\n- https://a.example/2\n",
			nil, []string{"5||Sources|2"}},
		{"plain colon label", "Text.\n\nSources:\n1. https://a.example/1\n", nil, []string{"3||Sources|1"}},
		// Prose and link definitions before a list name no list.
		{"a sentence leading into a list", "Text.\n\nThe sources we relied on for the figures in this section are these:\n- https://a.example/1\n", nil, nil},
		{"link reference definitions", "Text.\n\n[r1]: https://a.example/sources\n[r2]: https://a.example/2\n", nil, nil},
		{"unmarked label before a list", "Text.\n\nReferences\n\n- https://a.example/1\n", nil, []string{"3||References|1"}},
		{"References heading", "## Findings\n\nx\n\n## References\n\n- https://a.example/1\n- [B](https://b.example/)\n",
			nil, []string{"5|References||2"}},
		{"heading with a colon", "### Sources:\n- https://a.example/1\n", nil, []string{"1|Sources:||1"}},
		{"singular heading", "## Source\n- https://a.example/1\n", nil, []string{"1|Source||1"}},
		{"numbered bold heading", "## **9. Bibliography** ##\n- https://a.example/1\n", nil, []string{"1|Bibliography||1"}},
		{"compound heading", "## Sources and references\n- https://a.example/1\n", nil, []string{"1|Sources and references||1"}},
		{"setext heading", "Intro.\n\nReferences\n----------\n\n- https://a.example/1\n", nil, []string{"3|References||1"}},
		{"Sources at any level is read", "# Sources\n- https://a.example/1\n", nil, nil},
		{"a title given is read", "## References\n- https://a.example/1\n", []string{"References"}, nil},
		{"a sub-heading inside Sources adds nothing", "## Sources\n### References\n- https://a.example/1\n", nil, nil},
		{"no links under it", "## References\n\nSmith (2020). A book.\n", nil, nil},
		{"in a code fence", "```\n## References\n- https://a.example/1\n```\n", nil, nil},
		{"prose after a title word", "Sources\nsay that https://a.example/1 is fine.\n", nil, nil},
		{"two near misses split their links", "## References\n- https://a.example/1\n\n**Sources:**\n- https://b.example/1\n- https://b.example/2\n## Sources\n- https://c.example/\n",
			nil, []string{"1|References||1", "4||Sources|2"}},
		{"some links read, some skipped", "## Sources\n- https://a.example/1\n\n# Appendix\n\n## References\n- https://b.example/1\n",
			nil, []string{"6|References||1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opt := SourcesOptions{Titles: tt.titles}
			read, err := SourcesWith(context.Background(), []byte(tt.src), opt)
			if err != nil {
				t.Fatal(err)
			}
			got, err := NearMisses(context.Background(), []byte(tt.src), opt, read)
			if err != nil {
				t.Fatal(err)
			}
			var g []string
			for _, m := range got {
				g = append(g, fmt.Sprintf("%d|%s|%s|%d", m.Line, m.Title, m.Label, m.URLs))
			}
			if fmt.Sprint(g) != fmt.Sprint(tt.want) {
				t.Errorf("got %q, want %q", g, tt.want)
			}
		})
	}
}

// A file whose near misses, made sections, go beyond a parse limit that the
// file itself stays within has no near misses, not an error: Sources reads
// it, and the count must not make it unreadable.
func TestNearMissesBeyondALimit(t *testing.T) {
	src := []byte("## Sources\n- https://a.example/1\n\n## References\n- https://bücher.example/straße\n")
	lim := defaultLimits
	lim.urlBudget = 1
	read, _, err := meteredSources(context.Background(), src, defaultTitles, &lim)
	if err != nil || len(read) != 1 {
		t.Fatalf("Sources: %v, %v", read, err)
	}
	if got, err := nearMisses(context.Background(), src, SourcesOptions{}, read, &lim); err != nil || got != nil {
		t.Errorf("near misses %v, %v; want none and no error", got, err)
	}
	if got, _ := nearMisses(context.Background(), src, SourcesOptions{}, read, &defaultLimits); len(got) != 1 {
		t.Errorf("within the limits: %v, want the References list", got)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := nearMisses(ctx, src, SourcesOptions{}, read, &defaultLimits); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}
