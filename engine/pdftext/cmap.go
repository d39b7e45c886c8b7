package pdftext

import (
	"io"
	"unicode/utf16"
)

// A ToUnicode CMap maps a font's character codes to text. We parse it
// ourselves rather than through the library's Font.Encoder: its CMap reader
// trusts the entry count written before each block (a hostile count makes it
// loop or allocate without bound) and looks codes up by linear search; this
// one ignores the counts, caps the entries and looks codes up in a map.

const (
	maxCMapBytes   = 4 << 20 // a CJK ToUnicode CMap is a few hundred KB
	maxCMapEntries = 1 << 18
	maxRangeLen    = 1 << 16
)

type codeRange struct{ lo, hi uint32 }

type cmap struct {
	space   [5][]codeRange // by code length in bytes, 1..4
	m       map[uint64]string
	entries int
}

func codeKey(n int, code uint32) uint64 { return uint64(n)<<32 | uint64(code) }

func bytesCode(b string) uint32 {
	var c uint32
	for i := 0; i < len(b); i++ {
		c = c<<8 | uint32(b[i])
	}
	return c
}

// parseCMap reads a ToUnicode CMap. It returns nil when the stream maps
// nothing.
func parseCMap(r io.Reader, check func()) *cmap {
	m := &cmap{m: map[uint64]string{}}
	lx := newLexer(io.LimitReader(r, maxCMapBytes), check)
	lx.interpret(func(op string, args []operand) {
		switch op {
		case "endcodespacerange":
			for i := 0; i+1 < len(args); i += 2 {
				lo, hi := args[i], args[i+1]
				n := len(lo.str)
				if lo.kind != tkString || hi.kind != tkString || n < 1 || n > 4 || len(hi.str) != n {
					continue
				}
				m.space[n] = append(m.space[n], codeRange{bytesCode(lo.str), bytesCode(hi.str)})
			}
		case "endbfchar":
			for i := 0; i+1 < len(args); i += 2 {
				src, dst := args[i], args[i+1]
				n := len(src.str)
				if src.kind != tkString || n < 1 || n > 4 {
					continue
				}
				m.add(n, bytesCode(src.str), dstText(dst))
			}
		case "endbfrange", "endcidrange":
			for i := 0; i+2 < len(args); i += 3 {
				lo, hi, dst := args[i], args[i+1], args[i+2]
				n := len(lo.str)
				if lo.kind != tkString || hi.kind != tkString || n < 1 || n > 4 || len(hi.str) != n {
					continue
				}
				a, b := bytesCode(lo.str), bytesCode(hi.str)
				if b < a || b-a >= maxRangeLen {
					continue
				}
				for c := a; ; c++ {
					off := int(c - a)
					switch {
					case op == "endcidrange":
						// A CID range maps to glyph ids, not text.
					case dst.kind == tkArrayOpen:
						if off < len(dst.arr) {
							m.add(n, c, dstText(dst.arr[off]))
						}
					case dst.kind == tkString:
						m.add(n, c, offsetText(dst.str, off))
					}
					if c == b || m.entries >= maxCMapEntries {
						break
					}
				}
			}
		}
	})
	if len(m.m) == 0 {
		return nil
	}
	return m
}

func (m *cmap) add(n int, code uint32, text string) {
	if m.entries >= maxCMapEntries {
		return
	}
	m.entries++
	m.m[codeKey(n, code)] = text
}

// dstText decodes a bfchar destination: UTF-16BE, or a glyph name.
func dstText(v operand) string {
	switch v.kind {
	case tkString:
		return utf16BE(v.str)
	case tkName:
		if r, ok := glyphRune(v.str); ok {
			return string(r)
		}
	default:
		// A destination is a string or a glyph name; anything else maps
		// the code to no text.
	}
	return ""
}

// offsetText is a bfrange destination for the code off places past the
// range's start: the last UTF-16 unit incremented by off.
func offsetText(s string, off int) string {
	if len(s) < 2 || len(s)%2 != 0 {
		return utf16BE(s)
	}
	b := []byte(s)
	last := int(b[len(b)-2])<<8 | int(b[len(b)-1])
	last += off
	b[len(b)-2], b[len(b)-1] = byte(last>>8), byte(last)
	return utf16BE(string(b))
}

func utf16BE(s string) string {
	if len(s) == 1 {
		return string(rune(s[0]))
	}
	u := make([]uint16, 0, len(s)/2)
	for i := 0; i+1 < len(s); i += 2 {
		u = append(u, uint16(s[i])<<8|uint16(s[i+1]))
	}
	return string(utf16.Decode(u))
}

// codeLen is the length of the code at the start of s according to the
// CMap's code space, or 0 when no range matches.
func (m *cmap) codeLen(s string) int {
	for n := 1; n <= 4 && n <= len(s); n++ {
		c := bytesCode(s[:n])
		for _, r := range m.space[n] {
			if c >= r.lo && c <= r.hi {
				return n
			}
		}
	}
	return 0
}

func (m *cmap) lookup(n int, code uint32) (string, bool) {
	t, ok := m.m[codeKey(n, code)]
	return t, ok
}
