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
type confusion struct{ tp, fp, tn, fn int }

func (c *confusion) add(label string, supported bool) {
	switch {
	case label == "supported" && supported:
		c.tp++
	case label == "supported":
		c.fn++
	case supported:
		c.fp++
	default:
		c.tn++
	}
}

func (c confusion) n() int { return c.tp + c.fp + c.tn + c.fn }
func (c confusion) accuracy() float64 {
	if c.n() == 0 {
		return 0
	}
	return float64(c.tp+c.tn) / float64(c.n())
}

func (c confusion) String() string {
	return fmt.Sprintf("accuracy %.3f (%d/%d); confusion [label→verdict]: supported→supported %d, supported→unsupported %d, unsupported→supported %d, unsupported→unsupported %d",
		c.accuracy(), c.tp+c.tn, c.n(), c.tp, c.fn, c.fp, c.tn)
}

// TestLexicalCorpusAccuracy runs the lexical judge over the labelled
// corpus and reports accuracy and the confusion matrix, overall, per split
// and per category. It fails below 0.85 overall.
func TestLexicalCorpusAccuracy(t *testing.T) {
	cases := loadLexCorpus(t)
	if len(cases) < 40 {
		t.Fatalf("corpus has %d cases, want at least 40", len(cases))
	}
	j := NewLexical()
	var all confusion
	bySplit := map[string]*confusion{}
	byCat := map[string]*confusion{}
	var wrong []string
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
		if (v.Confidence >= 0.5) != v.Supported {
			t.Errorf("%s: confidence %.2f disagrees with supported=%v", c.ID, v.Confidence, v.Supported)
		}
		all.add(c.Label, v.Supported)
		for _, m := range []struct {
			m   map[string]*confusion
			key string
		}{{bySplit, c.Split}, {byCat, c.Category}} {
			if m.m[m.key] == nil {
				m.m[m.key] = &confusion{}
			}
			m.m[m.key].add(c.Label, v.Supported)
		}
		if (c.Label == "supported") != v.Supported {
			wrong = append(wrong, fmt.Sprintf("%s (%s, label %s, confidence %.2f): %s", c.ID, c.Split, c.Label, v.Confidence, v.Rationale))
		}
	}
	t.Logf("lexical judge on %d cases: %v", all.n(), all)
	for _, m := range []map[string]*confusion{bySplit, byCat} {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			t.Logf("  %-14s %v", k, *m[k])
		}
	}
	for _, w := range wrong {
		t.Logf("  wrong: %s", w)
	}
	if all.accuracy() < 0.85 {
		t.Errorf("accuracy %.3f < 0.85", all.accuracy())
	}
}

func TestPorterStem(t *testing.T) {
	// Examples from Porter (1980) and the reference vocabulary.
	for in, want := range map[string]string{
		"caresses": "caress", "ponies": "poni", "ties": "ti", "caress": "caress", "cats": "cat",
		"feed": "feed", "agreed": "agre", "plastered": "plaster", "bled": "bled", "motoring": "motor",
		"sing": "sing", "conflated": "conflat", "troubled": "troubl", "sized": "size", "hopping": "hop",
		"tanned": "tan", "falling": "fall", "hissing": "hiss", "fizzed": "fizz", "failing": "fail",
		"filing": "file", "happy": "happi", "sky": "sky", "relational": "relat", "conditional": "condit",
		"rational": "ration", "valenci": "valenc", "digitizer": "digit", "conformabli": "conform",
		"radicalli": "radic", "differentli": "differ", "vileli": "vile", "analogousli": "analog",
		"vietnamization": "vietnam", "predication": "predic", "operator": "oper", "feudalism": "feudal",
		"decisiveness": "decis", "hopefulness": "hope", "callousness": "callous", "formaliti": "formal",
		"sensitiviti": "sensit", "sensibiliti": "sensibl", "triplicate": "triplic", "formative": "form",
		"formalize": "formal", "electriciti": "electr", "electrical": "electr", "hopeful": "hope",
		"goodness": "good", "revival": "reviv", "allowance": "allow", "inference": "infer",
		"airliner": "airlin", "gyroscopic": "gyroscop", "adjustable": "adjust", "defensible": "defens",
		"irritant": "irrit", "replacement": "replac", "adjustment": "adjust", "dependent": "depend",
		"adoption": "adopt", "homologou": "homolog", "communism": "commun", "activate": "activ",
		"angulariti": "angular", "homologous": "homolog", "effective": "effect", "bowdlerize": "bowdler",
		"probate": "probat", "rate": "rate", "cease": "ceas", "controll": "control", "roll": "roll",
		"generalizations": "gener", "oscillators": "oscil",
	} {
		if got := porterStem(in); got != want {
			t.Errorf("porterStem(%q) = %q, want %q", in, got, want)
		}
	}
	for _, w := range []string{"a", "is", "naïve", "x1"} {
		if got := porterStem(w); got != w {
			t.Errorf("porterStem(%q) = %q, want it unchanged", w, got)
		}
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
		claim     string
		supported bool
		inWhy     string
	}{
		{"The Golden Gate Bridge opened to traffic in 1937 [4].", true, `"The Golden Gate Bridge opened to traffic on May 27, 1937."`},
		{"The Golden Gate Bridge opened to traffic in 1936.", false, "figure 1936 is not in the passage"},
		{"Construction of the bridge cost 35 million dollars.", true, "Matched"},
		{"Construction of the bridge cost $53 million.", false, "53"},
		{"The bridge was designed by a single engineer.", false, "negates"},
		{"The bridge was never opened to traffic.", false, `negated ("never")`},
		{"Construction of the bridge ended in January 1933.", false, "opposite"},
		{"Giraffes sleep less than two hours a day.", false, "Closest passage"},
		{"The bridge opened to traffic in 1937 and was painted blue by volunteers.", false, "2 parts"},
	} {
		v, err := j.Judge(context.Background(), tc.claim, source)
		if err != nil {
			t.Fatal(err)
		}
		if v.Supported != tc.supported || !strings.Contains(v.Rationale, tc.inWhy) {
			t.Errorf("%q: supported=%v (%.2f) rationale %q; want supported=%v and %q in it", tc.claim, v.Supported, v.Confidence, v.Rationale, tc.supported, tc.inWhy)
		}
		if v.Confidence < 0 || v.Confidence > 1 || v.Confidence != round2(v.Confidence) || (v.Confidence >= 0.5) != v.Supported {
			t.Errorf("%q: confidence %v", tc.claim, v.Confidence)
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
		if err != nil || v.Supported || v.Confidence != 0 || !strings.Contains(v.Rationale, tc.why) {
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
		m := regexp.MustCompile(`passage: "([^"]*)"`).FindStringSubmatch(v.Rationale)
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
		if a.Supported != b.Supported || a.Confidence != b.Confidence || a.Rationale != b.Rationale {
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
	if err != nil || !v.Supported {
		t.Errorf("verdict %+v, %v", v, err)
	}
	t.Logf("2 MB source judged in %v", time.Since(start))
}

func FuzzLexical(f *testing.F) {
	f.Add("The bridge opened in 1937 [1].", "It opened to traffic on May 27, 1937. Dr. Smith said so.")
	f.Add("No, not 3.5%", "1,2,3 . . . ?! \n\n ’’ 'twas")
	f.Fuzz(func(t *testing.T, claim, source string) {
		s, c, r := lexicalVerdict(claim, source)
		if c < 0 || c > 1 || (c >= 0.5) != s || r == "" {
			t.Fatalf("verdict (%v, %v, %q)", s, c, r)
		}
	})
}
