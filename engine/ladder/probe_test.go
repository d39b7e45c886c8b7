package ladder

import (
	"strings"
	"testing"

	"github.com/citegate/citegate/engine/classify"
)

func TestProbeURL(t *testing.T) {
	for cited, wantPrefix := range map[string]string{
		"https://news.example/world/2025/story.html?utm=1#top": "https://news.example/world/2025/" + classify.ProbeName,
		"https://news.example/a":                               "https://news.example/" + classify.ProbeName,
		"http://x.example:8080/docs/guide/":                    "http://x.example:8080/docs/guide/" + classify.ProbeName,
	} {
		got, ok := probeURL(cited)
		if !ok || !strings.HasPrefix(got, wantPrefix) {
			t.Errorf("probeURL(%s) = %s, want prefix %s", cited, got, wantPrefix)
		}
		if strings.Contains(got, "?") || strings.Contains(got, "#") {
			t.Errorf("probeURL(%s) = %s keeps the query or fragment", cited, got)
		}
	}
	if got, _ := probeURL("https://news.example/world/story.html"); !strings.HasSuffix(got, ".html") {
		t.Errorf("probe does not keep the extension: %s", got)
	}
	a, _ := probeURL("https://news.example/a/b")
	b, _ := probeURL("https://news.example/a/b")
	if a == b {
		t.Error("two probe URLs are equal: the name must be random")
	}
}
