package parse

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// cite is the compact form the table tests compare: "kind raw → identifier
// ⇒ target", the target left out when it equals the identifier (url, doi)
// and shown as ∅ when unresolved.
func cite(c Citation) string {
	s := fmt.Sprintf("%s %s → %s", c.Kind, c.Raw, c.Identifier)
	switch {
	case c.Target == "":
		s += " ⇒ ∅"
	case c.Target != c.Identifier:
		s += " ⇒ " + c.Target
	}
	return s
}

func cites(t *testing.T, src string) []string {
	t.Helper()
	got := Cite([]byte(src))
	checkCitations(t, []byte(src), got)
	out := []string{}
	for _, c := range got {
		out = append(out, cite(c))
	}
	return out
}

// checkCitations holds every result to the invariants of the API; FuzzCite
// runs it on arbitrary input.
func checkCitations(t *testing.T, src []byte, got []Citation) {
	t.Helper()
	prev := 0
	for i, c := range got {
		where := fmt.Sprintf("citation %d %q", i, c.Raw)
		if c.OffsetStart < 0 || c.OffsetEnd > len(src) || c.OffsetStart >= c.OffsetEnd {
			t.Fatalf("%s: offsets %d..%d out of range 0..%d", where, c.OffsetStart, c.OffsetEnd, len(src))
		}
		if string(src[c.OffsetStart:c.OffsetEnd]) != c.Raw {
			t.Fatalf("%s: input[%d:%d] is %q", where, c.OffsetStart, c.OffsetEnd, src[c.OffsetStart:c.OffsetEnd])
		}
		if c.OffsetStart < prev {
			t.Fatalf("%s: starts at %d, before the previous citation at %d", where, c.OffsetStart, prev)
		}
		prev = c.OffsetStart
		if c.Identifier == "" {
			t.Fatalf("%s: empty identifier", where)
		}
		if len(c.Claim) > MaxClaim || !utf8.ValidString(c.Claim) || c.Claim != strings.TrimSpace(c.Claim) {
			t.Fatalf("%s: bad claim (%d bytes) %q", where, len(c.Claim), c.Claim)
		}
		switch c.Kind {
		case CiteURL, CiteDOI:
			if c.Target != c.Identifier || c.TargetKind != c.Kind {
				t.Fatalf("%s: %s target %q (%s) differs from its identifier %q", where, c.Kind, c.Target, c.TargetKind, c.Identifier)
			}
		case CiteNumbered, CiteAuthorYear, CiteFootnote:
		default:
			t.Fatalf("%s: kind %q", where, c.Kind)
		}
		if (c.Target == "") != (c.TargetKind == "") || c.TargetKind != "" && c.TargetKind != CiteURL && c.TargetKind != CiteDOI {
			t.Fatalf("%s: target %q with kind %q", where, c.Target, c.TargetKind)
		}
		switch c.TargetKind {
		case CiteURL:
			if u, err := Canonical(c.Target); err != nil || u != c.Target {
				t.Fatalf("%s: target %q is not a canonical URL", where, c.Target)
			}
		case CiteDOI:
			if !isDOI(c.Target) || strings.ToLower(c.Target) != c.Target {
				t.Fatalf("%s: target %q is not a lower-case DOI", where, c.Target)
			}
		}
	}
}

func ExampleCite() {
	output := []byte(`Heat pumps cut emissions by 40% in cold climates [1]. Sales fell in several European markets in 2023 (IEA, 2024).

## Sources

1. [Field trial](https://example.org/trial)
2. IEA (2024). The Future of Heat Pumps. https://doi.org/10.1787/2AFF8A9C-EN
`)
	for _, c := range Cite(output) {
		fmt.Printf("%s %s %d-%d → %s\n  %s\n", c.Kind, c.Raw, c.OffsetStart, c.OffsetEnd, c.Target, c.Claim)
	}
	// Output:
	// numbered [1] 49-52 → https://example.org/trial
	//   Heat pumps cut emissions by 40% in cold climates.
	// author_year (IEA, 2024) 101-112 → 10.1787/2aff8a9c-en
	//   Sales fell in several European markets in 2023.
}

func TestCiteKinds(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []string
	}{
		// URLs
		{"bare URL", "Rates rose in 2023, see https://example.com/a.",
			[]string{"url https://example.com/a → https://example.com/a"}},
		{"URL canonicalised", "Data at HTTPS://Example.COM:443/x/../y?q=1 today.",
			[]string{"url HTTPS://Example.COM:443/x/../y?q=1 → https://example.com/y?q=1"}},
		{"balanced parentheses kept, extra one trimmed", "(see https://en.wikipedia.org/wiki/Foo_(bar)).",
			[]string{"url https://en.wikipedia.org/wiki/Foo_(bar) → https://en.wikipedia.org/wiki/Foo_(bar)"}},
		{"quotes and trailing punctuation", `It says "https://example.com/q?a=1&b=2"; then stops.`,
			[]string{"url https://example.com/q?a=1&b=2 → https://example.com/q?a=1&b=2"}},
		{"URL closing a bracketed aside", "[see https://example.com/aside] for more.",
			[]string{"url https://example.com/aside → https://example.com/aside"}},
		{"inline link gives the destination span", `The [report](https://example.com/r "Title") says so.`,
			[]string{"url https://example.com/r → https://example.com/r"}},
		{"angle-bracket destination", "A [report](<https://example.com/a b>) says so.",
			[]string{"url https://example.com/a b → https://example.com/a%20b"}},
		{"autolink", "Found at <https://example.com/auto>.",
			[]string{"url https://example.com/auto → https://example.com/auto"}},
		{"link whose text is its URL counts once", "See [https://example.com/x](https://example.com/x).",
			[]string{"url https://example.com/x → https://example.com/x"}},
		{"relative and mailto links are not sources", "See [below](#method), [me](mailto:a@b.example) and <a@b.example>.",
			[]string{}},
		{"not http", "Mirror at ftp://example.com/f and www.example.com and foohttps://example.com/x.",
			[]string{}},
		{"scheme only", "Broken https:// link and http://[::1 too.", []string{}},

		// DOIs
		{"doi.org URL is a DOI", "Shown in https://doi.org/10.1038/NATURE12373.",
			[]string{"doi https://doi.org/10.1038/NATURE12373 → 10.1038/nature12373"}},
		{"dx.doi.org with an escaped slash", "Shown in http://dx.doi.org/10.1002%2Fabc.123 too.",
			[]string{"doi http://dx.doi.org/10.1002%2Fabc.123 → 10.1002/abc.123"}},
		{"doi.org link", "Per [the paper](https://doi.org/10.1000/XYZ).",
			[]string{"doi https://doi.org/10.1000/XYZ → 10.1000/xyz"}},
		{"doi: label", "Published as doi:10.1000/XYZ.123.",
			[]string{"doi 10.1000/XYZ.123 → 10.1000/xyz.123"}},
		{"DOI in parentheses", "A trial (DOI 10.1001/jama.2020.1) found it.",
			[]string{"doi 10.1001/jama.2020.1 → 10.1001/jama.2020.1"}},
		{"DOI with brackets in the suffix", "Old style 10.1002/(SICI)1097-4571(199806)49:8<693::AID-ASI4>3.0.CO;2-0 here.",
			[]string{"doi 10.1002/(SICI)1097-4571(199806)49:8 → 10.1002/(sici)1097-4571(199806)49:8"}},
		{"DOI inside a non-DOI URL is part of the URL", "At https://journals.example/doi/10.1000/abc now.",
			[]string{"url https://journals.example/doi/10.1000/abc → https://journals.example/doi/10.1000/abc"}},
		{"not DOIs", "Versions 10.12/x, 210.1234/x and 10.1234 are not DOIs.", []string{}},

		// Numbered
		{"numbered", "Sales grew 11% [3].", []string{"numbered [3] → 3 ⇒ ∅"}},
		{"group", "Sales grew [1, 2].", []string{"numbered [1, 2] → 1 ⇒ ∅", "numbered [1, 2] → 2 ⇒ ∅"}},
		{"range with an en dash", "Sales grew [4–6].",
			[]string{"numbered [4–6] → 4 ⇒ ∅", "numbered [4–6] → 5 ⇒ ∅", "numbered [4–6] → 6 ⇒ ∅"}},
		{"mixed group, repeats once", "Sales grew [2-3; 7, 3].",
			[]string{"numbered [2-3; 7, 3] → 2 ⇒ ∅", "numbered [2-3; 7, 3] → 3 ⇒ ∅", "numbered [2-3; 7, 3] → 7 ⇒ ∅"}},
		{"adjacent markers", "Sales grew.[1][2]", []string{"numbered [1] → 1 ⇒ ∅", "numbered [2] → 2 ⇒ ∅"}},
		{"source prefix", "Sales grew [Source 4].", []string{"numbered [Source 4] → 4 ⇒ ∅"}},
		{"a wide range gives its ends", "Sales grew [1-500].", []string{"numbered [1-500] → 1 ⇒ ∅", "numbered [1-500] → 500 ⇒ ∅"}},
		{"not numbered", "Index [0], year [2020], [x], [1a], \\[1] and ![2](img.png) are not citations.", []string{}},

		// Footnotes
		{"footnote", "Inflation fell.[^note-1]", []string{"footnote [^note-1] → note-1 ⇒ ∅"}},

		// Author–year
		{"author year", "Costs fell (Smith, 2021).", []string{"author_year (Smith, 2021) → Smith 2021 ⇒ ∅"}},
		{"et al.", "Costs fell (Smith et al., 2021).", []string{"author_year (Smith et al., 2021) → Smith 2021 ⇒ ∅"}},
		{"two authors", "Costs fell (Smith & Jones, 2020).", []string{"author_year (Smith & Jones, 2020) → Smith & Jones 2020 ⇒ ∅"}},
		{"two authors without a comma", "Costs fell (Smith and Jones 2020).",
			[]string{"author_year (Smith and Jones 2020) → Smith & Jones 2020 ⇒ ∅"}},
		{"several", "Costs fell (Smith, 2020; see also Lee et al., 2019a; Kim 2018, p. 4).",
			[]string{"author_year (Smith, 2020; see also Lee et al., 2019a; Kim 2018, p. 4) → Smith 2020 ⇒ ∅",
				"author_year (Smith, 2020; see also Lee et al., 2019a; Kim 2018, p. 4) → Lee 2019a ⇒ ∅"}},
		{"two years", "Costs fell (Smith, 2019, 2020b).",
			[]string{"author_year (Smith, 2019, 2020b) → Smith 2019 ⇒ ∅", "author_year (Smith, 2019, 2020b) → Smith 2020b ⇒ ∅"}},
		{"page locator", "Costs fell (Ding & Ma, 2023, pp. 12–14).", []string{"author_year (Ding & Ma, 2023, pp. 12–14) → Ding & Ma 2023 ⇒ ∅"}},
		{"organisation", "Costs fell (World Health Organization, 2023).",
			[]string{"author_year (World Health Organization, 2023) → World Health Organization 2023 ⇒ ∅"}},
		{"particles", "Costs fell (van der Berg, 2019; Le, 2020).",
			[]string{"author_year (van der Berg, 2019; Le, 2020) → van der Berg 2019 ⇒ ∅", "author_year (van der Berg, 2019; Le, 2020) → Le 2020 ⇒ ∅"}},
		{"emphasis inside", "Costs fell (Smith *et al.*, 2021).", []string{"author_year (Smith *et al.*, 2021) → Smith 2021 ⇒ ∅"}},
		{"no date", "Costs fell (Smith, n.d.).", []string{"author_year (Smith, n.d.) → Smith n.d. ⇒ ∅"}},
		{"narrative et al.", "Smith et al. (2021) found lower costs.", []string{"author_year Smith et al. (2021) → Smith 2021 ⇒ ∅"}},
		{"dates and asides are not author–year",
			"It changed in March (2024), in (March 2024), in (March, 2024), in (Q3 2024), (2019–2020), (n = 250, 2021), (COVID-19, 2020) and (2020).",
			[]string{}},
		{"weak forms need a bibliography", "Python (2020) is popular and (Smith 2020) agrees.", []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := cites(t, tt.src); !slices.Equal(got, tt.want) {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestCiteResolution(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []string
	}{
		{"Sources list: links, DOI URLs, bare URLs, an entry without one",
			"Claim one [1]. Claim two [2]. Claim three [3]. Claim four [4]. Claim five [5].\n\n## Sources\n\n" +
				"1. [IEA report](https://www.iea.org/r)\n2. Gjerde et al. https://doi.org/10.1016/J.X.1\n" +
				"3. Example — <https://example.org/a>\n4. Installer survey (no link)\n",
			[]string{"numbered [1] → 1 ⇒ https://www.iea.org/r", "numbered [2] → 2 ⇒ 10.1016/j.x.1",
				"numbered [3] → 3 ⇒ https://example.org/a", "numbered [4] → 4 ⇒ ∅", "numbered [5] → 5 ⇒ ∅"}},
		{"written numbers win over list order",
			"Claim [7].\n\n# References\n\n7. https://seven.example/\n8. https://eight.example/\n",
			[]string{"numbered [7] → 7 ⇒ https://seven.example/"}},
		{"bracketed bullets and any heading level",
			"Claim [2].\n\n#### references:\n\n- [1] https://one.example/\n- **[2]** Two — https://two.example/\n",
			[]string{"numbered [2] → 2 ⇒ https://two.example/"}},
		{"bracketed lines in a paragraph, wrapped entries",
			"Claim [2].\n\n## Works Cited\n\n[1] One\nhttps://one.example/\n[2] Two\nhttps://two.example/\n",
			[]string{"numbered [2] → 2 ⇒ https://two.example/"}},
		{"link reference definitions",
			"Claim [1] and [the survey][2].\n\n[1]: https://one.example/\n[2]: <https://two.example/> \"Two\"\n",
			[]string{"numbered [1] → 1 ⇒ https://one.example/", "numbered [2] → 2 ⇒ https://two.example/"}},
		{"a Sources: label paragraph",
			"Claim [1].\n\n**Sources:**\n[1] One — https://one.example/\n\nLater claim [1].\n",
			[]string{"numbered [1] → 1 ⇒ https://one.example/", "numbered [1] → 1 ⇒ https://one.example/"}},
		{"an unheaded tail of [N] lines",
			"Claim [2].\n\n[1] https://one.example/\n[2] Two https://two.example/\n",
			[]string{"numbered [2] → 2 ⇒ https://two.example/"}},
		{"a table of sources",
			"Claim [2].\n\n## Sources\n\n| # | Source |\n|---|---|\n| 1 | https://one.example/ |\n| [2] | [Two](https://two.example/) |\n",
			[]string{"numbered [2] → 2 ⇒ https://two.example/"}},
		{"in-page anchor to a reference",
			"Claim [[3]](#ref-3).\n\n## References\n\n3. <a id=\"ref-3\"></a>Three https://three.example/\n",
			[]string{"numbered [[3]](#ref-3) → 3 ⇒ https://three.example/"}},
		{"nearest following list first: parts that restart numbering",
			"# A\n\nAlpha [1].\n\n### Sources\n\n1. https://a.example/\n\n# B\n\nBeta [1].\n\n### Sources\n\n1. https://b.example/\n\n# C\n\nGamma [1].\n",
			[]string{"numbered [1] → 1 ⇒ https://a.example/", "numbered [1] → 1 ⇒ https://b.example/", "numbered [1] → 1 ⇒ https://b.example/"}},
		{"a deeper heading stays in the section, a sibling ends it",
			"Claim [2].\n\n## Sources\n\n### Web\n\n1. https://one.example/\n2. https://two.example/\n\n## Discussion\n\nMore [1].\n",
			[]string{"numbered [2] → 2 ⇒ https://two.example/", "numbered [1] → 1 ⇒ https://one.example/"}},
		{"footnotes: prose, link-style and multi-line definitions",
			"A[^1]. B[^x]. C[^long]. D[^missing].\n\n[^1]: OECD outlook, https://doi.org/10.1787/ABC\n[^long]: A note\n    that wraps: https://long.example/\n\n[^x]: https://x.example/\n",
			[]string{"footnote [^1] → 1 ⇒ 10.1787/abc", "footnote [^x] → x ⇒ https://x.example/",
				"footnote [^long] → long ⇒ https://long.example/", "footnote [^missing] → missing ⇒ ∅"}},
		{"numeric footnote falls back to the numbered list",
			"Claim[^2].\n\n## Sources\n\n1. https://one.example/\n2. https://two.example/\n",
			[]string{"footnote [^2] → 2 ⇒ https://two.example/"}},
		{"author–year through References",
			"Costs fell (Smith et al., 2021). Smith (2019) disagreed. Gains were large (Lee, 2020b).\n\n## References\n\n" +
				"Jones, A. (2021). Smith's method revisited. https://jones.example/\n\n" +
				"Smith, D., Brown, E., & Green, F. (2021). Efficiency. https://doi.org/10.1016/j.energy.2021.1\n\n" +
				"Smith, D. (2019). Earlier work. https://smith.example/2019\n\n" +
				"Lee, K. (2020a). First. https://lee.example/a\n\nLee, K. (2020b). Second. https://lee.example/b\n",
			[]string{"author_year (Smith et al., 2021) → Smith 2021 ⇒ 10.1016/j.energy.2021.1",
				"author_year Smith (2019) → Smith 2019 ⇒ https://smith.example/2019",
				"author_year (Lee, 2020b) → Lee 2020b ⇒ https://lee.example/b"}},
		{"accents fold, co-authors break ties",
			"Shown (García & Ruiz, 2018).\n\n## Bibliography\n\n- Garcia, M., & Soto, P. (2018). A. https://a.example/\n- Garcia, M., & Ruiz, L. (2018). B. https://b.example/\n",
			[]string{"author_year (García & Ruiz, 2018) → García & Ruiz 2018 ⇒ https://b.example/"}},
		{"an entry found but without a link",
			"Shown (Smith, 2020).\n\n## References\n\nSmith, J. (2020). A book. Publisher.\n",
			[]string{"author_year (Smith, 2020) → Smith 2020 ⇒ ∅"}},
		{"years in URLs do not match",
			"Shown (Smith, 2020).\n\n## References\n\n- Smith, J. (2018). https://smith.example/2020/report\n",
			[]string{"author_year (Smith, 2020) → Smith 2020 ⇒ ∅"}},
		{"unresolved numbered refs keep an empty target",
			"Claim [3].\n\n## Sources\n\n1. https://one.example/\n",
			[]string{"numbered [3] → 3 ⇒ ∅"}},
		{"list before the text",
			"## Sources\n\n1. https://one.example/\n\n## Findings\n\nClaim [1].\n",
			[]string{"numbered [1] → 1 ⇒ https://one.example/"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := cites(t, tt.src); !slices.Equal(got, tt.want) {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

// TestCiteBibliographyNotClaims checks that what is in a reference list,
// footnote definition or link definition is not reported as a citation.
func TestCiteBibliographyNotClaims(t *testing.T) {
	src := "Body https://body.example/ [1].\n\n" +
		"## Sources\n\n1. https://one.example/ (Smith, 2020) [2]\n\n" +
		"Prose in the section https://section.example/ still counts as bibliography.\n\n" +
		"[^a]: https://foot.example/ [3]\n\n[x]: https://def.example/\n"
	got := cites(t, src)
	want := []string{"url https://body.example/ → https://body.example/", "numbered [1] → 1 ⇒ https://one.example/"}
	if !slices.Equal(got, want) {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

func TestCiteIgnored(t *testing.T) {
	for _, src := range []string{
		"```\nSee [1] and https://fence.example/ (Smith, 2020).\n```\n",
		"~~~md\n[^1] 10.1000/abc\n~~~\n",
		"    indented code [1] https://indent.example/\n",
		"Inline `code [1] https://span.example/ 10.1000/abc` only.",
		"``double `tick` [2]`` only.",
		"<div>\nHTML block [1] https://html.example/\n</div>\n",
		`Inline <a href="https://attr.example/">HTML</a> tag.`,
		"An image ![chart [1]](https://img.example/c.png) only.",
		"[^1]: Definition https://def.example/ [2]\n",
	} {
		if got := cites(t, src); len(got) != 0 {
			t.Errorf("%q: got %q; want nothing", src, got)
		}
	}
}

func TestCiteOffsets(t *testing.T) {
	src := "é **Bold** claim [1]. Ünïcödé (Müller et al., 2020) and https://bücher.example/straße.\n" +
		"> Quote with [^q] and doi:10.1000/ÄBC.\r\n\n| a | b |\n|---|---|\n| x https://t.example/ | [2] |\n"
	got := Cite([]byte(src))
	checkCitations(t, []byte(src), got)
	raws := []string{}
	for _, c := range got {
		raws = append(raws, c.Raw)
	}
	want := []string{"[1]", "(Müller et al., 2020)", "https://bücher.example/straße", "[^q]", "10.1000/ÄBC", "https://t.example/", "[2]"}
	if !slices.Equal(raws, want) {
		t.Errorf("raws %q; want %q", raws, want)
	}
	if got[2].Identifier != "https://xn--bcher-kva.example/stra%C3%9Fe" {
		t.Errorf("IDN URL identifier %q", got[2].Identifier)
	}
}

func TestCiteClaims(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []string // one claim per citation
	}{
		{"the sentence holding the citation",
			"Heat pumps cut emissions by 40% in cold climates [1]. Prices fell sharply across Europe in 2023 [2].",
			[]string{"Heat pumps cut emissions by 40% in cold climates.", "Prices fell sharply across Europe in 2023."}},
		{"a citation after the full stop belongs to the sentence before",
			"Heat pumps cut emissions by 40% in cold climates.[1] Prices fell sharply across Europe in 2023.[2][3]",
			[]string{"Heat pumps cut emissions by 40% in cold climates.", "Prices fell sharply across Europe in 2023.", "Prices fell sharply across Europe in 2023."}},
		{"…also after a space, and for URLs",
			"Heat pumps cut emissions by 40% in cold climates. https://a.example/ Prices fell sharply across Europe in 2023.",
			[]string{"Heat pumps cut emissions by 40% in cold climates."}},
		{"a citation that opens its sentence takes the one before",
			"Europe is electrifying heating quickly. [1] reports that heat pumps cut emissions by 40%.",
			[]string{"Europe is electrifying heating quickly. reports that heat pumps cut emissions by 40%."}},
		{"a very short sentence takes the one before",
			"Heat pumps cut emissions by 40% in cold climates. See [2].",
			[]string{"Heat pumps cut emissions by 40% in cold climates. See."}},
		{"abbreviations, initials and decimals do not end sentences",
			"Smith et al. found e.g. 3.5 times lower costs in the U.S. market, approx. five times less (J. Doe agrees) [3].",
			[]string{"Smith et al. found e.g. 3.5 times lower costs in the U.S. market, approx. five times less (J. Doe agrees)."}},
		{"questions and exclamations end sentences",
			"Is it cheaper? Yes, it is much cheaper to run in most cases [1]! Really.",
			[]string{"Yes, it is much cheaper to run in most cases!"}},
		{"markdown is removed, link text kept",
			"**Bold** claim with `code`, _emphasis_, ~~old~~ and the [IEA report](https://iea.example/r) [1].",
			[]string{"Bold claim with code, emphasis, old and the IEA report.", "Bold claim with code, emphasis, old and the IEA report."}},
		{"links labelled with a number or a domain are markers",
			"EV sales reached 14 million in 2023 ([iea.org](https://www.iea.org/r)). Prices fell by a fifth over the year [[2]](https://b.example/).",
			[]string{"EV sales reached 14 million in 2023.", "Prices fell by a fifth over the year."}},
		{"lines and quote markers are joined",
			"> A quoted claim that spans\n> two lines of the source [1].",
			[]string{"A quoted claim that spans two lines of the source."}},
		{"narrative authors stay in the claim",
			"Smith et al. (2021) found lower costs in cold climates.",
			[]string{"Smith et al. found lower costs in cold climates."}},
		{"a list item takes the list's lead-in",
			"Key findings:\n\n- Costs fell [1]\n- Installations doubled in Poland in 2023 [2]\n",
			[]string{"Key findings: Costs fell", "Installations doubled in Poland in 2023"}},
		{"a citation alone in a table cell takes its row",
			"| Metric | Value | Source |\n|---|---|---|\n| SCOP at −25 °C | 2.5 | [1] |\n",
			[]string{"Metric: SCOP at −25 °C; Value: 2.5"}},
		{"a bare link list takes the sentence before it",
			"These sources cover installer training:\n\n- https://a.example/\n- https://b.example/\n",
			[]string{"These sources cover installer training:", "These sources cover installer training:"}},
		{"leftovers of removed markers are tidied",
			"Mild side effects (headache, irritability; doi:10.1000/x) were common (see https://a.example/).",
			[]string{"Mild side effects (headache, irritability) were common.", "Mild side effects (headache, irritability) were common."}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Cite([]byte(tt.src))
			checkCitations(t, []byte(tt.src), got)
			claims := []string{}
			for _, c := range got {
				claims = append(claims, c.Claim)
			}
			if !slices.Equal(claims, tt.want) {
				t.Errorf("got  %q\nwant %q", claims, tt.want)
			}
		})
	}
	t.Run("long sentences keep the words before the citation", func(t *testing.T) {
		src := "It is " + strings.Repeat("very ", 150) + "cheap [1] indeed."
		got := Cite([]byte(src))
		checkCitations(t, []byte(src), got)
		if len(got) != 1 {
			t.Fatalf("got %v", got)
		}
		c := got[0].Claim
		if len(c) > MaxClaim || len(c) < MaxClaim-10 || !strings.HasPrefix(c, "very ") || !strings.HasSuffix(c, " very cheap") {
			t.Errorf("claim of %d bytes: %q", len(c), c)
		}
	})
	t.Run("a long sentence is cut at a word, the claim still at most MaxClaim", func(t *testing.T) {
		src := "Short start [1] then " + strings.Repeat("wörds ", 200) + "end."
		got := Cite([]byte(src))
		checkCitations(t, []byte(src), got)
		if len(got) != 1 || !strings.HasPrefix(got[0].Claim, "Short start then wörds") || len(got[0].Claim) > MaxClaim {
			t.Errorf("got %v", got)
		}
	})
}

func TestCiteDedupe(t *testing.T) {
	tests := []struct {
		name string
		src  string
		n    int
	}{
		{"the same URL in two sentences is two citations",
			"Costs fell in 2023 https://a.example/. Sales rose in 2024 https://a.example/.", 2},
		{"…and twice in one sentence too", "Costs fell https://a.example/ and rose https://a.example/.", 2},
		{"the same [N] in two places", "Costs fell [1]. Sales rose [1].", 2},
		{"a number repeated in one marker counts once", "Costs fell [1, 1, 1-2].", 2},
		{"a work repeated in one parenthetical counts once", "Costs fell (Smith, 2020; Smith, 2020).", 1},
		{"a link whose text is its URL", "See [https://a.example/](https://a.example/).", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Cite([]byte(tt.src))
			checkCitations(t, []byte(tt.src), got)
			if len(got) != tt.n {
				t.Errorf("got %d citations %v; want %d", len(got), got, tt.n)
			}
		})
	}
	// Two citations of one URL in different sentences differ in offsets and
	// claims, so verify judges each claim.
	got := Cite([]byte("Costs fell in 2023 by a third https://a.example/. Sales rose in 2024 by half https://a.example/."))
	if len(got) != 2 || got[0].OffsetStart == got[1].OffsetStart || got[0].Claim == got[1].Claim {
		t.Errorf("got %+v", got)
	}
}

func TestCiteEmpty(t *testing.T) {
	for _, src := range []string{"", "\n", "No citations here.", "## Sources\n\n1. https://a.example/\n"} {
		if got := Cite([]byte(src)); len(got) != 0 {
			t.Errorf("%q: got %v", src, got)
		}
	}
}

// goldenCite is the golden-file form of a Citation: the struct itself, so
// that the JSON shape verify emits is pinned too.
const citeGoldenDir = "../testdata/parse/cite"

// TestCiteGolden runs every testdata/parse/cite/*.md file and compares with
// its .golden.json; `go test ./parse -update` rewrites them.
func TestCiteGolden(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(citeGoldenDir, "*.md"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden cases in %s (%v)", citeGoldenDir, err)
	}
	for _, md := range files {
		t.Run(filepath.Base(md), func(t *testing.T) {
			src, err := os.ReadFile(md)
			if err != nil {
				t.Fatal(err)
			}
			got := Cite(src)
			checkCitations(t, src, got)
			if got == nil {
				got = []Citation{}
			}
			checkGolden(t, md, got)
		})
	}
}

// TestCiteGoldenSummary pins the headline numbers of the fixtures, so that a
// careless -update cannot quietly lose resolution.
func TestCiteGoldenSummary(t *testing.T) {
	want := map[string][3]int{ // citations, with a target, numbered/author–year/footnote resolved
		"synthesis-numbered.md":   {20, 17, 17},
		"academic-author-year.md": {14, 13, 13},
		"footnotes.md":            {9, 7, 6},
		"bare-urls-dois.md":       {11, 11, 3},
		"multi-part.md":           {10, 9, 8},
	}
	for f, w := range want {
		src, err := os.ReadFile(filepath.Join(citeGoldenDir, f))
		if err != nil {
			t.Fatal(err)
		}
		var n, targeted, resolved int
		for _, c := range Cite(src) {
			n++
			if c.Target != "" {
				targeted++
				if c.Kind != CiteURL && c.Kind != CiteDOI {
					resolved++
				}
			}
		}
		if got := [3]int{n, targeted, resolved}; got != w {
			t.Errorf("%s: citations, targeted, resolved = %v; want %v", f, got, w)
		}
	}
}

func TestCiteConcurrent(t *testing.T) {
	src := realisticReport(40 << 10)
	want := Cite(src)
	done := make(chan []Citation)
	for range 4 {
		go func() { done <- Cite(src) }()
	}
	for range 4 {
		if got := <-done; !slices.Equal(got, want) {
			t.Error("concurrent Cite disagrees with a sequential run")
		}
	}
}

// TestCiteAdversarial feeds inputs built to hit quadratic paths: one huge
// sentence full of markers, long tokens that almost parse as URLs or DOIs,
// hundreds of reference lists. A quadratic path would run into the test
// timeout; the test itself asserts only the results.
func TestCiteAdversarial(t *testing.T) {
	const n = 200 << 10
	rep := func(s string) []byte { return bytes.Repeat([]byte(s), n/len(s)+1)[:n] }
	var lists bytes.Buffer
	for lists.Len() < n {
		lists.WriteString("Claim (Smith, 2020) [2].\n\n## Sources\n\n1. Jones (2020) https://a.example/\n\n")
	}
	inputs := map[string][]byte{
		"one sentence of markers":  append([]byte("Text "), rep("[1] (Smith, 2020) https://a.example/x ")...),
		"years without spaces":     rep("(2020)"),
		"URL-ish token":            rep("https://[x"),
		"DOI-ish token":            rep("10.1234/"),
		"dotted token":             rep("a."),
		"closing brackets":         append([]byte("https://a.example/"), rep("]")...),
		"open brackets":            rep("["),
		"open parentheses":         rep("("),
		"footnote refs":            rep("[^a]"),
		"emphasis":                 rep("*_"),
		"lists and citations":      lists.Bytes(),
		"long words before a year": rep("Abcdefghijklmnopqrstuvwxyz"),
		"marker paragraphs":        rep("[1] x\n\n"),
		"marker paragraphs, a URL": append(rep("[1] x\n\n"), "https://a.example/\n"...),
		"label lines":              rep("Sources:\n"),
		"bold label paragraphs":    rep("**Sources:**\n\n"),
		"run-on entries":           append([]byte("## Sources\n\n1\\. a "), rep("2\\. x ")...),
		"bare numbers":             append(rep("word.1 "), "\n\n## Sources\n\n1. https://a.example/\n"...),
		"sub-headings":             rep("## Sources\n### a\n"),
		"footnote groups":          rep("[^1,^2,^3]"),
	}
	inputs["long words before a year"] = append(inputs["long words before a year"], " (2020)"...)
	for name, src := range inputs {
		t.Run(name, func(t *testing.T) {
			got := Cite(src)
			checkCitations(t, src, got)
			if name == "one sentence of markers" && len(got) < 10000 {
				t.Errorf("only %d citations", len(got))
			}
		})
	}
}

// realisticReport builds an agent report of about size bytes: prose
// paragraphs with numbered, author–year and footnote citations, links,
// bare URLs and DOIs, code, a table, then Sources, References and footnote
// definitions.
func realisticReport(size int) []byte {
	var b bytes.Buffer
	b.WriteString("# Deep research report\n\n## Findings\n\n")
	for i := 0; b.Len() < size-8000; i++ {
		fmt.Fprintf(&b, "Finding %d: installations in region %d grew by %d%% in 2023, driven by subsidies and falling prices [%d]. "+
			"The effect was largest in cold climates, where **efficiency gains** were reported by several groups (Smith et al., 20%02d; Lee & Kim, 2019). "+
			"Costs remain high for older homes, see the [survey](https://survey.example.org/%d) and https://data.example.com/series/%d?id=%d.[^n%d] "+
			"Jones (20%02d) disputes the estimate, citing `model v%d` and doi:10.1000/rep.%d, while e.g. the U.S. market lagged [%d, %d].\n\n",
			i, i, i%40, i%60+1, i%24, i, i, i, i%8, i%24, i, i, i%60+1, (i+7)%60+1)
		if i%10 == 9 {
			b.WriteString("| Region | Growth | Source |\n|---|---|---|\n| North | 12% | [3] |\n| South | 8% | [4] |\n\n")
		}
	}
	b.WriteString("## Sources\n\n")
	for k := 1; k <= 60; k++ {
		fmt.Fprintf(&b, "%d. [Source %d](https://source.example.org/%d)\n", k, k, k)
	}
	b.WriteString("\n## References\n\n")
	for k := 0; k < 24; k++ {
		fmt.Fprintf(&b, "- Smith, A., Brown, B., & Green, C. (20%02d). Title %d. https://doi.org/10.1000/smith.%d\n", k, k, k)
		fmt.Fprintf(&b, "- Jones, D. (20%02d). Other %d. https://jones.example/%d\n", k, k, k)
	}
	b.WriteString("- Lee, E., & Kim, F. (2019). Joint work. https://leekim.example/\n\n")
	for k := 0; k < 8; k++ {
		fmt.Fprintf(&b, "[^n%d]: Note %d, https://notes.example/%d\n", k, k, k)
	}
	return b.Bytes()
}

func BenchmarkCite(b *testing.B) {
	src := realisticReport(200 << 10)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		Cite(src)
	}
}

func FuzzCite(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join(citeGoldenDir, "*.md"))
	reports, _ := filepath.Glob(filepath.Join(reportsDir, "*.md"))
	for _, md := range append(files, reports...) {
		if src, err := os.ReadFile(md); err == nil {
			f.Add(src)
		}
	}
	for _, s := range []string{
		"Claim [1]. (Smith et al., 2021) https://a.example/x). doi:10.1000/x.\n\n## Sources\n1. https://a.example/\n",
		"[^1]: x\n[^1]\n[1]: https://d.example/\n[[1]](#r) [a][1] [b][] [c]\n\n[c]: https://c.example/",
		"Smith (2020) and (March 2024) (2019–2020) (, 2020) (et al., 2020) ( & , 2020) (Van, 2020)",
		"**Sources:**\n[1] https://\n[2] 10.1234/\n| [3] |\n|---|\n| x |\n",
		"`[1]`` [2] ```\n<div>[3]</div>\n![x](https://i.example/)[4]\n\\[5] [6\n]",
		"é.[1] ü? [2]! 。[3] ﹒[4]\u00a0https://x.example/\u00a0 [^é]",
		"> # Sources\n> 1. https://q.example/\n\n- # References\n  1. https://l.example/\n\nText [1].",
		strings.Repeat("(", 500) + "Smith, 2020" + strings.Repeat(")", 500),
		strings.Repeat("[1]", 300) + strings.Repeat(". ", 300),
		"\xff\xfe[1] https://\xff.example/ (Sm\xffith, 2020) 10.1000/\xff\n",
		"Claim.[^3,^4] Bare.1 Next.2,3 <sup>4</sup>\n\n## 9. Sources\n\n### Web\n\n1. https://a.example/\n\n---\n\n*footer*\n",
		"Prose\nReferences:\n Doe, 2020. https://d.example/\n\n[1] [4] host\n\nhttps://h.example/\n\n[\\[2\\]](https://x.example/(a)) T\n\n<https://x.example/>\n",
		"参考文献：\n[1] https://c.example/ - 标题\n\n## 四、来源列表\n\n| [1] | x |\n|---|---|\n\n1\\. A https://a.example/ 2\\. B https://b.example/\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		checkCitations(t, src, Cite(src))
	})
}
