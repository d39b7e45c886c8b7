package parse

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestSourcesColumns pins each link's line and URL column on a wave file of
// tricky shapes (setext heading, nested lists, tabs, multi-byte characters
// before the URL), with LF and CRLF line ends; the expected values were
// counted by hand (testdata/locations/README.md).
func TestSourcesColumns(t *testing.T) {
	want := []struct {
		url  string
		line int
		col  Column
	}{
		{"https://a.example/one", 9, Column{32, 29, 29}},
		{"https://b.example/two", 10, Column{13, 13, 13}},
		{"https://c.example/three", 11, Column{16, 16, 16}},
		{"https://d.example/four", 12, Column{13, 13, 13}},
		{"https://e.example/five", 13, Column{22, 10, 10}},
		{"https://f.example/six", 14, Column{18, 15, 16}},
	}
	for _, name := range []string{"tricky.md", "tricky-crlf.md"} {
		src, err := os.ReadFile("../testdata/locations/wave-1/" + name)
		if err != nil {
			t.Fatal(err)
		}
		got, err := Sources(context.Background(), src)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Fatalf("%s: %d links, want %d: %+v", name, len(got), len(want), got)
		}
		for i, w := range want {
			if g := got[i]; g.URL != w.url || g.Line != w.line || g.Col != w.col {
				t.Errorf("%s: link %d = %s line %d col %+v, want %s line %d col %+v", name, i, g.URL, g.Line, g.Col, w.url, w.line, w.col)
			}
		}
	}
}

// TestColumnsManyOnOneLine checks the incremental count on a line of many
// links against a count from the line's start, and its restart on the next
// line.
func TestColumnsManyOnOneLine(t *testing.T) {
	var line strings.Builder
	var want []Column
	for k := range 50 {
		line.WriteString("é ")
		n := line.Len()
		want = append(want, Column{n + 1, utf8.RuneCountInString(line.String()) + 1, utf8.RuneCountInString(line.String()) + 1})
		fmt.Fprintf(&line, "https://x.example/a%d ", k)
	}
	want = append(want, Column{1, 1, 1})
	src := []byte("## Sources\n\n" + line.String() + "\nhttps://y.example/b\n")
	got, err := Sources(context.Background(), src)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("%d links, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i].Col != want[i] {
			t.Errorf("link %d (%s line %d) col %+v, want %+v", i, got[i].URL, got[i].Line, got[i].Col, want[i])
		}
	}
}

func TestLocate(t *testing.T) {
	src := []byte("a\r\nß [1] x\n\t😀[2]")
	for _, tc := range []struct {
		off  int
		line int
		col  Column
	}{
		{0, 1, Column{1, 1, 1}},
		{3, 2, Column{1, 1, 1}},
		{6, 2, Column{4, 3, 3}},  // "[1]" after "ß "
		{17, 3, Column{6, 3, 4}}, // "[2]" after a tab and an emoji
		{99, 3, Column{9, 6, 7}}, // past the end: the end
		{-1, 1, Column{1, 1, 1}},
	} {
		line, col := Locate(src, tc.off)
		if line != tc.line || col != tc.col {
			t.Errorf("Locate(%d) = %d %+v, want %d %+v", tc.off, line, col, tc.line, tc.col)
		}
	}
}

// TestColumnLongLinkText: the URL is looked for a bounded distance past the
// link's start; past it the link's start stands in for the URL's.
func TestColumnLongLinkText(t *testing.T) {
	for _, tc := range []struct {
		textLen int
		want    int
	}{{100, 100 + 6}, {maxURLSearch + 100, 3}} {
		src := []byte("## Sources\n\n- [" + strings.Repeat("w", tc.textLen) + "](https://long.example/)\n")
		got, err := Sources(context.Background(), src)
		if err != nil || len(got) != 1 {
			t.Fatalf("%v %+v", err, got)
		}
		if got[0].Col.Byte != tc.want {
			t.Errorf("text of %d bytes: col %d, want %d", tc.textLen, got[0].Col.Byte, tc.want)
		}
	}
}
