// Command gen writes the hand-made test PDFs of engine/pdftext/testdata:
//
//	go run ./engine/pdftext/testdata/gen engine/pdftext/testdata
//
// Each file is written byte by byte here (no PDF library), so the tests
// exercise the reader on known structures: Courier with /Widths, words
// placed by TJ kerning and Td moves instead of space characters, a word
// hyphenated across lines, FlateDecode content, a nested page tree with
// inherited resources, a rotated page, a form XObject, an image-only page.
// The other files of testdata come from real producers; see README.md
// there.
package main

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

type writer struct {
	buf  bytes.Buffer
	offs map[int]int
}

func newWriter() *writer {
	w := &writer{offs: map[int]int{}}
	w.buf.WriteString("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
	return w
}

func (w *writer) obj(n int, body string) {
	w.offs[n] = w.buf.Len()
	fmt.Fprintf(&w.buf, "%d 0 obj\n%s\nendobj\n", n, body)
}

func (w *writer) stream(n int, dict string, data []byte, flate bool) {
	if flate {
		var z bytes.Buffer
		zw := zlib.NewWriter(&z)
		zw.Write(data)
		zw.Close()
		data = z.Bytes()
		dict += " /Filter /FlateDecode"
	}
	w.offs[n] = w.buf.Len()
	fmt.Fprintf(&w.buf, "%d 0 obj\n<< %s /Length %d >>\nstream\n", n, dict, len(data))
	w.buf.Write(data)
	w.buf.WriteString("\nendstream\nendobj\n")
}

func (w *writer) finish(root int) []byte {
	size := 0
	for n := range w.offs {
		size = max(size, n+1)
	}
	xref := w.buf.Len()
	fmt.Fprintf(&w.buf, "xref\n0 %d\n0000000000 65535 f \n", size)
	for n := 1; n < size; n++ {
		if off, ok := w.offs[n]; ok {
			fmt.Fprintf(&w.buf, "%010d 00000 n \n", off)
		} else {
			w.buf.WriteString("0000000000 65535 f \n")
		}
	}
	fmt.Fprintf(&w.buf, "trailer\n<< /Size %d /Root %d 0 R >>\nstartxref\n%d\n%%%%EOF\n", size, root, xref)
	return w.buf.Bytes()
}

// courier is a simple font with explicit widths: every glyph 600/1000 em.
const courier = "<< /Type /Font /Subtype /Type1 /BaseFont /Courier /Encoding /WinAnsiEncoding /FirstChar 32 /LastChar 126 /Widths [" +
	"600 600 600 600 600 600 600 600 600 600 600 600 600 600 600 600 600 600 600 600 600 600 600 600 600 600 600 600 600 600 600 600 " +
	"600 600 600 600 600 600 600 600 600 600 600 600 600 600 600 600 600 600 600 600 600 600 600 600 600 600 600 600 600 600 600 600 " +
	"600 600 600 600 600 600 600 600 600 600 600 600 600 600 600 600 600 600 600 600 600 600 600 600 600 600 600 600 600 600 600] >>"

func esc(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `(`, `\(`, `)`, `\)`)
	return r.Replace(s)
}

// kerned sets a line as one TJ whose words are separated by a pen move of
// one Courier space (600) instead of a space character, as TeX does.
func kerned(line string) string {
	var b strings.Builder
	b.WriteString("[")
	for i, word := range strings.Fields(line) {
		if i > 0 {
			b.WriteString(" -600 ")
		}
		fmt.Fprintf(&b, "(%s)", esc(word))
	}
	b.WriteString("] TJ\n")
	return b.String()
}

// placed sets each word of a line with its own Td move (11 pt Courier:
// 6.6 pt per glyph), as browsers' print-to-PDF does.
func placed(line string) string {
	var b strings.Builder
	for i, word := range strings.Fields(line) {
		if i > 0 {
			fmt.Fprintf(&b, "%.1f 0 Td\n", 6.6*float64(len(strings.Fields(line)[i-1])+1))
		}
		fmt.Fprintf(&b, "(%s) Tj\n", esc(word))
	}
	return b.String()
}

// page writes a text block: lines alternately kerned and placed, each
// line in its own BT so Td starts at the left margin.
func page(lines []string) []byte {
	var b strings.Builder
	y := 740.0
	for i, l := range lines {
		fmt.Fprintf(&b, "BT /F1 11 Tf 72 %.1f Td\n", y)
		if i%2 == 0 {
			b.WriteString(kerned(l))
		} else {
			b.WriteString(placed(l))
		}
		b.WriteString("ET\n")
		y -= 14
	}
	return []byte(b.String())
}

func wrap(text string, width int) []string {
	var lines []string
	cur := ""
	for _, w := range strings.Fields(text) {
		if cur != "" && len(cur)+1+len(w) > width {
			lines = append(lines, cur)
			cur = w
			continue
		}
		if cur != "" {
			cur += " "
		}
		cur += w
	}
	return append(lines, cur)
}

const filler1 = "The town of Hamar lies on the eastern shore of Lake Mjosa. Its cathedral ruins date from the twelfth century and are now covered by a glass shelter. The railway reached the town in 1862 and brought timber merchants from the coast."
const filler2 = "The municipal archive keeps the minutes of every council meeting since 1849. Visitors may read them on weekdays between nine and three. A small cafe in the old granary serves waffles with brown cheese."
const page3 = "Results of the field trial. In the Oslo trial the heat pumps kept a seasonal coefficient of performance of 2.7 through the winter of 2024. The coldest week brought minus 19 degrees and the pumps never switched to their electric backup heaters."

func hello() []byte {
	w := newWriter()
	w.obj(1, "<< /Type /Catalog /Pages 2 0 R >>")
	w.obj(2, "<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
	w.obj(3, "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>")
	w.obj(4, courier)
	content := "BT /F1 11 Tf 72 740 Td (Citegate reads PDF files: this sentence is known.) Tj ET\n" +
		"BT /F1 11 Tf 72 726 Td " + kerned("Words set apart by kerning, not spaces.") + "ET\n" +
		"BT /F1 11 Tf 72 712 Td " + placed("Words placed one by one with moves.") + "ET\n" +
		"BT /F1 11 Tf 72 698 Td (A claim is sup-) Tj ET\n" +
		"BT /F1 11 Tf 72 684 Td (ported by its source.) Tj ET\n" +
		"BT /F1 11 Tf 72 670 Td (E = mc) Tj 2 Ts (2) Tj 0 Ts ( holds.) Tj ET\n"
	w.stream(5, "", []byte(content), false)
	return w.finish(1)
}

// multipage has three pages under a nested page tree whose root holds the
// font (inherited), FlateDecode content, a rotated third page and a form
// XObject on the second page.
func multipage() []byte {
	w := newWriter()
	w.obj(1, "<< /Type /Catalog /Pages 2 0 R >>")
	w.obj(2, "<< /Type /Pages /Kids [3 0 R 10 0 R] /Count 3 /Resources << /Font << /F1 4 0 R >> >> /MediaBox [0 0 612 792] >>")
	w.obj(3, "<< /Type /Pages /Parent 2 0 R /Kids [5 0 R 6 0 R] /Count 2 >>")
	w.obj(4, courier)
	w.obj(5, "<< /Type /Page /Parent 3 0 R /Contents 7 0 R >>")
	w.obj(6, "<< /Type /Page /Parent 3 0 R /Contents 8 0 R /Resources << /Font << /F1 4 0 R >> /XObject << /Fx 9 0 R >> >> >>")
	w.stream(7, "", page(wrap(filler1, 60)), true)
	w.stream(8, "", []byte("q 1 0 0 1 0 0 cm /Fx Do Q\n"), true)
	w.stream(9, "/Type /XObject /Subtype /Form /BBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >>", page(wrap(filler2, 60)), true)
	// Page 3 is drawn rotated a quarter turn (landscape text on a portrait
	// page), as booklets and wide tables are.
	w.obj(10, "<< /Type /Page /Parent 2 0 R /Contents 11 0 R >>")
	w.stream(11, "", append([]byte("q 0 1 -1 0 792 0 cm\n"), append(page(wrap(page3, 60)), "Q\n"...)...), true)
	return w.finish(1)
}

// imageOnly is a scanned page: one image, no text.
func imageOnly() []byte {
	w := newWriter()
	w.obj(1, "<< /Type /Catalog /Pages 2 0 R >>")
	w.obj(2, "<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
	w.obj(3, "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /XObject << /Im1 4 0 R >> >> /Contents 5 0 R >>")
	img := bytes.Repeat([]byte{0x80, 0x40, 0xc0, 0x20}, 16*16/4)
	w.stream(4, "/Type /XObject /Subtype /Image /Width 16 /Height 16 /ColorSpace /DeviceGray /BitsPerComponent 8", img, true)
	w.stream(5, "", []byte("q 500 0 0 700 56 46 cm /Im1 Do Q\n"), true)
	return w.finish(1)
}

// garbage has a PDF header and nothing a reader can use.
func garbage() []byte {
	b := []byte("%PDF-1.7\n")
	x := uint32(2463534242)
	for len(b) < 4096 {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		b = append(b, byte(x))
	}
	return b
}

func main() {
	dir := "."
	if len(os.Args) > 1 {
		dir = os.Args[1]
	}
	for name, data := range map[string][]byte{
		"hello.pdf":      hello(),
		"multipage.pdf":  multipage(),
		"image-only.pdf": imageOnly(),
		"garbage.pdf":    garbage(),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
}
