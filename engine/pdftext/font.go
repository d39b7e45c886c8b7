package pdftext

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ledongthuc/pdf"
)

// font is what text extraction needs of a PDF font: how to split a string
// into character codes, the text of each code, and each code's advance
// width (to tell a word gap from a kern).
type font struct {
	cid      bool // Type0: multi-byte codes, CID widths
	toU      *cmap
	simple   *[256]string // text per code of a simple font (no or partial ToUnicode)
	widths   map[uint32]float64
	defWidth float64
	scale    float64 // glyph space to text space: 1/1000, or a Type3 FontMatrix
}

const (
	maxWidths      = 1 << 16
	maxDifferences = 1 << 10
)

// loadFont reads a font dictionary. It never calls the library's CMap
// reader (see cmap.go).
func (x *extractor) loadFont(v pdf.Value) *font {
	f := &font{scale: 0.001, defWidth: 1000}
	sub := v.Key("Subtype").Name()
	f.cid = sub == "Type0"
	tu := v.Key("ToUnicode")
	if tu.Kind() == pdf.Stream {
		if rd := x.streamReader(tu, maxCMapBytes); rd != nil {
			f.toU = parseCMap(rd, x.check)
		}
	}
	if f.cid {
		f.loadCIDWidths(v.Key("DescendantFonts").Index(0))
		if f.toU == nil {
			// Without a ToUnicode map the codes of a Type0 font are glyph
			// ids; only the predefined Unicode CMaps say what they mean.
			if enc := v.Key("Encoding").Name(); strings.HasPrefix(enc, "Uni") && strings.Contains(enc, "UCS2") {
				f.toU = ucs2
			}
		}
		return f
	}
	if sub == "Type3" {
		if m := v.Key("FontMatrix"); m.Len() >= 1 && m.Index(0).Float64() > 0 {
			f.scale = m.Index(0).Float64()
		}
	}
	f.loadSimpleWidths(v)
	f.simple = x.simpleEncoding(v, tu.Kind() == pdf.Stream)
	return f
}

// simpleEncoding tabulates the library's encoder (WinAnsi, MacRoman,
// PDFDoc, /Differences by glyph name) for the 256 codes of a simple font.
// The encoder is not asked when it would read the font's ToUnicode stream
// itself (hasToUnicode: the font has one, whether or not we could parse
// it).
func (x *extractor) simpleEncoding(v pdf.Value, hasToUnicode bool) *[256]string {
	var t [256]string
	enc := v.Key("Encoding")
	var usable bool
	switch enc.Kind() {
	case pdf.Dict:
		usable = enc.Key("Differences").Len() <= maxDifferences
	case pdf.Name:
		n := enc.Name()
		usable = n == "WinAnsiEncoding" || n == "MacRomanEncoding" || !hasToUnicode
	default:
		// The library would read the ToUnicode stream itself here.
		usable = !hasToUnicode
	}
	var e pdf.TextEncoding
	if usable {
		lf := pdf.Font{V: v}
		e = lf.Encoder()
	}
	for c := 0; c < 256; c++ {
		s := string([]byte{byte(c)})
		if e != nil {
			s = e.Decode(s)
		}
		if !utf8.ValidString(s) || s == string(utf8.RuneError) {
			s = string(rune(c)) // Latin-1 as a last resort
		}
		if s == "\x00" {
			s = ""
		}
		t[c] = s
	}
	return &t
}

func (f *font) loadSimpleWidths(v pdf.Value) {
	first := int(v.Key("FirstChar").Int64())
	w := v.Key("Widths")
	f.widths = map[uint32]float64{}
	if n := w.Len(); n > 0 && first >= 0 && first < 256 {
		for i := 0; i < n && first+i < 256; i++ {
			f.widths[uint32(first+i)] = w.Index(i).Float64()
		}
		f.defWidth = v.Key("FontDescriptor").Key("MissingWidth").Float64()
		return
	}
	// No widths: one of the standard 14 fonts. Half an em is close to
	// the average Latin glyph, a quarter em to a space.
	f.defWidth = 500
	f.widths[' '] = 250
}

// loadCIDWidths reads a CIDFont's /W array: "c [w1 w2 …]" and
// "cfirst clast w" groups.
func (f *font) loadCIDWidths(d pdf.Value) {
	f.widths = map[uint32]float64{}
	if dw := d.Key("DW"); dw.Kind() == pdf.Integer || dw.Kind() == pdf.Real {
		f.defWidth = dw.Float64()
	}
	w := d.Key("W")
	n := w.Len()
	for i := 0; i < n && len(f.widths) < maxWidths; {
		first := w.Index(i)
		if first.Kind() != pdf.Integer || i+1 >= n {
			break
		}
		c := first.Int64()
		next := w.Index(i + 1)
		if next.Kind() == pdf.Array {
			for j := 0; j < next.Len() && len(f.widths) < maxWidths; j++ {
				f.widths[uint32(c)+uint32(j)] = next.Index(j).Float64()
			}
			i += 2
			continue
		}
		if i+2 >= n {
			break
		}
		last, width := next.Int64(), w.Index(i+2).Float64()
		for k := c; k <= last && k-c < maxWidths && len(f.widths) < maxWidths; k++ {
			f.widths[uint32(k)] = width
		}
		i += 3
	}
}

// ucs2Identity maps two-byte codes to the same UCS-2 code points: the
// predefined Uni…-UCS2 CMaps.
func ucs2Identity() *cmap {
	m := &cmap{m: map[uint64]string{}}
	m.space[2] = []codeRange{{0, 0xffff}}
	return m
}

// glyph is one character code of a shown string.
type glyph struct {
	text  string
	width float64 // in glyph space (thousandths of an em for most fonts)
	space bool    // single-byte code 32: word spacing applies
}

// decode splits s into character codes.
func (f *font) decode(s string, out []glyph) []glyph {
	for len(s) > 0 {
		// A simple font's codes are one byte, whatever its ToUnicode code
		// space says (Distiller writes <0000> <FFFF> for them).
		n := 1
		if f.cid {
			n = 2
			if f.toU != nil {
				if k := f.toU.codeLen(s); k > 0 {
					n = k
				}
			}
		}
		n = min(n, len(s))
		code := bytesCode(s[:n])
		var text string
		ok := false
		switch {
		case f.toU == ucs2:
			text, ok = string(rune(code)), true
		case f.toU != nil:
			if text, ok = f.toU.lookup(n, code); !ok && !f.cid {
				text, ok = f.toU.lookup(2, code)
			}
		}
		if !ok && f.simple != nil && n == 1 {
			text = f.simple[code]
		}
		w, has := f.widths[code]
		if !has {
			w = f.defWidth
		}
		out = append(out, glyph{text: text, width: w, space: n == 1 && code == ' '})
		s = s[n:]
	}
	return out
}

// ucs2 marks the identity map of ucs2Identity; lookups through it need no
// table.
var ucs2 = ucs2Identity()

// glyphRune reads the glyph names a CMap may map to: uniXXXX, uXXXX[XX]
// and single characters.
func glyphRune(name string) (rune, bool) {
	switch {
	case len(name) == 1:
		return rune(name[0]), true
	case len(name) == 7 && strings.HasPrefix(name, "uni"):
		if v, err := strconv.ParseUint(name[3:], 16, 32); err == nil {
			return rune(v), true
		}
	case len(name) >= 5 && len(name) <= 7 && name[0] == 'u':
		if v, err := strconv.ParseUint(name[1:], 16, 32); err == nil && v <= utf8.MaxRune {
			return rune(v), true
		}
	}
	return 0, false
}
