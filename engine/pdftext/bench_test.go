package pdftext

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// largePDF is a 3–4 MB paper-like PDF: 600 pages of 45 lines of
// pseudo-random words, FlateDecode content, words set apart by kerning.
func largePDF() []byte {
	words := strings.Fields("heat pump winter coefficient performance trial seasonal district grid energy cost survey household defrost backup measured results temperature loggers network annual")
	objs := map[int]obj{1: {body: "<< /Type /Catalog /Pages 2 0 R >>"}, 3: {body: helvetica}}
	var kids strings.Builder
	x := uint32(1)
	for p := 0; p < 600; p++ {
		var c strings.Builder
		for l := 0; l < 45; l++ {
			fmt.Fprintf(&c, "BT /F1 10 Tf 72 %d Td [", 760-l*15)
			for w := 0; w < 11; w++ {
				x ^= x << 13
				x ^= x >> 17
				x ^= x << 5
				fmt.Fprintf(&c, "(%s%d)-250", words[x%uint32(len(words))], x%997)
			}
			c.WriteString("] TJ ET\n")
		}
		n := 4 + 2*p
		objs[n] = obj{body: fmt.Sprintf("<< /Type /Page /Parent 2 0 R /Contents %d 0 R >>", n+1)}
		objs[n+1] = obj{stream: []byte(c.String()), flate: true}
		fmt.Fprintf(&kids, "%d 0 R ", n)
	}
	objs[2] = obj{body: "<< /Type /Pages /Kids [" + kids.String() + "] /Count 600 /Resources << /Font << /F1 3 0 R >> >> >>"}
	return build(objs)
}

// BenchmarkTextLarge reads largePDF whole (maxRunes high enough).
func BenchmarkTextLarge(b *testing.B) {
	body := largePDF()
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Text(context.Background(), body, 8<<20); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTextPaper reads the LibreOffice paper (27 KB, 4 pages).
func BenchmarkTextPaper(b *testing.B) {
	body := readTestdata(b, "libreoffice-paper.pdf")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Text(context.Background(), body, 0); err != nil {
			b.Fatal(err)
		}
	}
}
