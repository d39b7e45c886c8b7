package netguard

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestScrubber(t *testing.T) {
	sc := NewScrubber([]string{"k3y-S3CRET", " ", ""}, []string{"news", "  "})
	for in, want := range map[string]string{
		"auth k3y-S3CRET ok":          "auth [REDACTED] ok",
		"xk3y-S3CRETx and k3y-S3CRET": "x[REDACTED]x and [REDACTED]", // secrets: everywhere
		"zone: news":                  "zone: [REDACTED]",
		"-zone-news- zone_news":       "-zone-[REDACTED]- zone_[REDACTED]", // names: whole words
		"newspaper news1 renews":      "newspaper news1 renews",
		"nothing to scrub":            "nothing to scrub",
		// After the secret goes, "news" stands alone before '[': a whole word.
		"news k3y-S3CRET newsk3y-S3CRET x": "[REDACTED] [REDACTED] [REDACTED][REDACTED] x",
	} {
		if got := sc.String(in); got != want {
			t.Errorf("String(%q) = %q, want %q", in, got, want)
		}
		if got := string(sc.Bytes([]byte(in))); got != want {
			t.Errorf("Bytes(%q) = %q, want %q", in, got, want)
		}
	}
	clean := []byte("clean body")
	if got := sc.Bytes(clean); &got[0] != &clean[0] {
		t.Error("Bytes copied a body with nothing to scrub")
	}
	if got := (Scrubber{}).String("k3y-S3CRET"); got != "k3y-S3CRET" {
		t.Errorf("zero Scrubber changed text: %q", got)
	}
}

func TestScrubberDetail(t *testing.T) {
	sc := NewScrubber([]string{"k3y-S3CRET"}, nil)
	// Scrubbing comes first: RedactText may re-encode a key=value pair, after
	// which the exact secret could no longer be found.
	if got := sc.Detail("bad\x00request\n\t  note k3y-S3CRET \xff", 240); got != "bad request note [REDACTED] \uFFFD" {
		t.Errorf("Detail = %q", got)
	}
	// URLs are redacted as everywhere else.
	if got := sc.Detail("see https://u:p@example.com/x?token=abc", 240); strings.Contains(got, "u:p") || strings.Contains(got, "abc") {
		t.Errorf("Detail kept credentials: %q", got)
	}
	// The secret is replaced before the cut: no prefix of it can survive.
	long := strings.Repeat("é", 10) + "k3y-S3CRET"
	for n := 1; n < len(long); n++ {
		got := sc.Detail(long, n)
		if strings.Contains(got, "k3y") || !utf8.ValidString(got) {
			t.Errorf("Detail(_, %d) = %q", n, got)
		}
	}
}
