package parse

import (
	"bytes"
	"strings"

	"github.com/yuin/goldmark/ast"
)

// titleSet is the set of section titles that open a Sources section:
// "Sources", and the caller's further titles (SourcesOptions.Titles).
type titleSet map[string]bool

// defaultTitles is the seed's rule: exactly "Sources".
var defaultTitles = newTitleSet(nil)

func newTitleSet(extra []string) titleSet {
	t := titleSet{"Sources": true}
	for _, s := range extra {
		if s = strings.TrimSpace(s); s != "" {
			t[s] = true
		}
	}
	return t
}

// heading reports whether a parsed heading names a Sources section: its
// rendered text, section number removed, is one of the titles.
func (t titleSet) heading(h *ast.Heading, src []byte) bool {
	return t.text(renderedTitle(h, src))
}

// text reports whether a heading's rendered text names a Sources section.
func (t titleSet) text(title string) bool {
	return t[stripSectionNumber(title)]
}

// mightName is a cheap first test on a heading's markdown: it can render as
// a title only if it has every byte of one, or a character reference that
// could make one.
func (t titleSet) mightName(h []byte) bool {
	if bytes.IndexByte(h, '&') >= 0 {
		return true
	}
	for title := range t {
		if hasEveryByte(h, title) {
			return true
		}
	}
	return false
}

func hasEveryByte(h []byte, title string) bool {
	for i := 0; i < len(title); i++ {
		if bytes.IndexByte(h, title[i]) < 0 {
			return false
		}
	}
	return true
}
