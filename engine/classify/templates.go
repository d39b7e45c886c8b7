package classify

import (
	"regexp"
	"strconv"
	"strings"
)

// Server and framework error templates, and bodies that state their own
// status. Each names the status it reports; 404 and 410 make the page a
// soft 404, any other makes it an error page (escalated, like the status
// itself would be).
var (
	reHTTPStatus = regexp.MustCompile(`\bhttp status (\d{3})\b`)
	reIISTitle   = regexp.MustCompile(`\bdetailed error (\d{3})\b`)
	reHTTPError  = regexp.MustCompile(`\bhttp error (\d{3})\b`)
	reSpringCode = regexp.MustCompile(`\bstatus (\d{3})\b`)
)

// template is a recognised error template: the status it reports, its
// name, and the evidence (quoted) it was recognised by.
type template struct {
	code           int
	name, evidence string
}

// serverTemplate recognises a server or framework error page.
func serverTemplate(in *pageInfo) template {
	title := fold(in.title)
	head := fold(in.firstHeading())
	lead := fold(rawLead(in))
	code := func(re *regexp.Regexp, ss ...string) int {
		for _, s := range ss {
			if m := re.FindStringSubmatch(s); m != nil {
				n, _ := strconv.Atoi(m[1])
				return n
			}
		}
		return 0
	}
	// The evidence is what a reader recognises the template by: its
	// title, else its first heading, else the start of its text.
	ev := func(c int, name string) template {
		for _, s := range []struct{ what, s string }{{"title", in.title}, {"heading", in.firstHeading()}, {"page says", rawLead(in)}} {
			if s.s != "" {
				return template{c, name, s.what + " " + evidence(runePrefix(s.s, 120))}
			}
		}
		return template{c, name, `title ""`}
	}
	switch {
	case strings.Contains(title, "error report") && (strings.Contains(title, "tomcat") || strings.Contains(title, "jboss") ||
		strings.Contains(title, "jbweb") || strings.Contains(title, "glassfish") || strings.Contains(title, "wildfly")):
		if c := code(reHTTPStatus, head, lead, title); c != 0 {
			return ev(c, "Java server error report")
		}
		if strings.Contains(lead, "the requested resource is not available") || strings.Contains(lead, "not found") {
			return ev(404, "Java server error report")
		}
		return ev(500, "Java server error report")
	case strings.Contains(title, "detailed error") && strings.Contains(title, "iis"):
		if c := code(reIISTitle, title); c != 0 {
			return ev(c, "IIS detailed error")
		}
	case strings.Contains(lead, "server error in") && strings.Contains(lead, "application"):
		if strings.Contains(lead, "the resource cannot be found") || strings.Contains(lead, "http 404") {
			return ev(404, "ASP.NET error")
		}
		return ev(500, "ASP.NET error")
	case strings.Contains(title+" "+head, "whitelabel error page"):
		if c := code(reSpringCode, lead); c != 0 {
			return ev(c, "Spring Whitelabel error")
		}
		return ev(500, "Spring Whitelabel error")
	case in.mainRunes < 200 && strings.HasPrefix(lead, "cannot get "):
		return ev(404, `Express "Cannot GET"`)
	}
	// "HTTP Status 404 – Not Found" names a status page when the page is
	// thin; a longer page under such a title is about the status.
	if c := code(reHTTPStatus, title, head); c != 0 && in.mainRunes < soft404Thin {
		return ev(c, "HTTP status page")
	}
	if c := code(reHTTPError, title, head); c != 0 && in.mainRunes < soft404Thin {
		return ev(c, "HTTP error page")
	}
	if in.kind == kindXML {
		raw := in.rawLower()
		for _, c := range storageCodes {
			if strings.Contains(raw, "<code>"+c.code+"</code>") {
				return template{c.status, "object storage error", "code " + evidence(c.code)}
			}
		}
	}
	return template{}
}

// storageCodes are the error codes object stores put in an XML error body
// (S3 and compatible stores, Google Cloud Storage, Azure Blob Storage).
var storageCodes = []struct {
	code   string // lowercased
	status int
}{
	{"nosuchkey", 404}, {"nosuchbucket", 404}, {"blobnotfound", 404}, {"containernotfound", 404},
	{"resourcenotfound", 404}, {"webcontentnotfound", 404}, {"accessdenied", 403},
}

// A body that carries its own status: "HttpStatusCode: 404" in an Azure
// static website's error page, {"status":404,"error":"Not Found"} from
// Spring Boot, {"statusCode":404} from NestJS, {"error":{"code":404}} from
// Google APIs, "ErrorCode: WebContentNotFound". Only on a thin body: an
// article about HTTP may quote such a field (and code blocks are not read).
var (
	reStatusField = regexp.MustCompile(`(?i)"?\b((?:http[ _-]?)?status[ _-]?code|http[ _-]?status|status|error[ _-]?code|code)"?\s*[:=]\s*"?(\d{3})\b`)
	reErrorCode   = regexp.MustCompile(`(?i)"?\berror[ _-]?code"?\s*[:=]\s*"?([a-z]*notfound|nosuchkey|nosuchbucket)\b`)
)

// statusFieldMax: a body with more readable text than this is not an
// error body.
const statusFieldMax = 600

// statusField finds a 404 or 410 that a thin body states about itself.
func statusField(in *pageInfo) finding {
	if in.mainRunes >= statusFieldMax || in.kind == kindPDF || in.kind == kindBinary {
		return finding{}
	}
	text := in.prose.String()
	if in.kind == kindJSON || in.kind == kindXML {
		text = string(in.raw)
	}
	text = runePrefix(text, 2*statusFieldMax)
	for _, m := range reStatusField.FindAllStringSubmatch(text, 4) {
		n, _ := strconv.Atoi(m[2])
		if !notFoundCode(n) {
			continue
		}
		// A bare "code" needs an error beside it ({"code":404,"message":…}),
		// and so does a bare "status" outside JSON: an order has a status
		// too.
		bare := strings.EqualFold(m[1], "code") || (strings.EqualFold(m[1], "status") && in.kind != kindJSON)
		if bare && !errorBeside(text) {
			continue
		}
		return finding{"status-field", "body says " + evidence(m[0])}
	}
	if m := reErrorCode.FindString(text); m != "" {
		return finding{"status-field", "body says " + evidence(m)}
	}
	// {"detail":"Not found."}: a JSON body whose only words are an error.
	if in.kind == kindJSON && in.mainRunes < 120 && notFoundTitle(in.text) {
		return finding{"error-body", "body says " + evidence(in.text)}
	}
	return finding{}
}

// errorBeside reports an error word next to a bare code field.
func errorBeside(text string) bool {
	low := strings.ToLower(text)
	for _, w := range []string{"error", "not found", "not_found", "notfound", "message", "does not exist"} {
		if strings.Contains(low, w) {
			return true
		}
	}
	return false
}

// placeholderPhrases stand where a site's content used to be.
var placeholderPhrases = phrases(
	"this domain is for sale", "domain is for sale", "buy this domain", "this domain may be for sale",
	"the domain has expired", "this domain name has expired", "domain has expired", "this domain is parked",
	"parked free courtesy of godaddy", "this web page is parked", "parked domain", "domain parking",
	"there isn't a github pages site here", "no such app", "the deployment could not be found", "deployment not found",
	"this account has been suspended", "account suspended", "site not found", "domain not configured",
	"welcome to nginx", "apache2 ubuntu default page", "apache2 debian default page", "test page for the apache http server",
	"iis windows server", "default web site page", "this site can't be reached", "web server's default page",
)

// placeholder names a hosting placeholder page.
func placeholder(in *pageInfo) finding {
	if in.mainRunes >= soft404Thin {
		return finding{}
	}
	// The text is read without quoted material: a guide to replacing the
	// "Welcome to nginx!" page shows it in a code block.
	for _, s := range []struct{ what, s string }{{"title", in.title}, {"heading", in.firstHeading()}, {"page says", unquoted(in.prose.String())}} {
		if p, ok := firstPhrase(fold(s.s), placeholderPhrases); ok {
			if s.what != "page says" {
				p = s.s // a title or heading is quoted as written
			}
			return finding{"placeholder", s.what + " " + evidence(p)}
		}
	}
	return finding{}
}

// errorPage finds an error page served with a success status — a server
// template for a status other than 404, or a status line as the title —
// and the status it reports (0 when none is named). Such a page is not
// the cited content; it is judged like the status it reports.
func errorPage(in *pageInfo) (int, finding) {
	if in.kind == kindPDF || in.kind == kindBinary {
		return 0, finding{}
	}
	if t := serverTemplate(in); t.code != 0 && !notFoundCode(t.code) {
		return t.code, finding{"server-template", t.name + " " + strconv.Itoa(t.code) + ", " + t.evidence}
	}
	// A title or first heading that is a status line or an error's name;
	// on a page with the text of an article, a title says nothing (an
	// encyclopedia entry on "Internal server error" is an article).
	for _, t := range in.titles() {
		if in.mainRunes >= leadMaxPage || in.articlePage() {
			break
		}
		for _, seg := range titleParts(t) {
			if code, ok := statusPart(seg); ok && !notFoundCode(code) {
				return code, finding{"title-status", "title " + evidence(t)}
			}
			if p, ok := firstPhrase(seg, errorTitles); ok && seg == p && (in.mainRunes < wallThin || !genericErrorTitles[p]) {
				return 0, finding{"title-error", "title " + evidence(t)}
			}
		}
	}
	if in.mainRunes < wallThin {
		for _, s := range append(ownHeadings(in), unquoted(in.prose.String())) {
			if p, ok := firstPhrase(fold(s), errorPhrases); ok {
				return 0, finding{"error-phrase", "page says " + evidence(p)}
			}
		}
	}
	return 0, finding{}
}

// errorTitles are whole title segments of error pages.
var errorTitles = phrases("internal server error", "service unavailable", "service temporarily unavailable",
	"bad gateway", "gateway timeout", "gateway time out", "bad request", "method not allowed", "application error",
	"runtime error", "server error", "database error", "unexpected error", "an error occurred", "error", "system error",
	"web server is down", "connection timed out", "origin is unreachable", "temporarily unavailable", "too many requests",
	"rate limited", "rate limit exceeded")

// genericErrorTitles name no status: they count only on a thin page.
var genericErrorTitles = map[string]bool{"error": true, "server error": true, "system error": true, "an error occurred": true,
	"unexpected error": true, "application error": true, "runtime error": true, "database error": true}

// errorPhrases are sentences of generic error pages, on a thin page.
var errorPhrases = phrases("error establishing a database connection", "an error occurred while processing your request",
	"an error occurred in the application and your page could not be served", "the server encountered an internal error",
	"the server is temporarily unable to service your request", "web server is returning an unknown error",
	"the web server reported a bad gateway error", "the web server reported a gateway time out error")
