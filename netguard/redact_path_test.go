package netguard

import (
	"fmt"
	"strings"
	"testing"
)

// Real-shaped but fake credentials, one per format (see credShapes). Public
// documentation examples are used where an issuer publishes one (AWS, jwt.io).
const (
	tokGitHub      = "ghp_R2d4F6h8J0k2L4m6N8p0Q2r4S6t8V0w2X4y6"
	tokGitHubOAuth = "gho_16C7e42F292c6912E7710c838347Ae178B4a"
	tokGitHubPAT   = "github_pat_11ABCDEFG0aBcDeFgHiJkLm_N0pQrStUvWxYz0123456789AbCdEfGhIjKlMnOpQrStUvWxYz01234"
	tokGitLab      = "glpat-xR4tY7uI9oP2aS5dF8gH"
	tokAWS         = "AKIAIOSFODNN7EXAMPLE"
	tokAWSSTS      = "ASIAY34FZKBOKMUTVV7A"
	tokGoogle      = "AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY"
	tokSlack       = "xoxb-2024183627-4810192837465-Ab3Cd5Ef7Gh9Ij1Kl3Mn5Op7"
	tokSlackApp    = "xapp-1-A04BCDEF123-4810192837465-0a1b2c3d4e5f60718293a4b5c6d7e8f9"
	tokStripe      = "sk_live_51Hx8yZAbCdEfGhIjKlMnOpQr"
	tokStripeTest  = "sk_test_4eC39HqLyjWDarjtT1zdp7dX"
	tokStripeRK    = "rk_live_51Hx8yZAbCdEfGhIjKlMnOpQr"
	tokStripeHook  = "whsec_Ab3De5Gh7Jk9Mn1Pq3St5Vw7Yz9Bc2Df"
	tokOpenAI      = "sk-proj-Ab3De5Gh7Jk9Mn1Pq3St5Vw7Yz9Bc2Df4Gh6Jk8Lm0Np2Qr4"
	tokOpenAIOld   = "sk-Ab3De5Gh7Jk9Mn1Pq3St5Vw7Yz9Bc2Df4Gh6Jk8Lm0Np2Qr4St6V"
	tokAnthropic   = "sk-ant-api03-Ab3De5Gh7Jk9Mn1Pq3St5Vw7Yz9Bc2Df4Gh6Jk8Lm0Np2Qr4St6Vw8Yz0Bc2Df4Gh6Jk8Lm0Np2Qr4St6Vw8Yz0Bc2D-AA"
	tokNPM         = "npm_aB1cD2eF3gH4iJ5kL6mN7oP8qR9sT0uV1wX2"
	tokPyPI        = "pypi-AgEIcHlwaS5vcmcCJGI4YmNhYjE2LWM5ZDEtNDMzYy1hYjBhLTAwMDAwMDAwMDAwMAACKlszLCJwcm9qZWN0Il0"
	tokHF          = "hf_AbCdEfGhIjKlMnOpQrStUvWxYzAbCdEfGh"
	tokShopify     = "shpat_0123456789abcdef0123456789abcdef"
	tokDO          = "dop_v1_0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	tokSendGrid    = "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"
	tokJWT         = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
	tokJWTNone     = "eyJhbGciOiJub25lIn0.eyJzdWIiOiIxIn0."
)

// pathTokens names every sample above; TestCredShapesCovered checks that
// each format has one.
var pathTokens = map[string]string{
	"github": tokGitHub, "github-oauth": tokGitHubOAuth, "github-fine-grained": tokGitHubPAT,
	"gitlab": tokGitLab, "aws-access-key-id": tokAWS, "aws-sts": tokAWSSTS, "google-api-key": tokGoogle,
	"slack": tokSlack, "slack-app": tokSlackApp, "stripe": tokStripe, "stripe-test": tokStripeTest,
	"stripe-restricted": tokStripeRK, "stripe-webhook": tokStripeHook, "openai-anthropic": tokOpenAI,
	"openai-legacy": tokOpenAIOld, "anthropic": tokAnthropic, "npm": tokNPM, "pypi": tokPyPI,
	"huggingface": tokHF, "shopify": tokShopify, "digitalocean": tokDO, "sendgrid": tokSendGrid,
	"jwt": tokJWT, "jwt-unsigned": tokJWTNone,
}

// TestRedactURLPathTokens: a credential-shaped path segment becomes
// REDACTED whatever the host, wherever the segment stands, and the rest of
// the URL stays byte for byte.
func TestRedactURLPathTokens(t *testing.T) {
	runRedactCases(t, []redactCase{
		{"github raw", "https://raw.githubusercontent.com/o/r/" + tokGitHub + "/README.md",
			"https://raw.githubusercontent.com/o/r/REDACTED/README.md", false},
		{"stripe", "https://api.example.com/v1/" + tokStripe + "/charges", "https://api.example.com/v1/REDACTED/charges", false},
		{"aws", "https://files.example.com/keys/" + tokAWS + "/report.pdf", "https://files.example.com/keys/REDACTED/report.pdf", false},
		{"slack", "https://example.com/hooks/" + tokSlack + "/feed", "https://example.com/hooks/REDACTED/feed", false},
		{"jwt segment", "https://app.example.com/s/" + tokJWT + "/dashboard", "https://app.example.com/s/REDACTED/dashboard", false},
		{"last segment", "https://example.com/t/" + tokOpenAI, "https://example.com/t/REDACTED", false},
		{"first segment", "https://example.com/" + tokGitLab + "/x", "https://example.com/REDACTED/x", false},
		{"trailing slash", "https://example.com/" + tokNPM + "/", "https://example.com/REDACTED/", false},
		{"inside a file name", "https://example.com/backup_" + tokAWS + ".csv", "https://example.com/REDACTED", false},
		{"two tokens", "https://example.com/" + tokGitHub + "/" + tokStripe + "/x", "https://example.com/REDACTED/REDACTED/x", false},
		{"with query and fragment", "https://example.com/" + tokGitHub + "/x?q=1#top", "https://example.com/REDACTED/x?q=1#top", false},
		{"with matrix parameter", "https://example.com/" + tokGitHub + ";v=1/x", "https://example.com/REDACTED;v=1/x", false},
		{"with userinfo", "https://u:p@example.com/" + tokGitHub, "https://REDACTED@example.com/REDACTED", true},
		{"escaped underscore", "https://example.com/x/ghp%5F" + tokGitHub[4:] + "/y", "https://example.com/x/REDACTED/y", false},
		{"after an escaped slash", "https://example.com/x%2F" + tokGitHub + "/y", "https://example.com/REDACTED/y", false},
		{"uppercase scheme and port", "HTTPS://Example.COM:8443/" + tokAWSSTS, "HTTPS://Example.COM:8443/REDACTED", false},
		{"no scheme", "raw.githubusercontent.com/o/r/" + tokGitHub + "/a", "raw.githubusercontent.com/o/r/REDACTED/a", false},
		{"scheme-relative", "//cdn.example.com/" + tokGoogle + "/maps.js", "//cdn.example.com/REDACTED/maps.js", false},
	})
}

// TestRedactURLEveryShapeInEveryComponent puts each sample in a path
// segment, a matrix parameter, the query and the fragment.
func TestRedactURLEveryShapeInEveryComponent(t *testing.T) {
	for name, tok := range pathTokens {
		t.Run(name, func(t *testing.T) {
			runRedactCases(t, []redactCase{
				{"path segment", "https://example.com/a/" + tok + "/b", "https://example.com/a/REDACTED/b", false},
				{"bare matrix parameter", "https://example.com/a;" + tok + "/b", "https://example.com/a;REDACTED/b", false},
				{"matrix value", "https://example.com/a;id=" + tok + "/b", "https://example.com/a;id=REDACTED/b", false},
				{"query value", "https://example.com/a?id=" + tok + "&q=1", "https://example.com/a?id=" + R + "&q=1", false},
				{"fragment", "https://example.com/a#" + tok, "https://example.com/a#" + R, false},
				{"hash route", "https://example.com/a#/s/" + tok + "/x", "https://example.com/a#" + R, false},
				{"fragment pair", "https://example.com/a#id=" + tok, "https://example.com/a#id=" + R, false},
			})
		})
	}
}

// TestRedactURLMatrixAndFragmentSecrets: path parameters and fragments with
// sensitive keys lose their values.
func TestRedactURLMatrixAndFragmentSecrets(t *testing.T) {
	runRedactCases(t, []redactCase{
		{"jsessionid", "https://shop.example.com/cart;jsessionid=1A2B3C4D5E6F/item", "https://shop.example.com/cart;jsessionid=REDACTED/item", false},
		{"token parameter", "https://example.com/feed;token=abc123", "https://example.com/feed;token=REDACTED", false},
		{"sid among others", "https://example.com/a;v=2;sid=xyz;lang=en/b", "https://example.com/a;v=2;sid=REDACTED;lang=en/b", false},
		{"fragment key", "https://app.example.com/cb#sig=opaque123&lang=en",
			"https://app.example.com/cb#sig=" + R + "&lang=en", false},
		{"bearer fragment", "https://app.example.com/cb#Bearer+abcdefgh12345", "https://app.example.com/cb#" + R, false},
		{"pem fragment", "https://x.example/#-----BEGIN%20PRIVATE%20KEY-----", "https://x.example/#" + R, false},
		{"slug matrix parameter kept", "https://x.example/a;sk-learn-pipelines-for-text-classification/b",
			"https://x.example/a;sk-learn-pipelines-for-text-classification/b", false},
	})
}

// pathNearMisses look like credentials at a glance but are ordinary URLs:
// RedactURL must return each unchanged, without allocating.
var pathNearMisses = []string{
	"https://github.com/golang/go/commit/3f2a9c1e7b5d4a6f8e0c2b4d6f8a0c2e4b6d8f0a",
	"https://registry.example.com/v2/app/blobs/sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
	"https://example.com/items/123e4567-e89b-12d3-a456-426614174000",
	"https://d1.cloudfront.net/eyJidWNrZXQiOiJteS1idWNrZXQiLCJrZXkiOiJwaG90by5qcGcifQ==",
	"https://example.com/a/eyJhbGciOiJIUzI1NiJ9.json",
	"https://cdn.example.com/img/aGVsbG8gd29ybGQgdGhpcyBpcyBiYXNlNjQ.jpg",
	"https://cdn.example.com/images/SGVsbG8gV29ybGQhIFRoaXMgaXMgYSB0ZXN0.png",
	"https://blog.example.com/sk-learn-pipelines-for-text-classification-tutorial",
	"https://blog.example.com/sk-Learn-Tutorial-Part-2-Classification-Guide",
	"https://example.com/sk-SK/produkty",
	"https://example.com/wiki/ASIAPACIFICREGION2024",
	"https://example.com/wiki/AKIAIOSFODNN7EXAMPLES",
	"https://example.com/AKIAIOSFODNN7EXAMPLEabc",
	"https://example.com/tags/xoxo-gossip-girl-2024-recap",
	"https://example.com/xoxb-2024-recap",
	"https://example.com/stripe/sk_test_framework_guide",
	"https://example.com/sk_live_events",
	"https://example.com/docs/github_pat_rotation_policy_for_large_organisations",
	"https://example.com/glpat-rotation-guide-for-gitlab-admins",
	"https://example.com/npm_packages/foo",
	"https://example.com/hf_datasets/squad_v2",
	"https://example.com/huggingface/hf_transfer_for_large_model_downloads",
	"https://example.com/SG.logo.png",
	"https://example.com/ghost/ghost-blog-setup",
	"https://example.com/AIzaGuide/intro",
	"https://en.wikipedia.org/wiki/Eyjafjallaj%C3%B6kull",
	"https://en.wikipedia.org/wiki/Sk%C3%A5ne-sk-learn-overview-of-regional-dialects",
	"https://arxiv.org/abs/2401.12345v2",
	"https://doi.org/10.1000/xyz123",
	"https://www.example.com/articles/2024/05/some-long-article-slug.html",
}

func TestRedactURLPathNearMisses(t *testing.T) {
	for _, in := range pathNearMisses {
		got, had := RedactURL(in)
		if got != in || had {
			t.Errorf("RedactURL(%q) = %q, %v; want it unchanged", in, got, had)
		}
		if n := testing.AllocsPerRun(20, func() { RedactURL(in) }); n != 0 {
			t.Errorf("RedactURL(%q) allocates %v times, want 0", in, n)
		}
	}
	// Anchors are slugs too.
	for _, in := range []string{
		"https://scikit-learn.org/stable/install.html#sk-learn-installation-guide-for-windows-users",
		"https://example.com/doc#ghost-mode",
		"https://example.com/doc#AKIA",
	} {
		if got, _ := RedactURL(in); got != in {
			t.Errorf("RedactURL(%q) = %q; want it unchanged", in, got)
		}
	}
}

// BenchmarkRedactURLHostile: runs where a candidate token starts every few
// bytes must cost time linear in their length (compare the MB/s of the two
// sizes), in a host, a path segment and a query value alike.
func BenchmarkRedactURLHostile(b *testing.B) {
	for _, n := range []int{1 << 14, 1 << 17} {
		for _, unit := range []string{"sk-", "eyJa-", "github_pat_x_", "xoxb-1-", "SG.abcd-", "glpat-"} {
			run := strings.Repeat(unit, n/len(unit))
			for where, u := range map[string]string{"path": "https://x.example/" + run, "query": "https://x.example/?v=" + run,
				"host": "https://" + run + ".example/"} {
				b.Run(fmt.Sprintf("%s/%s/%d", where, strings.Trim(unit, "-_."), len(run)), func(b *testing.B) {
					b.SetBytes(int64(len(u)))
					for b.Loop() {
						RedactURL(u)
					}
				})
			}
		}
	}
}
