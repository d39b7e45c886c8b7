package classify

import (
	"bytes"
	"io"
	"strings"

	"golang.org/x/net/html"
)

// The pre-pass walks the whole HTML document from "<" to "<" (IndexByte is
// vectorized) and does two things the tokenizer would be slow at:
//
//   - it reads the signals that may sit anywhere in a page — <meta>,
//     <script> (JSON-LD, paywall vendors), <input type=password> — so that
//     tokenizing can stop early;
//   - it cuts out comments and the contents of raw-text and invisible
//     elements (script, style, svg, template, …), which on a heavy page are
//     most of the bytes, leaving spans of markup and text for
//     golang.org/x/net/html's tokenizer.

// span is a byte range of the body handed to the tokenizer.
type span struct{ start, end int }

// droppedElem reports elements whose content is cut out, with whether a
// self-closing form ("<svg/>") is honoured (foreign and template elements;
// HTML ignores the slash on <script/>).
func droppedElem(name string) (drop, selfCloses bool) {
	switch name {
	case "script", "style", "noscript", "textarea", "xmp", "iframe", "noembed", "noframes", "plaintext":
		return true, false
	case "svg", "math", "template":
		return true, true
	}
	return false, false
}

// tagNames interns the tag names the scanners act on; tagName returns ""
// for any other name, which the scanners treat as a block element.
var tagNames = func() map[string]string {
	m := map[string]string{}
	for _, n := range strings.Fields(`script style noscript textarea xmp iframe noembed noframes plaintext
		svg math template title meta input link nav footer aside br p h1
		a abbr b bdi bdo big cite code data del dfn em font i img ins kbd label mark nobr picture q rp rt
		ruby s samp small source span strike strong sub sup time tt u var wbr`) {
		m[n] = n
	}
	return m
}()

// tagName reads the tag name at b (just after "<" or "</"), lowercased and
// interned (see tagNames), and its length in bytes. It does not allocate.
func tagName(b []byte, buf *[16]byte) (string, int) {
	n := 0
	for n < len(b) {
		c := b[n]
		if c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '/' || c == '>' {
			break
		}
		if n < len(buf) {
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			buf[n] = c
		}
		n++
	}
	if n > len(buf) {
		return "", n
	}
	return tagNames[string(buf[:n])], n
}

// tagEnd returns the index of the ">" that ends the tag whose attributes
// start at i, honouring quoted attribute values; -1 if the tag never ends.
func tagEnd(b []byte, i int) int {
	prev := byte(0)
	for ; i < len(b); i++ {
		switch c := b[i]; c {
		case '>':
			return i
		case '"', '\'':
			if prev == '=' {
				j := bytes.IndexByte(b[i+1:], c)
				if j < 0 {
					return -1
				}
				i += j + 1
			}
			prev = c
		case ' ', '\t', '\n', '\r', '\f':
		default:
			prev = c
		}
	}
	return -1
}

// findClose finds the end tag "</name" (any case) from i; it returns where
// the end tag starts and where it ends (after its ">"), or -1, -1.
func findClose(b []byte, i int, name string) (int, int) {
	for {
		j := bytes.Index(b[i:], []byte("</"))
		if j < 0 {
			return -1, -1
		}
		at := i + j
		k := at + 2 + len(name)
		if k <= len(b) && bytes.EqualFold(b[at+2:k], []byte(name)) &&
			(k == len(b) || bytes.IndexByte([]byte(" \t\n\r\f/>"), b[k]) >= 0) {
			e := bytes.IndexByte(b[k:], '>')
			if e < 0 {
				return at, len(b)
			}
			return at, k + e + 1
		}
		i = at + 2
	}
}

// attrs calls f with each attribute of a start tag ("<name …>"): the raw
// key (compare it with bytes.EqualFold) and the unescaped value.
func attrs(tag []byte, f func(key []byte, val string)) {
	i := 1
	for i < len(tag) && !asciiSpace[tag[i]] && tag[i] != '/' && tag[i] != '>' {
		i++
	}
	for {
		for i < len(tag) && (asciiSpace[tag[i]] || tag[i] == '/') {
			i++
		}
		if i >= len(tag) || tag[i] == '>' {
			return
		}
		ks := i
		for i < len(tag) && !asciiSpace[tag[i]] && tag[i] != '=' && tag[i] != '>' && tag[i] != '/' {
			i++
		}
		key := tag[ks:i]
		for i < len(tag) && asciiSpace[tag[i]] {
			i++
		}
		var val []byte
		if i < len(tag) && tag[i] == '=' {
			i++
			for i < len(tag) && asciiSpace[tag[i]] {
				i++
			}
			if i < len(tag) && (tag[i] == '"' || tag[i] == '\'') {
				q := tag[i]
				i++
				vs := i
				for i < len(tag) && tag[i] != q {
					i++
				}
				val = tag[vs:i]
				i++
			} else {
				vs := i
				for i < len(tag) && !asciiSpace[tag[i]] && tag[i] != '>' {
					i++
				}
				val = tag[vs:i]
			}
		}
		if len(key) > 0 {
			v := string(val)
			if strings.IndexByte(v, '&') >= 0 {
				v = html.UnescapeString(v)
			}
			f(key, v)
		}
	}
}

// candidate is a cheap filter on the two bytes after "<": it passes
// comments and the tags the pre-pass handles (see droppedElem, meta, input)
// and rejects nearly every other tag.
func candidate(c1, c2 byte) bool {
	c2 |= 0x20
	switch c1 | 0x20 {
	case '!':
		return c1 == '!'
	case 's':
		return c2 == 'c' || c2 == 't' || c2 == 'v'
	case 'n':
		return c2 == 'o'
	case 't':
		return c2 == 'e'
	case 'x':
		return c2 == 'm'
	case 'i':
		return c2 == 'f' || c2 == 'n'
	case 'm':
		return c2 == 'e' || c2 == 'a'
	case 'p':
		return c2 == 'l'
	}
	return false
}

// prepass reads meta, script and input tags into in and returns the spans
// of body left for the tokenizer.
func prepass(body []byte, in *pageInfo) []span {
	var spans []span
	var nb [16]byte
	keep, i := 0, 0
	for i < len(body) {
		j := bytes.IndexByte(body[i:], '<')
		if j < 0 {
			break
		}
		at := i + j
		rest := body[at+1:]
		if len(rest) < 3 || !candidate(rest[0], rest[1]) {
			i = at + 1
			continue
		}
		if rest[0] == '!' {
			if rest[1] != '-' || rest[2] != '-' {
				i = at + 1
				continue
			}
			spans = append(spans, span{keep, at})
			e := bytes.Index(body[at+4:], []byte("-->"))
			if e < 0 {
				return spans
			}
			i = at + 4 + e + 3
			keep = i
			continue
		}
		if len(rest) == 0 || !isLetter(rest[0]) {
			i = at + 1
			continue
		}
		name, n := tagName(rest, &nb)
		drop, selfCloses := droppedElem(name)
		if !drop && name != "meta" && name != "input" {
			i = at + 1
			continue
		}
		end := tagEnd(body, at+1+n)
		if end < 0 {
			break
		}
		tag := body[at : end+1]
		switch name {
		case "meta":
			in.metaTag(tag)
		case "input":
			in.inputTag(tag)
		}
		if !drop || (selfCloses && end > 0 && body[end-1] == '/') {
			i = end + 1
			continue
		}
		cs, ce := findClose(body, end+1, name)
		if cs < 0 {
			cs, ce = len(body), len(body)
		}
		if name == "script" {
			in.script(tag, body[end+1:cs])
		}
		spans = append(spans, span{keep, end + 1})
		keep, i = cs, ce
	}
	return append(spans, span{keep, len(body)})
}

// script reads a <script>: JSON-LD is kept, and the src or inline code is
// checked for a paywall vendor.
func (in *pageInfo) script(tag, content []byte) {
	ld := false
	attrs(tag, func(k []byte, v string) {
		switch {
		case bytes.EqualFold(k, []byte("type")):
			ld = strings.Contains(strings.ToLower(v), "ld+json")
		case bytes.EqualFold(k, []byte("src")):
			if in.vendor == "" {
				in.vendor = paywallVendor([]byte(strings.ToLower(v)))
			}
		}
	})
	switch {
	case ld:
		in.keepLD(content)
	case in.vendor == "":
		if len(content) > scriptScan {
			content = content[:scriptScan]
		}
		in.vendor = paywallVendor(content)
	}
}

// metaTag reads the <meta> fields the rules use.
func (in *pageInfo) metaTag(tag []byte) {
	var name, prop, itemprop, content string
	hasContent := false
	attrs(tag, func(k []byte, v string) {
		switch {
		case bytes.EqualFold(k, []byte("name")):
			name = strings.ToLower(strings.TrimSpace(v))
		case bytes.EqualFold(k, []byte("property")):
			prop = strings.ToLower(strings.TrimSpace(v))
		case bytes.EqualFold(k, []byte("itemprop")):
			itemprop = strings.ToLower(strings.TrimSpace(v))
		case bytes.EqualFold(k, []byte("content")):
			content, hasContent = v, true
		}
	})
	if !hasContent {
		return
	}
	if itemprop == "isaccessibleforfree" && strings.EqualFold(strings.TrimSpace(content), "false") && in.freeFalse == "" {
		in.freeFalse = "microdata"
	}
	content = window(content, fieldMax)
	set := func(dst *string) {
		if *dst == "" {
			*dst = collapse(content)
		}
	}
	for _, key := range []string{name, prop} {
		switch key {
		case "":
		case "description":
			set(&in.metaDesc)
		case "og:description":
			set(&in.ogDesc)
		case "og:title":
			set(&in.ogTitle)
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

// inputTag notes a password field (a login form).
func (in *pageInfo) inputTag(tag []byte) {
	attrs(tag, func(k []byte, v string) {
		if bytes.EqualFold(k, []byte("type")) && strings.EqualFold(strings.TrimSpace(v), "password") {
			in.password = true
		}
	})
}

// spanReader reads the kept spans of a body in order, without copying the
// body.
type spanReader struct {
	b     []byte
	spans []span
}

func (r *spanReader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) && len(r.spans) > 0 {
		s := &r.spans[0]
		c := copy(p[n:], r.b[s.start:s.end])
		n += c
		s.start += c
		if s.start >= s.end {
			r.spans = r.spans[1:]
		}
	}
	if n == 0 && len(r.spans) == 0 {
		return 0, io.EOF
	}
	return n, nil
}
