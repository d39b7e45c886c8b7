package classify

import (
	"bytes"
	"cmp"
	"strings"
)

// Paywalls and login walls: a real, citable source behind a barrier
// (paywalled: may be cited, with caution). Sources: anchors.md §D "Paywall
// signals" — Google's isAccessibleForFree structured data, content_tier
// meta, paywall vendor scripts, subscription and login phrases over a
// teaser — plus sign-in pages: a page whose content is a sign-in form, met
// directly or after a redirect.

// paywallVendors: script sources and inline snippets of paywall and
// membership vendors (anchors.md §D "Paywall vendor scripts"; the issue
// adds Zephr and Laterpay).
var paywallVendors = []struct{ pat, name string }{
	{"tinypass", "piano/tinypass"},
	{"piano.io", "piano/tinypass"},
	{"setaid", "piano/tinypass"},
	{"poool.fr", "poool"},
	{"poool.", "poool"},
	{"zephr", "zephr"},
	{"pelcro", "pelcro"},
	{"laterpay", "laterpay"},
	{"memberful", "memberful"},
	{"steadyhq.com", "steady"},
	{"leaky-paywall", "leaky paywall"},
	{"wallkit", "wallkit"},
}

// paywallVendor names the vendor whose script b (a src URL or an inline
// script) loads, or "". Inline scripts are matched as written, so the
// patterns are tried in lower case and in the vendors' usual spellings.
func paywallVendor(b []byte) string {
	for _, v := range paywallVendors {
		if bytes.Contains(b, []byte(v.pat)) {
			return v.name
		}
	}
	if bytes.Contains(b, []byte("setAid")) || bytes.Contains(b, []byte("Tinypass")) {
		return "piano/tinypass"
	}
	return ""
}

// subscriptionPhrases and loginPhrases mark a wall over a teaser. Short,
// common phrases ("already a subscriber? sign in", "read more") are left
// out on purpose: they sit in the header of free articles too.
var subscriptionPhrases = phrases(
	"subscribe to continue reading", "subscribe to continue", "subscribe to read the full", "subscribe to read more",
	"subscribe now to continue", "subscribe now to read", "subscribe to unlock", "subscribe or sign in",
	"to continue reading subscribe", "continue reading with a subscription", "continue reading your article with",
	"this article is for subscribers", "this article is only available to subscribers", "this content is for subscribers",
	"this story is for subscribers", "available to subscribers only", "exclusive to subscribers", "for subscribers only",
	"subscribers only", "subscription required", "only available to premium", "this is premium content",
	"for premium subscribers", "you have reached your limit of free articles", "you've reached your limit of free articles",
	"you have reached your free article limit", "you've reached your free article limit",
	"you've used all of your free articles", "you have used all of your free articles", "you've read your last free article",
	"become a subscriber to continue", "to keep reading subscribe", "unlock this article", "to read the full story",
	"to read the full article", "to read this article in full", "to read the rest of this article",
	// German, French, Spanish, Italian, Portuguese, Dutch, Polish.
	"nur fur abonnenten", "exklusiv fur abonnenten", "dieser artikel ist nur fur abonnenten", "jetzt abonnieren und weiterlesen",
	"reserve aux abonnes", "cet article est reserve aux abonnes", "abonnez vous pour lire", "exclusivo para suscriptores",
	"solo para suscriptores", "suscribete para seguir leyendo", "riservato agli abbonati", "abbonati per continuare a leggere",
	"exclusivo para assinantes", "assine para continuar lendo", "alleen voor abonnees", "tylko dla prenumeratorow",
)

var loginPhrases = phrases(
	"sign in to continue reading", "log in to continue reading", "login to continue reading", "sign in to read",
	"log in to read", "sign in to continue", "log in to continue", "login to continue", "you must be logged in",
	"you need to be logged in", "you must log in", "please log in to view", "please sign in to view", "please log in to access",
	"please log in to continue", "sign in to view", "sign in to access", "log in to view", "login to view this content",
	"register to continue reading", "register for free to continue", "create a free account to continue",
	"sign up to continue reading", "join now or sign in", "sign in or register to continue", "log in or register to",
	"register or log in to", "this content is for members only", "members only content", "members-only content",
	"become a member to read", "you must be a member", "join to read",
	// German, French, Spanish, Italian, Portuguese, Dutch, Polish: "… to read on".
	"um weiterzulesen", "pour lire la suite de cet article", "para seguir leyendo", "per continuare a leggere",
	"para continuar lendo", "om verder te lezen", "aby czytac dalej", "aby przeczytac caly artykul",
)

// membersOnly is a bare "members only" sign, counted on a thin page.
var membersOnly = phrases("members only", "member only", "nur fur mitglieder", "reserve aux membres", "solo para miembros")

// loginTitles are title segments of sign-in pages, in the languages of
// soft404's tables.
var loginTitles = phrases(
	"sign in", "log in", "login", "log on", "logon", "sign on", "signin", "sign in to your account", "log in to your account",
	"sign in to continue", "login page", "login required", "sign in required", "authentication", "authentication required",
	"online banking", "outlook web app", "outlook", "webmail", "single sign on", "member login", "members login",
	"subscriber login", "account login", "customer login", "client login", "secure login", "user login", "staff login",
	"portal login", "admin login", "sign in or register", "log in or register",
	"anmelden", "anmeldung", "einloggen", "connexion", "se connecter", "identification", "iniciar sesion",
	"inicio de sesion", "acceso", "acceder", "entrar", "ingresar", "iniciar sessao", "fazer login", "accedi", "accesso",
	"area riservata", "inloggen", "aanmelden", "logowanie", "zaloguj sie", "zaloguj", "prihlaseni", "prihlasit se",
	"logga in", "inloggning", "вход", "войти", "авторизация", "вход в систему", "вход в личный кабинет", "登录", "登入",
	"用户登录", "登錄", "ログイン", "サインイン", "로그인", "giris yap", "bejelentkezes", "kirjaudu", "log ind", "logg inn",
	"autentificare", "συνδεση",
)

// loginFiller may surround a sign-in phrase in a title segment.
var loginFiller = words2set("to your my the a account page please here now secure member members user customer client " +
	"staff portal online required continue web app area and or with")

// loginTitle reports a title or first heading that names a sign-in page.
func loginTitle(in *pageInfo) bool {
	for _, t := range in.titles() {
		for _, seg := range titleParts(t) {
			for _, p := range loginTitles {
				if seg == p.text || (p.in(seg) && onlyWords(removePhrase(seg, p), loginFiller)) {
					return true
				}
			}
		}
	}
	return false
}

// loginPage reports a page whose content is a sign-in form: a visible
// password field under a sign-in title, a thin page that is mostly a
// password field, or (a two-step sign-in that asks for the user name
// first) a sign-in title over a form and almost no text. A password form
// posting to a sign-in endpoint alone is not enough: ordinary pages carry
// one in their header.
func loginPage(in *pageInfo) bool {
	title := loginTitle(in)
	switch {
	case in.password && title:
		return true
	case in.password && in.mainRunes < vendorThin:
		return true
	case title && (in.forms > 0 || in.userField) && in.mainRunes < vendorThin:
		return true
	}
	return false
}

// Thresholds, in runes of readable text.
const (
	// paywallThin: subscription/login phrases only count on a page that
	// does not also carry the article (a teaser plus a wall).
	paywallThin = 3000
	// vendorThin: a paywall vendor script with no other sign counts when
	// the page shows no more than a teaser.
	vendorThin = 1000
)

// detectPaywall finds the paywall declared by the page.
func detectPaywall(p Page, in *pageInfo) finding {
	switch {
	case in.freeFalse != "":
		return finding{strings.ToLower(in.freeFalse) + "-free-false", in.freeFalse + " " + evidence("isAccessibleForFree=false")}
	case in.contentTier == "locked" || in.contentTier == "metered":
		return finding{"content-tier", "meta " + evidence("content_tier="+in.contentTier)}
	}
	if r, to := loginRedirect(p); r != "" {
		return finding{"login-redirect", r + ", redirected to " + evidence(to)}
	}
	if loginPage(in) {
		t := in.bestTitle()
		if t == "" {
			t = in.firstHeading()
		}
		return finding{"login-page", "login wall (sign-in page), title " + evidence(t)}
	}
	thin := in.mainRunes < paywallThin
	if in.vendor == "" && !thin {
		return finding{} // the page carries its text and declares nothing
	}
	f := fold(in.text)
	sub, _ := firstPhrase(f, subscriptionPhrases)
	login, _ := firstPhrase(f, loginPhrases)
	if in.vendor != "" && (sub != "" || login != "" || in.mainRunes < vendorThin) {
		ev := "script " + evidence(in.vendor)
		if said := cmp.Or(sub, login); said != "" {
			ev += ", page says " + evidence(said)
		}
		return finding{"vendor-script", in.vendor + ", " + ev}
	}
	if thin {
		switch {
		case sub != "":
			return finding{"subscription-phrase", "subscription wall, page says " + evidence(sub)}
		case login != "":
			return finding{"login-phrase", "login wall, page says " + evidence(login)}
		}
		if m, ok := firstPhrase(f, membersOnly); ok && in.mainRunes < vendorThin {
			return finding{"members-only", "login wall, page says " + evidence(m)}
		}
	}
	return finding{}
}
