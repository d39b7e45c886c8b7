// Cite: small text helpers shared by the Cite files.

package parse

import (
	"slices"

	"github.com/citegate/citegate/parse/textkit"
	"github.com/yuin/goldmark/text"
)

// segText is line i of lines as a string.
func segText(lines *text.Segments, i int, src []byte) string {
	seg := lines.At(i)
	return string(seg.Value(src))
}

// words splits s into lower-case, accent-folded words of letters and digits.
func words(s string) []string { return textkit.WordList(s) }

func isYearToken(t string) bool {
	if len(t) < 4 || len(t) > 5 {
		return false
	}
	for i := 0; i < 4; i++ {
		if t[i] < '0' || t[i] > '9' {
			return false
		}
	}
	y := (int(t[0]-'0')*10+int(t[1]-'0'))*100 + int(t[2]-'0')*10 + int(t[3]-'0')
	if y < 1500 || y > 2099 {
		return false
	}
	return len(t) == 4 || t[4] >= 'a' && t[4] <= 'z'
}

func hasPrefixFoldBytes(b []byte, prefix string) bool {
	if len(b) < len(prefix) {
		return false
	}
	for i := 0; i < len(prefix); i++ {
		c := b[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != prefix[i] {
			return false
		}
	}
	return true
}

func sortSpans(s []span) {
	slices.SortFunc(s, func(a, b span) int {
		if a.start != b.start {
			return a.start - b.start
		}
		return a.end - b.end
	})
}

// mergeSpans sorts and merges overlapping spans, dropping empty ones.
func mergeSpans(s []span) []span {
	s = slices.DeleteFunc(s, func(x span) bool { return x.end <= x.start })
	sortSpans(s)
	out := s[:0]
	for _, x := range s {
		if n := len(out); n > 0 && x.start <= out[n-1].end {
			out[n-1].end = max(out[n-1].end, x.end)
			continue
		}
		out = append(out, x)
	}
	return out
}
