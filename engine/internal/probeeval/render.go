package main

import (
	"fmt"
	"html"
	"net/url"
	"strings"
)

// The page templates. Every answer carries per-request material (a CSP
// nonce, a CSRF token, a request id, a timestamp, and where the site has
// them a random sidebar or product grid), so that no two answers are byte
// identical: a probe that compares bytes learns nothing here, as on the
// real web. All text is hand-written for this set.

func escape(s string) string { return html.EscapeString(s) }

// chrome is a site's navigation wording in its language.
type chrome struct{ home, search, popular, related, signin string }

var chromes = map[string]chrome{
	"en": {"Home", "Search", "Popular now", "Related", "Sign in"},
	"de": {"Startseite", "Suche", "Meistgelesen", "Verwandte Artikel", "Anmelden"},
	"fr": {"Accueil", "Rechercher", "Les plus lus", "À lire aussi", "Se connecter"},
	"es": {"Inicio", "Buscar", "Lo más leído", "Relacionados", "Iniciar sesión"},
	"it": {"Home", "Cerca", "I più venduti", "Prodotti correlati", "Accedi"},
	"pt": {"Início", "Buscar", "Mais lidas", "Leia também", "Entrar"},
	"sv": {"Hem", "Sök", "Mest läst", "Relaterat", "Logga in"},
	"pl": {"Strona główna", "Szukaj", "Popularne", "Podobne wpisy", "Zaloguj się"},
	"cs": {"Úvod", "Hledat", "Nejčtenější", "Související", "Přihlásit"},
	"sk": {"Domov", "Hľadať", "Najčítanejšie", "Súvisiace", "Prihlásiť sa"},
	"et": {"Avaleht", "Otsi", "Populaarne", "Seotud", "Logi sisse"},
	"th": {"หน้าแรก", "ค้นหา", "ยอดนิยม", "เกี่ยวข้อง", "เข้าสู่ระบบ"},
	"ja": {"ホーム", "検索", "よく読まれている記事", "関連記事", "ログイン"},
	"zh": {"首页", "搜索", "热门", "相关帖子", "登录"},
	"tr": {"Ana sayfa", "Ara", "En çok okunanlar", "İlgili yazılar", "Giriş yap"},
	"ru": {"Главная", "Поиск", "Популярное", "Похожие материалы", "Войти"},
}

func chromeOf(h *Host) chrome {
	if c, ok := chromes[h.Lang]; ok {
		return c
	}
	return chromes["en"]
}

// head writes the document head; extra is style-specific markup.
func head(b *strings.Builder, h *Host, d dyn, title, extra string) {
	fmt.Fprintf(b, "<!DOCTYPE html>\n<html lang=\"%s\">\n<head>\n<meta charset=\"utf-8\">\n", escape(h.Lang))
	fmt.Fprintf(b, "<title>%s</title>\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n", escape(title))
	fmt.Fprintf(b, "<meta name=\"csrf-token\" content=\"%s\">\n%s", d.csrf, extra)
	fmt.Fprintf(b, "<script nonce=\"%s\">window.__BOOT__={\"rid\":\"%s\",\"ts\":\"%s\"};</script>\n</head>\n", d.nonce, d.reqID, d.stamp)
}

// header writes the site header, different per style.
func header(b *strings.Builder, h *Host) {
	c := chromeOf(h)
	switch h.Style {
	case "qa", "forum", "code":
		fmt.Fprintf(b, "<header class=\"topbar\"><a class=\"logo\" href=\"/\">%s</a><form action=\"/search\"><input name=\"q\" placeholder=\"%s…\"></form><a href=\"/login\">%s</a></header>\n",
			escape(h.Site), escape(c.search), escape(c.signin))
	case "shop":
		fmt.Fprintf(b, "<div class=\"nav-belt\"><a id=\"nav-logo\" href=\"/\">%s</a><form action=\"/search\"><input name=\"q\"><button>%s</button></form><a href=\"/cart\">🛒</a></div>\n",
			escape(h.Site), escape(c.search))
	case "wiki":
		fmt.Fprintf(b, "<div id=\"mw-head\"><a href=\"/\">%s</a> <form action=\"/search\"><input name=\"search\"></form></div>\n", escape(h.Site))
	default:
		fmt.Fprintf(b, "<header class=\"site-header\"><p class=\"site-title\"><a href=\"/\">%s</a></p><nav><a href=\"/\">%s</a> · <a href=\"/search\">%s</a> · <a href=\"/account\">%s</a></nav></header>\n",
			escape(h.Site), escape(c.home), escape(c.search), escape(c.signin))
	}
}

// aside writes a random pick of the host's sidebar (or of its pages).
func aside(b *strings.Builder, h *Host, d dyn, label string, n int) {
	items := h.Sidebar
	if len(items) == 0 {
		for _, p := range h.Pages {
			items = append(items, p.Title)
		}
	}
	if len(items) == 0 {
		return
	}
	fmt.Fprintf(b, "<aside class=\"sidebar\"><h2>%s</h2><ol>", escape(label))
	for _, it := range d.pick(items, n) {
		fmt.Fprintf(b, "<li><a href=\"/go/%d\">%s</a></li>", d.intn(900000)+100000, escape(it))
	}
	b.WriteString("</ol></aside>\n")
}

// footer closes the document with more per-request material.
func footer(b *strings.Builder, h *Host, d dyn) {
	fmt.Fprintf(b, "<footer><p>© %s</p><form method=\"post\" action=\"/newsletter\"><input type=\"hidden\" name=\"_token\" value=\"%s\"><input name=\"email\"></form>", escape(h.Site), d.csrf)
	fmt.Fprintf(b, "<!-- rendered %s req %s --></footer>\n<script nonce=\"%s\" src=\"/assets/app.js?v=%s\"></script>\n</body>\n</html>\n", d.stamp, d.reqID, d.nonce, d.reqID[:6])
}

// jsonLD is the structured data a page of this style carries.
func jsonLD(h *Host, p *Page, canon string) string {
	typ := map[string]string{"qa": "QAPage", "forum": "DiscussionForumPosting", "shop": "Product", "news": "NewsArticle",
		"blog": "BlogPosting", "video": "VideoObject", "docs": "TechArticle", "wiki": "Article", "code": "WebPage"}[h.Style]
	if typ == "" {
		return ""
	}
	name := "headline"
	if typ == "Product" || typ == "VideoObject" || typ == "QAPage" || typ == "WebPage" {
		name = "name"
	}
	q := func(s string) string { return strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), `"`, `\"`) }
	ld := fmt.Sprintf(`{"@context":"https://schema.org","@type":"%s","%s":"%s","url":"%s"`, typ, name, q(p.Title), q(canon))
	if p.Date != "" {
		ld += fmt.Sprintf(`,"datePublished":"%s"`, q(p.Date))
	}
	if p.Author != "" {
		ld += fmt.Sprintf(`,"author":{"@type":"Person","name":"%s"}`, q(p.Author))
	}
	return "<script type=\"application/ld+json\">" + ld + "}</script>\n"
}

// pageTitle is the <title> a style gives a page.
func pageTitle(h *Host, p *Page) string {
	switch h.Style {
	case "qa", "video":
		return p.Title + " - " + h.Site
	case "shop":
		return h.Site + ": " + p.Title
	case "code":
		return p.Title + " · Issue #" + p.ID + " · " + h.Site
	}
	return p.Title + " | " + h.Site
}

// renderPage is a real page.
func renderPage(h *Host, p *Page, d dyn) string {
	var b strings.Builder
	canon := "http://" + h.Host + p.Canonical
	desc := p.Body[0]
	if len([]rune(desc)) > 150 {
		desc = string([]rune(desc)[:150])
	}
	extra := fmt.Sprintf("<meta name=\"description\" content=\"%s\">\n<link rel=\"canonical\" href=\"%s\">\n<meta property=\"og:title\" content=\"%s\">\n<meta property=\"og:url\" content=\"%s\">\n<meta property=\"og:site_name\" content=\"%s\">\n%s",
		escape(desc), escape(canon), escape(p.Title), escape(canon), escape(h.Site), jsonLD(h, p, canon))
	head(&b, h, d, pageTitle(h, p), extra)
	b.WriteString("<body>\n")
	header(&b, h)
	c := chromeOf(h)
	switch h.Style {
	case "qa":
		fmt.Fprintf(&b, "<div id=\"content\"><div id=\"question-header\"><h1 itemprop=\"name\">%s</h1></div>\n<div class=\"question\"><div class=\"s-prose\">%s</div><div class=\"post-signature\">asked %s by %s</div></div>\n",
			escape(p.Title), para(p.Body[:1]), escape(p.Date), escape(p.Author))
		if len(p.Body) > 1 {
			fmt.Fprintf(&b, "<div id=\"answers\"><h2>%d Answers</h2><div class=\"answer\"><div class=\"s-prose\">%s</div></div></div>\n", len(p.Body)-1, para(p.Body[1:]))
		}
		b.WriteString("</div>\n")
	case "forum":
		fmt.Fprintf(&b, "<main><shreddit-post><h1 slot=\"title\">%s</h1><div class=\"author\">u/%s · %s</div><div slot=\"text-body\">%s</div></shreddit-post></main>\n",
			escape(p.Title), escape(p.Author), escape(p.Date), para(p.Body))
	case "shop":
		fmt.Fprintf(&b, "<div id=\"dp\"><h1 id=\"title\"><span id=\"productTitle\">%s</span></h1><div id=\"price\">%s</div><button id=\"add-to-cart\">Add to cart</button><div id=\"feature-bullets\">%s</div><p>%d ratings</p></div>\n",
			escape(p.Title), escape(p.Price), para(p.Body), d.intn(4000)+12)
	case "video":
		fmt.Fprintf(&b, "<div id=\"player\" data-video=\"%s\"></div><div id=\"info\"><h1 class=\"title\">%s</h1><div id=\"owner\">%s</div><div id=\"description\">%s</div><p>%d views</p></div>\n",
			escape(p.ID), escape(p.Title), escape(p.Author), para(p.Body), d.intn(900000)+1000)
	case "code":
		fmt.Fprintf(&b, "<main><div class=\"gh-header\"><h1 class=\"gh-header-title\"><bdi>%s</bdi> <span>#%s</span></h1><span class=\"State\">Open</span></div><div class=\"timeline-comment\"><strong>%s</strong> opened this issue on %s<div class=\"comment-body markdown-body\">%s</div></div></main>\n",
			escape(p.Title), escape(p.ID), escape(p.Author), escape(p.Date), para(p.Body))
	case "wiki":
		fmt.Fprintf(&b, "<div id=\"content\"><h1 id=\"firstHeading\">%s</h1><div id=\"siteSub\">From %s</div><div id=\"mw-content-text\">%s</div></div>\n",
			escape(p.Title), escape(h.Site), para(p.Body))
	default:
		fmt.Fprintf(&b, "<main><article><h1 class=\"entry-title\">%s</h1><p class=\"byline\">%s · <time datetime=\"%s\">%s</time></p><div class=\"entry-content\">%s</div></article></main>\n",
			escape(p.Title), escape(p.Author), escape(p.Date), escape(p.Date), para(p.Body))
	}
	label := c.related
	if h.Style == "news" {
		label = c.popular
	}
	aside(&b, h, d, label, 4)
	footer(&b, h, d)
	return b.String()
}

func para(ps []string) string {
	var b strings.Builder
	for _, p := range ps {
		b.WriteString("<p>" + escape(p) + "</p>")
	}
	return b.String()
}

// renderHome is the home page: an intro, the latest pages with their
// excerpts (as blog and news front pages show them), a random pick.
func renderHome(h *Host, d dyn) string {
	var b strings.Builder
	head(&b, h, d, h.Site, fmt.Sprintf("<link rel=\"canonical\" href=\"http://%s/\">\n<meta property=\"og:site_name\" content=\"%s\">\n", escape(h.Host), escape(h.Site)))
	b.WriteString("<body>\n")
	header(&b, h)
	b.WriteString("<main class=\"home\">")
	if h.HomeIntro != "" {
		fmt.Fprintf(&b, "<section class=\"intro\"><p>%s</p></section>", escape(h.HomeIntro))
	}
	b.WriteString("<section class=\"latest\"><ul>")
	for _, p := range h.Pages {
		fmt.Fprintf(&b, "<li><a href=\"%s\">%s</a> <small>%s</small><p class=\"excerpt\">%s</p></li>", escape(p.Canonical), escape(p.Title), escape(p.Date), escape(p.Body[0]))
	}
	b.WriteString("</ul></section></main>\n")
	aside(&b, h, d, chromeOf(h).popular, 5)
	footer(&b, h, d)
	return b.String()
}

// renderSearch is a search results page with a random set of results.
func renderSearch(h *Host, d dyn, q string) string {
	var b strings.Builder
	head(&b, h, d, fmt.Sprintf("%s: %s", h.Site, q), "<meta name=\"robots\" content=\"noindex\">\n")
	b.WriteString("<body>\n")
	header(&b, h)
	items := h.Products
	if len(items) == 0 {
		items = h.Sidebar
	}
	n := 3 + d.intn(6)
	fmt.Fprintf(&b, "<main><h1>%s “%s”</h1><p>%d results</p><ul class=\"results\">", escape(chromeOf(h).search), escape(q), n*7+d.intn(7))
	for _, it := range d.pick(items, n) {
		fmt.Fprintf(&b, "<li class=\"result\"><a href=\"/p/%d\">%s</a> <span class=\"price\">%d.%02d</span></li>", d.intn(90000)+10000, escape(it), d.intn(200)+5, d.intn(100))
	}
	b.WriteString("</ul></main>\n")
	footer(&b, h, d)
	return b.String()
}

// renderNotFound is the host's not-found page (served with 404 or, by a
// soft-404 site, with 200); it echoes the requested path as many do.
func renderNotFound(h *Host, d dyn, u *url.URL, withSidebar bool) string {
	var b strings.Builder
	head(&b, h, d, h.NotFound.Title, "<meta name=\"robots\" content=\"noindex\">\n")
	b.WriteString("<body class=\"error404\">\n")
	header(&b, h)
	h1 := h.NotFound.H1
	if h1 == "" {
		h1 = h.NotFound.Title
	}
	fmt.Fprintf(&b, "<main class=\"not-found\"><h1>%s</h1><p>%s</p><p class=\"requested\"><code>%s</code></p><form action=\"/search\"><input name=\"q\"><button>%s</button></form><p><a href=\"/\">%s</a></p></main>\n",
		escape(h1), escape(h.NotFound.Text), escape(u.Path), escape(chromeOf(h).search), escape(chromeOf(h).home))
	if withSidebar {
		aside(&b, h, d, chromeOf(h).popular, 5)
	}
	footer(&b, h, d)
	return b.String()
}

// renderWP404 is a WordPress theme's thin 404.php (title, one line, a
// search form), which a misconfigured site serves with 200.
func renderWP404(h *Host, d dyn) string {
	var b strings.Builder
	fmt.Fprintf(&b, "<!DOCTYPE html>\n<html lang=\"%s\">\n<head>\n<meta charset=\"UTF-8\">\n<title>%s</title>\n<meta name=\"robots\" content=\"noindex, follow\">\n", escape(h.Lang), escape(h.NotFound.Title))
	fmt.Fprintf(&b, "<script nonce=\"%s\">var wpNonce=\"%s\";</script>\n<link rel=\"stylesheet\" href=\"/wp-content/themes/twentytwentyone/style.css?ver=%s\">\n</head>\n", d.nonce, d.csrf[:10], d.reqID[:4])
	fmt.Fprintf(&b, "<body class=\"error404 hfeed\">\n<div id=\"page\" class=\"site\"><header id=\"masthead\"><p class=\"site-title\"><a href=\"/\">%s</a></p></header>\n", escape(h.Site))
	fmt.Fprintf(&b, "<main id=\"main\"><header class=\"page-header\"><h1 class=\"page-title\">%s</h1></header><div class=\"page-content\"><p>%s</p>", escape(h.NotFound.H1), escape(h.NotFound.Text))
	fmt.Fprintf(&b, "<form role=\"search\" method=\"get\" action=\"/\"><input type=\"search\" name=\"s\"><input type=\"submit\" value=\"%s\"></form></div></main>\n", escape(chromeOf(h).search))
	fmt.Fprintf(&b, "</div>\n<!-- generated %s -->\n</body>\n</html>\n", d.stamp)
	return b.String()
}

// renderShop404 is a shop's not-found page with a random product grid.
func renderShop404(h *Host, d dyn) string {
	var b strings.Builder
	head(&b, h, d, h.NotFound.Title, "")
	b.WriteString("<body class=\"template-404\">\n")
	header(&b, h)
	fmt.Fprintf(&b, "<main><h1>%s</h1><p>%s</p><h2>%s</h2><div class=\"product-grid\">", escape(h.NotFound.H1), escape(h.NotFound.Text), escape(chromeOf(h).popular))
	for _, it := range d.pick(h.Products, 8) {
		fmt.Fprintf(&b, "<div class=\"card\"><a href=\"/p/%d\">%s</a><span class=\"price\">€ %d,%02d</span></div>", d.intn(90000)+10000, escape(it), d.intn(300)+9, d.intn(100))
	}
	b.WriteString("</div></main>\n")
	footer(&b, h, d)
	return b.String()
}

// renderAzure is an Azure Storage static website's error body
// (WebContentNotFound), here passed on with 200 by a front end.
func renderAzure(d dyn) string {
	return fmt.Sprintf("<!DOCTYPE html><html><head><title>The requested content does not exist.</title></head><body><h1>The requested content does not exist.</h1><p><ul><li>HttpStatusCode: 404</li><li>ErrorCode: WebContentNotFound</li><li>RequestId : %s-%s</li><li>TimeStamp : %s</li></ul></p></body></html>\n",
		d.csrf[:8], d.reqID, d.stamp)
}

// renderChallenge is a CDN's interstitial challenge page.
func renderChallenge(h *Host, d dyn) string {
	return fmt.Sprintf("<!DOCTYPE html><html lang=\"en-US\"><head><title>Just a moment...</title><meta http-equiv=\"refresh\" content=\"390\"><meta name=\"robots\" content=\"noindex,nofollow\"></head><body><div class=\"main-wrapper\"><h1>%s</h1><p>Verifying you are human. This may take a few seconds.</p><noscript>Enable JavaScript and cookies to continue</noscript></div><script nonce=\"%s\">window._cf_chl_opt={cRay:'%s',cH:'%s',cZone:'%s'};</script><script src=\"/cdn-cgi/challenge-platform/h/b/orchestrate/chl_page/v1?ray=%s\"></script></body></html>\n",
		escape(h.Host), d.nonce, d.reqID, d.csrf, escape(h.Host), d.reqID)
}

// renderSPA is a single-page application's shell: the same for every path.
func renderSPA(h *Host, d dyn) string {
	return fmt.Sprintf("<!DOCTYPE html><html lang=\"%s\"><head><meta charset=\"utf-8\"><title>%s</title><meta name=\"viewport\" content=\"width=device-width,initial-scale=1\"><link rel=\"stylesheet\" href=\"/static/css/main.4f1c2a.css\"><script nonce=\"%s\">window.__CONFIG__={\"session\":\"%s\",\"t\":\"%s\"};</script></head><body><noscript>You need to enable JavaScript to run this app.</noscript><div id=\"root\"></div><script src=\"/static/js/main.8d3e91.js\"></script></body></html>\n",
		escape(h.Lang), escape(h.Site), d.nonce, d.csrf, d.stamp)
}

// renderUnavailable is a video site's page for an id it does not have:
// 200, the site's name as title, one line and random recommendations.
func renderUnavailable(h *Host, d dyn) string {
	var b strings.Builder
	head(&b, h, d, " - "+h.Site, "")
	b.WriteString("<body>\n")
	header(&b, h)
	fmt.Fprintf(&b, "<div id=\"player\" class=\"unavailable\"><div class=\"reason\">%s</div><div class=\"subreason\">%s</div></div>\n", escape(h.NotFound.H1), escape(h.NotFound.Text))
	aside(&b, h, d, "Up next", 6)
	footer(&b, h, d)
	return b.String()
}
