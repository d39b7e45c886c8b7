package netguard

import (
	"fmt"
	"strings"
	"testing"
)

// TestRedactTextPhrases: credentials that only the words in front of them
// give away — Authorization headers, Bearer and Basic, curl's user option —
// are replaced, and nothing else on the line changes.
func TestRedactTextPhrases(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"header with opaque bearer token", "Authorization: Bearer 7f3a9c2e41d8b6a0",
			"Authorization: Bearer " + R},
		{"short opaque token after a scheme", "authorization: bearer abc", "authorization: bearer " + R},
		{"curl header", `curl -H "Authorization: Bearer 0paqueT0kenValue" https://api.example.com/v1/items`,
			`curl -H "Authorization: Bearer ` + R + `" https://api.example.com/v1/items`},
		{"json header", `{"Authorization":"Bearer tok3n-v4lue"}`, `{"Authorization":"Bearer ` + R + `"}`},
		{"json header with spaces", `"Authorization": "Bearer tok3n-v4lue",`, `"Authorization": "Bearer ` + R + `",`},
		{"basic header", "Authorization: Basic dXNlcjpwYXNzd29yZA==", "Authorization: Basic " + R},
		{"proxy header", "Proxy-Authorization: Basic YWRtaW46aHVudGVyMg==", "Proxy-Authorization: Basic " + R},
		{"github token scheme", "Authorization: token " + tokGitHub, "Authorization: token " + R},
		{"bare key after the header", "Authorization: 9f86d081884c7d659a2feaa0", "Authorization: " + R},
		{"unknown scheme, opaque token", "Authorization: Custom Zx9kLm2Qp7Rt4Vw8", "Authorization: Custom " + R},
		{"key=value form", "authorization=Bearer Zx9kLm2Qp7Rt", "authorization=" + R + " " + R},
		{"sentence end", "send Authorization: Bearer Zx9kLm2Qp7Rt.", "send Authorization: Bearer " + R + "."},
		{"standalone bearer", "use Bearer Zx9kLm2Qp7Rt in the header", "use Bearer " + R + " in the header"},
		{"standalone bearer jwt", "Bearer " + tokJWT, "Bearer " + R},
		{"standalone basic", "header Basic dXNlcjpwYXNzd29yZA== was sent", "header Basic " + R + " was sent"},
		{"curl -u", "curl -u admin:hunter2 https://api.example.com/x", "curl -u admin:" + R + " https://api.example.com/x"},
		{"curl --user", "curl --user admin:hunter2 https://x.example", "curl --user admin:" + R + " https://x.example"},
		{"curl --user=", "curl --user=admin:hunter2 https://x.example", "curl --user=admin:" + R + " https://x.example"},
		{"curl attached", "curl -uadmin:hunter2 https://x.example", "curl -uadmin:" + R + " https://x.example"},
		{"curl cluster", "curl -sSLu admin:hunter2 https://x.example", "curl -sSLu admin:" + R + " https://x.example"},
		{"curl proxy user", "curl -U proxy:s3cret -x http://p:3128 https://x.example", "curl -U proxy:" + R + " -x http://p:3128 https://x.example"},
		{"curl --proxy-user=", "curl --proxy-user=proxy:s3cret https://x.example", "curl --proxy-user=proxy:" + R + " https://x.example"},
		{"curl quoted", "`curl -u 'admin:p@ss w0rd' https://x.example`", "`curl -u '" + "admin:" + R + " w0rd' https://x.example`"},
		{"curl api key as user", "curl -u key123abc: https://api.example.com", "curl -u " + R + ": https://api.example.com"},
		{"curl by path", "/usr/bin/curl -u admin:hunter2 x", "/usr/bin/curl -u admin:" + R + " x"},
		{"curl after other options", "curl -s -X POST -u admin:hunter2 -d a=1 https://x.example",
			"curl -s -X POST -u admin:" + R + " -d a=1 https://x.example"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := RedactText(tc.in); got != tc.want {
				t.Errorf("RedactText(%q)\n got  %q\n want %q", tc.in, got, tc.want)
			}
			if got := RedactText(tc.want); got != tc.want {
				t.Errorf("RedactText not idempotent on %q: %q", tc.want, got)
			}
		})
	}
}

// TestRedactTextPhraseNearMisses: prose, placeholders and other commands
// stay byte for byte.
func TestRedactTextPhraseNearMisses(t *testing.T) {
	for _, in := range []string{
		"OAuth Authorization: a guide to scopes and consent",
		"Authorization is required for this endpoint",
		"Authorization: Bearer $TOKEN",
		"Authorization: Bearer ${GITHUB_TOKEN}",
		"Authorization: Bearer <token>",
		"Authorization: Bearer ****",
		"Authorization: Bearer …",
		"the bearer of bad news",
		"Bearer bonds and other instruments",
		"Bearer 2nd-generation",
		"Basic income experiments in Finland",
		"Basic 2024Report",
		"Basic dGhpcyBpcyBub3QgYSBwYWly", // base64 of "this is not a pair"
		"git push -u origin main",
		"docker run -u 1000:1000 image",
		"curl -u admin https://x.example",
		"curl -u $USER:$PASS https://x.example",
		"curl -u admin:<password> https://x.example",
		"curl -o out.txt -H 'Accept: text/html' https://x.example",
		"curl-config -u x:y",
		"the curl\n-u admin:hunter2 on another line",
	} {
		if got := RedactText(in); got != in {
			t.Errorf("RedactText(%q) = %q; want it unchanged", in, got)
		}
	}
}

// FuzzRedactText runs fuzzed text around two planted phrases. The planted
// credentials never survive, the scanner never panics, and redacting twice
// changes nothing.
func FuzzRedactText(f *testing.F) {
	f.Add("", "")
	f.Add("Authorization: Bearer x", "curl -u a:b")
	f.Add(`{"Authorization":"Basic `, `-sSu`)
	f.Add("Proxy-Authorization = Token", "--user=")
	f.Add("Bearer", "curl -U")
	f.Fuzz(func(t *testing.T, before, after string) {
		const bearer, password = "SECRETBEARER1x", "SECRETPASSWORD2"
		in := before + "\nAuthorization: Bearer " + bearer + "\ncurl -u admin:" + password + " https://x.example\n" + after
		out := RedactText(in)
		if strings.Count(in, bearer) == 1 && strings.Count(in, password) == 1 &&
			(strings.Contains(out, bearer) || strings.Contains(out, password)) {
			t.Errorf("RedactText(%q) = %q leaks a planted credential", in, out)
		}
		for _, s := range []string{in, before, after} {
			once := RedactText(s)
			if twice := RedactText(once); twice != once {
				t.Errorf("not idempotent: %q -> %q -> %q", s, once, twice)
			}
		}
	})
}

// BenchmarkRedactTextPhrasesHostile: keywords that all point at one long
// run of credential bytes must not make the scan quadratic (compare the
// ns/op of the sizes: it should grow linearly).
func BenchmarkRedactTextPhrasesHostile(b *testing.B) {
	for _, n := range []int{1 << 14, 1 << 16} {
		for name, unit := range map[string]string{
			"authorization": "Authorization:", "bearer": "Bearer x", "curl": "curl -u a:b -u ",
			"scheme": "authorization=Bearer-", "quotes": `"Authorization":"`,
		} {
			text := strings.Repeat(unit, n/len(unit))
			b.Run(fmt.Sprintf("%s/%d", name, len(text)), func(b *testing.B) {
				b.SetBytes(int64(len(text)))
				for b.Loop() {
					RedactText(text)
				}
			})
		}
	}
}
