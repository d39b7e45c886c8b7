package judge

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"
)

type lexCase struct {
	ID       string   `json:"id"`
	Split    string   `json:"split"`
	Category string   `json:"category"`
	Label    string   `json:"label"`
	Claim    string   `json:"claim"`
	Source   []string `json:"source"`
}

func loadLexCorpus(t *testing.T) []lexCase {
	t.Helper()
	data, err := os.ReadFile("testdata/lexical.json")
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Cases []lexCase `json:"cases"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	return f.Cases
}

// confusion counts verdicts against labels, "supported" being positive.
// TestLexicalOwnCorpus runs the lexical judge over its own 128-case corpus
// (testdata/lexical.json, written by this project before issue 11, so NOT
// a measure of accuracy: see the README for figures on data nobody here
// wrote) and logs forced-choice accuracy, the accuracy of committed
// verdicts and the share committed, overall and per category. It guards
// against regressions: committed verdicts stay right at least 90% of the
// time and the judge commits on at least half the cases.
func TestLexicalOwnCorpus(t *testing.T) {
	cases := loadLexCorpus(t)
	if len(cases) < 40 {
		t.Fatalf("corpus has %d cases, want at least 40", len(cases))
	}
	j := NewLexical()
	type cell struct{ n, forced, committed, right int }
	cells := map[string]*cell{}
	ids := map[string]bool{}
	for _, c := range cases {
		if ids[c.ID] {
			t.Errorf("duplicate case id %s", c.ID)
		}
		ids[c.ID] = true
		if c.Label != "supported" && c.Label != "unsupported" {
			t.Fatalf("%s: bad label %q", c.ID, c.Label)
		}
		v, err := j.Judge(context.Background(), c.Claim, strings.Join(c.Source, "\n\n"))
		if err != nil {
			t.Fatalf("%s: %v", c.ID, err)
		}
		checkVerdict(t, c.ID, v)
		want := c.Label == "supported"
		for _, k := range []string{"all", c.Category} {
			if cells[k] == nil {
				cells[k] = &cell{}
			}
			x := cells[k]
			x.n++
			if v.Supported == want {
				x.forced++
			}
			if v.Outcome != VerdictUncertain {
				x.committed++
				if (v.Outcome == VerdictSupported) == want {
					x.right++
				} else {
					t.Logf("  committed wrong: %s (%s): %s", c.ID, c.Label, v.Rationale)
				}
			}
		}
	}
	keys := make([]string, 0, len(cells))
	for k := range cells {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		x := cells[k]
		t.Logf("%-14s n=%3d forced %.2f, committed %.2f on %.0f%%", k, x.n, float64(x.forced)/float64(x.n),
			float64(x.right)/float64(max(1, x.committed)), 100*float64(x.committed)/float64(x.n))
	}
	all := cells["all"]
	if acc := float64(all.right) / float64(max(1, all.committed)); acc < 0.9 || all.committed*2 < all.n {
		t.Errorf("committed %.3f on %d of %d cases: want at least 0.9 on at least half", acc, all.committed, all.n)
	}
}

// checkVerdict holds for every verdict of the lexical judge.
func checkVerdict(t *testing.T, id string, v Verdict) {
	t.Helper()
	switch v.Outcome {
	case VerdictSupported:
		if !v.Supported {
			t.Errorf("%s: supported verdict with supported=false", id)
		}
	case VerdictUnsupported:
		if v.Supported {
			t.Errorf("%s: unsupported verdict with supported=true", id)
		}
	case VerdictUncertain:
	default:
		t.Errorf("%s: outcome %q", id, v.Outcome)
	}
	if v.Confidence < 0 || v.Confidence > 1 || v.Confidence != round2(v.Confidence) || v.Rationale == "" {
		t.Errorf("%s: confidence %v rationale %q", id, v.Confidence, v.Rationale)
	}
}

func TestNumberKeys(t *testing.T) {
	keys := func(s string) []string {
		var out []string
		for _, tk := range tokenize(s) {
			if tk.kind == tokNumber {
				out = append(out, tk.key)
			}
		}
		return out
	}
	for in, want := range map[string]string{
		"1,200 people":             "[#1200]",
		"1200 people":              "[#1200]",
		"$4.2 billion":             "[#4200000000]",
		"4,200,000,000 dollars":    "[#4200000000]",
		"3.50%":                    "[#3.5]",
		"two million visitors":     "[#2000000]",
		"twenty-five sites":        "[#25]",
		"three hundred":            "[#300]",
		"the 1990s":                "[#1990s]",
		"the 5th and 21st":         "[#5th #21th]",
		"10k runners":              "[#10000]",
		"on 9 November 1989":       "[#9 #1989]",
		"one of the best, 2010-21": "[#2010 #21]",
		"version 3.1.4":            "[]", // a version is a name, matched whole
	} {
		if got := fmt.Sprint(keys(in)); got != want {
			t.Errorf("numbers of %q = %s, want %s", in, got, want)
		}
	}
}

func TestSplitUnits(t *testing.T) {
	text := "Dr. Smith arrived at 3.30 p.m. on Monday. The U.S. team won! Did it? Yes.\n\nHeading\nA new line starts here, while\nthis one continues. Exports fell; imports rose."
	var got []string
	for _, u := range splitUnits(text) {
		got = append(got, text[u.start:u.end])
	}
	want := []string{
		"Dr. Smith arrived at 3.30 p.m. on Monday.", "The U.S. team won!", "Did it?", "Yes.",
		"Heading", "A new line starts here", "this one continues.", "Exports fell", "imports rose.",
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("units\n got %q\nwant %q", got, want)
	}
	long := strings.Repeat("word ", 300)
	for _, u := range splitUnits(long) {
		if n := u.end - u.start; n > maxUnit {
			t.Errorf("unit of %d bytes", n)
		}
	}
}

func TestLexicalCases(t *testing.T) {
	j := NewLexical()
	source := "The Golden Gate Bridge opened to traffic on May 27, 1937. Construction began in January 1933 and cost $35 million. " +
		"The bridge was not designed by a single engineer."
	for _, tc := range []struct {
		claim, outcome, inWhy string
	}{
		{"The Golden Gate Bridge opened to traffic in 1937 [4].", VerdictSupported, `"The Golden Gate Bridge opened to traffic on May 27, 1937."`},
		{"The Golden Gate Bridge opened to traffic in 1936.", VerdictUnsupported, "gives 1937, not 1936"},
		{"Construction of the bridge cost 35 million dollars.", VerdictSupported, "Construction began"},
		{"Construction of the bridge cost $53 million.", VerdictUnsupported, "gives 35 million where the claim says 53 million"},
		{"The bridge was designed by a single engineer.", VerdictUnsupported, `the source negates "designed"`},
		{"The bridge was never opened to traffic.", VerdictUnsupported, `the claim negates "opened"`},
		// The opposite predicate is read next to the word it qualifies
		// ("bridge"), which the began-sentence lacks: not decided.
		{"Construction of the bridge ended in January 1933.", VerdictUncertain, "Closest passage"},
		{"The company's profits rose in the second quarter.", VerdictUnsupported, "it is not about the claim"},
		{"Giraffes sleep less than two hours a day.", VerdictUnsupported, `"two"`},
		{"The bridge opened to traffic in 1937 and was painted blue by volunteers.", VerdictUncertain, "Closest passage"},
	} {
		v, err := j.Judge(context.Background(), tc.claim, source)
		if err != nil {
			t.Fatal(err)
		}
		checkVerdict(t, tc.claim, v)
		if v.Outcome != tc.outcome || !strings.Contains(v.Rationale, tc.inWhy) {
			t.Errorf("%q: %s (%.2f) rationale %q; want %s with %q in it", tc.claim, v.Outcome, v.Confidence, v.Rationale, tc.outcome, tc.inWhy)
		}
	}
}

// TestLexicalHardCases are the misfires issue 11 found on real citing
// sentences, and the contradictions a judge must still catch.
func TestLexicalHardCases(t *testing.T) {
	page := "Published 4 Jul 2017.\n\nThe council approved the transit plan after a long debate. The vote was 9 to 2, with two members absent. " +
		"Funding comes from a regional sales tax. Critics said the plan was not cost effective. " +
		"Construction of the first line may start next spring. Mayor Ana Lopez welcomed the decision."
	for _, tc := range []struct {
		name, claim, outcome string
	}{
		{"parts in different sentences", "The council approved the transit plan, and funding comes from a regional sales tax.", VerdictSupported},
		{"a figure elsewhere on the page", "The council approved the transit plan by a vote of 9 to 2.", VerdictSupported},
		{"a date in the dateline, another format", "On 4 July 2017 the council approved the transit plan.", VerdictSupported},
		{"a negation elsewhere in the page", "The council approved the transit plan.", VerdictSupported},
		{"a changed figure", "The council approved the transit plan by a vote of 7 to 2.", VerdictUnsupported},
		{"a swapped name", "Mayor Maria Garcia welcomed the decision.", VerdictUnsupported},
		{"a negation added", "The council did not approve the transit plan.", VerdictUnsupported},
		{"a negation dropped", "Critics said the plan was cost effective.", VerdictUnsupported},
		{"a hedge dropped", "Construction of the first line will start next spring.", VerdictUnsupported},
		{"a different month", "On 4 August 2017 the council approved the transit plan.", VerdictUnsupported},
	} {
		v, err := NewLexical().Judge(context.Background(), tc.claim, page)
		if err != nil {
			t.Fatal(err)
		}
		checkVerdict(t, tc.name, v)
		if v.Outcome != tc.outcome {
			t.Errorf("%s: %q → %s (%s), want %s", tc.name, tc.claim, v.Outcome, v.Rationale, tc.outcome)
		}
	}
}

func TestCitationMarks(t *testing.T) {
	for in, want := range map[string]string{
		"It opened in 1937 [12].":                    "It opened in 1937  .",
		"It opened in 1937 [1, 2; 4-6][^3].":         "It opened in 1937   .",
		"It opened in 1937 (Smith et al., 2019).":    "It opened in 1937  .",
		"It opened (see https://x.org/a?b=2020) now": "It opened (see   now",
		"Per 10.1000/xyz123 it opened in 1937.":      "Per   it opened in 1937.",
		"It opened (1937) to traffic.":               "It opened (1937) to traffic.",
	} {
		if got := citationMarks.ReplaceAllString(in, " "); got != want {
			t.Errorf("%q → %q, want %q", in, got, want)
		}
	}
}

func TestLexicalEdgeCases(t *testing.T) {
	j := NewLexical()
	for _, tc := range []struct{ claim, source, why string }{
		{"The bridge opened in 1937.", "", "source text is empty"},
		{"The bridge opened in 1937.", " \n\t ", "source text is empty"},
		{"It is what it is [1].", "The bridge opened in 1937.", "no content words"},
		{"", "The bridge opened in 1937.", "no content words"},
	} {
		v, err := j.Judge(context.Background(), tc.claim, tc.source)
		if err != nil || v.Supported || v.Outcome != VerdictUncertain || !strings.Contains(v.Rationale, tc.why) {
			t.Errorf("(%q, %q) = %+v, %v", tc.claim, tc.source, v, err)
		}
	}
}

// TestLexicalQuoteLength checks the rationale quotes 5 to 25 words.
func TestLexicalQuoteLength(t *testing.T) {
	long := "Across many decades of careful observation in the field and in the laboratory, scientists working on several continents " +
		"have repeatedly found that the common garden snail can survive for up to three years without food when conditions are cold, " +
		"damp and dark enough for its metabolism to slow almost to a halt."
	for _, source := range []string{long, "Snails hibernate.", long + " Snails hibernate."} {
		v, _ := NewLexical().Judge(context.Background(), "Garden snails can survive three years without food.", source)
		m := regexp.MustCompile(`(?:passage|words|in): "([^"]*)"`).FindStringSubmatch(v.Rationale)
		if m == nil {
			t.Fatalf("no quote in %q", v.Rationale)
		}
		n := len(strings.Fields(strings.Trim(m[1], "…")))
		if n > 25 || (n < 5 && len(strings.Fields(source)) >= 5) {
			t.Errorf("quote of %d words: %q", n, m[1])
		}
	}
}

func TestLexicalDeterministic(t *testing.T) {
	cases := loadLexCorpus(t)
	j := NewLexical()
	for _, c := range cases[:20] {
		src := strings.Join(c.Source, "\n\n")
		a, _ := j.Judge(context.Background(), c.Claim, src)
		b, _ := j.Judge(context.Background(), c.Claim, src)
		if a.Outcome != b.Outcome || a.Supported != b.Supported || a.Confidence != b.Confidence || a.Rationale != b.Rationale {
			t.Errorf("%s: two runs differ", c.ID)
		}
	}
}

// TestLexicalLargeSource bounds the work on a 2 MB source.
func TestLexicalLargeSource(t *testing.T) {
	var b strings.Builder
	for i := 0; b.Len() < 2<<20; i++ {
		fmt.Fprintf(&b, "Paragraph %d discusses the history of suspension bridges and their maintenance costs. ", i)
	}
	b.WriteString("The Golden Gate Bridge opened to traffic on May 27, 1937.")
	start := time.Now()
	v, err := NewLexical().Judge(context.Background(), testClaim, b.String())
	if err != nil || v.Outcome != VerdictSupported {
		t.Errorf("verdict %+v, %v", v, err)
	}
	t.Logf("2 MB source judged in %v", time.Since(start))
}

func FuzzLexical(f *testing.F) {
	f.Add("The bridge opened in 1937 [1].", "It opened to traffic on May 27, 1937. Dr. Smith said so.")
	f.Add("No, not 3.5%", "1,2,3 . . . ?! \n\n ’’ 'twas")
	f.Fuzz(func(t *testing.T, claim, source string) {
		v, err := NewLexical().Judge(context.Background(), claim, source)
		if err != nil {
			t.Fatal(err)
		}
		checkVerdict(t, "fuzz", v)
	})
}
