package parse

import (
	"bytes"
	"unicode/utf8"
)

// Column is where a link's URL starts in its line, 1-based, counted the three
// ways the reports that point at it need: UTF-8 bytes (Code Quality,
// editors), Unicode characters (GitHub's workflow commands) and UTF-16 code
// units (SARIF's default columnKind). A tab is one of each: no report format
// expands tabs.
type Column struct {
	Byte, Rune, UTF16 int
}

// columns counts a line's columns incrementally. Links come in document
// order, so a line holding thousands of URLs is counted once from its start,
// not once per URL.
type columns struct {
	lineStart int    // offset in src of the line being counted
	pos       int    // offset counted up to (>= lineStart)
	col       Column // the column of pos
}

// at returns the column of offset off, which lies on the line starting at
// lineStart.
func (c *columns) at(src []byte, lineStart, off int) Column {
	if lineStart != c.lineStart || off < c.pos || c.col.Byte == 0 {
		c.lineStart, c.pos, c.col = lineStart, lineStart, Column{1, 1, 1}
	}
	for c.pos < off {
		r, n := utf8.DecodeRune(src[c.pos:off])
		c.pos += n
		c.col.Byte += n
		c.col.Rune++
		c.col.UTF16++
		if r > 0xFFFF {
			c.col.UTF16++ // a surrogate pair
		}
	}
	return c.col
}

// urlOffset returns where the URL raw is written on the line [lineStart,
// lineEnd) at or after the link's offset pos: for [text](url) or a
// definition the destination, for <url> and bare URLs the URL itself. A
// reference link's URL is written elsewhere (its definition), and a
// destination written with escapes or entities is not found as parsed; the
// link's own offset stands for both. The search looks at most
// maxURLSearch bytes past pos (link text longer than that is pathological),
// so a line of thousands of links costs each link a bounded search, and
// compares without converting raw (a copy per link).
func urlOffset(src []byte, pos, lineEnd int, raw string) int {
	if pos < 0 || pos >= lineEnd || raw == "" {
		return pos
	}
	end := min(lineEnd, pos+maxURLSearch+len(raw))
	for i := pos; i+len(raw) <= end; i++ {
		j := bytes.IndexByte(src[i:end], raw[0])
		if j < 0 {
			break
		}
		i += j
		if i+len(raw) <= end && string(src[i:i+len(raw)]) == raw {
			return i
		}
	}
	return pos
}

// maxURLSearch bounds urlOffset's search.
const maxURLSearch = 4096

// Locate returns the 1-based line and the column of byte offset off in src,
// for a position known only by its offset (a claim marker in a verify
// output). An offset past the end is the end; one inside a UTF-8 sequence
// counts that character as begun.
func Locate(src []byte, off int) (line int, col Column) {
	off = min(max(off, 0), len(src))
	start := lineBegin(src, off)
	var c columns
	return bytes.Count(src[:start], []byte{'\n'}) + 1, c.at(src, start, off)
}
