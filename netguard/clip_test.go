package netguard

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestClip(t *testing.T) {
	for _, tc := range []struct {
		s    string
		max  int
		want string
	}{
		{"short", 10, "short"},
		{"exactly10!", 10, "exactly10!"},
		{"eleven char", 10, "eleven cha…"},
		{"héllo", 2, "h…"}, // é is two bytes: never cut inside it
		{"日本語", 4, "日…"},
		{"abc", 0, "…"},
		{"abc", -1, "…"},
	} {
		if got := Clip(tc.s, tc.max); got != tc.want {
			t.Errorf("Clip(%q, %d) = %q, want %q", tc.s, tc.max, got, tc.want)
		}
	}
	long := strings.Repeat("é", 100_000)
	if got := Clip(long, 512); len(got) > 512+len("…") || !utf8.ValidString(got) {
		t.Errorf("Clip of 200 KB: %d bytes, valid UTF-8 %v", len(got), utf8.ValidString(got))
	}
}
