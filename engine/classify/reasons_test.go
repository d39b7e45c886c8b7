package classify

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// negativePages are pages of every kind the package's tests use, served
// with the statuses walls, dead links and errors come with.
func negativePages(t *testing.T) []struct {
	name string
	p    Page
	c    Citation
} {
	t.Helper()
	var out []struct {
		name string
		p    Page
		c    Citation
	}
	add := func(name string, p Page, c Citation) {
		out = append(out, struct {
			name string
			p    Page
			c    Citation
		}{name, p, c})
	}
	for _, tc := range cases(t) {
		add(tc.name, tc.page, tc.cite)
	}
	var files []string
	for _, dir := range []string{"testdata", filepath.Join("testdata", "soft404")} {
		m, err := filepath.Glob(filepath.Join(dir, "*.html"))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, st := range []int{0, 200, 302, 401, 402, 403, 404, 410, 429, 500, 503, 999} {
			p := html200(b)
			p.StatusCode = st
			add(f+" http "+strconv.Itoa(st), p, batteryCitation)
		}
		add(f+" redirected to a search page", redirectTo(html200(b), "https://www.dailyplanet.example/search?q=eu+battery"), Citation{})
	}
	// A title with control characters, bidi overrides and 500 runes: the
	// evidence must come out clean and short.
	long := "Page not found \x1b[31m\u202e" + strings.Repeat("Ω", 500)
	add("dirty long title", page200(doc(long, "<p>x</p>")), Citation{})
	add("dirty long heading", page200(doc("Example", "<h1>"+long+"</h1>")), Citation{})
	return out
}

// TestNegativeVerdictsNameRuleAndEvidence walks every outcome but valid
// over the package's pages at every tier: each names its rule and quotes
// its evidence, short and clean.
func TestNegativeVerdictsNameRuleAndEvidence(t *testing.T) {
	seen := map[Outcome]int{}
	rules := map[string]bool{}
	for _, tc := range negativePages(t) {
		for _, tier := range []Tier{Basic, Standard, Thorough} {
			v := Classify(tc.p, tc.c, tier)
			if v.Outcome == Valid {
				continue
			}
			seen[v.Outcome]++
			if !hasEvidence(v.Reason) {
				t.Errorf("%s/%s: %v reason %q names no rule or quotes no evidence", tc.name, tier, v.Outcome, v.Reason)
				continue
			}
			rules[v.Reason[strings.Index(v.Reason, "[")+1:strings.Index(v.Reason, "]")]] = true
			checkEvidence(t, tc.name, v.Reason)
		}
	}
	for _, o := range []Outcome{Paywalled, Invalid, Mismatch, Escalate} {
		if seen[o] == 0 {
			t.Errorf("no page produced %v", o)
		}
	}
	if len(rules) < 20 {
		t.Errorf("only %d rules seen: %v", len(rules), rules)
	}
}

// checkEvidence checks every quoted piece of a reason: at most
// evidenceMax runes, no control or invisible characters.
func checkEvidence(t *testing.T, name, reason string) {
	t.Helper()
	for _, r := range reason {
		if dropRune(r) || r == '\n' || r == '\t' {
			t.Errorf("%s: reason %q carries %U", name, reason, r)
		}
	}
	rest := reason
	for {
		i := strings.IndexByte(rest, '"')
		if i < 0 {
			return
		}
		q, err := strconv.QuotedPrefix(rest[i:])
		if err != nil {
			t.Errorf("%s: reason %q: bad quote at %q", name, reason, rest[i:])
			return
		}
		s, _ := strconv.Unquote(q)
		if n := utf8.RuneCountInString(s); n > evidenceMax {
			t.Errorf("%s: evidence of %d runes in %q", name, n, reason)
		}
		rest = rest[i+len(q):]
	}
}

func TestEvidence(t *testing.T) {
	for in, want := range map[string]string{
		"Stránka nenájdená – Blog":          `"Stránka nenájdená – Blog"`,
		"  Page\n\tnot   found  ":           `"Page not found"`,
		"404 \x1b[31mred\x1b[0m \u202eevil": `"404 [31mred[0m evil"`,
		`say "hi"`:                          `"say \"hi\""`,
		"":                                  `""`,
	} {
		if got := evidence(in); got != want {
			t.Errorf("evidence(%q) = %s, want %s", in, got, want)
		}
	}
	long := evidence(strings.Repeat("word ", 100))
	if s, _ := strconv.Unquote(long); utf8.RuneCountInString(s) > evidenceMax || !strings.HasSuffix(s, "…") {
		t.Errorf("a long piece is not cut at %d runes with …: %s", evidenceMax, long)
	}
	for _, tc := range []struct {
		reason string
		ok     bool
	}{
		{`soft 404 [title-phrase]: title "Page not found"`, true},
		{`http 403 [http-status]: status "403 Forbidden"`, true},
		{`soft 404: title "Page not found"`, false},
		{`soft 404 [title-phrase]: page not found`, false},
		{`bot wall [Bad Rule]: "x"`, false},
	} {
		if got := hasEvidence(tc.reason); got != tc.ok {
			t.Errorf("hasEvidence(%q) = %v", tc.reason, got)
		}
	}
}
