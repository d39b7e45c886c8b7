package classify

import (
	"net/http"
	"os"
	"path/filepath"
	"testing"
)

// FuzzClassify: no panic on arbitrary bodies, headers, types, URLs and
// citations; every verdict keeps the invariants (outcome in range, snippet
// ≤ 240 runes without '<', collapsed valid UTF-8 strings).
func FuzzClassify(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.*")
	types := []string{"text/html; charset=utf-8", "text/markdown", "application/pdf", "application/json", "text/plain", "", "application/rss+xml", "image/png"}
	for i, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, 200+(i%3)*201, "Cf-Mitigated", "challenge", types[i%len(types)], uint8(i), "EU battery recycling rates", articleURL, "", false)
	}
	f.Add([]byte("<title>Just a moment...</title>"), 200, "X-Datadome", "protected", "", uint8(2), "", "https://x.example/", "T", false)
	f.Add([]byte(`<script type="application/ld+json">{"publisher":{"@id":"#o"},"@graph":[{"@id":"#o","name":"N"}]}</script>`), 0, "", "", "text/html", uint8(1), "x", "", "", true)
	f.Add([]byte("%PDF-1.4 trailer << /Info 1 0 R >> 1 0 obj << /Title <FEFF00410042> >> endobj"), 200, "", "", "", uint8(0), "", "", "", false)
	f.Add([]byte("# 404\n\n![x](y) [a](b) <b>c</b> `d` https://e.example/?token=abc"), 200, "", "", "text/markdown", uint8(2), "", "https://e.example/", "", false)
	f.Add([]byte(`{"title":"x","a":[1,{"b":"`+string(make([]byte, 100))+`"}]}`), 200, "", "", "application/json", uint8(1), "", "", "", false)

	f.Fuzz(func(t *testing.T, body []byte, status int, hk, hv, ct string, tierN uint8, cite, final, title string, head bool) {
		h := http.Header{}
		if hk != "" {
			h[hk] = []string{hv}
		}
		p := Page{
			RequestedURL: articleURL,
			FinalURL:     final,
			Redirects:    []string{final, cite},
			StatusCode:   status,
			Header:       h,
			Body:         body,
			ContentType:  ct,
			Title:        title,
			HEAD:         head,
		}
		tier := []Tier{Basic, Standard, Thorough, "x"}[tierN%4]
		v := Classify(p, Citation{LinkText: cite, SourceLine: title + " " + cite}, tier)
		checkInvariants(t, v)
		if v.HTTPStatus != status {
			t.Errorf("HTTPStatus = %d, want %d", v.HTTPStatus, status)
		}
	})
}
