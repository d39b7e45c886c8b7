package parse

import (
	"slices"
	"testing"
)

// TestCiteBareNumbers covers the citation numbers Gemini exports write as
// plain digits or <sup>: taken only when they resolve in the document's
// numbered list, never from decimals, versions, abbreviations or exponents.
func TestCiteBareNumbers(t *testing.T) {
	const list = "\n\n#### **Works cited**\n\n1. A, accessed May 1, 2025, https://a.example/\n" +
		"2. B, accessed May 1, 2025, https://b.example/\n3. C, accessed May 1, 2025, https://c.example/\n"
	tests := []struct {
		name string
		src  string
		want []string
	}{
		{"glued after a full stop, a group after the next",
			"Potatoes yield the most calories per bed.1 Furthermore, beans fix nitrogen in poor soil.2,3 Next." + list,
			[]string{"numbered 1 → 1 ⇒ https://a.example/", "numbered 2,3 → 2 ⇒ https://b.example/",
				"numbered 2,3 → 3 ⇒ https://c.example/"}},
		{"after a closing quote, a comma and at the end of a line",
			"It is defined as \"the science of context\".1 Systems,2 tools and memory matter.3\nMore text." + list,
			[]string{"numbered 1 → 1 ⇒ https://a.example/", "numbered 2 → 2 ⇒ https://b.example/",
				"numbered 3 → 3 ⇒ https://c.example/"}},
		{"HTML superscript, not an exponent",
			"编辑器自动化的首选 <sup>1</sup>。An area of 10 m<sup>2</sup> and x<sup>3</sup>." + list,
			[]string{"numbered <sup>1</sup> → 1 ⇒ https://a.example/"}},
		{"numbers the list does not have are not citations",
			"It rose sharply in the period.7 Then it fell. See note <sup>9</sup>." + list,
			[]string{}},
		{"decimals, versions, thousands, percentages",
			"Version 3.5 is out. Python 3.12 too. About 1,000 people. Growth was 4.5% higher. Rate.5% more." + list,
			[]string{}},
		{"abbreviations",
			"See Fig.1 below. It is the No.2 priority. The U.S.3 market." + list,
			[]string{}},
		{"inside a URL or code",
			"Read https://x.example/page.1 now. Run `make.1 target` once." + list,
			[]string{"url https://x.example/page.1 → https://x.example/page.1"}},
		{"no numbered list, no bare numbers",
			"Potatoes yield the most calories per bed.1 Furthermore, beans.2\n\n## Sources\n\n- https://a.example/\n",
			[]string{}},
		{"the list itself is not cited by its own numbers",
			"Claim." + list,
			[]string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := cites(t, tt.src); !slices.Equal(got, tt.want) {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestCiteBareNumberClaims(t *testing.T) {
	src := "Potatoes yield the most calories per bed.1 Furthermore, beans fix nitrogen in poor soil.2" +
		"\n\n## Sources\n\n1. https://a.example/\n2. https://b.example/\n"
	var claims []string
	for _, c := range Cite([]byte(src)) {
		claims = append(claims, c.Claim)
	}
	want := []string{"Potatoes yield the most calories per bed.", "Furthermore, beans fix nitrogen in poor soil."}
	if !slices.Equal(claims, want) {
		t.Errorf("claims %q, want %q", claims, want)
	}
}
