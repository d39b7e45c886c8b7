package netguard

import (
	"strings"
	"testing"
)

// redactURLBuilder is redactURL as it was before it learned to skip
// building unchanged URLs (always building, comparing afterwards), kept as
// the oracle FuzzRedactURLMatchesBuilder holds the new one to.
func redactURLBuilder(s string, depth int) (string, bool) {
	prefix, auth, rest, hasAuth := splitAuthority(s)
	var b strings.Builder
	b.WriteString(prefix)
	had := false
	if hasAuth {
		if at := strings.LastIndexByte(auth, '@'); at >= 0 {
			had = true
			b.WriteString(redactedUserinfo)
			auth = auth[at+1:]
		}
		b.WriteString(redactHost(auth))
	}
	path, fragment, hasFragment := strings.Cut(rest, "#")
	path, query, hasQuery := strings.Cut(path, "?")
	if rule := pathRule(hostOf(auth)); rule != nil {
		path = rule(path)
	}
	b.WriteString(redactPathParams(redactSegments(path)))
	if hasQuery {
		b.WriteByte('?')
		writePairsBuilder(&b, query, depth)
	}
	if hasFragment {
		b.WriteByte('#')
		switch {
		case strings.Contains(fragment, "="):
			writePairsBuilder(&b, fragment, depth)
		case strictSecret(fragment) || phraseSecret(FormDecode(fragment)):
			b.WriteString(redactedValue)
		default:
			b.WriteString(fragment)
		}
	}
	return b.String(), had
}

func writePairsBuilder(b *strings.Builder, q string, depth int) {
	cloudFront := indexFold(q, "key-pair-id") >= 0
	for {
		piece, more, found := strings.Cut(q, "&")
		b.WriteString(redactPiece(piece, cloudFront, depth))
		if !found {
			return
		}
		b.WriteByte('&')
		q = more
	}
}

var redactOracleSeeds = []string{
	"https://a.example/p?x=1&token=abc&y=2#frag",
	"https://u:p@a.example/?q=1",
	"https://a.example/?Key-Pair-Id=K&Policy=P&Signature=S",
	"https://a.example/#access_token=abc&token_type=bearer",
	"https://a.example/x;jsessionid=ABC?q",
	"https://hooks.slack.com/services/T000/B000/XXXX",
	"https://a.example/?next=%2Flogin%3Fsession%3Dabc",
	"https://a.example/?&&a=&token=&b",
	"https://a.example/#ghp_abcdefghijklmnopqrstuvwxyz0123456789",
	"http:u:p@a.example",
	"https://a.example/?q=1#",
	"https://arxiv.org/abs/item-11?utm_source=agent&utm_medium=wave",
	"https://ghp_0123456789abcdefABCDEF0123456789abcd.example.com/x",
	"https://u:p@docs.sk_live_0123456789abcdefghijKLMN.example.com:8443/?q=1",
	"https://d1a2b3c4d5e6f7.cloudfront.net/img.png#ghp_abcdefghijklmnopqrstuvwxyz0123456789",
}

func TestRedactURLMatchesBuilder(t *testing.T) {
	for _, s := range redactOracleSeeds {
		for depth := range maxNesting + 1 {
			got, gotHad := redactURL(s, depth)
			want, wantHad := redactURLBuilder(s, depth)
			if got != want || gotHad != wantHad {
				t.Errorf("redactURL(%q, %d) = %q, %v; builder %q, %v", s, depth, got, gotHad, want, wantHad)
			}
		}
	}
}

func FuzzRedactURLMatchesBuilder(f *testing.F) {
	for _, s := range redactOracleSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, gotHad := redactURL(s, 0)
		want, wantHad := redactURLBuilder(s, 0)
		if got != want || gotHad != wantHad {
			t.Fatalf("redactURL(%q) = %q, %v; builder %q, %v", s, got, gotHad, want, wantHad)
		}
	})
}

// RedactTextKnown with a URL and its redaction gives RedactText's result,
// wherever in the text the URL stands (or does not), with and without
// secrets.
func TestRedactTextKnownMatchesRedactText(t *testing.T) {
	for _, u := range append(redactOracleSeeds, "https://a.example/", "http://b.example/x?token=abc.") {
		red, _ := RedactURL(u)
		for _, text := range []string{u, "- " + u, "- [t](" + u + ")", "see " + u + ", and " + u + ".",
			"- https://other.example/?password=x " + u, "no url here", "<" + u + ">"} {
			if got, want := RedactTextKnown(text, u, red), RedactText(text); got != want {
				t.Errorf("RedactTextKnown(%q, %q) = %q; RedactText %q", text, u, got, want)
			}
		}
	}
}

func FuzzRedactTextKnown(f *testing.F) {
	for _, s := range redactOracleSeeds {
		f.Add("- ", s, " and more")
	}
	f.Fuzz(func(t *testing.T, before, u, after string) {
		red, _ := RedactURL(u)
		text := before + u + after
		if got, want := RedactTextKnown(text, u, red), RedactText(text); got != want {
			t.Fatalf("RedactTextKnown(%q, %q) = %q; RedactText %q", text, u, got, want)
		}
	})
}
