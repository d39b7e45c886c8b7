package pdftext

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// hostile are PDFs built to make a reader loop, recurse or allocate
// without bound. Each must come back with an error or text, never a
// panic, a hang or a fatal out-of-memory. They seed FuzzText too.
func hostile() map[string][]byte {
	type0 := func(cmap string) []byte {
		return onePage("<< /Type /Font /Subtype /Type0 /BaseFont /X /Encoding /Identity-H /ToUnicode 7 0 R /DescendantFonts [8 0 R] >>",
			[]byte("BT /F1 12 Tf 72 700 Td <00410042> Tj ET"),
			map[int]obj{
				7: {stream: []byte(cmap), flate: true},
				8: {body: "<< /Type /Font /Subtype /CIDFontType2 /BaseFont /X /W [0 [500 500]] >>"},
			})
	}
	return map[string][]byte{
		// The library's CMap reader loops this many times, appending.
		"cmap entry count of two billion":  type0("1 begincodespacerange <0000> <FFFF> endcodespacerange 2147483647 beginbfchar endbfchar"),
		"cmap range of four billion codes": type0("1 begincodespacerange <00000000> <FFFFFFFF> endcodespacerange 1 beginbfrange <00000000> <FFFFFFFF> <0041> endbfrange"),
		// A 400 GB cross-reference table, and a 1 TB predictor row.
		"xref stream /Size 10^10":        []byte("%PDF-1.5\n1 0 obj\n<< /Type /XRef /Size 10000000000 /W [1 2 1] /Length 0 >>\nstream\n\nendstream\nendobj\nstartxref\n9\n%%EOF\n"),
		"xref stream /W of 10^12":        []byte("%PDF-1.5\n1 0 obj\n<< /Type /XRef /Size 3 /W [1 1000000000000 1] /Length 0 >>\nstream\n\nendstream\nendobj\nstartxref\n9\n%%EOF\n"),
		"xref predictor /Columns 10^12":  []byte("%PDF-1.5\n1 0 obj\n<< /Type /XRef /Size 3 /W [1 2 1] /DecodeParms << /Predictor 12 /Columns 1000000000000 >> /Filter /FlateDecode /Length 0 >>\nstream\n\nendstream\nendobj\nstartxref\n9\n%%EOF\n"),
		"xref table subsection of 10^11": []byte("%PDF-1.4\nxref\n0 99999999999\n0000000000 65535 f \ntrailer\n<< /Size 3 >>\nstartxref\n9\n%%EOF\n"),
		"page tree whose Kids are itself": build(map[int]obj{
			1: {body: "<< /Type /Catalog /Pages 2 0 R >>"},
			2: {body: "<< /Type /Pages /Kids [2 0 R 2 0 R] /Count 2 >>"},
		}),
		"page whose Parent is itself": build(map[int]obj{
			1: {body: "<< /Type /Catalog /Pages 2 0 R >>"},
			2: {body: "<< /Type /Pages /Kids [3 0 R] /Count 1 >>"},
			3: {body: "<< /Type /Page /Parent 3 0 R /Contents 4 0 R >>"},
			4: {stream: []byte("BT /F1 12 Tf (x) Tj ET")},
		}),
		"form XObject that draws itself": onePage(helvetica, []byte("/X1 Do"),
			map[int]obj{6: {body: "/Type /XObject /Subtype /Form /BBox [0 0 1 1] /Resources << /XObject << /X1 6 0 R >> /Font << /F1 4 0 R >> >>",
				stream: []byte("BT /F1 12 Tf (loop) Tj ET /X1 Do"), flate: true}}),
		"content nested 100,000 arrays deep": onePage(helvetica, []byte("BT /F1 12 Tf "+strings.Repeat("[", 100000)+"(deep) Tj ET"), nil),
		// Inflates to 8 MB of operands and no operator.
		"flate bomb of operands":    onePage(helvetica, bytes.Repeat([]byte("1 "), 4<<20), nil),
		"unbalanced string and q/Q": onePage(helvetica, []byte("Q Q Q BT /F1 12 Tf (open ( string Tj ET q q"), nil),
		"huge Differences array": onePage("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding << /Differences [0 "+strings.Repeat("/a ", 20000)+"] >> >>",
			[]byte("BT /F1 12 Tf (abc) Tj ET"), nil),
		"NaN and huge matrices": onePage(helvetica, []byte("1e308 1e308 1e308 1e308 1e308 1e308 cm BT /F1 1e308 Tf 1e308 0 Td (big) Tj ET"), nil),
	}
}

// TestHostilePDFs: every hostile file returns (an error or some text).
// Without precheck the /Size, /W and /Columns files end the process with a
// fatal out-of-memory (no recover catches it); through the library's own
// CMap reader the two CMap files loop for billions of entries.
func TestHostilePDFs(t *testing.T) {
	for name, body := range hostile() {
		t.Run(name, func(t *testing.T) {
			text, err := Text(context.Background(), body, 0)
			if err != nil && !errors.Is(err, ErrNoText) && !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrTimeout) {
				t.Errorf("unexpected error %v", err)
			}
			t.Logf("%d bytes → %q, %v", len(body), clip(text), err)
		})
	}
}

// TestPrecheck: the numbers that size the library's allocations are
// refused before it reads them, and real files' numbers are not.
func TestPrecheck(t *testing.T) {
	for name, body := range hostile() {
		if strings.HasPrefix(name, "xref") {
			if err := precheck(body); err == nil {
				t.Errorf("%s: precheck passed", name)
			}
		}
	}
	for _, f := range []string{"hello.pdf", "multipage.pdf", "libreoffice-paper.pdf", "objstm-paper.pdf", "encrypted-aes256.pdf"} {
		if err := precheck(readTestdata(t, f)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	// A CIDFont's /W holds large widths; only a cross-reference stream's
	// /W is a field size.
	if err := precheck([]byte("<< /Type /Font /W [1 2 1000] >>")); err != nil {
		t.Errorf("CIDFont /W refused: %v", err)
	}
	if err := precheck([]byte(fmt.Sprintf("/N %d", maxObjectNum+1))); err == nil {
		t.Error("/N beyond the limit passed")
	}
}
