package parse

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/parse/*.golden.json from the current output")

// link builds an expected Link; the source line is given untrimmed so the
// table reads like the markdown it tests.
func link(url string, line int, sourceLine string, kind Kind) Link {
	return Link{URL: url, Line: line, SourceLine: strings.TrimSpace(sourceLine), Kind: kind}
}

// linksOf runs Sources and drops each link's Text, which has its own test,
// so that the tables below compare URL, line, source line and kind.
func linksOf(t testing.TB, src []byte) []Link {
	t.Helper()
	got, err := Sources(context.Background(), src)
	if err != nil {
		t.Fatalf("Sources: %v", err)
	}
	// Texts and columns have tests of their own (TestLinkText,
	// TestSourcesColumns).
	for i := range got {
		got[i].Text, got[i].Col = "", Column{}
	}
	return got
}

// urls lists only the URLs, for cases where lines and kinds are not the point.
func urls(links []Link) []string {
	out := make([]string, 0, len(links))
	for _, l := range links {
		out = append(out, l.URL)
	}
	return out
}

func TestSourcesHeadings(t *testing.T) {
	const body = "\n- https://example.com/a\n"
	recognised := []string{
		"# Sources",
		"## Sources",
		"###### Sources",
		"## Sources ##",
		"## Sources #####   ",
		"##\tSources",
		"   ## Sources",
		"##   Sources   ",
		"Sources\n=======",
		"Sources\n---",
		"## *Sources*",
		"## 9. Sources",
		"## 9 Sources",
		"## 9.2 Sources",
		"## **9. Sources**",
		"## 9\\. Sources",
		"## IV. Sources",
		"## B) Sources",
		"## 四、Sources",
		"## Appendix B: Sources",
	}
	for _, h := range recognised {
		src := "# Title\n\n" + h + "\n" + body
		if got := urls(linksOf(t, []byte(src))); !slices.Equal(got, []string{"https://example.com/a"}) {
			t.Errorf("heading %q: got %q; want the one URL", h, got)
		}
	}
	ignored := []string{
		"## sources",
		"## SOURCES",
		"## Sources:",
		"## Sources and References",
		"## Source",
		"##Sources",
		"####### Sources",
		"    ## Sources",
		"**Sources**",
		"Sources",
		"Sources:\n--------",
		"> ## Sources",
		"- ## Sources",
		"## 9. sources",
		"## 9. Sources:",
		"## 2024 Sources",
		"## References",
		"## 9. References",
		"## Sources (1)",
	}
	for _, h := range ignored {
		src := "# Title\n\n" + h + "\n" + body
		if got := linksOf(t, []byte(src)); len(got) != 0 {
			t.Errorf("heading %q: got %q; want nothing", h, urls(got))
		}
	}
}

func TestSourcesSectionBounds(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []string
	}{
		{"a deeper heading stays in the section",
			"## Sources\n- https://a.example/1\n### Sub\n- https://b.example/2\n#### Deeper\n- https://c.example/3\n",
			[]string{"https://a.example/1", "https://b.example/2", "https://c.example/3"}},
		{"ends at a heading of the same level",
			"## Sources\n- https://a.example/1\n## Next\n- https://b.example/2\n",
			[]string{"https://a.example/1"}},
		{"ends at a heading of the same level after a sub-heading",
			"## Sources\n### Web\n- https://a.example/1\n## Next\n### Web\n- https://b.example/2\n",
			[]string{"https://a.example/1"}},
		{"a setext heading of the same level ends a setext section",
			"Sources\n-------\n- https://a.example/1\n\nNext\n----\n- https://b.example/2\n",
			[]string{"https://a.example/1"}},
		{"a numbered section ends at the next numbered section",
			"## 8. Findings\nhttps://f.example/x\n## 9. Sources\n- https://a.example/1\n## 10. Appendix\nhttps://b.example/2\n",
			[]string{"https://a.example/1"}},
		{"ends at a shallower heading",
			"## Sources\n- https://a.example/1\n# Top\n- https://b.example/2\n",
			[]string{"https://a.example/1"}},
		{"ends at a setext heading",
			"## Sources\n- https://a.example/1\n\nNext\n----\n- https://b.example/2\n",
			[]string{"https://a.example/1"}},
		{"a hashtag is not a heading",
			"## Sources\n#hashtag\n- https://a.example/1\n",
			[]string{"https://a.example/1"}},
		{"runs to end of file without a final newline",
			"## Sources\n- https://a.example/1\n- https://a.example/2",
			[]string{"https://a.example/1", "https://a.example/2"}},
		{"a thematic break does not end it",
			"## Sources\n- https://a.example/1\n\n***\n\n- https://a.example/2\n",
			[]string{"https://a.example/1", "https://a.example/2"}},
		{"a heading nested in a list does not end it",
			"## Sources\n- item\n\n  ## nested\n\n  https://a.example/1\n",
			[]string{"https://a.example/1"}},
		{"# line in a backtick fence does not end it",
			"## Sources\n```\n# comment\n```\n- https://a.example/1\n",
			[]string{"https://a.example/1"}},
		{"# line in a tilde fence does not end it",
			"## Sources\n~~~\n## comment https://fence.example/x\n~~~\n- https://a.example/1\n",
			[]string{"https://a.example/1"}},
		{"an unclosed fence swallows the rest",
			"## Sources\n- https://a.example/1\n```\n# comment\nhttps://fence.example/x\n",
			[]string{"https://a.example/1"}},
		{"every Sources section counts",
			"## Sources\n- https://a.example/1\n## Findings\nhttps://f.example/x\n## Sources\n- https://a.example/2\n",
			[]string{"https://a.example/1", "https://a.example/2"}},
		{"Findings URLs are ignored",
			"## Findings\nSee https://f.example/x and [t](https://f.example/y).\n\n## Sources\n- https://a.example/1\n",
			[]string{"https://a.example/1"}},
		{"a link in a heading is not a citation",
			"## Sources\n### https://h.example/x\n- https://b.example/2\n",
			[]string{"https://b.example/2"}},
		{"no Sources heading", "# Notes\nhttps://a.example/1\n", nil},
		{"empty input", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := urls(linksOf(t, []byte(tt.src))); !slices.Equal(got, tt.want) {
				t.Errorf("got %q; want %q", got, tt.want)
			}
		})
	}
}

func TestSourcesTitles(t *testing.T) {
	src := "# Report\n\n## Findings\n\nhttps://f.example/\n\n## References\n\n### Web\n\n- https://r.example/\n\n" +
		"## 9. Bibliography\n\n- https://b.example/\n\n## references\n\n- https://lower.example/\n\n" +
		"## References:\n\n- https://colon.example/\n\n## Sources\n\n- https://s.example/\n"
	tests := []struct {
		name   string
		titles []string
		want   []string
	}{
		{"default: only Sources", nil, []string{"https://s.example/"}},
		{"extra titles, compared exactly", []string{"References", "Bibliography"},
			[]string{"https://r.example/", "https://b.example/", "https://s.example/"}},
		{"a spelling must be listed to count", []string{"References", "references", "References:"},
			[]string{"https://r.example/", "https://lower.example/", "https://colon.example/", "https://s.example/"}},
		{"titles are trimmed, blank ones ignored", []string{"  References ", "", "   "},
			[]string{"https://r.example/", "https://s.example/"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := urls(mustSourcesWith(t, []byte(src), SourcesOptions{Titles: tt.titles})); !slices.Equal(got, tt.want) {
				t.Errorf("got %q; want %q", got, tt.want)
			}
		})
	}
	if got, want := urls(mustSourcesWith(t, []byte(src), SourcesOptions{})), urls(mustSources(t, []byte(src), &defaultLimits)); !slices.Equal(got, want) {
		t.Errorf("Sources %q differs from SourcesWith without options %q", got, want)
	}
}

func TestSourcesLinkForms(t *testing.T) {
	const wiki = "https://en.wikipedia.org/wiki/Foo_(bar)"
	tests := []struct {
		name string
		line string // placed on line 3, after "## Sources\n\n"
		want []Link
	}{
		{"inline", "- [Title](https://example.com/a)",
			[]Link{{URL: "https://example.com/a", Kind: KindInline}}},
		{"inline with title", `- [Title](https://example.com/a "The title")`,
			[]Link{{URL: "https://example.com/a", Kind: KindInline}}},
		{"angle autolink", "- <https://example.com/angle>",
			[]Link{{URL: "https://example.com/angle", Kind: KindAutolink}}},
		{"bare", "- https://example.com/bare",
			[]Link{{URL: "https://example.com/bare", Kind: KindBare}}},
		{"bare without a bullet", "https://example.com/bare",
			[]Link{{URL: "https://example.com/bare", Kind: KindBare}}},
		{"wikipedia parens, bare", "- " + wiki, []Link{{URL: wiki, Kind: KindBare}}},
		{"wikipedia parens, inline", "- [Foo](" + wiki + ")", []Link{{URL: wiki, Kind: KindInline}}},
		{"wikipedia parens, autolink", "- <" + wiki + ">", []Link{{URL: wiki, Kind: KindAutolink}}},
		{"wikipedia parens inside parens", "- Foo (" + wiki + ")", []Link{{URL: wiki, Kind: KindBare}}},
		{"trailing punctuation", "- https://example.com/trail).;:!?",
			[]Link{{URL: "https://example.com/trail", Kind: KindBare}}},
		{"trailing quote and comma", `- see https://example.com/q", then`,
			[]Link{{URL: "https://example.com/q", Kind: KindBare}}},
		{"trailing entity", "- https://example.com/e&amp;",
			[]Link{{URL: "https://example.com/e", Kind: KindBare}}},
		{"inner punctuation kept", "- https://example.com/a.b,c:d?e=f!g",
			[]Link{{URL: "https://example.com/a.b,c:d?e=f!g", Kind: KindBare}}},
		{"bold", "- **https://example.com/bold**",
			[]Link{{URL: "https://example.com/bold", Kind: KindBare}}},
		{"italic underscore", "- _https://example.com/it_",
			[]Link{{URL: "https://example.com/it", Kind: KindBare}}},
		{"task list item", "- [ ] https://example.com/task",
			[]Link{{URL: "https://example.com/task", Kind: KindBare}}},
		{"link text that looks like a checkbox", "- [x](https://example.com/x)",
			[]Link{{URL: "https://example.com/x", Kind: KindInline}}},
		{"strikethrough", "- ~~https://example.com/struck~~",
			[]Link{{URL: "https://example.com/struck", Kind: KindBare}}},
		{"parenthesised", "- (https://example.com/p)",
			[]Link{{URL: "https://example.com/p", Kind: KindBare}}},
		{"after a tab", "- Title:\thttps://example.com/tab",
			[]Link{{URL: "https://example.com/tab", Kind: KindBare}}},
		{"stops at a no-break space", "- https://example.com/nbsp\u00a0more",
			[]Link{{URL: "https://example.com/nbsp", Kind: KindBare}}},
		{"stops at <", "- https://example.com/lt<b>",
			[]Link{{URL: "https://example.com/lt", Kind: KindBare}}},
		{"uppercase scheme, bare", "- HTTPS://EXAMPLE.COM/Upper",
			[]Link{{URL: "https://example.com/Upper", Kind: KindBare}}},
		{"uppercase scheme, inline", "- [U](HTTPS://EXAMPLE.COM/Upper)",
			[]Link{{URL: "https://example.com/Upper", Kind: KindInline}}},
		{"uppercase scheme, autolink", "- <HTTPS://EXAMPLE.COM/Upper>",
			[]Link{{URL: "https://example.com/Upper", Kind: KindAutolink}}},
		{"mixed-case scheme", "- Http://Example.com/Mixed",
			[]Link{{URL: "http://example.com/Mixed", Kind: KindBare}}},
		{"host case, default port", "- https://Example.COM:443/x",
			[]Link{{URL: "https://example.com/x", Kind: KindBare}}},
		{"IDN", "- https://bücher.de/straße",
			[]Link{{URL: "https://xn--bcher-kva.de/stra%C3%9Fe", Kind: KindBare}}},
		{"bare host gets a slash", "- https://example.com",
			[]Link{{URL: "https://example.com/", Kind: KindBare}}},
		{"trailing ? is punctuation", "- https://example.com/?",
			[]Link{{URL: "https://example.com/", Kind: KindBare}}},
		{"query and fragment kept", "- https://example.com/q?a=1&b=2#frag",
			[]Link{{URL: "https://example.com/q?a=1&b=2#frag", Kind: KindBare}}},
		{"IPv6 host", "- http://[::1]:8080/x",
			[]Link{{URL: "http://[::1]:8080/x", Kind: KindBare}}},
		{"apostrophe inside", "- https://example.com/a'b",
			[]Link{{URL: "https://example.com/a'b", Kind: KindBare}}},
		{"braces and star", "- https://example.com/a*b{c}",
			[]Link{{URL: "https://example.com/a*b%7Bc%7D", Kind: KindBare}}},
		{"userinfo kept for the caller to redact", "- https://user:pw@example.com/p",
			[]Link{{URL: "https://user:pw@example.com/p", Kind: KindBare}}},
		{"dot segments", "- https://example.com/path/../other",
			[]Link{{URL: "https://example.com/other", Kind: KindBare}}},
		{"space ends a bare URL", "- https://exa mple.com",
			[]Link{{URL: "https://exa/", Kind: KindBare}}},
		{"escaped destination", `- [t](https://example.com/a\_b?x=1&amp;y=2)`,
			[]Link{{URL: "https://example.com/a_b?x=1&y=2", Kind: KindInline}}},
		{"angle destination with a space", "- [t](<https://example.com/a b>)",
			[]Link{{URL: "https://example.com/a%20b", Kind: KindInline}}},
		{"image wrapped in a link", "- [![badge](https://img.example.com/b.svg)](https://example.com/target)",
			[]Link{{URL: "https://example.com/target", Kind: KindInline}}},
		{"per-line dedupe", "- https://example.com/x https://example.com/x https://example.com/y",
			[]Link{{URL: "https://example.com/x", Kind: KindBare}, {URL: "https://example.com/y", Kind: KindBare}}},
		{"dedupe after canonicalization, first form wins", "- [x](https://EXAMPLE.com/x) <https://example.com/x> https://example.com:443/x",
			[]Link{{URL: "https://example.com/x", Kind: KindInline}}},
		{"ftp and mailto ignored", "- ftp://ignored.example.com/x https://ok.example.com/y [m](mailto:a@example.com) <ftp://x.example.com/>",
			[]Link{{URL: "https://ok.example.com/y", Kind: KindBare}}},
		{"relative and scheme-less ignored", "- [r](/relative) [w](www.example.com) www.example.com/bare [p](//example.com/x)",
			nil},
		{"email ignored", "- someone@example.com <someone@example.com> [m](mailto:someone@example.com)", nil},
		{"code span ignored", "- `https://code.example.com/x` and ``<https://code.example.com/y>``", nil},
		{"raw HTML ignored", `- <a href="https://html.example.com/x">x</a>`, nil},
		{"image ignored", "- ![chart https://alt.example.com/x](https://img.example.com/x.png)", nil},
		{"bare scheme only", "- https:// and http://", nil},
		{"bare URL glued to a word", "- seehttps://example.com/x", nil},
		// GFM links a bare URL only at a line start or after whitespace,
		// '*', '_', '~' or '('; the reference finder would take these.
		{"bare URL after a quote or colon", `- "https://example.com/q" and Source:https://example.com/c`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := "## Sources\n\n" + tt.line + "\n"
			var want []Link
			for _, w := range tt.want {
				want = append(want, link(w.URL, 3, tt.line, w.Kind))
			}
			if got := linksOf(t, []byte(src)); !slices.Equal(got, want) {
				t.Errorf("got  %+v\nwant %+v", got, want)
			}
		})
	}
}

func TestSourcesReferenceLinks(t *testing.T) {
	src := strings.Join([]string{
		"[early]: https://example.com/defined-before",
		"",
		"## Findings",
		"",
		"[unused]: https://example.com/never-used",
		"",
		"## Sources",
		"",
		"- [Full][late]",
		"- [Collapsed][] and [early]",
		"- [undefined][nowhere] https://example.com/bare",
		"- [other]: https://example.com/definition-in-sources",
		"",
		"## Gaps",
		"",
		"[late]: https://example.com/defined-after",
		"[collapsed]: <https://example.com/collapsed>",
	}, "\n")
	want := []Link{
		link("https://example.com/defined-after", 9, "- [Full][late]", KindReference),
		link("https://example.com/collapsed", 10, "- [Collapsed][] and [early]", KindReference),
		link("https://example.com/defined-before", 10, "- [Collapsed][] and [early]", KindReference),
		link("https://example.com/bare", 11, "- [undefined][nowhere] https://example.com/bare", KindBare),
		// A definition inside the section is a citation itself; the two
		// outside it count only through the links above that use them.
		link("https://example.com/definition-in-sources", 12, "- [other]: https://example.com/definition-in-sources", KindReference),
	}
	if got := linksOf(t, []byte(src)); !slices.Equal(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
}

// TestSourcesDefinitions covers link reference definitions written inside a
// Sources section. Each case's src is joined with "\n"; want lines are
// 1-based into it.
func TestSourcesDefinitions(t *testing.T) {
	ref := func(url string, line int, src []string) Link {
		return link(url, line, src[line-1], KindReference)
	}
	tests := []struct {
		name string
		src  []string
		want func(src []string) []Link
	}{
		{"the usual shapes",
			[]string{
				"## Sources",
				`[1]: https://example.com/a "Title"`,
				"[2]: <https://example.com/b>",
				"[3]: https://example.com/c 'Single' ",
				"   [4]: https://example.com/d (Parens)",
			},
			func(src []string) []Link {
				return []Link{
					ref("https://example.com/a", 2, src), ref("https://example.com/b", 3, src),
					ref("https://example.com/c", 4, src), ref("https://example.com/d", 5, src),
				}
			}},
		{"document order among other links",
			[]string{
				"## Sources",
				"- https://a.example/1",
				"",
				"[two]: https://b.example/2",
				"- [three](https://c.example/3)",
				"",
				"[four]: https://d.example/4",
				"<https://e.example/5>",
			},
			func(src []string) []Link {
				return []Link{
					link("https://a.example/1", 2, src[1], KindBare),
					ref("https://b.example/2", 4, src),
					link("https://c.example/3", 5, src[4], KindInline),
					ref("https://d.example/4", 7, src),
					link("https://e.example/5", 8, src[7], KindAutolink),
				}
			}},
		{"in list items and block quotes",
			[]string{
				"## Sources",
				"- [1]: https://a.example/",
				"- [2]: https://b.example/",
				"1. [3]: https://c.example/",
				"",
				"> [4]: https://d.example/",
				"- item",
				"",
				"  [5]: https://e.example/",
			},
			func(src []string) []Link {
				return []Link{
					ref("https://a.example/", 2, src), ref("https://b.example/", 3, src),
					ref("https://c.example/", 4, src), ref("https://d.example/", 6, src),
					ref("https://e.example/", 9, src),
				}
			}},
		{"destination and title on later lines",
			[]string{
				"## Sources",
				"[1]:",
				"  https://a.example/x",
				`  "Title`,
				`  more title"`,
				"- https://b.example/y",
			},
			func(src []string) []Link {
				return []Link{ref("https://a.example/x", 2, src), link("https://b.example/y", 6, src[5], KindBare)}
			}},
		{"destination canonicalized like a link's",
			[]string{
				"## Sources",
				`[e]: https://example.com/a\_b?x=1&amp;y=2`,
				"[s]: <https://example.com/a b>",
				"[u]: HTTPS://Example.COM:443/x/../y",
				"[i]: https://bücher.de/straße",
			},
			func(src []string) []Link {
				return []Link{
					ref("https://example.com/a_b?x=1&y=2", 2, src), ref("https://example.com/a%20b", 3, src),
					ref("https://example.com/y", 4, src), ref("https://xn--bcher-kva.de/stra%C3%9Fe", 5, src),
				}
			}},
		{"non-http and relative destinations ignored",
			[]string{
				"## Sources",
				"[m]: mailto:someone@example.com",
				"[f]: ftp://files.example.com/x",
				"[r]: /relative",
				"[w]: www.example.com/x",
				"[n]: <>",
			},
			func([]string) []Link { return nil }},
		{"duplicate labels both count",
			[]string{
				"## Sources",
				"[1]: https://a.example/",
				"[1]: https://b.example/",
				"[1]: https://a.example/",
			},
			func(src []string) []Link {
				return []Link{ref("https://a.example/", 2, src), ref("https://b.example/", 3, src), ref("https://a.example/", 4, src)}
			}},
		{"definition used inside the section counts at both places",
			[]string{
				"## Sources",
				"- [Report][r]",
				"",
				"[r]: https://r.example/",
			},
			func(src []string) []Link {
				return []Link{ref("https://r.example/", 2, src), ref("https://r.example/", 4, src)}
			}},
		{"definition used only outside the section counts once",
			[]string{
				"## Findings",
				"See [the report][r].",
				"## Sources",
				"[r]: https://r.example/",
			},
			func(src []string) []Link { return []Link{ref("https://r.example/", 4, src)} }},
		{"definitions in code and raw HTML do not count",
			[]string{
				"## Sources",
				"```",
				"[x]: https://fence.example/x",
				"```",
				"~~~markdown",
				"## Sources",
				"[y]: https://fence.example/y",
				"~~~",
				"",
				"    [z]: https://indented.example/z",
				"",
				"<div>",
				"[h]: https://html.example/h",
				"</div>",
				"",
				"`[c]: https://span.example/c`",
				"- https://a.example/1",
			},
			func(src []string) []Link { return []Link{link("https://a.example/1", 17, src[16], KindBare)} }},
		{"outside the section bounds",
			[]string{
				"[before]: https://before.example/",
				"Sources",
				"=======",
				"[in]: https://in.example/",
				"# More",
				"[after]: https://after.example/",
			},
			func(src []string) []Link { return []Link{ref("https://in.example/", 4, src)} }},
		{"not a definition: text after the title, or interrupting a paragraph",
			[]string{
				"## Sources",
				`[1]: https://a.example/ "Title" trailing`,
				"",
				"Some text",
				"[2]: https://b.example/",
			},
			func(src []string) []Link {
				return []Link{link("https://a.example/", 2, src[1], KindBare), link("https://b.example/", 5, src[4], KindBare)}
			}},
		{"last line without a newline",
			[]string{"## Sources", "[1]: https://a.example/"},
			func(src []string) []Link { return []Link{ref("https://a.example/", 2, src)} }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := strings.Join(tt.src, "\n")
			want := tt.want(tt.src)
			if got := linksOf(t, []byte(src)); !slices.Equal(got, want) {
				t.Errorf("got  %+v\nwant %+v", got, want)
			}
			crlf := strings.ReplaceAll(src, "\n", "\r\n")
			if got := linksOf(t, []byte(crlf)); !slices.Equal(got, want) {
				t.Errorf("CRLF: got  %+v\nwant %+v", got, want)
			}
		})
	}
}

func TestSourcesLines(t *testing.T) {
	src := strings.Join([]string{
		"# Wave",                              // 1
		"",                                    // 2
		"## Sources",                          // 3
		"",                                    // 4
		"  * https://example.com/a  ",         // 5
		"* https://example.com/a",             // 6: repeats on other lines are kept
		"",                                    // 7
		"  1. nested",                         // 8
		"     - <https://example.com/b>",      // 9
		"",                                    // 10
		"> quoted [q](https://example.com/c)", // 11
		"",                                    // 12
		"| name | url |",                      // 13
		"|------|-----|",                      // 14
		"| d    |https://example.com/d|",      // 15
		"",                                    // 16
		"A link whose text [runs over",        // 17
		"two lines](https://example.com/e).",  // 18
	}, "\n")
	want := []Link{
		link("https://example.com/a", 5, "* https://example.com/a", KindBare),
		link("https://example.com/a", 6, "* https://example.com/a", KindBare),
		link("https://example.com/b", 9, "- <https://example.com/b>", KindAutolink),
		link("https://example.com/c", 11, "> quoted [q](https://example.com/c)", KindInline),
		link("https://example.com/d", 15, "| d    |https://example.com/d|", KindBare),
		link("https://example.com/e", 17, "A link whose text [runs over", KindInline),
	}
	if got := linksOf(t, []byte(src)); !slices.Equal(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
	crlf := strings.ReplaceAll(src, "\n", "\r\n")
	if got := linksOf(t, []byte(crlf)); !slices.Equal(got, want) {
		t.Errorf("CRLF: got  %+v\nwant %+v", got, want)
	}
}

func TestKindString(t *testing.T) {
	for k, want := range map[Kind]string{
		KindInline: "inline", KindReference: "reference", KindAutolink: "autolink", KindBare: "bare", Kind(9): "Kind(9)",
	} {
		if got := k.String(); got != want {
			t.Errorf("Kind(%d).String() = %q; want %q", int(k), got, want)
		}
	}
}

// goldenLink is the golden-file form of a Link.
type goldenLink struct {
	URL        string `json:"url"`
	Line       int    `json:"line"`
	SourceLine string `json:"source_line"`
	Kind       string `json:"kind"`
}

const goldenDir = "../testdata/parse"

// TestSourcesGolden runs every testdata/parse/*.md file and compares with its
// .golden.json; `go test ./parse -update` rewrites them.
func TestSourcesGolden(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(goldenDir, "*.md"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden cases in %s (%v)", goldenDir, err)
	}
	for _, md := range files {
		t.Run(filepath.Base(md), func(t *testing.T) {
			src, err := os.ReadFile(md)
			if err != nil {
				t.Fatal(err)
			}
			got := []goldenLink{}
			for _, l := range linksOf(t, src) {
				got = append(got, goldenLink{l.URL, l.Line, l.SourceLine, l.Kind.String()})
			}
			checkGolden(t, md, got)
		})
	}
}

// TestSourcesWaveCorpus pins the reference corpus result (origin.md §10):
// six links, the shared URL found once in each wave-1 file.
func TestSourcesWaveCorpus(t *testing.T) {
	want := map[string][]string{
		"wave-1/p1.md": {"https://example.com/a", "https://example.com/b?utm_source=phase04", "https://dup.example.com/shared"},
		"wave-1/p2.md": {"https://example.com/c", "https://dup.example.com/shared"},
		"wave-2/p3.md": {"https://wave2.example.com/d"},
	}
	for f, w := range want {
		src, err := os.ReadFile(filepath.Join(fixtures, "wave-corpus", f))
		if err != nil {
			t.Fatal(err)
		}
		got := linksOf(t, src)
		if !slices.Equal(urls(got), w) {
			t.Errorf("%s: got %q; want %q", f, urls(got), w)
		}
		for _, l := range got {
			if l.SourceLine != "- "+l.URL {
				t.Errorf("%s: source line %q for %q", f, l.SourceLine, l.URL)
			}
		}
	}
}

// TestSourcesConcurrent lets the race detector check that the shared
// goldmark instance and the WHATWG parser are safe to use from several
// goroutines.
func TestSourcesConcurrent(t *testing.T) {
	src := append(benchWave(25), "\n## Sources\n\n- https://bücher.de/straße\n- https://Example.COM:443/a/../b\n"...)
	want := linksOf(t, src)
	done := make(chan []Link)
	for range 4 {
		go func() {
			for _, l := range want {
				_, _ = Normalize(l.URL)
			}
			got, _ := Sources(context.Background(), src)
			for i := range got {
				got[i].Text, got[i].Col = "", Column{}
			}
			done <- got
		}()
	}
	for range 4 {
		if got := <-done; !slices.Equal(got, want) {
			t.Error("concurrent Sources disagrees with a sequential run")
		}
	}
}

func FuzzSources(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join(goldenDir, "*.md"))
	for _, md := range files {
		if src, err := os.ReadFile(md); err == nil {
			f.Add(src)
		}
	}
	for _, s := range fuzzSeeds() {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		// The invariants hold whole and piecewise (see limits).
		for _, lim := range []*limits{&defaultLimits, piecewise} {
			links, err := sources(context.Background(), src, lim)
			var limit *LimitError
			if err != nil && !errors.As(err, &limit) {
				t.Fatalf("Sources: %v", err)
			}
			checkLinks(t, src, links)
		}
	})
}

// checkLinks asserts what holds of any Sources result: lines in order and
// in range, each with its trimmed text, canonical URLs, known kinds.
func checkLinks(t *testing.T, src []byte, links []Link) {
	t.Helper()
	lines := strings.Split(string(src), "\n")
	prev := 1
	for _, l := range links {
		if l.Line < prev {
			t.Fatalf("link on line %d reported after one on line %d", l.Line, prev)
		}
		prev = l.Line
		if c, err := Canonical(l.URL); err != nil || c != l.URL {
			t.Fatalf("URL %q is not canonical: %q, %v", l.URL, c, err)
		}
		if l.Line < 1 || l.Line > len(lines) {
			t.Fatalf("line %d out of range 1..%d", l.Line, len(lines))
		}
		if want := strings.TrimSpace(lines[l.Line-1]); l.SourceLine != want {
			t.Fatalf("source line %q; line %d is %q", l.SourceLine, l.Line, want)
		}
		if l.Kind < KindInline || l.Kind > KindBare {
			t.Fatalf("kind %d", l.Kind)
		}
	}
}

// benchWave builds a wave file shaped like the real ones: a Findings section
// with prose and stray URLs, then a Sources section with n links in the
// usual mix of forms, then Gaps.
func benchWave(n int) []byte {
	var b bytes.Buffer
	b.WriteString("# Perspective p7: benchmark\n\n## Findings\n\n")
	for i := range 8 {
		fmt.Fprintf(&b, "Finding %d is supported by several sources and discussed at length, "+
			"see https://findings.example.com/%d for details and **emphasis** on `code`.\n\n", i, i)
	}
	b.WriteString("## Sources\n\n")
	for i := range n {
		switch i % 4 {
		case 0:
			fmt.Fprintf(&b, "- https://source%d.example.com/articles/2024/%d?id=%d&utm_source=agent\n", i, i, i)
		case 1:
			fmt.Fprintf(&b, "- [Report %d — Example Org](https://www.example.org/reports/%d.pdf) (accessed 2024-05-01)\n", i, i)
		case 2:
			fmt.Fprintf(&b, "- <https://en.wikipedia.org/wiki/Topic_%d_(disambiguation)>\n", i)
		default:
			fmt.Fprintf(&b, "- Author et al. (2023). *Title %d*. https://doi.org/10.1000/%d.\n", i, i)
		}
	}
	b.WriteString("\n## Gaps\n\n- Need more primary data.\n")
	return b.Bytes()
}

// BenchmarkSources parses one 25-URL wave file per op; the target is 2,000
// such files in well under 0.5 s on 2 cores.
func BenchmarkSources(b *testing.B) {
	src := benchWave(25)
	if n := len(linksOf(b, src)); n != 25 {
		b.Fatalf("benchmark file yields %d links; want 25", n)
	}
	b.Run("serial", func(b *testing.B) {
		b.SetBytes(int64(len(src)))
		b.ReportAllocs()
		for b.Loop() {
			_, _ = Sources(context.Background(), src)
		}
	})
	// ns/op here is wall time per file with GOMAXPROCS files in flight,
	// which is what the 2,000-file target is about.
	b.Run("parallel", func(b *testing.B) {
		b.SetBytes(int64(len(src)))
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				_, _ = Sources(context.Background(), src)
			}
		})
	})
}

// TestSourcesLinkText: each link has its own text, the words it renders as
// (issue 10 item 13: the second link on a line used to get the first's).
func TestSourcesLinkText(t *testing.T) {
	src := strings.Join([]string{
		"## Sources",
		"",
		"- [First report](https://a.example/1) and [Second *report*](https://b.example/2)",
		"- https://c.example/3 after [a link](https://d.example/4)",
		"- [Ref text][r] <https://e.example/5> [`code` & more][r2]",
		"- A link whose text [runs over",
		"  two lines](https://f.example/6)",
		"- [![badge](https://img.example/b.svg) Project](https://g.example/7)",
		"[def]: https://h.example/8",
		"",
		"[r]: https://r.example/",
		"[r2]: https://r2.example/",
	}, "\n")
	type linkText struct {
		url  string
		line int
		text string
	}
	want := []linkText{
		{"https://a.example/1", 3, "First report"},
		{"https://b.example/2", 3, "Second report"},
		{"https://c.example/3", 4, ""},
		{"https://d.example/4", 4, "a link"},
		{"https://r.example/", 5, "Ref text"},
		{"https://e.example/5", 5, ""},
		{"https://r2.example/", 5, "code & more"},
		{"https://f.example/6", 6, "runs over two lines"},
		{"https://g.example/7", 8, "badge Project"},
		{"https://h.example/8", 9, ""}, // a lazy continuation line: bare
		{"https://r.example/", 11, ""}, // definitions have no text
		{"https://r2.example/", 12, ""},
	}
	texts := func(links []Link) []linkText {
		var out []linkText
		for _, l := range links {
			out = append(out, linkText{l.URL, l.Line, l.Text})
		}
		return out
	}
	links, err := Sources(context.Background(), []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if got := texts(links); !slices.Equal(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
	// Pieces read the same text (the multi-line one aside).
	piece := texts(mustSources(t, []byte(src), piecewise))
	want[7] = linkText{"https://f.example/6", 7, ""}
	if !slices.Equal(piece, want) {
		t.Errorf("piecewise: got  %+v\nwant %+v", piece, want)
	}
}

func mustSourcesWith(t testing.TB, src []byte, opt SourcesOptions) []Link {
	t.Helper()
	got, err := SourcesWith(context.Background(), src, opt)
	if err != nil {
		t.Fatalf("SourcesWith: %v", err)
	}
	return got
}
