package pdftext

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"unicode/utf8"
)

// FuzzText: whatever the bytes, Text returns text (valid UTF-8, within the
// rune cap) or one of its errors; it never panics, hangs or exhausts
// memory. Seeds: every testdata PDF and the hostile files.
//
//	go test ./engine/pdftext -run '^$' -fuzz FuzzText -fuzztime 5m
func FuzzText(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.pdf"))
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	for _, b := range hostile() {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		text, err := Text(context.Background(), body, 4096)
		if err != nil {
			if text != "" {
				t.Errorf("text %q with error %v", text, err)
			}
			if !errors.Is(err, ErrEncrypted) && !errors.Is(err, ErrNoText) && !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrTimeout) {
				t.Errorf("unexpected error %v", err)
			}
			return
		}
		if !utf8.ValidString(text) || utf8.RuneCountInString(text) > 4096+4096 {
			t.Errorf("bad text: %d runes, valid %v", utf8.RuneCountInString(text), utf8.ValidString(text))
		}
	})
}
