package pdftext

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestText reads the testdata PDFs: hand-made ones with words set apart by
// kerning or pen moves instead of spaces, a hyphenated line break, a
// nested page tree with inherited fonts, a form XObject and a rotated page
// (gen/main.go), and LibreOffice output as written, with object streams,
// and encrypted with an empty user password (README.md).
func TestText(t *testing.T) {
	tests := []struct {
		file  string
		want  []string
		pages int // newline-separated pages, 0 = not checked
	}{
		{"hello.pdf", []string{
			"Citegate reads PDF files: this sentence is known.",
			"Words set apart by kerning, not spaces.",
			"Words placed one by one with moves.",
			"A claim is supported by its source.",
		}, 1},
		{"multipage.pdf", []string{
			"The town of Hamar lies on the eastern shore of Lake Mjosa.",
			"Visitors may read them on weekdays between nine and three.",
			"In the Oslo trial the heat pumps kept a seasonal coefficient of performance of 2.7 through the winter of 2024.",
		}, 3},
		{"libreoffice-paper.pdf", []string{
			"Cold-climate heat pumps in Nordic homes: a three-season field study",
			"Тепловые насосы в полевом испытании",
			"Αντλίες θερμότητας σε δοκιμή πεδίου",
			"In the Oslo trial the heat pumps kept a seasonal coefficient of performance of 2.7 through the winter of 2024,",
		}, 4},
		{"objstm-paper.pdf", []string{"In the Oslo trial the heat pumps kept a seasonal coefficient of performance of 2.7"}, 4},
		{"encrypted-rc4-no-user-password.pdf", []string{"In the Oslo trial the heat pumps kept a seasonal coefficient of performance of 2.7"}, 4},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			text, err := Text(context.Background(), readTestdata(t, tt.file), 0)
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tt.want {
				if !strings.Contains(text, w) {
					t.Errorf("text lacks %q:\n%s", w, text)
				}
			}
			if n := strings.Count(text, "\n") + 1; tt.pages > 0 && n != tt.pages {
				t.Errorf("%d pages of text, want %d", n, tt.pages)
			}
			if !utf8.ValidString(text) || strings.Contains(text, "  ") {
				t.Errorf("text is not clean UTF-8 with single spaces: %q", text)
			}
		})
	}
}

// TestTextErrors: what cannot be read says why, never panics.
func TestTextErrors(t *testing.T) {
	paper := readTestdata(t, "libreoffice-paper.pdf")
	tests := []struct {
		name string
		body []byte
		want error
	}{
		{"password-protected (AES-256)", readTestdata(t, "encrypted-aes256.pdf"), ErrEncrypted},
		{"image only", readTestdata(t, "image-only.pdf"), ErrNoText},
		{"garbage after a %PDF- header", readTestdata(t, "garbage.pdf"), ErrMalformed},
		{"an HTML error page served as PDF", []byte("<!doctype html><title>404</title>Not found"), ErrMalformed},
		{"empty", nil, ErrMalformed},
		{"header only", []byte("%PDF-1.7\n%%EOF\n"), ErrMalformed},
		// LibreOffice writes page descriptions and fonts last: cut
		// before them, nothing can be placed on a page.
		{"cut before the page descriptions", paper[:len(paper)/3], ErrMalformed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text, err := Text(context.Background(), tt.body, 0)
			if !errors.Is(err, tt.want) || text != "" {
				t.Errorf("Text = %q, %v; want %v", text, err, tt.want)
			}
		})
	}
}

// TestTextTruncated: a PDF cut at the body cap (inside page 3's content
// stream, the cross-reference table and trailer lost) still gives pages 1
// and 2.
func TestTextTruncated(t *testing.T) {
	full := readTestdata(t, "multipage.pdf")
	cut := bytes.Index(full, []byte("11 0 obj")) + 60
	text, err := Text(context.Background(), full[:cut], 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"Lake Mjosa", "brown cheese."} {
		if !strings.Contains(text, w) {
			t.Errorf("text lacks %q: %q", w, text)
		}
	}
	if strings.Contains(text, "coefficient of performance") {
		t.Errorf("page 3 was cut, yet read: %q", text)
	}
}

func TestTextMaxRunes(t *testing.T) {
	text, err := Text(context.Background(), readTestdata(t, "libreoffice-paper.pdf"), 100)
	if err != nil {
		t.Fatal(err)
	}
	if n := utf8.RuneCountInString(text); n == 0 || n > 100 {
		t.Errorf("%d runes, want 1..100", n)
	}
}

// TestTextCancelled: a done context stops the reading at its first read
// of the file.
func TestTextCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Text(ctx, readTestdata(t, "libreoffice-paper.pdf"), 0); !errors.Is(err, ErrTimeout) {
		t.Errorf("err = %v, want ErrTimeout", err)
	}
}

func TestIs(t *testing.T) {
	pdf := []byte("%PDF-1.7\n...")
	tests := []struct {
		ct   string
		body []byte
		want bool
	}{
		{"application/pdf", nil, true},
		{"Application/PDF; charset=binary", nil, true},
		{"application/x-pdf", nil, true},
		{"application/octet-stream", pdf, true},
		{"", append([]byte("\xef\xbb\xbf \n"), pdf...), true},
		{"text/plain", pdf, true},
		{"text/html", []byte("<html>"), false},
		{"image/png", pdf, false},
		{"application/octet-stream", []byte("PK\x03\x04"), false},
	}
	for _, tt := range tests {
		if got := Is(tt.ct, tt.body); got != tt.want {
			t.Errorf("Is(%q, %q) = %v, want %v", tt.ct, tt.body, got, tt.want)
		}
	}
}
