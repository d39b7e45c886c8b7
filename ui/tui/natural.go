package tui

import (
	"cmp"
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

// numberFirst compares a and b by value when they first differ inside a
// run of digits ("report-2" and "report-10" differ at 2 and 1), and is 0
// when they differ anywhere else or are equal, leaving the order to the
// caller.
func numberFirst(a, b string) int {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	for i > 0 && isDigit(a[i-1]) {
		i-- // back to the start of the number the difference is in
	}
	na, nb := digitRun(a, i), digitRun(b, i)
	if na == "" || nb == "" {
		return 0
	}
	na, nb = strings.TrimLeft(na, "0"), strings.TrimLeft(nb, "0")
	return cmp.Or(cmp.Compare(len(na), len(nb)), strings.Compare(na, nb))
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// digitRun is the run of digits of s starting at i ("" when none).
func digitRun(s string, i int) string {
	j := i
	for j < len(s) && isDigit(s[j]) {
		j++
	}
	return s[i:j]
}
