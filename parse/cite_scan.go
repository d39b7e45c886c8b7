// Cite: scanning plain text runs for citation candidates (URLs, DOIs, bracket markers).

package parse

import (
	"bytes"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/yuin/goldmark/util"
)

// scanner finds citation candidates in plain runs of source text.
type scanner struct {
	src   []byte
	cands []cand
	c     *citer // for its caches; nil in one-off scans
}

type classified struct {
	ident string
	kind  CiteKind
	ok    bool
}

// classify is classifyURL through the per-call cache: agents cite the same
// URL many times.
func (s *scanner) classify(raw string) (string, CiteKind, bool) {
	if s.c == nil {
		return classifyURL(raw)
	}
	if r, hit := s.c.urlCache[raw]; hit {
		return r.ident, r.kind, r.ok
	}
	ident, kind, ok := classifyURL(raw)
	if s.c.urlCache == nil {
		s.c.urlCache = map[string]classified{}
	}
	s.c.urlCache[raw] = classified{ident, kind, ok}
	return ident, kind, ok
}

// text scans src[a:z], a run with no code, HTML or links in it.
func (s *scanner) text(a, z int) {
	if a >= z {
		return
	}
	n := len(s.cands)
	s.urls(a, z, -1)
	s.dois(a, z, -1, n)
	s.brackets(a, z)
	s.parens(a, z)
	if s.c != nil && s.c.bareNumbers {
		s.bareNumbers(a, z)
	}
}

// urls finds http(s) URLs, up to limit of them (-1 for all).
func (s *scanner) urls(a, z, limit int) {
	src := s.src
	for i := a; i+7 <= z && limit != 0; i++ {
		if src[i] != 'h' && src[i] != 'H' {
			continue
		}
		if i > 0 && isAlnum(src[i-1]) {
			continue
		}
		var scheme int
		switch {
		case hasPrefixFoldBytes(src[i:z], "https://"):
			scheme = 8
		case hasPrefixFoldBytes(src[i:z], "http://"):
			scheme = 7
		default:
			continue
		}
		end := scanToken(src, i+scheme, z)
		raw := trimCiteTail(string(src[i:end]))
		if len(raw) <= scheme {
			i = end - 1
			continue
		}
		// In markdown text "\_" is "_": exports escape the URLs they
		// write out ("…/Horizontal\_gene\_transfer"), and the URL parser
		// would read the backslash as a "/".
		ident, kind, ok := s.classify(string(util.UnescapePunctuations([]byte(raw))))
		if !ok {
			i = end - 1 // no URL starts later in the same token either
			continue
		}
		e := i + len(raw)
		s.cands = append(s.cands, cand{
			start: i, end: e, kind: kind,
			refs: []ref{{ident: ident, target: ident, targetKind: kind}},
			mark: span{i, e}, drop: span{i, e}, prio: 7, attach: true, preset: true,
		})
		limit--
		i = e - 1
	}
}

// scanToken returns where a URL or DOI starting at i ends: at whitespace,
// '<', '>', '`', a markdown "](" or ")[" (the end of a link destination
// glued to the next link, "[\[1\]](https://…)[\[2\]](…)") or CJK
// punctuation.
func scanToken(src []byte, i, z int) int {
	depth := 0
	for i < z {
		c := src[i]
		switch {
		case c <= ' ' || c == '<' || c == '>' || c == '`' || c == 0x7f:
			return i
		case c == ']' && i+1 < z && src[i+1] == '(':
			return i
		case c == '(':
			depth++
		case c == ')':
			if depth == 0 && i+1 < z && src[i+1] == '[' {
				return i
			}
			depth = max(depth-1, 0)
		case c >= 0x80:
			r, n := utf8.DecodeRune(src[i:z])
			if unicode.IsSpace(r) || unicode.Is(unicode.Z, r) || strings.ContainsRune("。，、；：！？）】」』《》", r) {
				return i
			}
			i += n
			continue
		}
		i++
	}
	return z
}

// trimCiteTail removes trailing punctuation as GFM does, and also an
// unbalanced ']' (a URL at the end of a bracketed aside).
func trimCiteTail(u string) string {
	for {
		v := trimBareURL(u)
		if strings.HasSuffix(v, "]") {
			excess := strings.Count(v, "]") - strings.Count(v, "[")
			for excess > 0 && strings.HasSuffix(v, "]") {
				v = v[:len(v)-1]
				excess--
			}
		}
		if v == u {
			return v
		}
		u = v
	}
}

// classifyURL canonicalizes an http(s) URL; a doi.org URL is a DOI.
func classifyURL(raw string) (string, CiteKind, bool) {
	raw = strings.TrimSpace(raw)
	if !hasPrefixFold(raw, "http://") && !hasPrefixFold(raw, "https://") {
		return "", "", false
	}
	u, err := Canonical(raw)
	if err != nil {
		return "", "", false
	}
	if d := doiFromURL(u); d != "" {
		return d, CiteDOI, true
	}
	return u, CiteURL, true
}

func doiFromURL(u string) string {
	var rest string
	for _, p := range []string{"https://doi.org/", "http://doi.org/", "https://dx.doi.org/",
		"http://dx.doi.org/", "https://www.doi.org/", "http://www.doi.org/"} {
		if r, ok := strings.CutPrefix(u, p); ok {
			rest = r
			break
		}
	}
	if rest == "" {
		return ""
	}
	if k := strings.IndexAny(rest, "?#"); k >= 0 {
		rest = rest[:k]
	}
	if d, err := url.PathUnescape(rest); err == nil {
		rest = d
	}
	if !isDOI(rest) {
		return ""
	}
	return strings.ToLower(rest)
}

// isDOI checks the DOI shape: "10.", a 4–9 digit registrant (optionally
// with ".sub" parts), "/", a non-empty suffix.
func isDOI(s string) bool {
	n := doiPrefixLen(s)
	return n > 0 && n < len(s)
}

// doiPrefixLen returns the length of "10.NNNN/" at the start of s, or 0.
func doiPrefixLen(s string) int {
	if !strings.HasPrefix(s, "10.") {
		return 0
	}
	i, digits := 3, 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
		digits++
	}
	if digits < 4 || digits > 9 {
		return 0
	}
	for i < len(s) && s[i] == '.' { // 10.1000.10/…
		j := i + 1
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		if j == i+1 {
			return 0
		}
		i = j
	}
	if i >= len(s) || s[i] != '/' {
		return 0
	}
	return i + 1
}

// dois finds DOIs in text, up to limit of them (-1 for all), skipping those
// inside URLs already found.
func (s *scanner) dois(a, z, limit, firstURL int) {
	src := s.src
	urls, u := len(s.cands), firstURL
	for i := a; i+8 <= z && limit != 0; {
		k := bytes.Index(src[i:z], []byte("10."))
		if k < 0 {
			return
		}
		i += k
		if i > 0 {
			if p := src[i-1]; isAlnum(p) || p == '.' || p == '-' || p == '_' {
				i += 3
				continue
			}
		}
		for u < urls && s.cands[u].end <= i {
			u++
		}
		if u < urls && s.cands[u].start <= i {
			i = s.cands[u].end // inside a URL
			continue
		}
		if doiPrefixLen(string(src[i:min(z, i+24)])) == 0 {
			i += 3
			continue
		}
		end := scanToken(src, i, z)
		raw := trimCiteTail(string(src[i:end]))
		if !isDOI(raw) {
			i = end
			continue
		}
		e := i + len(raw)
		drop := span{i, e}
		drop.start = doiLabelStart(src, a, i)
		id := strings.ToLower(raw)
		s.cands = append(s.cands, cand{
			start: i, end: e, kind: CiteDOI,
			refs: []ref{{ident: id, target: id, targetKind: CiteDOI}},
			mark: span{drop.start, e}, drop: drop, prio: 6, attach: true, preset: true,
		})
		limit--
		i = e
	}
}

// doiLabelStart extends a DOI at i back over a "doi:" or "DOI " label.
func doiLabelStart(src []byte, a, i int) int {
	j := i
	for j > a && (src[j-1] == ' ' || src[j-1] == '\t') {
		j--
	}
	if j > a && src[j-1] == ':' {
		j--
	}
	if j-3 >= a && strings.EqualFold(string(src[j-3:j]), "doi") && (j-3 == a || !isAlnum(src[j-4])) {
		return j - 3
	}
	return i
}

// brackets finds [N] groups and [^id] footnote references.
func (s *scanner) brackets(a, z int) {
	src := s.src
	for i := a; i < z; i++ {
		if src[i] != '[' {
			continue
		}
		if i > 0 && (src[i-1] == '\\' || src[i-1] == '!') {
			continue
		}
		k := bytes.IndexByte(src[i+1:min(z, i+1+80)], ']')
		if k < 0 {
			continue
		}
		cl := i + 1 + k
		inner := src[i+1 : cl]
		if bytes.IndexByte(inner, '[') >= 0 || bytes.IndexByte(inner, '\n') >= 0 {
			continue
		}
		next := byte(0)
		if cl+1 < z {
			next = src[cl+1]
		}
		whole := span{i, cl + 1}
		if len(inner) > 1 && inner[0] == '^' {
			if next == ':' {
				continue // a definition
			}
			ids := footnoteLabels(string(inner))
			if len(ids) == 0 {
				continue
			}
			cd := cand{start: i, end: cl + 1, kind: CiteFootnote, mark: whole, drop: whole, prio: 5, attach: true}
			for _, id := range ids {
				cd.refs = append(cd.refs, ref{ident: id})
			}
			s.cands = append(s.cands, cd)
			i = cl
			continue
		}
		if next == ':' && lineStart(src, i) {
			continue // a definition
		}
		nums := numberGroup(string(inner))
		if len(nums) == 0 {
			continue
		}
		cd := cand{start: i, end: cl + 1, kind: CiteNumbered, mark: whole, drop: whole, prio: 4, attach: true}
		if i > a && src[i-1] == ']' {
			// "[the survey][3]" with no definition for 3: the text stays in
			// the claim, its brackets do not.
			if o := bytes.LastIndexByte(src[a:i-1], '['); o >= 0 && bytes.IndexByte(src[a+o:i], '\n') < 0 {
				cd.extra = []span{{a + o, a + o + 1}, {i - 1, i}}
			}
		}
		for _, n := range nums {
			cd.refs = append(cd.refs, ref{ident: strconv.Itoa(n), num: n})
		}
		s.cands = append(s.cands, cd)
		i = cl
	}
}

// footnoteLabels reads the labels of a footnote reference: "^2" gives one;
// "^3,^4" and "^3; ^4", several works cited in one bracket, give one each
// (a label repeated counts once). A label holds no white space and is at
// most 64 bytes. A comma not followed by "^" is part of the label, as in
// GFM: "^a,b" is the one label "a,b".
func footnoteLabels(inner string) []string {
	parts := strings.FieldsFunc(inner, func(r rune) bool { return r == ',' || r == ';' })
	multi := len(parts) > 1
	for _, p := range parts {
		if !strings.HasPrefix(strings.TrimSpace(p), "^") {
			multi = false
		}
	}
	if !multi {
		parts = []string{inner}
	}
	var ids []string
	for _, p := range parts {
		if multi {
			p = strings.TrimSpace(p)
		}
		id := p[1:]
		if id == "" || strings.ContainsAny(id, " \t") || len(id) > 64 {
			return nil
		}
		if !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	return ids
}

func lineStart(src []byte, i int) bool {
	for j := i - 1; j >= 0; j-- {
		switch src[j] {
		case '\n':
			return true
		case ' ', '\t', '>':
		default:
			return false
		}
	}
	return true
}

var numberPrefix = regexp.MustCompile(`(?i)^(?:sources?|refs?\.?|references?|citations?|cite|cit\.|ibid\.?,?)\s*`)

// numberGroup parses the inside of a numbered citation: "3", "1, 2",
// "4–6", "1; 3-5", "Ref. 2". Ranges are expanded when they span at most
// maxRange numbers (else only the ends count); numbers run 1–999; a number
// listed twice counts once.
func numberGroup(s string) []int {
	s = strings.TrimSpace(numberPrefix.ReplaceAllString(strings.TrimSpace(s), ""))
	if s == "" {
		return nil
	}
	var out []int
	addOnce := func(n int) {
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	for _, part := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ';' }) {
		part = strings.TrimSpace(part)
		lo, hi, isRange := part, "", false
		for _, d := range []string{"–", "—", "‒", "-"} {
			if l, h, ok := strings.Cut(part, d); ok {
				lo, hi, isRange = strings.TrimSpace(l), strings.TrimSpace(h), true
				break
			}
		}
		a, ok := smallNumber(lo)
		if !ok {
			return nil
		}
		if !isRange {
			addOnce(a)
			continue
		}
		b, ok := smallNumber(hi)
		if !ok {
			return nil
		}
		if b < a || b-a > maxRange {
			addOnce(a)
			addOnce(b)
			continue
		}
		for n := a; n <= b; n++ {
			addOnce(n)
		}
	}
	return out
}

const maxRange = 100

func smallNumber(s string) (int, bool) {
	if s == "" || len(s) > 3 {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
		n = n*10 + int(s[i]-'0')
	}
	return n, n >= 1 && n <= maxRefNumber
}
