package classify

import (
	"bytes"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html"
)

// scanHTML reads an HTML (or XML) document in one pass of the
// golang.org/x/net/html tokenizer, to the end of the body (the rung already
// capped it): the page-wide signals (meta tags, JSON-LD, paywall vendor
// scripts, forms and password fields, redirects done by markup or script)
// may sit anywhere, so they are read from every tag; the readable text
// stops accumulating at keepText bytes, which is all the rules read.
//
// Readable text leaves out script, style and other raw-text elements,
// template/svg/math, elements hidden by markup (the hidden attribute or an
// inline display:none / visibility:hidden style — challenge pages hide
// their machinery that way), and the boilerplate elements nav, footer and
// aside. The first headings (h1–h3), the first substantive paragraph and
// the text of the main element (main, article or role=main) are kept as
// well: soft-404 and login-wall rules read them. So is the page's prose:
// the readable text without quoted or literal material (pre, code, samp,
// kbd, blockquote, q), so that a page that shows an error message as an
// example (a guide to custom 404 pages) is not read as saying it; nor
// headings, which the rules judge as headings (a guide's "404 Not Found"
// section is not the page saying so).
func scanHTML(body []byte, in *pageInfo) {
	s := htmlScan{in: in, para: textAcc{max: paraMax}, head: textAcc{max: paraMax}}
	in.mainElem.max = mainElemMax
	z := html.NewTokenizer(bytes.NewReader(body))
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			s.finishP()
			s.finishHeading()
			return
		case html.TextToken:
			s.text(z)
		case html.StartTagToken, html.SelfClosingTagToken:
			s.start(z, tt == html.SelfClosingTagToken)
		case html.EndTagToken:
			s.end(rawTagName(z.Raw()))
		default:
			s.raw = ""
		}
	}
}

// Caps of the HTML scanner's captures.
const (
	mainElemMax = 4 << 10 // text of the main element kept
	maxHeadings = 6       // h1–h3 headings kept
)

// htmlScan is the scanner's state between tokens.
type htmlScan struct {
	in *pageInfo
	// raw names the raw-text element whose content the next text token is
	// ("script", "style", "title", …); "" otherwise.
	raw    string
	script struct{ ld bool } // the open <script>'s type
	// Depths: hidden (template/svg/math) and boilerplate (nav, footer,
	// aside) elements, and an element hidden by markup, tracked by name.
	foreign, boiler int
	quoted          int // depth of pre, code, samp, kbd, blockquote and q
	headings        int // depth of h1–h6: a heading is judged as one, not as prose
	hiddenTag       string
	hiddenDepth     int
	mainTag         string
	mainDepth       int
	// Captures in progress.
	capP       bool
	para       textAcc
	capHead    bool
	headIsH1   bool
	head       textAcc
	headingTag string
	// Where the heading being captured starts, in runes of prose (of the
	// page, and of the main element when it is inside one).
	headAt, headMainAt int
	headInMain         bool
}

// tagNames interns the names of the elements the scanner distinguishes;
// tagName returns "" for any other (a custom element, say), which the
// scanner treats as a block element. Interning keeps a tag from costing an
// allocation.
var tagNames = func() map[string]string {
	m := map[string]string{}
	for _, n := range strings.Fields(`script style noscript iframe noembed noframes xmp textarea plaintext title meta input
		link form template svg math nav footer aside main article br p h1 h2 h3 li dd dt option optgroup tr td th tbody thead
		tfoot colgroup rb rt rp rtc html head body area base col embed hr img source track wbr param keygen
		a abbr b bdi bdo big cite code data del dfn em font i ins kbd label mark nobr picture q ruby s samp small span
		strike strong sub sup time tt u var div section header pre blockquote h4 h5 h6`) {
		m[n] = n
	}
	return m
}()

// rawTagName reads the lowercased, interned name of a raw start or end tag
// ("<DIV class=…>", "</p>") without allocating: the tokenizer's own
// TagName and TagAttr copy every name and value they return.
func rawTagName(raw []byte) string {
	i := 1
	if i < len(raw) && raw[i] == '/' {
		i++
	}
	var buf [16]byte
	n := 0
	for ; i < len(raw); i++ {
		c := raw[i]
		if c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '/' || c == '>' {
			break
		}
		if n == len(buf) {
			return ""
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		buf[n] = c
		n++
	}
	return tagNames[string(buf[:n])]
}

// attrsWanted reports whether a start tag's attributes can matter: always
// for the elements whose attributes the rules read, otherwise only when
// the tag might hide its element or name the main region.
func attrsWanted(name string, raw []byte) bool {
	switch name {
	case "script", "meta", "input", "form", "link":
		return true
	}
	if len(raw) < 8 {
		return false
	}
	for _, w := range [][]byte{[]byte("hidden"), []byte("none"), []byte("role")} {
		if containsFold(raw, w) {
			return true
		}
	}
	return false
}

// containsFold reports whether b contains the lower-case ASCII word w in
// any case.
func containsFold(b, w []byte) bool {
	for i := 0; i+len(w) <= len(b); i++ {
		if b[i]|0x20 != w[0] {
			continue
		}
		j := 1
		for j < len(w) && b[i+j]|0x20 == w[j] {
			j++
		}
		if j == len(w) {
			return true
		}
	}
	return false
}

// optionalEnd reports elements whose end tag may be omitted: their extent
// cannot be tracked by counting tags, so hiding and main-region tracking
// ignore them.
func optionalEnd(name string) bool {
	switch name {
	case "p", "li", "dd", "dt", "option", "optgroup", "tr", "td", "th", "tbody", "thead", "tfoot",
		"colgroup", "rb", "rt", "rp", "rtc", "html", "head", "body":
		return true
	}
	return false
}

// quotingTag reports elements whose text is quoted or literal material —
// code, sample output, quotations — rather than what the page says itself.
func quotingTag(name string) bool {
	switch name {
	case "pre", "code", "samp", "kbd", "blockquote", "q":
		return true
	}
	return false
}

func headingTag(name string) bool {
	switch name {
	case "h1", "h2", "h3", "h4", "h5", "h6":
		return true
	}
	return false
}

// voidElem reports elements that never have content.
func voidElem(name string) bool {
	switch name {
	case "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr", "param", "keygen":
		return true
	}
	return false
}

func (s *htmlScan) finishP() {
	if s.capP {
		s.capP = false
		if t := collapse(s.para.String()); utf8.RuneCountInString(t) >= 80 && s.in.firstPara == "" {
			s.in.firstPara = t
		}
		s.para = textAcc{max: paraMax}
	}
}

func (s *htmlScan) finishHeading() {
	if !s.capHead {
		return
	}
	s.capHead = false
	t := collapse(s.head.String())
	s.head = textAcc{max: paraMax}
	if t == "" {
		return
	}
	if s.headIsH1 && s.in.h1 == "" {
		s.in.h1 = t
	}
	if s.headInMain && s.in.mainHead == "" {
		s.in.mainHead, s.in.mainHeadAt = t, s.headMainAt
	}
	if len(s.in.headings) < maxHeadings {
		s.in.headings = append(s.in.headings, t)
		s.in.headAt = append(s.in.headAt, s.headAt)
	}
}

func (s *htmlScan) visible() bool { return s.foreign == 0 && s.hiddenDepth == 0 }

func (s *htmlScan) text(z *html.Tokenizer) {
	in := s.in
	switch s.raw {
	case "":
	case "title":
		s.raw = ""
		if s.foreign == 0 && in.title == "" {
			in.title = collapse(window(string(z.Text()), fieldMax))
		}
		return
	case "script":
		s.raw = ""
		in.script(s.script.ld, z.Text())
		return
	default:
		s.raw = ""
		return
	}
	if !s.visible() {
		return
	}
	t := z.Text()
	if s.boiler == 0 {
		in.main.add(t)
		if s.mainDepth > 0 {
			in.mainElem.add(t)
		}
		if s.quoted == 0 && s.headings == 0 {
			in.prose.add(t)
			if s.mainDepth > 0 {
				in.mainProse.add(t)
			}
		}
	}
	if s.capP {
		s.para.add(t)
	}
	if s.capHead {
		s.head.add(t)
	}
}

func (s *htmlScan) start(z *html.Tokenizer, self bool) {
	in := s.in
	s.raw = ""
	raw := z.Raw()
	name := rawTagName(raw)
	var a tagAttrs
	if attrsWanted(name, raw) {
		a = readAttrs(z)
	}
	switch name {
	case "script":
		if !self {
			s.raw = "script"
			s.script.ld = strings.Contains(strings.ToLower(a.typ), "ld+json")
		}
		if a.src != "" && in.vendor == "" {
			in.vendor = paywallVendor([]byte(strings.ToLower(a.src)))
		}
		return
	case "style", "noscript", "iframe", "noembed", "noframes", "xmp", "textarea", "plaintext":
		if !self {
			s.raw = name
		}
		return
	case "title":
		if !self {
			s.raw = "title"
		}
		return
	case "meta":
		in.meta(a)
		return
	case "input":
		// Only a form the reader sees makes a sign-in page: sign-up and
		// login dialogs hidden in ordinary pages do not.
		if s.visible() && s.boiler == 0 && !a.hidden {
			switch strings.ToLower(strings.TrimSpace(a.typ)) {
			case "password":
				in.password = true
			case "email":
				in.userField = true
			}
		}
		return
	case "link":
		if strings.EqualFold(strings.TrimSpace(a.rel), "canonical") && in.canonical == "" {
			in.canonical = window(strings.TrimSpace(a.href), fieldMax)
		}
		return
	case "form":
		if s.visible() && s.boiler == 0 && !a.hidden {
			in.forms++
		}
	case "template", "svg", "math":
		if !self {
			s.foreign++
		}
		return
	}
	if voidElem(name) {
		if name == "br" {
			in.main.sep()
			in.prose.sep()
			in.mainProse.sep()
			s.para.sep()
			s.head.sep()
		}
		return
	}
	// Hidden by markup: skip the element's whole content.
	if s.hiddenDepth > 0 {
		if name == s.hiddenTag && !self {
			s.hiddenDepth++
		}
		return
	}
	if a.hidden && !self && !optionalEnd(name) && s.foreign == 0 {
		s.hiddenTag, s.hiddenDepth = name, 1
		return
	}
	switch {
	case name == "nav" || name == "footer" || name == "aside":
		if !self {
			s.boiler++
		}
	case s.mainDepth > 0 && name == s.mainTag && !self:
		s.mainDepth++
	case s.mainDepth == 0 && s.boiler == 0 && !self && (name == "main" || name == "article" || a.role == "main") && !optionalEnd(name) && in.mainElem.runes == 0:
		s.mainTag, s.mainDepth = name, 1
	}
	if quotingTag(name) && !self {
		s.quoted++
	}
	if headingTag(name) && !self {
		s.headings++
	}
	if inlineTag(name) {
		return
	}
	in.main.sep()
	in.mainElem.sep()
	in.prose.sep()
	in.mainProse.sep()
	s.head.sep()
	s.finishP()
	if self || !s.visible() {
		return
	}
	switch name {
	case "p":
		if in.firstPara == "" && s.boiler == 0 {
			s.capP = true
		}
	case "h1", "h2", "h3":
		if s.boiler == 0 && !s.capHead && len(in.headings) < maxHeadings {
			s.capHead, s.headIsH1, s.headingTag = true, name == "h1", name
			s.headAt, s.headInMain, s.headMainAt = in.prose.runes, s.mainDepth > 0, in.mainProse.runes
		}
	}
}

func (s *htmlScan) end(name string) {
	s.raw = ""
	switch name {
	case "template", "svg", "math":
		if s.foreign > 0 {
			s.foreign--
		}
		return
	}
	if s.hiddenDepth > 0 {
		if name == s.hiddenTag {
			s.hiddenDepth--
		}
		return
	}
	switch {
	case name == "nav" || name == "footer" || name == "aside":
		if s.boiler > 0 {
			s.boiler--
		}
	case s.mainDepth > 0 && name == s.mainTag:
		s.mainDepth--
	case name == "p":
		s.finishP()
	case name == s.headingTag && s.capHead:
		s.finishHeading()
	}
	if quotingTag(name) && s.quoted > 0 {
		s.quoted--
	}
	if headingTag(name) && s.headings > 0 {
		s.headings--
	}
	if !inlineTag(name) {
		s.in.main.sep()
		s.in.mainElem.sep()
		s.in.prose.sep()
		s.in.mainProse.sep()
		s.para.sep()
		s.head.sep()
	}
}

// tagAttrs are the attributes the scanner reads.
type tagAttrs struct {
	typ, src, role       string
	name, prop, itemprop string
	content, httpEquiv   string
	rel, href            string
	hasContent, hidden   bool
}

// readAttrs reads a start tag's attributes (values are unescaped by the
// tokenizer).
func readAttrs(z *html.Tokenizer) tagAttrs {
	var a tagAttrs
	for {
		k, v, more := z.TagAttr()
		switch string(k) {
		case "type":
			a.typ = string(v)
		case "src":
			a.src = string(v)
		case "role":
			a.role = strings.ToLower(strings.TrimSpace(string(v)))
		case "name":
			a.name = strings.ToLower(strings.TrimSpace(string(v)))
		case "property":
			a.prop = strings.ToLower(strings.TrimSpace(string(v)))
		case "itemprop":
			a.itemprop = strings.ToLower(strings.TrimSpace(string(v)))
		case "content":
			a.content, a.hasContent = string(v), true
		case "rel":
			a.rel = string(v)
		case "href":
			a.href = string(v)
		case "http-equiv":
			a.httpEquiv = strings.ToLower(strings.TrimSpace(string(v)))
		case "hidden":
			a.hidden = true
		case "style":
			if hiddenStyle(v) {
				a.hidden = true
			}
		}
		if !more {
			return a
		}
	}
}

// hiddenStyle reports an inline style that hides the element.
func hiddenStyle(v []byte) bool {
	if !bytes.Contains(v, []byte("none")) && !bytes.Contains(v, []byte("hidden")) &&
		!bytes.Contains(v, []byte("NONE")) && !bytes.Contains(v, []byte("HIDDEN")) {
		return false
	}
	compact := bytes.ToLower(bytes.Join(bytes.Fields(v), nil))
	return bytes.Contains(compact, []byte("display:none")) || bytes.Contains(compact, []byte("visibility:hidden"))
}

// meta reads the <meta> fields the rules use.
func (in *pageInfo) meta(a tagAttrs) {
	if a.httpEquiv == "refresh" && a.hasContent {
		if strings.Contains(strings.ToLower(a.content), "url") {
			in.refresh = true
		}
		return
	}
	if !a.hasContent {
		return
	}
	content := a.content
	if a.itemprop == "isaccessibleforfree" && strings.EqualFold(strings.TrimSpace(content), "false") && in.freeFalse == "" {
		in.freeFalse = "microdata"
	}
	content = window(content, fieldMax)
	set := func(dst *string) {
		if *dst == "" {
			*dst = collapse(content)
		}
	}
	for _, key := range []string{a.name, a.prop} {
		switch key {
		case "":
		case "description":
			set(&in.metaDesc)
		case "og:description":
			set(&in.ogDesc)
		case "og:title":
			set(&in.ogTitle)
		case "og:type":
			set(&in.ogType)
		case "og:url":
			set(&in.ogURL)
		case "twitter:title":
			set(&in.twTitle)
		case "og:site_name":
			set(&in.siteName)
		case "application-name":
			set(&in.appName)
		default:
			if strings.HasSuffix(key, "content_tier") && in.contentTier == "" {
				in.contentTier = strings.ToLower(collapse(content))
			}
		}
	}
}

// jsRedirectMarks are what an inline script that sends the browser
// elsewhere contains.
var jsRedirectMarks = [][]byte{[]byte("location.href"), []byte("location.replace("), []byte("location.assign("),
	[]byte("window.location"), []byte("document.location"), []byte("top.location"), []byte("location="), []byte("location =")}

// script reads a <script>'s content: JSON-LD is kept, inline code is
// checked for a paywall vendor and for a redirect.
func (in *pageInfo) script(ld bool, content []byte) {
	if ld {
		in.keepLD(content)
		return
	}
	if len(content) > scriptScan {
		content = content[:scriptScan]
	}
	if in.vendor == "" {
		in.vendor = paywallVendor(content)
	}
	if !in.jsRedirect {
		for _, m := range jsRedirectMarks {
			if bytes.Contains(content, m) {
				in.jsRedirect = true
				break
			}
		}
	}
}
