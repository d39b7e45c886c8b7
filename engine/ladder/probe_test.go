package ladder

import (
	"regexp"
	"strings"
	"testing"
)

// hexName hides a probe's random name so the shapes can be compared.
var hexName = regexp.MustCompile(`citegate-probe-[0-9a-f]{16}`)

func TestProbeURLs(t *testing.T) {
	for _, tc := range []struct {
		cited string
		want  []string
	}{
		{"https://news.example/world/2025/story.html?utm=1#top", []string{
			"https://news.example/world/2025/P.html", "https://news.example/world/P"}},
		{"https://news.example/a", []string{"https://news.example/P"}},
		{"http://x.example:8080/docs/guide/", []string{"http://x.example:8080/docs/guide/P", "http://x.example:8080/docs/P"}},
		// Ids in the directory: the control cuts the path before the first
		// segment holding a digit, then the parent directory.
		{"https://q.example/questions/4812/how-to-x", []string{
			"https://q.example/questions/4812/P", "https://q.example/questions/P"}},
		{"https://r.example/r/golang/comments/1abc2d/some_title/", []string{
			"https://r.example/r/golang/comments/1abc2d/some_title/P", "https://r.example/r/golang/comments/P",
			"https://r.example/r/golang/comments/1abc2d/P"}},
		{"https://shop.example/dp/B08N5WRWNW/ref=sr_1_1", []string{
			"https://shop.example/dp/B08N5WRWNW/P", "https://shop.example/dp/P"}},
		{"https://ok.example/ok/first-article", []string{"https://ok.example/ok/P", "https://ok.example/P"}},
		// A page found by its query: the values replaced first.
		{"https://v.example/watch?v=dQw4w9WgXcQ&utm_source=x", []string{"https://v.example/watch?v=P", "https://v.example/P"}},
		{"https://b.example/blog/index.php?p=123", []string{"https://b.example/blog/index.php?p=P", "https://b.example/blog/P.php", "https://b.example/P"}},
		{"https://n.example/news/story?utm_source=feed", []string{"https://n.example/news/P", "https://n.example/P"}},
	} {
		var got []string
		for _, pt := range probeURLs(tc.cited) {
			u := pt.url
			got = append(got, hexName.ReplaceAllString(u, "P"))
			if strings.Contains(u, "#") || strings.Contains(u, "utm_") || strings.Contains(u, "?") && !strings.Contains(tc.cited, "?v=") && !strings.Contains(tc.cited, "?p=") {
				t.Errorf("probeURLs(%s): %s keeps the query or fragment", tc.cited, u)
			}
		}
		if strings.Join(got, " ") != strings.Join(tc.want, " ") {
			t.Errorf("probeURLs(%s)\n got %v\nwant %v", tc.cited, got, tc.want)
		}
	}
	a, b := probeURLs("https://news.example/a/b"), probeURLs("https://news.example/a/b")
	if a[0].url == b[0].url {
		t.Error("two probe URLs are equal: the name must be random")
	}
}

func TestProbeShape(t *testing.T) {
	for cited, want := range map[string]string{
		"https://Q.example/questions/1/a":   "q.example/questions/",
		"https://q.example/users/1/bob":     "q.example/users/",
		"https://n.example/2024/05/story":   "n.example/####/",
		"https://n.example/2025/01/other":   "n.example/####/",
		"https://n.example/story-at-root":   "n.example/",
		"https://n.example/section/":        "n.example/",
		"https://n.example/section/a/b/c/d": "n.example/section/",
		"https://v.example/watch?v=abc1":    "v.example/watch?",
		"https://v.example/watch?utm_x=1":   "v.example/",
	} {
		if got := probeShape(cited); got != want {
			t.Errorf("probeShape(%s) = %s, want %s", cited, got, want)
		}
	}
}

// TestProbeLabelIsTheShapes: a note names the probes by their shape, so
// two citations of one shape carry the same words whichever of them built
// the probes (the URL sent depends on which is checked first).
func TestProbeLabelIsTheShapes(t *testing.T) {
	for _, tt := range []struct{ a, b, want string }{
		{"http://h.example/reviews/2026/best", "http://h.example/reviews/top-10", "http://h.example/reviews/citegate-probe-…"},
		{"https://h.example/2024/05/x", "https://h.example/2025/01/y", "https://h.example/####/citegate-probe-…"},
		{"https://h.example/watch?v=abc123", "https://h.example/watch?v=zz9", "https://h.example/watch?…=citegate-probe-…"},
	} {
		if got, other := probeLabel(tt.a), probeLabel(tt.b); got != tt.want || other != tt.want {
			t.Errorf("probeLabel(%q) = %q, probeLabel(%q) = %q, want both %q", tt.a, got, tt.b, other, tt.want)
		}
	}
}
