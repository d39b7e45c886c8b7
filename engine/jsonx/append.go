package jsonx

import (
	"unicode/utf8"
)

const hexDigits = "0123456789abcdef"

// AppendString appends s as a JSON string exactly as Marshal encodes it (and
// JSON.stringify prints it): quotes and backslashes escaped, control
// characters as \b \f \n \r \t or \u00xx, invalid UTF-8 as \ufffd, and
// everything else — < > &, U+2028, U+2029 included — raw. Hand-written
// encoders of bulk artifacts use it; TestAppendStringMatchesMarshal keeps it
// identical to Marshal.
func AppendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		// Eight bytes at a time while none needs attention: most of an
		// artifact's strings are URLs and paths, plain ASCII throughout.
		for i+8 <= len(s) && plain8(load8(s, i)) {
			i += 8
		}
		if i >= len(s) {
			break
		}
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i++
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// load8 reads s[i:i+8] as a little-endian word (the compiler merges the
// byte loads into one).
func load8(s string, i int) uint64 {
	_ = s[i+7]
	return uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
		uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
}

const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// hasZero reports whether some byte of w may be zero: it never misses one
// (a false alarm only follows a real zero byte, and only sends the word down
// the byte-by-byte path).
func hasZero(w uint64) bool { return (w-ones)&^w&highs != 0 }

// plain8 reports that none of the word's bytes is a control character, a
// quote, a backslash or part of a multi-byte sequence.
func plain8(w uint64) bool {
	return w&highs == 0 && // all ASCII
		(w-0x20*ones)&highs == 0 && // none below 0x20 (no borrow crosses bytes when all are ASCII ≥ 0x20)
		!hasZero(w^('"'*ones)) && !hasZero(w^('\\'*ones))
}
