package parse

import (
	"bytes"
	"slices"
	"testing"
)

func TestIsRefTitle(t *testing.T) {
	titles := []string{
		// English, with the markup and numbering agents write
		"Sources", "References", "Bibliography", "Works cited", "Citations", "Notes and references",
		"Literature", "Further reading", "Key Citations", "Sources consulted", "References Cited",
		"**References:**", "**Sources**", "#### **Works cited**", "9. Sources", "9\\. Sources",
		"15. References (APA 7th Edition)", "IV. References", "Appendix B: References",
		"📚 Sources & References", "Sources and Further Reading", "Sources / References", "REFERENCES",
		// German
		"Quellen", "Quellenangaben", "Literaturverzeichnis", "Quellen und Literatur", "Weitere Quellen",
		"Zitierte Werke",
		// French
		"Références", "Bibliographie", "Sources des citations", "Ouvrages cités", "Notes et références",
		"Re\u0301fe\u0301rences", // decomposed accents
		// Spanish
		"Referencias", "Fuentes", "Bibliografía", "Obras citadas", "Fuentes consultadas",
		// Portuguese
		"Referências", "Fontes", "Referências bibliográficas", "Fontes consultadas",
		// Italian
		"Riferimenti", "Fonti", "Bibliografia", "Riferimenti bibliografici",
		// Russian
		"Источники", "Литература", "Список литературы", "Использованные источники", "Источники и литература",
		// Chinese
		"参考文献", "参考文献：", "参考资料", "来源", "来源列表", "四、来源列表", "（四）参考资料", "第九章 参考文献",
		"引用的著作", "资料来源", "參考資料", "注释与参考文献", "参考文献（按引用顺序）",
		// Japanese
		"引用文献", "出典", "参考リンク", "参考文献一覧",
		// Korean
		"참고문헌", "출처",
	}
	for _, s := range titles {
		if !isRefTitle(s) {
			t.Errorf("isRefTitle(%q) = false, want true", s)
		}
	}
	notTitles := []string{
		"", "Source", "Source Breakdown", "Source Types Used", "Image Sources", "Data sources",
		"Sources of funding", "Literature review", "Methodology", "Notes", "Resources", "2024 Sources",
		"Sources say the effect is small", "Conclusion", "参考", "来源分析", "数据引用汇总表", "Quellen der Energie",
		"Other sources suggest otherwise", "Sources and methods",
	}
	for _, s := range notTitles {
		if isRefTitle(s) {
			t.Errorf("isRefTitle(%q) = true, want false", s)
		}
	}
}

func TestStripSectionNumber(t *testing.T) {
	tests := map[string]string{
		"9. Sources": "Sources", "9 Sources": "Sources", "9.2. Sources": "Sources", "9) Sources": "Sources",
		"9\\. Sources": "Sources", "IV. Sources": "Sources", "B) Sources": "Sources", "四、来源列表": "来源列表",
		"（四）来源": "来源", "第九章 参考文献": "参考文献", "§ 9 Sources": "Sources", "Appendix B: Sources": "Sources",
		"9、参考文献": "参考文献", "Sources": "Sources", "2024 Sources": "2024 Sources", "9.": "9.",
		"A Sources": "A Sources", "I Sources": "I Sources", "Vitamin C. Sources": "Vitamin C. Sources",
	}
	for in, want := range tests {
		if got := stripSectionNumber(in); got != want {
			t.Errorf("stripSectionNumber(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestCiteReferenceSections covers how a reference list is recognised and
// where it ends; each case's markers resolve only if the list is found.
func TestCiteReferenceSections(t *testing.T) {
	const one = "https://one.example/"
	tests := []struct {
		name string
		src  string
		want []string
	}{
		{"numbered heading",
			"Claim [1].\n\n## 9. Sources\n\n1. https://one.example/\n",
			[]string{"numbered [1] → 1 ⇒ " + one}},
		{"numbered bold heading with a parenthetical",
			"Claim [1].\n\n## **15. References** (APA 7th Edition)\n\n1. Doe, J. (2020). One. https://one.example/\n\n## **16. Appendices**\n\nMore [1] and https://appendix.example/.\n",
			[]string{"numbered [1] → 1 ⇒ " + one, "numbered [1] → 1 ⇒ " + one, "url https://appendix.example/ → https://appendix.example/"}},
		{"Gemini export heading, German",
			"Behauptung [1].\n\n#### **Quellenangaben**\n\n1. Eins, https://one.example/\n",
			[]string{"numbered [1] → 1 ⇒ " + one}},
		{"Chinese numbered heading over a table",
			"说法 [1]。\n\n## 四、来源列表\n\n| 编号 | 来源 | URL |\n|---|---|---|\n| [1] | 一 | https://one.example/ |\n\n## 五、方法论反思\n\n另一个 [1]。\n",
			[]string{"numbered [1] → 1 ⇒ " + one, "numbered [1] → 1 ⇒ " + one}},
		{"a Chinese label line with a full-width colon",
			"说法 [1]。\n\n参考文献：\n[1] https://one.example/ - 标题\n",
			[]string{"numbered [1] → 1 ⇒ " + one}},
		{"Russian and Japanese headings",
			"Утверждение [1]. 主張 [2]。\n\n## Источники\n\n1. https://one.example/\n\n## 引用文献\n\n2. https://two.example/\n",
			[]string{"numbered [1] → 1 ⇒ " + one, "numbered [2] → 2 ⇒ https://two.example/"}},
		{"bold label without a colon",
			"Claim [1].\n\n**Sources**\n\n1. https://one.example/\n",
			[]string{"numbered [1] → 1 ⇒ " + one}},
		{"sub-headings inside the list do not end it",
			"Claim [1] and [2].\n\n## References\n\n### Papers\n\n1. https://one.example/\n\n### Web\n\n2. https://two.example/\n",
			[]string{"numbered [1] → 1 ⇒ " + one, "numbered [2] → 2 ⇒ https://two.example/"}},
		{"a sub-heading titled like a list stays inside the outer list",
			"Claim [1] and [2].\n\n## References\n\n### Primary sources\n\n1. https://one.example/\n\n### Web\n\n2. https://two.example/\n",
			[]string{"numbered [1] → 1 ⇒ " + one, "numbered [2] → 2 ⇒ https://two.example/"}},
		{"a heading of the same level ends it",
			"## Sources\n\n1. https://one.example/\n\n## How this report was generated\n\nSee https://tool.example/ [1].\n",
			[]string{"url https://tool.example/ → https://tool.example/", "numbered [1] → 1 ⇒ " + one}},
		{"a thematic break then a footer ends it",
			"Claim [1].\n\n## Sources\n\n[1] One. https://one.example/\n\n---\n\n*Report compiled by an agent, every claim checked against [1].*\n",
			[]string{"numbered [1] → 1 ⇒ " + one, "numbered [1] → 1 ⇒ " + one}},
		{"a thematic break then more entries does not end it",
			"Claim [2].\n\n## Sources\n\n[1] One. https://one.example/\n\n---\n\n[2] Two. https://two.example/\n",
			[]string{"numbered [2] → 2 ⇒ https://two.example/"}},
		{"a thematic break then a deeper heading does not end it",
			"Claim [2].\n\n## Sources\n\n1. https://one.example/\n\n---\n\n### Web\n\n2. https://two.example/\n",
			[]string{"numbered [2] → 2 ⇒ https://two.example/"}},
		{"a label line inside a paragraph (STORM)",
			"Prose one [1].\nMore prose https://prose.example/ here.\nReferences:\n Doe, 2020, One. [https://one.example/](https://one.example/)\n Roe, 2021, Two. [https://two.example/](https://two.example/)\n\nLater [1].\n",
			[]string{"numbered [1] → 1 ⇒ ∅", "url https://prose.example/ → https://prose.example/", "numbered [1] → 1 ⇒ ∅"}},
		{"a label line ending a paragraph, the list after it",
			"Prose [1].\n**Sources:**\n\n1. https://one.example/\n",
			[]string{"numbered [1] → 1 ⇒ " + one}},
		{"a title word wrapped into prose is not a label",
			"Claim [1].\n\nOther sources\nsuggest otherwise [1].\n\n## Sources\n\n1. https://one.example/\n",
			[]string{"numbered [1] → 1 ⇒ " + one, "numbered [1] → 1 ⇒ " + one}},
		{"[N] lines ending the last paragraph",
			"Claim [1].\n\nExpected timeline\nThe trial ends in 2026 [1].\n[1] NCT0001 - Trial. Retrieved from https://one.example/.\n",
			[]string{"numbered [1] → 1 ⇒ " + one, "numbered [1] → 1 ⇒ " + one}},
		{"an unheaded docx list over paragraphs, several numbers per entry",
			"Claim [1]. Other [4]. Third [2].\n\n[1] [4] academic.oup.com\n\nhttps://one.example/\n\n[2] https://two.example/\n\nhttps://two.example/\n",
			[]string{"numbered [1] → 1 ⇒ " + one, "numbered [4] → 4 ⇒ " + one, "numbered [2] → 2 ⇒ https://two.example/"}},
		{"escaped link markers of a docx export",
			"Claim[\\[1\\]](https://one.example/#:~:text=a).\n\n------\n\n[\\[1\\]](https://one.example/#:~:text=a) [\\[2\\]](https://one.example/#:~:text=b) One\n\n<https://one.example/>\n\n[\\[3\\]](https://three.example/#:~:text=c) Three\n\n<https://three.example/>\n",
			[]string{"url https://one.example/#:~:text=a → https://one.example/#:~:text=a"}},
		{"several numbers in a list item",
			"Claim [8].\n\n## Sources\n\n- [1] [8] https://one.example/\n",
			[]string{"numbered [8] → 8 ⇒ " + one}},
		{"a title in running text is not a list",
			"See the References section for [1].\n\n## Sources\n\n1. https://one.example/\n",
			[]string{"numbered [1] → 1 ⇒ " + one}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := cites(t, tt.src); !slices.Equal(got, tt.want) {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestCiteFootnoteGroups(t *testing.T) {
	src := "A claim.[^3,^4] Another[^5; ^6; ^5]. A label with a comma[^a,b]. Not one[^x, y].\n\n" +
		"[^3]: https://three.example/\n[^4]: https://four.example/\n[^5]: https://five.example/\n[^a,b]: https://ab.example/\n"
	want := []string{
		"footnote [^3,^4] → 3 ⇒ https://three.example/", "footnote [^3,^4] → 4 ⇒ https://four.example/",
		"footnote [^5; ^6; ^5] → 5 ⇒ https://five.example/", "footnote [^5; ^6; ^5] → 6 ⇒ ∅",
		"footnote [^a,b] → a,b ⇒ https://ab.example/",
	}
	if got := cites(t, src); !slices.Equal(got, want) {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

func TestLeadingMarkers(t *testing.T) {
	tests := map[string][]int{
		"[3] Title":                    {3},
		"**[3]** Title":                {3},
		"[3]: https://x.example/":      {3},
		"[1] [4] [8] academic.oup.com": {1, 4, 8},
		"[1][1] twice":                 {1},
		"[\\[1\\]](https://a.example/(x)) [\\[8\\]](https://b.example/) T": {1, 8},
		"[2](https://a.example/) Title":                                    {2},
		"[\\[1\\]] no destination":                                         nil,
		"[a] Title":                                                        nil,
		"[1000] Title":                                                     nil,
		"Title [1]":                                                        nil,
		"[1](https://unclosed.example/ ":                                   nil,
	}
	for in, want := range tests {
		if got := leadingMarkers([]byte(in)); !slices.Equal(got, want) {
			t.Errorf("leadingMarkers(%q) = %v, want %v", in, got, want)
		}
	}
}

// TestMarkerRunLinear: a long run of "[N] …" paragraphs that is not a
// reference list (no URLs) is examined once, not once from each of its
// paragraphs.
func TestMarkerRunLinear(t *testing.T) {
	const n = 2000
	src := bytes.Repeat([]byte("[1] not an entry\n\n"), n)
	c := runCite(src)
	if len(c.lists) != 0 {
		t.Fatalf("found %d lists in a run without URLs", len(c.lists))
	}
	if c.runScanned > 2*n {
		t.Errorf("markerRun looked at %d blocks for %d paragraphs", c.runScanned, n)
	}
}
