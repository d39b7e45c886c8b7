package classify

import (
	"bytes"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/citegate/citegate/engine/pdftext"
	"golang.org/x/net/html"
)

// pdfTitle reads a PDF's document title, cheaply: the Info dictionary's
// /Title string (literal or hex, PDFDocEncoding or UTF-16BE) or the XMP
// dc:title, whichever is found uncompressed. "" when neither is.
func pdfTitle(b []byte) string {
	if t := pdfInfoTitle(b); t != "" {
		return t
	}
	if i := bytes.Index(b, []byte("<dc:title")); i >= 0 {
		rest := b[i:min(len(b), i+2048)]
		if j := bytes.Index(rest, []byte("<rdf:li")); j >= 0 {
			rest = rest[j:]
			if k := bytes.IndexByte(rest, '>'); k >= 0 {
				rest = rest[k+1:]
				if e := bytes.IndexByte(rest, '<'); e >= 0 && utf8.Valid(rest[:e]) {
					return collapse(html.UnescapeString(string(rest[:e])))
				}
			}
		}
	}
	return ""
}

// pdfInfoTitle follows the trailer's /Info reference to the Info
// dictionary and reads its /Title. Outline entries also carry /Title, so
// the first /Title in the file is not good enough.
func pdfInfoTitle(b []byte) string {
	i := bytes.LastIndex(b, []byte("/Info"))
	if i < 0 {
		return ""
	}
	f := bytes.Fields(b[i+len("/Info") : min(len(b), i+64)])
	if len(f) < 3 || !bytes.HasPrefix(f[2], []byte("R")) {
		return ""
	}
	num, gen := f[0], f[1]
	if !digits(num) || !digits(gen) {
		return ""
	}
	head := append(append(append(append([]byte{}, num...), ' '), gen...), " obj"...)
	for off := 0; ; {
		j := bytes.Index(b[off:], head)
		if j < 0 {
			return ""
		}
		at := off + j
		off = at + len(head)
		if at > 0 && !asciiSpace[b[at-1]] {
			continue // "12 0 obj" inside "112 0 obj"
		}
		obj := b[off:min(len(b), off+4096)]
		if e := bytes.Index(obj, []byte("endobj")); e >= 0 {
			obj = obj[:e]
		}
		k := bytes.Index(obj, []byte("/Title"))
		if k < 0 {
			return ""
		}
		rest := bytes.TrimLeft(obj[k+len("/Title"):], " \t\r\n")
		var raw []byte
		switch {
		case len(rest) > 0 && rest[0] == '(':
			raw = pdfLiteral(rest)
		case len(rest) > 1 && rest[0] == '<' && rest[1] != '<':
			raw = pdfHex(rest)
		}
		if t := collapse(pdfText(raw)); hasLetter(t) {
			return t
		}
		return ""
	}
}

func digits(b []byte) bool {
	if len(b) == 0 || len(b) > 10 {
		return false
	}
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// pdfLiteral decodes "(…)" with nesting and backslash escapes.
func pdfLiteral(s []byte) []byte {
	var out []byte
	depth := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '(':
			depth++
			if depth == 1 {
				continue
			}
		case c == ')':
			depth--
			if depth == 0 {
				return out
			}
		case c == '\\' && i+1 < len(s):
			i++
			switch e := s[i]; e {
			case 'n':
				c = '\n'
			case 'r':
				c = '\r'
			case 't':
				c = '\t'
			case 'b', 'f':
				c = ' '
			case '\r', '\n':
				continue
			default:
				if e >= '0' && e <= '7' {
					v := 0
					for k := 0; k < 3 && i < len(s) && s[i] >= '0' && s[i] <= '7'; k++ {
						v = v*8 + int(s[i]-'0')
						i++
					}
					i--
					c = byte(v)
				} else {
					c = e
				}
			}
		}
		out = append(out, c)
	}
	return out
}

// pdfHex decodes "<48656C6C6F>".
func pdfHex(s []byte) []byte {
	var out []byte
	var hi byte
	half := false
	for i := 1; i < len(s) && s[i] != '>'; i++ {
		v, ok := pdftext.HexValue(s[i])
		if !ok {
			continue
		}
		if half {
			out = append(out, hi<<4|v)
		} else {
			hi = v
		}
		half = !half
	}
	if half {
		out = append(out, hi<<4)
	}
	return out
}

// pdfText converts a PDF text string: UTF-16BE with a BOM, UTF-8 with a
// BOM, else PDFDocEncoding (read as Latin-1, close enough for a title).
func pdfText(b []byte) string {
	switch {
	case len(b) >= 2 && b[0] == 0xfe && b[1] == 0xff:
		u := make([]uint16, 0, len(b)/2)
		for i := 2; i+1 < len(b); i += 2 {
			u = append(u, uint16(b[i])<<8|uint16(b[i+1]))
		}
		return string(utf16.Decode(u))
	case len(b) >= 3 && b[0] == 0xef && b[1] == 0xbb && b[2] == 0xbf:
		return string(b[3:])
	}
	r := make([]rune, len(b))
	for i, c := range b {
		r[i] = rune(c)
	}
	return string(r)
}

func hasLetter(s string) bool {
	for _, r := range s {
		if r >= utf8.RuneSelf || isLetter(byte(r)) {
			return true
		}
	}
	return false
}
