// Cite: author–year citations and their matching against reference entries.

package parse

import (
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ayRef is one author–year citation, parsed.
type ayRef struct {
	year   string   // "2021", "2021a" or "n.d."
	first  []string // the first author's folded words, particles left out
	others []string // the first folded word of each further author
	weak   bool     // needs a bibliography entry to count
}

var (
	pageSuffix  = regexp.MustCompile(`(?i)\s*[,:]\s*(?:pp?\.?|pages?|ch\.|chap\.?|chapter|paras?\.?|sec\.|section|§+|fig\.?|table|at)\s*[0-9ivxlc][\w.–\-]*(?:\s*[,–\-]\s*[\w.]+)*\s*$`)
	harvardPage = regexp.MustCompile(`:\s*\d+(?:\s*[–-]\s*\d+)?\s*$`)
)

// ayPrefixes are the words that may open an item of a parenthetical.
var ayPrefixes = []string{"see also", "but see", "see", "e.g.,", "e.g.", "eg,", "eg", "cf.", "cf",
	"i.e.,", "i.e.", "as cited in", "cited in", "quoted in", "reviewed in", "compare", "also"}

// parens finds author–year parentheticals, and narrative citations whose
// parenthesis holds only years.
func (s *scanner) parens(a, z int) {
	src := s.src
	for i := a; i < z; i++ {
		if src[i] != '(' {
			continue
		}
		cl := -1
		for j := i + 1; j < min(z, i+400); j++ {
			if src[j] == '(' || src[j] == '\n' && j+1 < z && src[j+1] == '\n' {
				break
			}
			if src[j] == ')' {
				cl = j
				break
			}
		}
		if cl < 0 || !containsYear(src[i+1:cl]) {
			continue
		}
		inner := stripMarkup(string(src[i+1 : cl]))
		whole := span{i, cl + 1}
		if refs := s.parentheticalRefs(inner); len(refs) > 0 {
			s.cands = append(s.cands, cand{start: i, end: cl + 1, kind: CiteAuthorYear, refs: refs,
				mark: whole, drop: whole, prio: 3, attach: true})
			i = cl
			continue
		}
		if authors, _, years := splitItem(stripPage(inner)); len(years) > 0 && strings.TrimSpace(authors) == "" {
			start, names, ok := narrativeAuthors(src, a, i)
			if !ok {
				continue
			}
			_, etal := cutEtAl(names)
			refs := s.authorRefs(names, years, !etal)
			if len(refs) == 0 {
				continue
			}
			s.cands = append(s.cands, cand{start: start, end: cl + 1, kind: CiteAuthorYear, refs: refs,
				mark: span{start, cl + 1}, drop: whole, prio: 2})
			i = cl
		}
	}
}

// containsYear reports whether b holds a year (1500–2099) standing alone or
// "n.d", the cheap test before a parenthesis is parsed.
func containsYear(b []byte) bool {
	run := 0
	for i := 0; i < len(b); i++ {
		c := b[i]
		if c >= '0' && c <= '9' {
			run++
			continue
		}
		if run == 4 && isYearToken(string(b[i-4:i])) {
			return true
		}
		run = 0
		if c == 'n' && i+2 < len(b) && b[i+1] == '.' && (b[i+2] == 'd' || b[i+2] == ' ') {
			return true
		}
	}
	return run == 4 && isYearToken(string(b[len(b)-4:]))
}

func stripMarkup(s string) string {
	if !strings.ContainsAny(s, "*_\n\r\t") {
		return s
	}
	return strings.Map(func(r rune) rune {
		switch r {
		case '*', '_':
			return -1
		case '\n', '\r', '\t':
			return ' '
		}
		return r
	}, s)
}

// stripPage removes a page or section locator after the year: ", p. 12",
// ", pp. 3–5", ": 45".
func stripPage(s string) string {
	if _, _, ok := cutYear(s); ok {
		return s
	}
	s = pageSuffix.ReplaceAllString(s, "")
	return harvardPage.ReplaceAllString(s, "")
}

// cutYear cuts a year ("2021", "2021a", "n.d.") off the end of s.
func cutYear(s string) (rest, year string, ok bool) {
	t := strings.TrimRight(s, " ")
	if strings.HasSuffix(t, ".") || strings.HasSuffix(t, "d") || strings.HasSuffix(t, "D") {
		low := strings.ToLower(t)
		for _, nd := range []string{"n.d.", "n.d", "n. d.", "n. d"} {
			if strings.HasSuffix(low, nd) {
				r := t[:len(t)-len(nd)]
				if r == "" || !isAlnum(r[len(r)-1]) {
					return r, "n.d.", true
				}
			}
		}
	}
	e := len(t)
	if e > 0 && t[e-1] >= 'a' && t[e-1] <= 'z' {
		e--
	}
	if e < 4 || !isYearToken(t[e-4:e]) || e > 4 && isAlnum(t[e-5]) {
		return s, "", false
	}
	return t[:e-4], t[e-4:], true
}

// splitItem splits "Smith & Lee, 2019, 2020a" into its authors, whether a
// comma separates them from the years, and the years.
func splitItem(item string) (authors string, comma bool, years []string) {
	s := item
	for {
		rest, y, ok := cutYear(s)
		if !ok {
			return "", false, nil
		}
		years = append(years, y)
		rest = strings.TrimRight(rest, " ")
		if before, ok := strings.CutSuffix(rest, ","); ok {
			before = strings.TrimRight(before, " ")
			if _, _, more := cutYear(before); more {
				s = before
				continue
			}
			slices.Reverse(years)
			return before, true, years
		}
		slices.Reverse(years)
		return rest, false, years
	}
}

// cutEtAl removes a trailing "et al." from an author string.
func cutEtAl(s string) (string, bool) {
	t := strings.TrimRight(s, " ,")
	if !strings.HasSuffix(t, "l") && !strings.HasSuffix(t, "l.") && !strings.HasSuffix(t, "L") && !strings.HasSuffix(t, "L.") {
		return s, false
	}
	low := strings.ToLower(t)
	for _, suf := range []string{"et al.", "et al", "et. al.", "et. al"} {
		if strings.HasSuffix(low, suf) {
			r := t[:len(t)-len(suf)]
			if r == "" || r[len(r)-1] == ' ' || r[len(r)-1] == ',' {
				return strings.TrimRight(r, " ,"), true
			}
		}
	}
	return s, false
}

// splitAuthors splits an author string at ",", "&" and "and".
func splitAuthors(s string) []string {
	var out []string
	for _, a := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == '&' }) {
		var cur []string
		for _, f := range strings.Fields(a) {
			if f == "and" {
				if len(cur) > 0 {
					out = append(out, strings.Join(cur, " "))
				}
				cur = nil
				continue
			}
			cur = append(cur, f)
		}
		if len(cur) > 0 {
			out = append(out, strings.Join(cur, " "))
		}
	}
	return out
}

// cutPrefixes removes "see", "e.g.," and the like from the start of an item.
func cutPrefixes(item string) string {
	if item == "" || item[0] < 'A' || item[0] > 'z' {
		return item
	}
	for changed := true; changed; {
		changed = false
		low := strings.ToLower(item)
		for _, p := range ayPrefixes {
			if strings.HasPrefix(low, p) && len(item) > len(p) && item[len(p)] == ' ' {
				item = strings.TrimSpace(item[len(p):])
				changed = true
				break
			}
		}
	}
	return item
}

// parentheticalRefs parses "Smith, 2020; Jones & Lee, 2019a, 2021".
func (s *scanner) parentheticalRefs(inner string) []ref {
	var refs []ref
	for _, item := range strings.Split(inner, ";") {
		item = strings.TrimSpace(stripPage(cutPrefixes(strings.TrimSpace(item))))
		authors, comma, years := splitItem(item)
		if len(years) == 0 || authors == "" {
			continue
		}
		bare, etal := cutEtAl(authors)
		weak := !comma && !etal && len(splitAuthors(bare)) < 2
		for _, r := range s.authorRefs(authors, years, weak) {
			if !slices.ContainsFunc(refs, func(o ref) bool { return o.ident == r.ident }) {
				refs = append(refs, r)
			}
		}
	}
	return refs
}

// authorRefs validates an author string and pairs it with each year.
func (s *scanner) authorRefs(authors string, years []string, weak bool) []ref {
	pa := s.parseAuthors(authors)
	names, display := pa.names, pa.display
	if !pa.ok {
		return nil
	}
	var refs []ref
	for _, y := range years {
		r := &ayRef{year: y, first: names[0], weak: weak}
		for _, n := range names[1:] {
			if len(n) > 0 {
				r.others = append(r.others, n[0])
			}
		}
		refs = append(refs, ref{ident: display + " " + y, ay: r})
	}
	return refs
}

var particles = map[string]bool{
	"van": true, "von": true, "der": true, "den": true, "de": true, "del": true, "della": true,
	"di": true, "da": true, "du": true, "le": true, "la": true, "dos": true, "das": true, "do": true,
	"ter": true, "ten": true, "bin": true, "ibn": true, "y": true, "al": true, "el": true, "zu": true,
}

var orgWords = map[string]bool{"of": true, "for": true, "the": true, "on": true, "in": true, "and": true, "des": true, "und": true, "für": true}

// notAuthors are capitalised words that start dates and sentences, not
// author names.
var notAuthors = map[string]bool{
	"january": true, "february": true, "march": true, "april": true, "may": true, "june": true,
	"july": true, "august": true, "september": true, "october": true, "november": true, "december": true,
	"jan": true, "feb": true, "mar": true, "apr": true, "jun": true, "jul": true, "aug": true,
	"sep": true, "sept": true, "oct": true, "nov": true, "dec": true,
	"spring": true, "summer": true, "fall": true, "autumn": true, "winter": true,
	"monday": true, "tuesday": true, "wednesday": true, "thursday": true, "friday": true, "saturday": true, "sunday": true,
	"the": true, "a": true, "an": true, "in": true, "on": true, "at": true, "by": true, "for": true, "from": true,
	"as": true, "according": true, "to": true, "and": true, "but": true, "however": true, "see": true,
	"also": true, "per": true, "while": true, "since": true, "unlike": true, "like": true, "following": true,
	"both": true, "our": true, "their": true, "this": true, "that": true, "these": true, "those": true,
	"it": true, "we": true, "they": true, "he": true, "she": true, "its": true, "his": true, "her": true,
	"here": true, "there": true, "when": true, "where": true, "after": true, "before": true, "during": true,
	"between": true, "under": true, "over": true, "with": true, "without": true, "within": true,
	"figure": true, "fig": true, "table": true, "section": true, "chapter": true, "page": true,
	"version": true, "updated": true, "published": true, "accessed": true, "retrieved": true,
	"released": true, "founded": true, "established": true, "est": true, "born": true, "died": true,
	"copyright": true, "rev": true, "ed": true, "vol": true, "circa": true, "until": true, "through": true,
	"est.": true, "ca": true, "c": true, "fy": true, "cy": true, "q": true, "ad": true, "bc": true, "ce": true, "bce": true,
	"in press": true, "forthcoming": true, "n": true, "i": true, "is": true, "was": true, "if": true, "or": true,
	"all": true, "some": true, "many": true, "most": true, "each": true, "every": true, "new": true,
	"since early": true, "early": true, "late": true, "mid": true, "around": true, "about": true, "approximately": true,
}

type parsedAuthors struct {
	names   [][]string
	display string
	ok      bool
}

// parseAuthors is parseAuthors through the per-call cache.
func (s *scanner) parseAuthors(authors string) parsedAuthors {
	if s.c != nil {
		if pa, hit := s.c.authorCache[authors]; hit {
			return pa
		}
	}
	var pa parsedAuthors
	pa.names, pa.display, pa.ok = parseAuthors(authors)
	if s.c != nil {
		if s.c.authorCache == nil {
			s.c.authorCache = map[string]parsedAuthors{}
		}
		s.c.authorCache[authors] = pa
	}
	return pa
}

// parseAuthors checks that s looks like "Smith", "Smith et al.", "Smith &
// Jones", "van der Berg, Li, and Kim" or "World Health Organization", and
// returns each author's folded words and the display form for Identifier.
func parseAuthors(s string) ([][]string, string, bool) {
	s, _ = cutEtAl(strings.TrimSpace(stripMarkup(s)))
	s = strings.TrimSpace(s)
	if s == "" || len(s) > 120 {
		return nil, "", false
	}
	parts := splitAuthors(s)
	var names [][]string
	var shown []string
	total := 0
	for _, p := range parts {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		toks := strings.Fields(p)
		total += len(toks)
		if total > 10 {
			return nil, "", false
		}
		var sig []string
		for k, t := range toks {
			if r, _ := utf8.DecodeRuneInString(t); unicode.IsUpper(r) {
				if !isNameToken(t) {
					return nil, "", false
				}
				lt := strings.ToLower(strings.TrimSuffix(t, "."))
				if k == 0 && notAuthors[lt] {
					return nil, "", false
				}
				if particles[lt] && k < len(toks)-1 {
					continue // "Van der Berg"; but "Le" alone is a surname
				}
				sig = append(sig, words(t)...)
				continue
			}
			switch {
			case particles[t]:
			case strings.HasPrefix(t, "al-") || strings.HasPrefix(t, "el-"):
				sig = append(sig, words(t[3:])...) // al-Khwarizmi
			case orgWords[t] && k > 0 && k < len(toks)-1:
			default:
				return nil, "", false
			}
		}
		if len(sig) == 0 {
			return nil, "", false
		}
		names = append(names, sig)
		shown = append(shown, strings.Join(toks, " "))
	}
	if len(names) == 0 || len(names) > 6 {
		return nil, "", false
	}
	if len(names) == 1 && notAuthors[names[0][0]] {
		return nil, "", false
	}
	display := shown[0]
	if len(shown) > 1 {
		display = strings.Join(shown[:len(shown)-1], ", ") + " & " + shown[len(shown)-1]
	}
	return names, display, true
}

// isNameToken accepts a capitalised word of letters, hyphens, apostrophes
// and dots: "Smith", "O'Neil", "García-Márquez", "U.S.", "WHO", "J.".
func isNameToken(t string) bool {
	first := true
	letters := 0
	for _, r := range t {
		switch {
		case first:
			if !unicode.IsUpper(r) {
				return false
			}
			letters++
		case unicode.IsLetter(r):
			letters++
		case r == '-' || r == '\'' || r == '’' || r == '.':
		default:
			return false
		}
		first = false
	}
	return letters > 0
}

// narrativeAuthors walks back from the '(' at p over the author names that
// precede it: "Smith et al. (2021)", "Smith and Jones (2020)", "Smith's
// (2019)". It returns where the names start and the names.
func narrativeAuthors(src []byte, a, p int) (int, string, bool) {
	type tok struct {
		start int
		text  string
	}
	var toks []tok
	k := p
	for len(toks) < 12 {
		for k > a && (src[k-1] == ' ' || src[k-1] == '\t' || src[k-1] == '\n' || src[k-1] == '*' || src[k-1] == '_') {
			k--
		}
		e := k
		for k > a && !isSpaceByte(src[k-1]) && e-k <= 64 {
			k--
		}
		if k == e || e-k > 64 {
			break
		}
		raw := string(src[k:e])
		t := strings.Trim(raw, "*_")
		t = strings.TrimSuffix(strings.TrimSuffix(t, "'s"), "’s")
		comma := strings.HasSuffix(t, ",")
		t = strings.TrimSuffix(t, ",")
		lt := strings.ToLower(t)
		ok := false
		switch {
		case lt == "al." || lt == "al":
			ok = len(toks) == 0
		case lt == "et":
			ok = len(toks) > 0 && strings.HasPrefix(strings.ToLower(toks[len(toks)-1].text), "al")
		case lt == "and" || lt == "&":
			ok = len(toks) > 0
		case particles[lt]:
			ok = len(toks) > 0
		case isNameToken(t):
			ok = !notAuthors[strings.TrimSuffix(lt, ".")] &&
				(!strings.HasSuffix(t, ".") || utf8.RuneCountInString(strings.ReplaceAll(t, ".", "")) <= 1 || strings.Count(t, ".") > 1)
		}
		if !ok || comma && len(toks) == 0 {
			break
		}
		shown := t
		if comma {
			shown += ","
		}
		toks = append(toks, tok{k + strings.Index(raw, t), shown})
	}
	// toks runs backwards; drop leading connectors and trailing lone particles.
	for len(toks) > 0 {
		lt := strings.ToLower(toks[len(toks)-1].text)
		if lt == "and" || lt == "&" || lt == "et" || lt == "al." || lt == "al" {
			toks = toks[:len(toks)-1]
			continue
		}
		break
	}
	if len(toks) == 0 {
		return 0, "", false
	}
	var sb strings.Builder
	for i := len(toks) - 1; i >= 0; i-- {
		if sb.Len() > 0 {
			sb.WriteByte(' ')
		}
		sb.WriteString(toks[i].text)
	}
	names := sb.String()
	if strings.HasSuffix(strings.ToLower(names), " et") {
		return 0, "", false
	}
	return toks[len(toks)-1].start, names, true
}
