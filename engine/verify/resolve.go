// Resolving a cited URL or DOI to text a judge can read.

package verify

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/citegate/citegate/engine/classify"
	"github.com/citegate/citegate/engine/pdftext"
	"github.com/citegate/citegate/netguard"
	"github.com/citegate/citegate/parse"
)

func orInt(v, d int) int {
	if v <= 0 {
		return d
	}
	return v
}

// CitableKey is the normalized form of a citation's target, the key of
// citations.jsonl.
func CitableKey(c parse.Citation) string {
	u := c.Target
	if c.TargetKind == parse.CiteDOI {
		u = "https://doi.org/" + c.Target
	}
	n, err := parse.Normalize(u)
	if err != nil {
		return ""
	}
	r, _ := netguard.RedactURL(n)
	return r
}

// notCitable reports whether the run's Gate C forbids citing c's source.
func notCitable(gate func(string) (string, bool, bool), c parse.Citation) bool {
	if gate == nil {
		return false
	}
	_, citable, ok := gate(CitableKey(c))
	return ok && !citable
}

// resolveSource fetches a cited URL or DOI through the guard and reduces it
// to readable text. A paywall or bot wall is reported as such (the same
// classifier as validation), not as a bad status. A DOI whose landing page
// is walled falls back to its registration metadata (title and abstract
// from doi.org content negotiation), which settles that the work exists.
func resolveSource(ctx context.Context, guard *netguard.Guard, resolver, target string, kind parse.CiteKind) *fetchedSource {
	url := target
	if kind == parse.CiteDOI {
		url = doiURL(resolver, target)
	}
	resp, err := guard.Fetch(ctx, netguard.Request{Method: http.MethodGet, URL: url,
		Header: http.Header{"Accept": {"text/html,application/xhtml+xml,text/plain;q=0.9,*/*;q=0.5"}}})
	src := &fetchedSource{}
	if resp != nil {
		src.info = SourceInfo{URL: cmp.Or(resp.FinalURL, netguard.RedactText(url)), Status: resp.StatusCode,
			ContentType: resp.Header.Get("Content-Type"), BytesFetched: len(resp.Body), Truncated: resp.Truncated}
	}
	if err != nil && !errors.Is(err, netguard.ErrBodyTooLarge) {
		src.err = &ResolveError{fetchErrorKind(err), netguard.Reason(err)}
		return doiFallback(ctx, guard, resolver, target, kind, src)
	}
	page := classify.Page{RequestedURL: url, FinalURL: resp.FinalURL, StatusCode: resp.StatusCode, Header: resp.Header,
		Body: resp.Body, Truncated: resp.Truncated, ContentType: resp.Header.Get("Content-Type")}
	v := classify.Classify(page, classify.Citation{}, classify.Standard)
	isPDF := pdftext.Is(src.info.ContentType, resp.Body)
	switch {
	case v.Outcome == classify.Paywalled:
		src.err = &ResolveError{"paywalled", "the source is behind a paywall or login wall: " + v.Reason}
	case v.Outcome == classify.Escalate && strings.HasPrefix(v.Reason, "bot wall"):
		src.err = &ResolveError{"blocked", "the source site blocks automated access: " + v.Reason}
	case resp.StatusCode < 200 || resp.StatusCode >= 300:
		src.err = &ResolveError{"bad_status", fmt.Sprintf("bad status %d", resp.StatusCode)}
	case isPDF:
		src.text, src.err = readPDF(ctx, resp.Body)
	case !textLike(src.info.ContentType):
		src.err = &ResolveError{"not_text", "refusing non-text content-type: " + src.info.ContentType}
	}
	if src.err != nil {
		return doiFallback(ctx, guard, resolver, target, kind, src)
	}
	if !isPDF {
		src.text = readableSource(page)
	}
	return src
}

// doiFallback asks doi.org for a DOI's metadata when its landing page could
// not be read.
func doiFallback(ctx context.Context, guard *netguard.Guard, resolver, doi string, kind parse.CiteKind, failed *fetchedSource) *fetchedSource {
	if kind != parse.CiteDOI {
		return failed
	}
	resp, err := guard.Fetch(ctx, netguard.Request{Method: http.MethodGet, URL: doiURL(resolver, doi),
		Header: http.Header{"Accept": {"application/vnd.citationstyles.csl+json"}}})
	if err != nil || resp.StatusCode != http.StatusOK {
		return failed
	}
	var meta struct {
		Title    any    `json:"title"`
		Abstract string `json:"abstract"`
		Issued   struct {
			DateParts [][]any `json:"date-parts"`
		} `json:"issued"`
	}
	if json.Unmarshal(resp.Body, &meta) != nil {
		return failed
	}
	title := fmt.Sprint(meta.Title)
	if t, ok := meta.Title.([]any); ok && len(t) > 0 {
		title = fmt.Sprint(t[0])
	}
	if dp := meta.Issued.DateParts; len(dp) > 0 && len(dp[0]) > 0 {
		title += fmt.Sprintf(" (%v)", dp[0][0])
	}
	text := strings.TrimSpace(title + ". " + stripTags(meta.Abstract))
	if len(text) < 20 {
		return failed
	}
	return &fetchedSource{info: SourceInfo{URL: cmp.Or(resp.FinalURL, doiURL(resolver, doi)), Status: resp.StatusCode,
		ContentType: "application/vnd.citationstyles.csl+json", BytesFetched: len(resp.Body), Truncated: resp.Truncated}, text: text}
}

// doiURL is a DOI's resolver URL.
func doiURL(resolver, doi string) string {
	return strings.TrimSuffix(cmp.Or(resolver, "https://doi.org"), "/") + "/" + doi
}

// stripTags removes JATS/HTML tags from an abstract.
func stripTags(s string) string {
	var b strings.Builder
	in := false
	for _, r := range s {
		switch {
		case r == '<':
			in = true
		case r == '>':
			in = false
			b.WriteByte(' ')
		case !in:
			b.WriteRune(r)
		}
	}
	return strings.Join(strings.Fields(b.String()), " ")
}

func textLike(ct string) bool {
	ct = strings.ToLower(ct)
	return ct == "" || strings.Contains(ct, "text/") || strings.Contains(ct, "html") || strings.Contains(ct, "xml") || strings.Contains(ct, "json")
}

// fetchErrorKind maps netguard's sentinels to seed 002's error kinds.
func fetchErrorKind(err error) string {
	switch {
	case errors.Is(err, netguard.ErrScheme):
		return "bad_scheme"
	case errors.Is(err, netguard.ErrNotAllowlisted):
		return "not_allowed_domain"
	case errors.Is(err, netguard.ErrRedirectLimit), errors.Is(err, netguard.ErrRedirectLoop):
		return "redirect_loop"
	case netguard.IsRefusal(err):
		return "ssrf"
	case errors.Is(err, netguard.ErrTimeout):
		return "timeout"
	case errors.Is(err, netguard.ErrBodyTooLarge):
		return "too_large"
	}
	return "bad_status"
}

// pdfMaxRunes bounds the text kept of one PDF: about 600 pages of a paper,
// far more than the body cap usually holds; relevantPassages narrows it.
const pdfMaxRunes = 1 << 20

// readPDF reads a fetched PDF's text for the judge, like a page's readable
// text. An encrypted, image-only or damaged PDF is an unreadable_pdf
// resolve error whose message says which.
func readPDF(ctx context.Context, body []byte) (string, *ResolveError) {
	text, err := pdftext.Text(ctx, body, pdfMaxRunes)
	if err != nil {
		return "", &ResolveError{"unreadable_pdf", netguard.RedactText(err.Error())}
	}
	return text, nil
}
