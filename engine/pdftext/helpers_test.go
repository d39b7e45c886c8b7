package pdftext

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// obj is one object of a PDF built by build: a dictionary or other value,
// or a stream when stream is set.
type obj struct {
	body   string
	stream []byte
	flate  bool
}

// build writes a PDF with a classic cross-reference table; object 1 is
// the catalog.
func build(objs map[int]obj) []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n")
	size := 0
	for n := range objs {
		size = max(size, n+1)
	}
	offs := make([]int, size)
	for n := 1; n < size; n++ {
		o, ok := objs[n]
		if !ok {
			continue
		}
		offs[n] = b.Len()
		if o.stream == nil {
			fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", n, o.body)
			continue
		}
		data, dict := o.stream, o.body
		if o.flate {
			var z bytes.Buffer
			zw := zlib.NewWriter(&z)
			_, _ = zw.Write(data)
			_ = zw.Close()
			data = z.Bytes()
			dict += " /Filter /FlateDecode"
		}
		fmt.Fprintf(&b, "%d 0 obj\n<< %s /Length %d >>\nstream\n", n, dict, len(data))
		b.Write(data)
		b.WriteString("\nendstream\nendobj\n")
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", size)
	for n := 1; n < size; n++ {
		if offs[n] == 0 {
			b.WriteString("0000000000 65535 f \n")
		} else {
			fmt.Fprintf(&b, "%010d 00000 n \n", offs[n])
		}
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", size, xref)
	return b.Bytes()
}

// onePage is a one-page PDF showing content with font F1 (font, object 4).
func onePage(font string, content []byte, extra map[int]obj) []byte {
	objs := map[int]obj{
		1: {body: "<< /Type /Catalog /Pages 2 0 R >>"},
		2: {body: "<< /Type /Pages /Kids [3 0 R] /Count 1 >>"},
		3: {body: "<< /Type /Page /Parent 2 0 R /Resources << /Font << /F1 4 0 R >> /XObject << /X1 6 0 R >> >> /Contents 5 0 R >>"},
		4: {body: font},
		5: {stream: content, flate: true},
	}
	for n, o := range extra {
		objs[n] = o
	}
	return build(objs)
}

const helvetica = "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"
