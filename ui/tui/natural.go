package tui

import (
	"strings"
)

// natKey is a sort key that orders text naturally when compared byte by
// byte: each run of digits is written as its length and then its digits
// (leading zeros dropped), so "report 2" sorts before "report 10" the way a
// person reads them, not the way a dictionary does ("1, 10, 11, 2").
// Letters are lower-cased so "Field" and "field" sort together. Keys are
// computed once per row; sorting then compares plain strings.
func natKey(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); {
		c := s[i]
		if c < '0' || c > '9' {
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			b.WriteByte(c)
			i++
			continue
		}
		j := i
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		digits := strings.TrimLeft(s[i:j], "0")
		if digits == "" {
			digits = "0"
		}
		// '0' keeps a number where a digit sorts among other bytes; the
		// two length bytes make a longer number the larger one.
		n := len(digits)
		b.WriteByte('0')
		b.WriteByte(byte(n >> 8))
		b.WriteByte(byte(n))
		b.WriteString(digits)
		i = j
	}
	return b.String()
}

// urlPath is what follows the host in u: the path, query and fragment, or
// "/" when there is nothing. It is what tells two rows of one host apart.
func urlPath(u string) string {
	rest := u
	if i := strings.Index(rest, "://"); i >= 0 {
		rest = rest[i+3:]
	}
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		return rest[i:]
	}
	return "/"
}
