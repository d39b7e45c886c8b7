package netguard

import (
	"strings"
	"testing"
)

// TestRedactURLHostLabels: a credential used as a host label is cut out
// label by label, as written and lower-cased (canonical URLs lower-case the
// host before redaction sees them), and the URL stays parseable.
func TestRedactURLHostLabels(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"https://ghp_0123456789abcdefABCDEF0123456789abcd.example.com/x", "https://REDACTED.example.com/x"},
		{"https://ghp_0123456789abcdefabcdef0123456789abcd.example.com/x", "https://REDACTED.example.com/x"},
		{"https://docs.ghp_0123456789abcdefABCDEF0123456789abce.github.io/page", "https://docs.REDACTED.github.io/page"},
		{"http://GHP_0123456789ABCDEF0123456789ABCDEF0123.Example.COM:8080/", "http://REDACTED.Example.COM:8080/"},
		{"https://u:pw@api-ghp_0123456789abcdefABCDEF0123456789abcd.example.com/?q=1", "https://REDACTED@REDACTED.example.com/?q=1"},
		{"https://github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJ.example.com/",
			"https://REDACTED.example.com/"},
		{"https://github_pat_11abcdefg0123456789_abcdefghijklmnopqrstuvwxyz0123456789abcdefghij.example.com/",
			"https://REDACTED.example.com/"},
		{"https://sk-proj0123456789abcdefABCDEF0123456789.example.com/", "https://REDACTED.example.com/"},
		{"https://sk-proj0123456789abcdefabcdef0123456789.example.com/", "https://REDACTED.example.com/"},
		{"https://sk_live_0123456789abcdefghijKLMN.example.com/", "https://REDACTED.example.com/"},
		{"https://xoxb-1234567890-abcdefghij.example.com/", "https://REDACTED.example.com/"},
		{"https://AKIAIOSFODNN7EXAMPLE.s3.amazonaws.com/k", "https://REDACTED.s3.amazonaws.com/k"},
		{"https://akiaiosfodnn7example.s3.amazonaws.com/k", "https://REDACTED.s3.amazonaws.com/k"},
		{"https://glpat-abcDEF0123456789xyzw.example.com/", "https://REDACTED.example.com/"},
		{"https://glpat-abcdef0123456789xyzw.example.com/", "https://REDACTED.example.com/"},
		// A JWT spans three labels; all three go, signature included.
		{"https://eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.c2lnbmF0dXJl.example.com/",
			"https://REDACTED.example.com/"},
		{"https://eyjhbgcioijiuzi1nij9.eyjzdwiioiixmjm0in0.c2lnbmf0dxjl.example.com/",
			"https://REDACTED.example.com/"},
		// Two tokens, two labels.
		{"https://ghp_0123456789abcdefABCDEF0123456789abcd.a.xoxb-1234567890-abcdefghij.example.com/",
			"https://REDACTED.a.REDACTED.example.com/"},
		// A port that is a token (the URL does not parse, a text may
		// quote it).
		{"https://example.com:ghp_0123456789abcdefABCDEF0123456789abcd/x", "https://example.com:REDACTED/x"},
		{"https://[::1]:ghp_0123456789abcdefABCDEF0123456789abcd/x", "https://[::1]:REDACTED/x"},
		// Escapes: the host goes whole.
		{"https://ghp%5F0123456789abcdefABCDEF0123456789abcd.example.com/x", "https://REDACTED/x"},
	} {
		got, _ := RedactURL(tc.in)
		if got != tc.want {
			t.Errorf("RedactURL(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if again, _ := RedactURL(got); again != got {
			t.Errorf("RedactURL not idempotent on %q: %q", got, again)
		}
		if txt := RedactText("see " + tc.in + " now"); txt != "see "+tc.want+" now" {
			t.Errorf("RedactText(%q) = %q", tc.in, txt)
		}
	}
}

// TestRedactURLHostLabelsLeaveOrdinaryHosts: labels that look random or
// share a prefix with a format stay, as written and lower-cased.
func TestRedactURLHostLabelsLeaveOrdinaryHosts(t *testing.T) {
	for _, host := range []string{
		"d1a2b3c4d5e6f7.cloudfront.net", "cdn-123abc.example.com", "s3-eu-west-1.amazonaws.com",
		"asiapacificforum2026.com", "asia-pacific-news.example.org", "sk-bratislava-2024-news.example.sk",
		"sk-learn-documentation.example.org", "ghp.example.com", "gh-pages.example.io",
		"aizawa-lab.example.jp", "sg.cdn-assets-southeast.some-really-long-hostname-label.example.com",
		"abcdef0123456789abcdef0123456789.example.com", "e3b0c44298fc1c149afbf4c8996fb924.r2.dev",
		"xoxo-gossip.example.com", "hf-mirror-0123456789.example.com", "shop-2024.example.com",
		"doi.org", "www.nature.com", "xn--bcher-kva.example", "eyjafjallajokull.example.is",
		"REDACTED.example.com",
	} {
		for _, h := range []string{host, strings.ToLower(host), strings.ToUpper(host)} {
			in := "https://" + h + "/a/b"
			if got, _ := RedactURL(in); got != in {
				t.Errorf("RedactURL(%q) = %q; want it unchanged", in, got)
			}
		}
	}
}

func FuzzRedactHost(f *testing.F) {
	for _, s := range []string{"ghp_0123456789abcdefABCDEF0123456789abcd.example.com", "a.b", "%67hp_x", "[::1]:80",
		"eyJa.eyJb.c.d", "x:1", "..", "sk-.sk-"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, host string) {
		if got, lower, upper := hostSecret(host), hostSecret(asciiCase(host, false)), hostSecret(asciiCase(host, true)); got != lower || got != upper {
			t.Fatalf("hostSecret(%q) = %v; lower-cased %v, upper-cased %v", host, got, lower, upper)
		}
		out := redactHost(host)
		if redactHost(out) != out {
			t.Fatalf("redactHost not idempotent: %q -> %q -> %q", host, out, redactHost(out))
		}
		h, port := cutPort(host)
		secret := !strings.HasPrefix(h, "[") && hostSecret(h) || len(port) > 1 && hostSecret(port[1:])
		if (out != host) != secret {
			t.Fatalf("redactHost(%q) = %q, but a secret: %v", host, out, secret)
		}
		// RedactURL's fast path reads the whole authority at once.
		if secret && !hostSecret(host) {
			t.Fatalf("hostSecret(%q) is false, but its host or port holds a secret", host)
		}
	})
}

// asciiCase maps ASCII letters only: strings.ToUpper would turn "ſ" into
// "S", a different host.
func asciiCase(s string, upper bool) string {
	return strings.Map(func(r rune) rune {
		switch {
		case upper && r >= 'a' && r <= 'z':
			return r - 'a' + 'A'
		case !upper && r >= 'A' && r <= 'Z':
			return r - 'A' + 'a'
		}
		return r
	}, s)
}
