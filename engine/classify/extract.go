package classify

import (
	"bytes"
	"encoding/json"
	"mime"
	"strings"
	"unicode/utf8"
)

// kind is how a body is read.
type kind int

const (
	kindHTML kind = iota
	kindXML
	kindMarkdown
	kindText
	kindJSON
	kindPDF
	kindBinary
)

// String names the kind in "ok: <kind>" reasons.
func (k kind) String() string {
	switch k {
	case kindHTML:
		return "html"
	case kindXML:
		return "xml"
	case kindMarkdown:
		return "markdown"
	case kindText:
		return "text"
	case kindJSON:
		return "json"
	case kindPDF:
		return "pdf"
	case kindBinary:
		// A body of no kind read here is named for what it is to a reader.
	}
	return "document"
}

// Size caps that keep Classify fast on a 2 MB body.
const (
	keepText    = 32 << 10  // main text kept for phrase and token matching
	ldMax       = 512 << 10 // JSON-LD bytes kept
	scriptScan  = 32 << 10  // bytes of each inline script searched for vendors
	jsonScanMax = 1 << 20   // JSON bytes decoded
	paraMax     = 4 << 10   // paragraph / heading capture
	rawWindow   = 256 << 10 // body bytes searched for wall markers on a page that is not thin
	fieldMax    = 4 << 10   // title and meta values kept
)

// mediaType is the lower-case media type of a Content-Type value, or def.
func mediaType(ct, def string) string {
	ct = strings.TrimSpace(ct)
	if ct == "" {
		return def
	}
	if mt, _, err := mime.ParseMediaType(ct); err == nil {
		return mt
	}
	if i := strings.IndexByte(ct, ';'); i >= 0 {
		ct = ct[:i]
	}
	if ct = strings.ToLower(strings.TrimSpace(ct)); ct != "" {
		return ct
	}
	return def
}

// sniff decides how to read the body from the declared type and, when that
// is missing or generic, from the body itself. A body that is plainly an
// HTML document or a PDF is read as such whatever a text/* type says (rungs
// relabel content).
func sniff(p Page) kind {
	mt := mediaType(p.ContentType, "")
	head := p.Body
	if len(head) > 1024 {
		head = head[:1024]
	}
	head = bytes.TrimLeft(bytes.TrimPrefix(bytes.TrimLeft(head, " \t\r\n"), []byte("\xef\xbb\xbf")), " \t\r\n")
	generic := mt == "" || mt == "application/octet-stream" || mt == "binary/octet-stream"
	if bytes.HasPrefix(head, []byte("%PDF-")) && (generic || strings.HasPrefix(mt, "text/") || mt == "application/pdf") {
		return kindPDF
	}
	if looksHTML(head) && (generic || strings.HasPrefix(mt, "text/") || strings.Contains(mt, "html") || strings.Contains(mt, "xml")) {
		return kindHTML
	}
	switch {
	case strings.Contains(mt, "html"):
		return kindHTML
	case mt == "application/pdf" || mt == "application/x-pdf":
		return kindPDF
	case strings.Contains(mt, "markdown"):
		return kindMarkdown
	case mt == "application/json" || mt == "text/json" || strings.HasSuffix(mt, "+json"):
		return kindJSON
	case mt == "application/xml" || mt == "text/xml" || strings.HasSuffix(mt, "+xml"):
		return kindXML
	case strings.HasPrefix(mt, "text/"):
		return kindText
	case !generic:
		return kindBinary
	}
	// No usable type: look at the body.
	switch {
	case len(head) == 0:
		return kindText
	case head[0] == '{' || head[0] == '[':
		return kindJSON
	case head[0] == '<':
		return kindXML
	case bytes.IndexByte(head, 0) < 0 && utf8.Valid(trimPartialRune(head)):
		// Scraping APIs hand over markdown without a type.
		return kindMarkdown
	}
	return kindBinary
}

// trimPartialRune drops an incomplete UTF-8 sequence cut off at the end.
func trimPartialRune(b []byte) []byte {
	for i := 1; i <= 3 && i <= len(b); i++ {
		if utf8.RuneStart(b[len(b)-i]) {
			if !utf8.FullRune(b[len(b)-i:]) {
				return b[:len(b)-i]
			}
			break
		}
	}
	return b
}

// looksHTML reports an HTML document start (doctype, <html>, <head>, <body>
// within the first KB).
func looksHTML(head []byte) bool {
	if len(head) == 0 || head[0] != '<' {
		return false
	}
	low := bytes.ToLower(head)
	for _, m := range []string{"<!doctype html", "<html", "<head", "<body"} {
		if bytes.Contains(low, []byte(m)) {
			return true
		}
	}
	return false
}

// pageInfo is everything the rules read from a body.
type pageInfo struct {
	kind kind

	title, ogTitle, twTitle, h1, pTitle string
	metaDesc, ogDesc, ogType            string
	siteName, appName                   string
	canonical, ogURL                    string // <link rel=canonical>, og:url: the URL the page says it is
	ldPublisher, ldHeadline             string
	ldArticle                           bool // JSON-LD declares an article type
	firstPara                           string
	headings                            []string // the first h1–h3 headings (HTML, markdown)

	main      textAcc // readable text outside markup, nav, footer and aside
	mainRunes int     // its length in runes
	text      string  // its first keepText bytes
	textLow   string  // lowerText(text), see lowText
	lowered   bool
	mainElem  textAcc // text of the main/article element (HTML)
	// prose and mainProse are main and mainElem without quoted or literal
	// material (code, preformatted text, quotations; markdown fences and
	// block quotes) and without headings: what the page says in its own
	// words.
	prose, mainProse textAcc
	headAt           []int  // where each of headings starts, in runes of prose
	mainHead         string // the first h1–h3 inside the main element (HTML)
	mainHeadAt       int    // where it starts, in runes of mainProse
	raw              []byte // the body (markup included), for bot-wall markers
	rawLow           string // raw, lowercased (see rawLower)

	ld          [][]byte // JSON-LD blocks
	ldSize      int
	freeFalse   string // "JSON-LD" or "microdata" when isAccessibleForFree=false
	contentTier string // content_tier meta value, lowercased
	vendor      string // paywall vendor seen in a script
	password    bool   // a password input is present
	userField   bool   // an e-mail input is present
	forms       int    // number of <form> elements
	refresh     bool   // <meta http-equiv=refresh> with a URL
	jsRedirect  bool   // an inline script assigns the location
}

// bestTitle: og:title, <title>, the rung's title, the first <h1>, then
// twitter:title and the JSON-LD headline.
func (in *pageInfo) bestTitle() string {
	for _, s := range []string{in.ogTitle, in.title, in.pTitle, in.h1, in.twTitle, in.ldHeadline} {
		if s != "" {
			return s
		}
	}
	return ""
}

// snippetSource: meta description, og:description, the first substantive
// paragraph, else the start of the readable text.
func (in *pageInfo) snippetSource() string {
	for _, s := range []string{in.metaDesc, in.ogDesc, in.firstPara} {
		if s != "" {
			return s
		}
	}
	return in.text
}

// analyze reads the body according to its kind.
func analyze(p Page, k kind) *pageInfo {
	in := &pageInfo{kind: k, pTitle: collapse(window(p.Title, fieldMax))}
	in.main.max, in.prose.max, in.mainProse.max = keepText, keepText, mainElemMax
	body := p.Body
	switch k {
	case kindHTML, kindXML:
		scanHTML(body, in)
	case kindMarkdown:
		scanLines(body, in, true)
	case kindText:
		scanLines(body, in, false)
	case kindJSON:
		if !scanJSON(body, in) {
			scanLines(body, in, false)
		}
	case kindPDF:
		in.title = pdfTitle(body)
	case kindBinary:
		// Nothing to scan: only the page's own title is known.
	}
	in.mainRunes = in.main.runes
	in.text = in.main.String()
	if k != kindPDF && k != kindBinary {
		in.raw = body
	}
	in.readLD()
	return in
}

// lowText is the kept main text lowercased for phrase matching, computed
// on first use.
func (in *pageInfo) lowText() string {
	if !in.lowered {
		in.lowered = true
		in.textLow = lowerText(in.text)
	}
	return in.textLow
}

// rawLower is the lowercased body, computed on first use. Bot-wall
// markers are searched in it: in the whole body of a thin page (a
// challenge can sit behind a megabyte of inline CSS), in the first
// rawWindow bytes of any other (the markup a wall would carry there is
// near the top, and lowercasing and searching megabytes of an ordinary
// page costs more than it can find).
func (in *pageInfo) rawLower() string {
	if in.rawLow == "" && len(in.raw) > 0 {
		b := in.raw
		if in.mainRunes >= wallThin && len(b) > rawWindow {
			b = b[:rawWindow]
		}
		in.rawLow = string(bytes.ToLower(b))
	}
	return in.rawLow
}

// ---------------------------------------------------------------- HTML

// inlineTag reports phrasing elements, which do not separate words.
func inlineTag(name string) bool {
	switch name {
	case "a", "abbr", "b", "bdi", "bdo", "big", "cite", "code", "data", "del", "dfn", "em", "font",
		"i", "img", "ins", "kbd", "label", "mark", "nobr", "picture", "q", "rp", "rt", "ruby", "s",
		"samp", "small", "source", "span", "strike", "strong", "sub", "sup", "time", "tt", "u",
		"var", "wbr":
		return true
	}
	return false
}

// keepLD keeps a JSON-LD block, up to ldMax bytes in all.
func (in *pageInfo) keepLD(t []byte) {
	if in.ldSize+len(t) > ldMax {
		return
	}
	in.ldSize += len(t)
	in.ld = append(in.ld, bytes.Clone(t))
}

// ---------------------------------------------------------------- markdown and text

// scanLines reads markdown (md) or plain text line by line: headings, the
// first paragraph of at least 80 runes, and the readable text.
func scanLines(body []byte, in *pageInfo, md bool) {
	para := textAcc{max: paraMax}
	paraLines := 0
	firstHeading := ""
	fence := false
	flush := func() {
		if para.runes > 0 && in.firstPara == "" {
			if s := collapse(para.String()); utf8.RuneCountInString(s) >= 80 {
				in.firstPara = s
			}
		}
		para = textAcc{max: paraMax}
		paraLines = 0
	}
	add := func(s string) {
		in.main.sep()
		in.main.add([]byte(s))
		in.main.sep()
	}
	// say adds text the page says in its own words (not a fence or a
	// block quote).
	say := func(s string) {
		add(s)
		in.prose.sep()
		in.prose.add([]byte(s))
		in.prose.sep()
	}
	for len(body) > 0 {
		var line []byte
		if i := bytes.IndexByte(body, '\n'); i >= 0 {
			line, body = body[:i], body[i+1:]
		} else {
			line, body = body, nil
		}
		t := string(bytes.TrimSpace(line))
		if md && (strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~")) {
			flush()
			fence = !fence
			continue
		}
		if fence {
			add(t)
			continue
		}
		if t == "" {
			flush()
			continue
		}
		if !md {
			para.add([]byte(t))
			para.sep()
			say(t)
			continue
		}
		switch {
		case t[0] == '#':
			level := 0
			for level < len(t) && t[level] == '#' {
				level++
			}
			if level > 6 || (level < len(t) && t[level] != ' ' && t[level] != '\t') {
				break // "#hashtag" is text
			}
			flush()
			h := collapse(mdInline(strings.TrimRight(t[level:], "# \t")))
			if level == 1 && in.h1 == "" {
				in.h1 = h
			}
			if level <= 3 && h != "" && len(in.headings) < maxHeadings {
				in.headings = append(in.headings, h)
				in.headAt = append(in.headAt, in.prose.runes)
			}
			if firstHeading == "" {
				firstHeading = h
			}
			add(h)
			continue
		case setextRule(t, '='):
			if paraLines == 1 && in.h1 == "" {
				in.h1 = collapse(para.String())
				para = textAcc{max: paraMax}
				paraLines = 0
				continue
			}
			flush()
			continue
		case setextRule(t, '-') || hrRule(t):
			flush()
			continue
		case tableRule(t):
			continue
		case listItem(t):
			flush()
			say(mdInline(stripListMarker(t)))
			continue
		}
		quote := t[0] == '>'
		if quote {
			t = strings.TrimLeft(t, "> ")
		}
		if strings.HasPrefix(t, "|") {
			t = strings.ReplaceAll(t, "|", " ")
		}
		s := mdInline(t)
		para.add([]byte(s))
		para.sep()
		paraLines++
		if quote {
			add(s)
		} else {
			say(s)
		}
	}
	flush()
	if in.h1 == "" {
		in.h1 = firstHeading
	}
}

func setextRule(t string, c byte) bool {
	if len(t) < 2 {
		return false
	}
	for i := 0; i < len(t); i++ {
		if t[i] != c {
			return false
		}
	}
	return true
}

func hrRule(t string) bool {
	n := 0
	for i := 0; i < len(t); i++ {
		switch t[i] {
		case '*', '_', '-':
			n++
		case ' ':
		default:
			return false
		}
	}
	return n >= 3
}

func tableRule(t string) bool {
	if !strings.Contains(t, "-") || !strings.Contains(t, "|") {
		return false
	}
	return strings.Trim(t, "|-: \t") == ""
}

func listItem(t string) bool {
	if len(t) >= 2 && (t[0] == '-' || t[0] == '*' || t[0] == '+') && t[1] == ' ' {
		return true
	}
	i := 0
	for i < len(t) && i < 9 && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	return i > 0 && i+1 < len(t) && (t[i] == '.' || t[i] == ')') && t[i+1] == ' '
}

func stripListMarker(t string) string {
	if t[0] == '-' || t[0] == '*' || t[0] == '+' {
		return t[2:]
	}
	if i := strings.IndexAny(t, ".)"); i >= 0 && i+1 < len(t) {
		return t[i+2:]
	}
	return t
}

// mdInline reduces inline markdown to its text: link text without the URL,
// no images, no bare URLs, no raw tags, no emphasis markers. Linear time.
func mdInline(s string) string {
	if !strings.ContainsAny(s, "[]!<*_`~\\") && !strings.Contains(s, "://") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s):
			b.WriteByte(s[i+1])
			i += 2
		case c == '!' && i+1 < len(s) && s[i+1] == '[':
			// Image: drop "![alt](url)" entirely.
			j := strings.Index(s[i:min(len(s), i+2048)], "](")
			if j < 0 {
				i++
				continue
			}
			if e := closeParen(s, i+j+1); e > 0 {
				i = e + 1
				continue
			}
			i++
		case c == ']' && i+1 < len(s) && s[i+1] == '(':
			if e := closeParen(s, i+1); e > 0 {
				i = e + 1
				continue
			}
			i++
		case c == ']' && i+1 < len(s) && s[i+1] == '[':
			if e := strings.IndexByte(s[i+1:min(len(s), i+256)], ']'); e > 0 {
				i += e + 2
				continue
			}
			i++
		case c == '[' || c == ']' || c == '*' || c == '`' || c == '~':
			i++
		case c == '_':
			prevW := i > 0 && wordByte(s[i-1])
			nextW := i+1 < len(s) && wordByte(s[i+1])
			if prevW && nextW {
				b.WriteByte(c)
			}
			i++
		case c == '<' && i+1 < len(s) && (isLetter(s[i+1]) || s[i+1] == '/' || s[i+1] == '!' || s[i+1] == '?'):
			if e := strings.IndexByte(s[i:min(len(s), i+2048)], '>'); e > 0 {
				i += e + 1
				b.WriteByte(' ')
				continue
			}
			b.WriteByte(c)
			i++
		case (c == 'h' || c == 'H') && (hasPrefixFold(s[i:], "http://") || hasPrefixFold(s[i:], "https://")) && (i == 0 || !wordByte(s[i-1])):
			for i < len(s) && s[i] != ' ' && s[i] != '\t' && s[i] != ')' && s[i] != ']' {
				i++
			}
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String()
}

// closeParen returns the index of the ")" closing the "(" at s[open], with
// one level of nesting, searching at most 2 KB; -1 if none.
func closeParen(s string, open int) int {
	if open >= len(s) || s[open] != '(' {
		return -1
	}
	depth := 0
	for i := open; i < len(s) && i < open+2048; i++ {
		switch s[i] {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

func isLetter(c byte) bool { return (c|0x20) >= 'a' && (c|0x20) <= 'z' }

func wordByte(c byte) bool { return isLetter(c) || (c >= '0' && c <= '9') || c >= utf8.RuneSelf }

func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

// ---------------------------------------------------------------- JSON

// scanJSON reads a JSON document's string values as its readable text; a
// top-level "title", "name" or "headline" is the title. It reports false
// when the body is not JSON at all.
func scanJSON(body []byte, in *pageInfo) bool {
	if len(body) > jsonScanMax {
		body = body[:jsonScanMax]
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	type frame struct{ obj, key bool }
	var stack []frame
	key := ""
	n := 0
	valueDone := func() {
		if len(stack) > 0 && stack[len(stack)-1].obj {
			stack[len(stack)-1].key = true
		}
	}
	for {
		tok, err := dec.Token()
		if err != nil {
			return n > 0
		}
		n++
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{':
				stack = append(stack, frame{obj: true, key: true})
			case '[':
				stack = append(stack, frame{})
			default:
				if len(stack) > 0 {
					stack = stack[:len(stack)-1]
				}
				valueDone()
			}
		case string:
			if len(stack) > 0 && stack[len(stack)-1].obj && stack[len(stack)-1].key {
				key = t
				stack[len(stack)-1].key = false
				continue
			}
			if len(stack) == 1 && in.title == "" && (key == "title" || key == "name" || key == "headline") {
				in.title = collapse(window(t, fieldMax))
			}
			for _, acc := range []*textAcc{&in.main, &in.prose} {
				acc.sep()
				acc.add([]byte(t))
				acc.sep()
			}
			if in.firstPara == "" && strings.Contains(t, " ") {
				if s := collapse(t); utf8.RuneCountInString(s) >= 80 {
					in.firstPara = s
				}
			}
			valueDone()
		default:
			valueDone()
		}
	}
}

// ReadableText returns a page's readable text — markup, scripts, styles,
// navigation and footers removed, whitespace collapsed — up to the first
// 32 KB: what a judge should read instead of raw HTML.
func ReadableText(p Page) string {
	return analyze(p, sniff(p)).text
}
