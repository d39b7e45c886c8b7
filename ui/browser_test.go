package ui

import (
	"slices"
	"testing"
)

// TestOpenBrowser: only http and https reach the opener; $BROWSER is used
// (first entry, %s replaced) before xdg-open. The opener is injected: no
// test launches a browser.
func TestOpenBrowser(t *testing.T) {
	for _, c := range []struct {
		url, browser string
		want         []string // nil: refused
	}{
		{"https://example.org/a", "", []string{"xdg-open", "https://example.org/a"}},
		{"http://example.org/a", "firefox", []string{"firefox", "http://example.org/a"}},
		{"https://example.org/a", "w3m -o x=1 %s:lynx", []string{"w3m", "-o", "x=1", "https://example.org/a"}},
		{"file:///etc/passwd", "", nil},
		{"javascript:alert(1)", "", nil},
		{"ftp://example.org/", "", nil},
		{"https:///nohost", "", nil},
	} {
		var got []string
		err := openBrowser(c.url, func(k string) string {
			if k == "BROWSER" {
				return c.browser
			}
			return ""
		}, func(name string, args ...string) error {
			got = append([]string{name}, args...)
			return nil
		})
		if c.want == nil {
			if err == nil || got != nil {
				t.Errorf("%s: opened %v", c.url, got)
			}
			continue
		}
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("%s with BROWSER=%q: ran %v (%v), want %v", c.url, c.browser, got, err, c.want)
		}
	}
}
