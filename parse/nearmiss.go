package parse

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
)

// Near misses: lists of sources that the Sources rule (exactly "Sources" as
// a heading's title) does not read, so that their URLs would be left out of
// Gate C without a word. An agent titles its list "**Sources:**" (a bold
// line, not a heading), "## References", "### Sources:" or "## Source"; the
// caller names each with its line and the fix.

// NearMiss is a title line that names a list of sources which the Sources
// rule did not read.
type NearMiss struct {
	// Line is the 1-based line of the title.
	Line int
	// Text is the title line as written, trimmed.
	Text string
	// Title is, for a heading, its title as the Sources rule compares it
	// (section number removed): adding it to SourcesOptions.Titles reads
	// the list. It is "" for a label line ("**Sources:**"), which no title
	// makes a section: it must become a heading.
	Title string
	// Label is, for a label line, its words without markup or colon
	// ("Sources" for "**Sources:**"), the title of the heading it should
	// be; "" for a heading.
	Label string
	// URLs counts the links under the title that the Sources rule would
	// read if the title opened a Sources section, and that it did not read.
	URLs int
}

// maxNearMisses bounds the titles examined in one file: a file with more
// candidate title lines than this is not a report with a source list.
const maxNearMisses = 64

// NearMisses finds the near misses of src: title lines that name a list of
// sources (the reference-list vocabulary of isRefTitle, and "Source" or
// "Reference" in the singular) but do not open a Sources section under opt,
// with links under them. read are the links SourcesWith(ctx, src, opt)
// returned. A title line is a heading (ATX or setext) or a label line (a
// line of its own that ends in a colon or is wrapped in emphasis, or a
// paragraph's only line); lines in fenced code are not titles.
//
// The links under a near miss are counted by parsing once more with each
// near miss made a Sources section (a heading's title added, a label line
// replaced by a level-6 "Sources" heading, which the next heading ends):
// the links that parse finds and the first did not belong to the nearest
// near miss above them. Only near misses with links are returned, in line
// order. A file without candidate lines costs one pass over its lines.
//
// A file the second parse finds beyond a limit (see limits), which the
// first did not, has no near misses: the count is a courtesy, and a wave
// file Sources reads must not become an error because of it. The error
// returned is ctx's.
func NearMisses(ctx context.Context, src []byte, opt SourcesOptions, read []Link) ([]NearMiss, error) {
	return nearMisses(ctx, src, opt, read, &defaultLimits)
}

func nearMisses(ctx context.Context, src []byte, opt SourcesOptions, read []Link, lim *limits) ([]NearMiss, error) {
	titles := newTitleSet(opt.Titles)
	cands := nearMissCandidates(src, titles)
	if len(cands) == 0 {
		return nil, nil
	}
	widened := append([]string(nil), opt.Titles...)
	lines := bytes.SplitAfter(src, []byte{'\n'})
	for _, c := range cands {
		if c.Title != "" {
			widened = append(widened, c.Title)
			continue
		}
		nl := ""
		if bytes.HasSuffix(lines[c.Line-1], []byte{'\n'}) {
			nl = "\n"
		}
		lines[c.Line-1] = []byte("###### Sources" + nl)
	}
	links, _, err := meteredSources(ctx, bytes.Join(lines, nil), newTitleSet(widened), lim)
	var limit *LimitError
	if errors.As(err, &limit) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	type key struct {
		line int
		url  string
	}
	had := make(map[key]bool, len(read))
	for _, l := range read {
		had[key{l.Line, l.URL}] = true
	}
	k := 0
	for _, l := range links {
		if had[key{l.Line, l.URL}] {
			continue
		}
		for k+1 < len(cands) && cands[k+1].Line <= l.Line {
			k++
		}
		if cands[k].Line <= l.Line {
			cands[k].URLs++
		}
	}
	out := cands[:0]
	for _, c := range cands {
		if c.URLs > 0 {
			out = append(out, c)
		}
	}
	return out, nil
}

// nearMissCandidates scans the lines of src for title lines that name a
// list of sources and that titles does not read.
func nearMissCandidates(src []byte, titles titleSet) []NearMiss {
	var out []NearMiss
	var fence []byte // the open code fence's marker, nil outside one
	prevBlank := true
	for n, rest := 1, src; len(rest) > 0 && len(out) < maxNearMisses; n++ {
		line := rest
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			line, rest = rest[:i], rest[i+1:]
		} else {
			rest = nil
		}
		t := bytes.TrimSpace(line)
		indent := len(line) - len(bytes.TrimLeft(line, " "))
		if m := fenceMarker(t); m != nil && indent < 4 {
			switch {
			case fence == nil:
				fence = m
			case m[0] == fence[0] && len(m) >= len(fence) && len(bytes.TrimLeft(t, string(m[0]))) == 0:
				fence = nil
			}
			prevBlank = false
			continue
		}
		blank := len(t) == 0
		if fence != nil || blank || indent >= 4 || len(t) > maxTitle {
			prevBlank = blank
			continue
		}
		next := firstLine(rest)
		if c, ok := nearMissLine(t, next, prevBlank, titles); ok {
			c.Line = n
			out = append(out, c)
		}
		prevBlank = false
	}
	return out
}

// nearMissLine decides one trimmed, non-blank line outside code: a heading
// (ATX, or setext when underlined) or a label line naming a list of sources
// that titles does not read.
func nearMissLine(t, next []byte, paragraphStart bool, titles titleSet) (NearMiss, bool) {
	if len(t) > 2*maxTitle {
		// Longer than any title with its markup: prose, not a list's name.
		return NearMiss{}, false
	}
	c := NearMiss{Text: string(t)}
	if text, ok := atxHeading(t); ok {
		return c, headingNearMiss(&c, text, titles)
	}
	if setextUnderline(next) && paragraphStart {
		return c, headingNearMiss(&c, string(t), titles)
	}
	if !labelMarked(t) && !(paragraphStart && entryish(next)) {
		return c, false
	}
	words := strings.TrimSpace(strings.Trim(stripEmphasis(string(t)), ":： "))
	// A list's name is a few words; a paragraph that leads into a list
	// ("The sources we used were these:") is prose, whatever it names.
	// A line holding a URL is an entry (a link reference definition, a
	// bare link), not a name.
	if words == "" || strings.Contains(words, "://") || len(strings.Fields(words)) > maxLabelWords || !namesSources(words) {
		return c, false
	}
	c.Label = stripSectionNumber(words)
	return c, true
}

// headingNearMiss fills in a heading's title, reporting whether it names a
// list of sources that titles does not read.
func headingNearMiss(c *NearMiss, text string, titles titleSet) bool {
	title := strings.TrimSpace(stripEmphasis(text))
	if title == "" || titles.text(title) || !namesSources(strings.TrimRight(title, ":： ")) {
		return false
	}
	c.Title = stripSectionNumber(title)
	return true
}

// namesSources reports whether a title names a list of sources, the
// singular included ("Source", "Reference"). Wave files repeat their
// headings ("## Findings", "## Summary") from file to file, and the
// vocabulary test is the costly part of the near-miss scan, so answers are
// remembered, for a bounded number of titles.
func namesSources(title string) bool {
	if v, ok := namedTitles.Load(title); ok {
		return v.(bool) //nolint:forcetypeassert // the map holds only bools
	}
	ok := isRefTitle(title) || isRefTitle(title+"s")
	if namedTitlesN.Add(1) <= maxNamedTitles {
		namedTitles.Store(title, ok)
	}
	return ok
}

// namedTitles remembers namesSources' answers (title → bool), at most
// maxNamedTitles of them: a hostile corpus of unique headings costs no
// more than it did.
var (
	namedTitles    sync.Map
	namedTitlesN   atomic.Int64
	maxNamedTitles int64 = 4096
)

// stripEmphasis removes the emphasis and code markers around words, as a
// heading renders: "**References**" → "References".
func stripEmphasis(s string) string {
	return strings.Trim(emphasis.Replace(s), "*_` \t")
}

var emphasis = strings.NewReplacer("**", "", "__", "")

// maxLabelWords is the most words a label line ("**Sources:**", "Works
// cited:") may have.
const maxLabelWords = 8

// atxHeading returns an ATX heading's text, closing sequence removed.
func atxHeading(t []byte) (string, bool) {
	level := 0
	for level < len(t) && t[level] == '#' {
		level++
	}
	if level == 0 || level > 6 || level < len(t) && t[level] != ' ' && t[level] != '\t' {
		return "", false
	}
	text := bytes.TrimSpace(t[level:])
	if trimmed := bytes.TrimRight(text, "#"); len(trimmed) == 0 || trimmed[len(trimmed)-1] == ' ' || trimmed[len(trimmed)-1] == '\t' {
		text = bytes.TrimSpace(trimmed)
	}
	return string(text), true
}

// fenceMarker returns the run of backticks or tildes that opens or closes
// a fenced code block, or nil.
func fenceMarker(t []byte) []byte {
	if len(t) < 3 || t[0] != '`' && t[0] != '~' {
		return nil
	}
	i := 0
	for i < len(t) && t[i] == t[0] {
		i++
	}
	if i < 3 {
		return nil
	}
	return t[:i]
}

// setextUnderline reports whether a line underlines the one before it as a
// setext heading.
func setextUnderline(line []byte) bool {
	t := bytes.TrimSpace(line)
	return len(t) > 0 && len(line)-len(bytes.TrimLeft(line, " ")) < 4 &&
		(len(bytes.Trim(t, "=")) == 0 || len(bytes.Trim(t, "-")) == 0)
}

// entryish reports whether the line after an unmarked title ("Sources"
// alone on a line) ends its paragraph or starts a list entry or a link, as
// a list's first entry does; a title word that starts a paragraph of prose
// is not a title.
func entryish(next []byte) bool {
	t := bytes.TrimSpace(next)
	if len(t) == 0 {
		return true
	}
	for _, p := range []string{"- ", "* ", "+ ", "[", "<http", "http://", "https://"} {
		if bytes.HasPrefix(t, []byte(p)) {
			return true
		}
	}
	return t[0] >= '0' && t[0] <= '9'
}

// firstLine is rest up to its first newline.
func firstLine(rest []byte) []byte {
	if i := bytes.IndexByte(rest, '\n'); i >= 0 {
		return rest[:i]
	}
	return rest
}
