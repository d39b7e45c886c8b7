package netguard

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

const R = redactedValue // "%5BREDACTED%5D", to keep the tables readable

type redactCase struct {
	name, in, want string
	had            bool
}

func runRedactCases(t *testing.T, cases []redactCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, had := RedactURL(tc.in)
			if got != tc.want || had != tc.had {
				t.Errorf("RedactURL(%q)\n got  %q, %v\n want %q, %v", tc.in, got, had, tc.want, tc.had)
			}
			again, hadAgain := RedactURL(got)
			if again != got || hadAgain != had {
				t.Errorf("not idempotent: RedactURL(%q) = %q, %v", got, again, hadAgain)
			}
		})
	}
}

func TestRedactURLUserinfo(t *testing.T) {
	runRedactCases(t, []redactCase{
		{"user and password", "https://user:pass@example.com/p", "https://REDACTED@example.com/p", true},
		{"user only", "https://user@example.com/", "https://REDACTED@example.com/", true},
		{"empty userinfo", "http://@example.com/", "http://REDACTED@example.com/", true},
		{"empty user and password", "http://:@example.com/", "http://REDACTED@example.com/", true},
		{"already redacted", "https://REDACTED@example.com/", "https://REDACTED@example.com/", true},
		{"at sign in password", "https://u:p@ss@example.com/", "https://REDACTED@example.com/", true},
		{"host confusion", "http://example.com@127.0.0.1/", "http://REDACTED@127.0.0.1/", true},
		{"backslash confusion", `http://example.com\@127.0.0.1/`, "http://REDACTED@127.0.0.1/", true},
		{"uppercase scheme", "HTTPS://u:p@example.com", "HTTPS://REDACTED@example.com", true},
		{"WHATWG slashless form", "http:user:pass@example.com/", "http:REDACTED@example.com/", true},
		{"scheme-relative", "//u:p@example.com/x", "//REDACTED@example.com/x", true},
		{"other scheme with authority", "ftp://u:p@files.example.com/a", "ftp://REDACTED@files.example.com/a", true},
		{"with query secret too", "https://u:p@x.com/?token=a", "https://REDACTED@x.com/?token=" + R, true},
		{"at in path is not userinfo", "https://medium.com/@user/post", "https://medium.com/@user/post", false},
		{"at after fragment is not userinfo", "http://example.com#@127.0.0.1/", "http://example.com#@127.0.0.1/", false},
		{"at after query is not userinfo", "http://example.com?@127.0.0.1/", "http://example.com?@127.0.0.1/", false},
		{"email address", "mailto:someone@example.com", "mailto:someone@example.com", false},
	})
}

func TestRedactURLQueryKeys(t *testing.T) {
	runRedactCases(t, []redactCase{
		{"token", "https://x.com/?token=abc&q=x", "https://x.com/?token=" + R + "&q=x", false},
		{"repeated keys", "https://x.com/?token=a&token=b", "https://x.com/?token=" + R + "&token=" + R, false},
		{"mixed case amz", "https://s3.x.com/o?X-AMZ-SIGNATURE=f00d", "https://s3.x.com/o?X-AMZ-SIGNATURE=" + R, false},
		{"percent-encoded key", "https://x.com/?%74oken=abc", "https://x.com/?%74oken=" + R, false},
		{"rails nested key", "https://x.com/?user[password]=x&user[name]=n", "https://x.com/?user[password]=" + R + "&user[name]=n", false},
		{"encoded brackets", "https://x.com/?user%5Bpassword%5D=x", "https://x.com/?user%5Bpassword%5D=" + R, false},
		{"plus in key", "https://x.com/?api+key=x", "https://x.com/?api+key=" + R, false},
		{"seed over-redaction", "https://x.com/?author=tolkien&keyword=go&monkey=1&q=1",
			"https://x.com/?author=" + R + "&keyword=" + R + "&monkey=" + R + "&q=1", false},
		{"word parts", "https://x.com/?accessToken=a&ACCESS-TOKEN=b&clientSecret=c&x-sig=d&design=e",
			"https://x.com/?accessToken=" + R + "&ACCESS-TOKEN=" + R + "&clientSecret=" + R + "&x-sig=" + R + "&design=e", false},
		{"oauth code but not zip code", "https://x.com/cb?code=abc&zip_code=12345&state=s",
			"https://x.com/cb?code=" + R + "&zip_code=12345&state=s", false},
		{"empty value kept", "https://x.com/?token=&q=1", "https://x.com/?token=&q=1", false},
		{"bare sensitive key kept", "https://x.com/?token&q=1", "https://x.com/?token&q=1", false},
		{"whole pair encoded", "https://x.com/?token%3Dabc", "https://x.com/?token%3D" + R, false},
		{"semicolon separated", "https://x.com/?q=x;token=abc&p=1", "https://x.com/?q=x;token=" + R + "&p=1", false},
		{"semicolon inside secret", "https://x.com/?token=ab;cd&p=1", "https://x.com/?token=" + R + "&p=1", false},
		{"other pieces byte-identical and in order",
			"https://x.com/p?b=%7e&token=s&a=1+2&&c&Z=%2F",
			"https://x.com/p?b=%7e&token=" + R + "&a=1+2&&c&Z=%2F", false},
		{"cloudfront", "https://d1.cloudfront.net/a?Expires=1&Policy=eyAx&Signature=abc&Key-Pair-Id=K2",
			"https://d1.cloudfront.net/a?Expires=1&Policy=" + R + "&Signature=" + R + "&Key-Pair-Id=" + R, false},
		{"policy alone is ordinary", "https://x.com/?policy=privacy", "https://x.com/?policy=privacy", false},
		{"nested relative URL", "https://x.com/?next=%2Flogin%3Fsession%3Dabc&x=1", "https://x.com/?next=" + R + "&x=1", false},
		{"nested URL with userinfo", "https://x.com/?u=https://a:b@h/", "https://x.com/?u=" + R, false},
		{"nested URL with query secret", "https://x.com/?u=https%3A%2F%2Fh%2F%3Fsig%3Dz&v=2", "https://x.com/?u=" + R + "&v=2", false},
		{"nested clean URL kept", "https://x.com/?redirect_uri=https%3A%2F%2Fapp.example.com%2Fcb", "https://x.com/?redirect_uri=https%3A%2F%2Fapp.example.com%2Fcb", false},
		{"base64 padding kept", "https://x.com/?id=YWJjZA==&n=1", "https://x.com/?id=YWJjZA==&n=1", false},
	})
}

func TestSensitiveKey(t *testing.T) {
	sensitive := []string{
		// The seed's substring rule, over-redaction included.
		"token", "key", "api_key", "access_token", "auth", "session", "password",
		"author", "keyword", "monkey", "sessionid", "Authorization", "apikey", "api-key",
		"id_token", "refresh_token", "X-Plex-Token", "authenticity_token", "private_token",
		// Word parts, in every spelling.
		"accessToken", "ACCESS-TOKEN", "access.token", "user[password]", "userPwd", "user_pass",
		"secret", "client_secret", "clientSecret", "sig", "X-Sig", "signature", "Signature",
		"x-amz-signature", "X-Amz-Credential", "x-amz-security-token", "X-Goog-Signature",
		"x-goog-credential", "GoogleAccessId", "AWSAccessKeyId", "OSSAccessKeyId", "x-oss-signature",
		"passwd", "pwd", "pass", "passphrase", "credential", "credentials",
		"code", "code_verifier", "device_code", "otp", "ticket", "SAMLResponse", "SAMLRequest",
		"samlresponse", "sid", "connect.sid", "PHPSESSID", "JSESSIONID", "ASP.NET_SessionId",
		"csrf", "_csrf", "xsrf-token", "hmac", "jwt", "bearer", "magic",
	}
	for _, k := range sensitive {
		if !SensitiveKey(k) {
			t.Errorf("SensitiveKey(%q) = false, want true", k)
		}
	}
	benign := []string{
		"q", "page", "id", "lang", "utm_source", "ref", "signup", "design", "passage", "bypass",
		"zip_code", "zipcode", "country_code", "error_code", "barcode", "state", "hash",
		"policy", "X-Amz-SignedHeaders", "X-Amz-Date", "sv", "se", "sp", "format", "v", "",
	}
	for _, k := range benign {
		if SensitiveKey(k) {
			t.Errorf("SensitiveKey(%q) = true, want false", k)
		}
	}
}

func TestRedactURLValueShapes(t *testing.T) {
	jwt := "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl"
	runRedactCases(t, []redactCase{
		{"jwt in benign key", "https://x.com/?v=" + jwt + "&q=1", "https://x.com/?v=" + R + "&q=1", false},
		{"github token", "https://x.com/?v=ghp_0123456789abcdefghij0123456789abcdef", "https://x.com/?v=" + R, false},
		{"github fine-grained", "https://x.com/?v=github_pat_11ABCDEFG0123456789_abcdef", "https://x.com/?v=" + R, false},
		{"aws access key id", "https://x.com/?v=AKIAIOSFODNN7EXAMPLE", "https://x.com/?v=" + R, false},
		{"aws sts key id", "https://x.com/?v=ASIAIOSFODNN7EXAMPLE", "https://x.com/?v=" + R, false},
		{"slack token", "https://x.com/?v=xoxb-123-456-abc", "https://x.com/?v=" + R, false},
		{"openai key", "https://x.com/?v=sk-proj-abcdefghijklmnopqrstuvwx", "https://x.com/?v=" + R, false},
		{"stripe key", "https://x.com/?v=sk_live_abcdefgh1234", "https://x.com/?v=" + R, false},
		{"stripe restricted key", "https://x.com/?v=rk_live_abcdefgh1234", "https://x.com/?v=" + R, false},
		{"google api key", "https://x.com/?v=AIzaSyA-abcdefghijklmnopqrstuvwxyz01234", "https://x.com/?v=" + R, false},
		{"gitlab token", "https://x.com/?v=glpat-abcdefghij0123456789", "https://x.com/?v=" + R, false},
		{"bearer value", "https://x.com/?h=Bearer+abcdefgh12345", "https://x.com/?h=" + R, false},
		{"token after separator", "https://x.com/?v=prefix:ghp_0123456789abcdefghij", "https://x.com/?v=" + R, false},
		{"bare token piece", "https://x.com/?ghp_0123456789abcdefghij&q=1", "https://x.com/?" + R + "&q=1", false},
		{"token as key", "https://x.com/?ghp_0123456789abcdefghij=1&q=1", "https://x.com/?" + R + "&q=1", false},
		{"locale is not a key", "https://x.com/?lang=sk-SK&q=ghost&r=AKIA", "https://x.com/?lang=sk-SK&q=ghost&r=AKIA", false},
		{"mid-word prefix ignored", "https://x.com/?v=mask-abcdefghijklmnopqrstuvwxyz", "https://x.com/?v=mask-abcdefghijklmnopqrstuvwxyz", false},
	})
}

func TestRedactURLFragments(t *testing.T) {
	jwt := "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln"
	runRedactCases(t, []redactCase{
		{"implicit flow", "https://app.example.com/cb#access_token=abc&expires_in=3600",
			"https://app.example.com/cb#access_token=" + R + "&expires_in=3600", false},
		{"id token", "https://app.example.com/cb#state=s&id_token=" + jwt,
			"https://app.example.com/cb#state=s&id_token=" + R, false},
		{"hash route", "https://x.com/#/route?sig=abc", "https://x.com/#/route?sig=" + R, false},
		{"plain anchor", "https://x.com/doc#section-2", "https://x.com/doc#section-2", false},
		{"text fragment", "https://x.com/doc#:~:text=hello%20world", "https://x.com/doc#:~:text=hello%20world", false},
		{"bare jwt", "https://x.com/#" + jwt, "https://x.com/#" + R, false},
		{"query and fragment", "https://x.com/?a=1&key=k#token=t", "https://x.com/?a=1&key=" + R + "#token=" + R, false},
	})
}

func TestRedactURLPathSecrets(t *testing.T) {
	runRedactCases(t, []redactCase{
		{"slack", "https://hooks.slack.com/services/T000/B000/XXXXSECRET", "https://hooks.slack.com/services/REDACTED", false},
		{"slack workflow", "https://hooks.slack.com/workflows/T1/A2/33/abc", "https://hooks.slack.com/workflows/REDACTED", false},
		{"slack odd case and dot", "https://HOOKS.SLACK.COM.:443/services/T/B/X?x=1", "https://HOOKS.SLACK.COM.:443/services/REDACTED?x=1", false},
		{"slack root untouched", "https://hooks.slack.com/", "https://hooks.slack.com/", false},
		{"not the hooks host", "https://slack.com/services/x", "https://slack.com/services/x", false},
		{"discord", "https://discord.com/api/webhooks/123456/abcDEF-tok", "https://discord.com/api/webhooks/123456/REDACTED", false},
		{"discordapp versioned with tail", "https://discordapp.com/api/v10/webhooks/1/tok/slack?wait=true",
			"https://discordapp.com/api/v10/webhooks/1/REDACTED/slack?wait=true", false},
		{"discord subdomain", "https://canary.discord.com/api/webhooks/1/tok", "https://canary.discord.com/api/webhooks/1/REDACTED", false},
		{"discord id only", "https://discord.com/api/webhooks/123", "https://discord.com/api/webhooks/123", false},
		{"telegram", "https://api.telegram.org/bot123456:ABC-DEF/sendMessage?chat_id=1",
			"https://api.telegram.org/botREDACTED/sendMessage?chat_id=1", false},
		{"telegram file", "https://api.telegram.org/file/bot123:XYZ/photos/a.jpg", "https://api.telegram.org/file/botREDACTED/photos/a.jpg", false},
		{"office 365", "https://outlook.office.com/webhook/abc@def/IncomingWebhook/x/y", "https://outlook.office.com/webhook/REDACTED", false},
		{"office 365 new host", "https://contoso.webhook.office.com/webhookb2/abc/IncomingWebhook/x", "https://contoso.webhook.office.com/webhookb2/REDACTED", false},
		{"ifttt trigger", "https://maker.ifttt.com/trigger/ev/with/key/abc123", "https://maker.ifttt.com/trigger/ev/with/key/REDACTED", false},
		{"ifttt use", "https://maker.ifttt.com/use/abc123", "https://maker.ifttt.com/use/REDACTED", false},
		{"jsessionid", "https://x.com/shop;jsessionid=ABC123?item=1", "https://x.com/shop;jsessionid=REDACTED?item=1", false},
		{"jsessionid mid-path", "https://x.com/a;JSESSIONID=ABC/b", "https://x.com/a;JSESSIONID=REDACTED/b", false},
		{"benign path parameter", "https://x.com/a;v=1;type=a/b", "https://x.com/a;v=1;type=a/b", false},
	})
}

func TestRedactURLUnparsable(t *testing.T) {
	runRedactCases(t, []redactCase{
		{"unclosed bracket", "http://u:p@[::1", "http://REDACTED@[::1", true},
		{"bad port and escapes", "https://u:p@host:99999/%zz?token=a%zz", "https://REDACTED@host:99999/%zz?token=" + R, true},
		{"no scheme", "not a url ?token=abc", "not a url ?token=" + R, false},
		{"bare domain", "example.com/x?sig=1", "example.com/x?sig=" + R, false},
		{"invalid utf-8", "https://x.com/\xff?key=\xfe", "https://x.com/\xff?key=" + R, false},
		{"only separators", "?&;#=@", "?&;#=@", false},
		{"empty", "", "", false},
	})
}

func TestRedactURLUntouched(t *testing.T) {
	for _, in := range []string{
		"https://example.com/a/b?q=1&page=2#intro",
		"https://example.com/%7Euser/index.html",
		"HTTPS://Example.COM:8443/x",
		"https://example.com/a;b",
		"https://example.com/?",
		"https://en.wikipedia.org/wiki/Foo_(bar)",
		"https://example.com/search?q=hello+world&lang=en&utm_source=news",
	} {
		got, had := RedactURL(in)
		if got != in || had {
			t.Errorf("RedactURL(%q) = %q, %v; want it unchanged", in, got, had)
		}
	}
}

func TestRedactURLCleanDoesNotAllocate(t *testing.T) {
	clean := "https://www.example.com/articles/2024/05/some-long-article-slug.html"
	if n := testing.AllocsPerRun(100, func() { RedactURL(clean) }); n != 0 {
		t.Errorf("RedactURL on a clean URL allocates %v times, want 0", n)
	}
}

func TestRedactText(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"net/http error",
			`Get "https://u:p@x.com/?token=abc": dial tcp 1.2.3.4:443: connect: connection refused`,
			`Get "https://REDACTED@x.com/?token=` + R + `": dial tcp 1.2.3.4:443: connect: connection refused`},
		{"net/http masked password",
			`Get "https://u:***@x.com/a?sig=abc": EOF`,
			`Get "https://REDACTED@x.com/a?sig=` + R + `": EOF`},
		{"markdown link and autolink",
			"See [docs](https://x.com/a?api_key=K1) and <https://y.com/?sig=S>.",
			"See [docs](https://x.com/a?api_key=" + R + ") and <https://y.com/?sig=" + R + ">."},
		{"balanced parentheses stay in the URL",
			"(see https://en.wikipedia.org/wiki/Foo_(bar)?token=t)",
			"(see https://en.wikipedia.org/wiki/Foo_(bar)?token=" + R + ")"},
		{"sentence punctuation",
			"Visit https://x.com/?token=abc. Then https://y.com/?key=k, done!",
			"Visit https://x.com/?token=" + R + ". Then https://y.com/?key=" + R + ", done!"},
		{"uppercase scheme and backticks",
			"`HTTPS://x.com/?password=hunter2`",
			"`HTTPS://x.com/?password=" + R + "`"},
		{"quotes", `href='http://u:p@h/'`, `href='http://REDACTED@h/'`},
		{"clean URLs untouched", "see https://example.com/a?q=1 and http://b.org", "see https://example.com/a?q=1 and http://b.org"},
		{"secret word without URL", "nothing to see here: token=abc", "nothing to see here: token=" + R},
		{"token shape beside a URL", "- https://x.com/a (deploy key ghp_0123456789abcdefghijABCDEFGHIJ012345)",
			"- https://x.com/a (deploy key " + R}, // the whole word goes, punctuation included
		{"ordinary words untouched", "a=b is fine; so is ghost and sk-SK", "a=b is fine; so is ghost and sk-SK"},
		{"scheme only", "http:// https://", "http:// https://"},
		{"unicode around", "→https://x.com/?token=秘密 ←", "→https://x.com/?token=" + R + " ←"},
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

// FuzzRedactURL plants four secrets around fuzzed host and path text:
// userinfo, a credential-shaped host label, a query token and a
// credential-shaped path segment. The secrets
// must never survive, whatever the fuzzer puts around them. Inputs where
// the fuzzed text itself spells a secret marker are skipped, since then the
// marker in the output proves nothing.
func FuzzRedactURL(f *testing.F) {
	f.Add("example.com", "/a/b")
	f.Add("h", "")
	f.Add("x.com#", "/a=b")
	f.Add("x.com", "?a=b%3D;c")
	f.Add("hooks.slack.com", "/services/")
	f.Add("[::1", "/p;jsessionid=")
	f.Add("u@h", "?next=https://a@b/?x=1&")
	f.Add("a.b", "/#x=%26")
	f.Add("x.com", "/a%2")
	f.Add("x.com", "/ghp%5F")
	f.Add("x.com", "/;k=")
	f.Fuzz(func(t *testing.T, host, path string) {
		const pw, tk, seg, label = "SECRETPW", "SECRETTK", "SECRETSEG", "SECRETLABEL"
		in := "https://u:" + pw + "@ghp_" + label + "0123456789ab." + host + path + "/ghp_" + seg + "0123456789abcdefgh/x?token=" + tk
		if strings.Count(in, pw) == 1 && strings.Count(in, tk) == 1 && strings.Count(in, seg) == 1 && strings.Count(in, label) == 1 {
			leaks := func(s string) bool {
				return strings.Contains(s, pw) || strings.Contains(s, tk) || strings.Contains(s, seg) || strings.Contains(s, label)
			}
			out, had := RedactURL(in)
			if !had {
				t.Errorf("RedactURL(%q): hadUserinfo = false", in)
			}
			if leaks(out) {
				t.Errorf("RedactURL(%q) = %q leaks a secret", in, out)
			}
			// RedactText can only see the URL whole when nothing in
			// the fuzzed text ends it early.
			if !strings.ContainsFunc(host+path, endsURL) {
				if txt := RedactText("x " + in + " y"); leaks(txt) {
					t.Errorf("RedactText(%q) = %q leaks a secret", in, txt)
				}
			}
		}
		for _, raw := range []string{in, host, path, host + path} {
			out, had := RedactURL(raw)
			again, hadAgain := RedactURL(out)
			if again != out || hadAgain != had {
				t.Errorf("not idempotent: %q -> %q, %v -> %q, %v", raw, out, had, again, hadAgain)
			}
			_ = RedactText(raw)
		}
	})
}

func endsURL(r rune) bool {
	return unicode.IsSpace(r) || unicode.IsControl(r) || r == utf8.RuneError ||
		strings.ContainsRune("<>\"'`()[]", r)
}

func BenchmarkRedactURL(b *testing.B) {
	for _, bc := range []struct{ name, url string }{
		{"clean", "https://www.example.com/articles/2024/05/some-long-article-slug.html"},
		{"clean_query", "https://www.example.com/search?q=golang+ssrf&page=2&lang=en"},
		{"secret", "https://user:pw@api.example.com/v1/items?id=42&access_token=abcdef0123456789&X-Amz-Signature=deadbeef#frag"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				RedactURL(bc.url)
			}
		})
	}
}

func BenchmarkRedactText(b *testing.B) {
	line := `Some prose with a citation [1](https://example.com/paper?id=3&token=abc) and more prose after it.`
	b.ReportAllocs()
	for b.Loop() {
		RedactText(line)
	}
}
