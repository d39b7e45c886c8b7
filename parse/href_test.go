package parse

import "testing"

// TestHref: the expected values are what Node 20's new URL(s).toString()
// printed for each input (the reference's serialization); "" is a throw.
func TestHref(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"https://Example.COM/open", "https://example.com/open"},
		{"HTTPS://EXAMPLE.com:443/a/../open", "https://example.com/open"},
		{"http://Example.com:80", "http://example.com/"},
		{"https://bücher.de/straße?q=a b#Frag", "https://xn--bcher-kva.de/stra%C3%9Fe?q=a%20b#Frag"},
		{"ftp://FTP.Example.COM/x", "ftp://ftp.example.com/x"},
		{"mailto:Someone@Example.COM", "mailto:Someone@Example.COM"},
		{"https://user:pw@Example.com/p", "https://user:pw@example.com/p"},
		{"HTTP://[::1]:8080/x", "http://[::1]:8080/x"},
		{"https://example.com/a?x=%ZZ&b=c d", "https://example.com/a?x=%ZZ&b=c%20d"},
		{"https://example.com/open", "https://example.com/open"},
		{"not a url", ""},
		{"https://exa mple.com", ""},
	} {
		got, ok := Href(tc.in)
		if ok != (tc.want != "") || got != tc.want {
			t.Errorf("Href(%q) = %q, %v; want %q", tc.in, got, ok, tc.want)
		}
	}
}

// FuzzHref: an href is its own href (a record's url is written once in
// this form, and a replay reads it back).
func FuzzHref(f *testing.F) {
	for _, s := range []string{"https://Example.COM/open", "ftp://X.y/../z", "mailto:A@B", "http://[::1]/x?y#z", "https://bücher.de/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		h, ok := Href(raw)
		if !ok {
			return
		}
		h2, ok := Href(h)
		if !ok || h2 != h {
			t.Fatalf("Href(%q) = %q, whose Href is %q, %v", raw, h, h2, ok)
		}
	})
}
