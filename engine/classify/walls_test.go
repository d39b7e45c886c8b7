package classify

import (
	"strings"
	"testing"
)

// TestWallsAnyStatus: challenge and block pages escalate whatever status
// they come with — never valid, never paywalled, never invalid.
func TestWallsAnyStatus(t *testing.T) {
	css := "<style>" + strings.Repeat(".c-123{display:flex;margin:0 auto;padding:4px 8px}", 2000) + "</style>"
	for _, tc := range []struct{ name, body, vendor string }{
		{"sucuri js cookie challenge", `<html><title>You are being redirected...</title><noscript>Javascript is required.</noscript>` +
			`<script>var s={},u,c,U,r,i,l=0,a,e=eval,w=String.fromCharCode,sucuri_cloudproxy_js='',S='cz0iNSIu';document.cookie='sucuri_cloudproxy_uuid_1=' + r;location.reload();</script></html>`, "sucuri"},
		{"captcha marker past 64 KiB of inline CSS", `<!doctype html><html><head><title>reddit.com: Are you a human?</title>` + css + `</head><body>` +
			`<p>Please prove you are a person to continue.</p><div class="g-recaptcha" data-sitekey="6Lx"></div></body></html>`, "captcha"},
		{"sina visitor system", `<html><head><title>Sina Visitor System</title></head><body><script src="https://passport.weibo.com/visitor/visitor.js"></script></body></html>`, "sina visitor system"},
		{"anubis", `<!doctype html><html><head><title>Making sure you&#39;re not a bot!</title><script id="anubis_challenge" type="application/json">{"challenge":"ab"}</script></head><body><h1>Making sure you&#39;re not a bot!</h1><p>Loading...</p></body></html>`, "anubis"},
		{"user-agent ban", doc("Blocked", `<h1>Your user agent is not allowed</h1><p>Requests from automated clients are refused. Contact the webmaster if you think this is a mistake.</p>`), "user-agent ban"},
		{"412 request filter page", doc("412 Precondition Failed", `<h1>Precondition Failed</h1><p>The request was rejected by the request filter.</p>`), "request filter"},
		{"aws waf captcha without its header", `<!DOCTYPE html><html lang="en"><head><title></title><script src="https://example.token.awswaf.com/abc/challenge.js"></script>` +
			`<script>window.awsWafCookieDomainList = [];window.gokuProps = {"key":"AQID","iv":"A6we","context":"Wz"};</script></head><body><div id="captcha-container"></div>` +
			`<script>AwsWafIntegration.saveReferrer();</script></body></html>`, "aws waf"},
		{"cloudflare challenge text in a hidden div", `<!DOCTYPE html><html><head><title>Just a moment...</title></head><body><div class="cf-browser-verification">` +
			`<h1>Checking your browser before accessing example.org.</h1><p>This process is automatic.</p></div>` +
			`<div style="display:none;visibility:hidden;" id="cf-dn">` + strings.Repeat("+((!+[]+(!![])+!![]+[])", 400) + `</div>` +
			`<form id="challenge-form" action="/?__cf_chl_jschl_tk__=abc" method="POST"><input type="hidden" name="jschl_vc" value="1"/></form></body></html>`, "cloudflare challenge"},
		{"cloudflare challenge just over the thin-page threshold", `<!DOCTYPE html><html><head><title>Attention Required! | Cloudflare</title></head><body>` +
			`<script>window._cf_chl_opt={cvId:'2',cType:'managed'};</script><p>` + strings.Repeat("Why have I been blocked? This website is using a security service to protect itself from online attacks. ", 20) + `</p></body></html>`, "cloudflare challenge"},
	} {
		for _, st := range []int{200, 401, 403, 412, 503} {
			p := page200(tc.body)
			p.StatusCode = st
			v := Classify(p, Citation{}, Standard)
			if v.Outcome != Escalate || !strings.HasPrefix(v.Reason, "bot wall [") || !strings.Contains(v.Reason, "]: "+tc.vendor) {
				t.Errorf("%s (http %d) = %v %q, want escalate for %q", tc.name, st, v.Outcome, v.Reason, tc.vendor)
			}
		}
	}
}

// TestNotWalls: ordinary pages that mention or load wall vendors.
func TestNotWalls(t *testing.T) {
	for _, tc := range []struct{ name, body string }{
		{"contact page with a captcha widget and text", doc("Contact us | Example Council", `<h1>Contact us</h1><p>Write to the council about bins, parking permits, planning applications or anything else; we answer within five working days and publish the most common questions with their answers on this page every month.</p><form action="/contact"><textarea name="m"></textarea><div class="g-recaptcha" data-sitekey="x"></div></form>`+filler)},
		{"article about bot walls", doc("How websites tell people from bots", "<article><h1>How websites tell people from bots</h1><p>When a page says it is checking your browser before accessing a site, a challenge is running.</p>"+articleText+"</article>")},
		{"sign-in page with a captcha", doc("Sign in | Example Portal", `<h1>Sign in</h1><form action="/login"><input type="text" name="u"><input type="password" name="p"><div class="g-recaptcha"></div></form>`)},
	} {
		v := Classify(page200(tc.body), Citation{}, Standard)
		if v.Outcome == Escalate || v.Outcome == Invalid {
			t.Errorf("%s = %v %q", tc.name, v.Outcome, v.Reason)
		}
	}
}

// TestTitleOnlyAndShells: a page that is a title and nothing else, or a
// redirect done by script, is not meaningful content.
func TestTitleOnlyAndShells(t *testing.T) {
	for _, tc := range []struct{ name, body, reason string }{
		{"js challenge: title and no text", `<html><head><title>example.org</title><script src="/149e9513-01fa/ips.js"></script></head><body></body></html>`, `no meaningful content [title-only]: title "example.org", 0 chars of text`},
		{"js redirect shell", `<html><head><title>Example News</title><script>window.location.href="/story?id=1&js=1";</script></head><body><noscript>Please enable JavaScript.</noscript></body></html>`, `no meaningful content [redirect-shell]: a redirect by script or meta refresh, title "Example News"`},
	} {
		v := Classify(page200(tc.body), Citation{}, Standard)
		if v.Outcome != Escalate || v.Reason != tc.reason {
			t.Errorf("%s = %v %q, want escalate %q", tc.name, v.Outcome, v.Reason, tc.reason)
		}
	}
}

// TestLoginWalls: sign-in pages served directly and teasers are
// paywalled with the note "login wall"; ordinary pages with a login box
// in the header are not.
func TestLoginWalls(t *testing.T) {
	terms := strings.Repeat("<p>This is a U.S. Government information system for authorized use only. Use of this system constitutes consent to monitoring, recording and audit.</p>", 40)
	for _, tc := range []struct{ name, body, reason string }{
		{"bank", doc("Online Banking | Example Bank", `<h1>Welcome</h1><form action="/auth/login" method="post"><input name="user"><input type="password" name="pw"><button>Sign in</button></form>`), `paywall [login-page]: login wall (sign-in page), title "Online Banking | Example Bank"`},
		{"staffing portal with long terms", doc("Example Staffing - Sign In", `<form action="/account/signin"><input name="UserName"><input type="password" name="Password"></form>`+terms), `paywall [login-page]: login wall (sign-in page), title "Example Staffing - Sign In"`},
		{"outlook web app", doc("Outlook Web App", `<form action="/owa/auth.owa" method="POST"><input id="username" name="username"><input id="password" type="password" name="password"><span>Sign in</span></form>`), `paywall [login-page]: login wall (sign-in page), title "Outlook Web App"`},
		{"wordpress", doc("Log In ‹ Example Site — WordPress", `<div id="login"><form name="loginform" id="loginform" action="https://example.org/wp-login.php" method="post"><input type="text" name="log"><input type="password" name="pwd"></form><p><a href="/">← Go to Example Site</a></p></div>`), `paywall [login-page]: login wall (sign-in page), title "Log In ‹ Example Site — WordPress"`},
		{"polish app login", doc("Logowanie", `<form action="/Konto/LogOn" method="post"><input name="UserName"><input type="password" name="Password"><input type="submit" value="ZALOGUJ SIE"></form><p>Nie masz konta? Zarejestruj sie</p>`), `paywall [login-page]: login wall (sign-in page), title "Logowanie"`},
		{"two-step sign-in", doc("Sign in – Example Accounts", `<h1>Sign in</h1><form action="/v3/signin/identifier"><input type="email" name="identifier"><button>Next</button></form>`), `paywall [login-page]: login wall (sign-in page), title "Sign in – Example Accounts"`},
		{"members-only teaser", doc("Port congestion eases | Trade Weekly", `<article><h1>Port congestion eases</h1><p>Container queues shrank to their lowest level in two years in January.</p><div><h2>Members only</h2><p>Join now or sign in to read the full story.</p></div></article>`), `paywall [subscription-phrase]: subscription wall, page says "to read the full story"`},
	} {
		v := Classify(page200(tc.body), Citation{}, Standard)
		if v.Outcome != Paywalled || v.Reason != tc.reason {
			t.Errorf("%s = %v %q, want paywalled %q", tc.name, v.Outcome, v.Reason, tc.reason)
		}
	}
	// An article whose header carries a login box stays valid.
	header := `<header><form action="/login" method="post"><input name="u"><input type="password" name="p"><button>Log in</button></form></header>`
	if v := Classify(page200(doc("Council approves transit plan | Example News", header+"<article><h1>Council approves transit plan</h1>"+articleText+"</article>")), Citation{}, Standard); v.Outcome != Valid {
		t.Errorf("article with a header login box = %v %q", v.Outcome, v.Reason)
	}
	// A redirect to a sign-in page is a login wall too.
	p := redirectTo(page200(doc("Sign in", `<form action="/login"><input type="password"></form>`)), "https://www.dailyplanet.example/account/login?next=%2Fbusiness", articleURL)
	if v := Classify(p, Citation{}, Standard); v.Outcome != Paywalled || !strings.Contains(v.Reason, "login wall") {
		t.Errorf("redirect to sign-in = %v %q", v.Outcome, v.Reason)
	}
}
