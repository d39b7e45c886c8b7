package simweb

import (
	"crypto/subtle"
	"encoding/json"
	"hash/fnv"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Fake provider APIs, after apis.md §1.1 (Bright Data Web Unlocker Direct
// API) and §2 (Apify run-sync-get-dataset-items with apify/rag-web-browser).
const (
	brightDataPath = "/request"
	apifyActorPath = "/v2/acts/apify~rag-web-browser/run-sync-get-dataset-items"

	maxAPIBody = 1 << 20
)

// record notes a target URL sent to a provider.
func (w *Web) record(target string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.targets = append(w.targets, target)
}

// lookup returns what the providers know about target, if anything. The
// port is ignored (a validator may or may not keep it); the path is
// compared decoded, so /wiki/Anode_(chemistry) and its %28/%29 spelling
// are the same target.
func (w *Web) lookup(target *url.URL) (remote, bool) {
	rm, ok := w.remotes[normHost(target.Hostname())+target.Path]
	return rm, ok
}

// bearer reports whether r carries "Authorization: Bearer want"; an empty
// want accepts nothing.
func bearer(r *http.Request, want string) bool {
	got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	return ok && want != "" && subtle.ConstantTimeCompare([]byte(got), []byte(want)) == 1
}

func plain(rw http.ResponseWriter, status int, msg string) {
	rw.Header().Set("Content-Type", "text/plain; charset=utf-8")
	rw.WriteHeader(status)
	_, _ = io.WriteString(rw, msg+"\n")
}

// bdRequest is the Direct API request body.
type bdRequest struct {
	Zone       string `json:"zone"`
	URL        string `json:"url"`
	Format     string `json:"format"`
	DataFormat string `json:"data_format"`
	Method     string `json:"method"`
	Country    string `json:"country"`
}

// serveBrightData is POST /request: Bearer key, JSON {zone, url, format
// [, data_format, method, country]}. Accepted requests answer 200 with the
// target's status in x-brd-status-code; Bright Data-side failures add
// x-brd-error (and x-brd-error-code or x-brd-err-code). Bad credentials get
// a plain-text 401 without x-brd headers, malformed requests a 400.
func (w *Web) serveBrightData(rw http.ResponseWriter, r *http.Request) {
	if r.URL.Path != brightDataPath {
		plain(rw, http.StatusNotFound, "Not Found")
		return
	}
	if r.Method != http.MethodPost {
		rw.Header().Set("Allow", http.MethodPost)
		plain(rw, http.StatusMethodNotAllowed, "Method Not Allowed")
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxAPIBody))
	if err != nil {
		return
	}
	var req bdRequest
	jerr := json.Unmarshal(body, &req)
	if req.URL != "" {
		w.record(req.URL)
	}
	if !bearer(r, w.opts.BrightDataKey) {
		msg := "Invalid credentials"
		if r.Header.Get("Authorization") == "" {
			msg = "User authentication is required"
		}
		plain(rw, http.StatusUnauthorized, msg)
		return
	}
	switch {
	case jerr != nil:
		plain(rw, http.StatusBadRequest, "Invalid JSON in request body")
		return
	case req.Zone == "":
		plain(rw, http.StatusBadRequest, "zone is required")
		return
	case req.Zone != w.opts.BrightDataZone:
		plain(rw, http.StatusBadRequest, "Zone not found: "+req.Zone)
		return
	case req.URL == "":
		plain(rw, http.StatusBadRequest, "url is required")
		return
	case req.Format == "":
		plain(rw, http.StatusBadRequest, "format is required")
		return
	case req.Format != "raw" && req.Format != "json":
		plain(rw, http.StatusBadRequest, "format must be raw or json")
		return
	case req.DataFormat != "" && req.DataFormat != "markdown":
		plain(rw, http.StatusBadRequest, "data_format "+req.DataFormat+" is not simulated")
		return
	case req.Method != "" && !strings.EqualFold(req.Method, http.MethodGet):
		plain(rw, http.StatusBadRequest, "only GET is simulated")
		return
	}
	target, err := url.Parse(req.URL)
	if err != nil || (target.Scheme != "http" && target.Scheme != "https") || target.Host == "" {
		plain(rw, http.StatusBadRequest, "Invalid url")
		return
	}

	rm, ok := w.lookup(target)
	if !ok {
		rm.bd = bdAnswer{status: http.StatusBadGateway, err: "Unlock failed: could not load the target page", code: "document_load_failed"}
	}
	h := rw.Header()
	h.Set("X-Brd-Status-Code", strconv.Itoa(rm.bd.status))
	if rm.bd.err != "" {
		h.Set("X-Brd-Error", rm.bd.err)
		if rm.bd.code != "" {
			h.Set("X-Brd-Error-Code", rm.bd.code)
		}
		if rm.bd.errCode != "" {
			h.Set("X-Brd-Err-Code", rm.bd.errCode)
		}
		plain(rw, http.StatusOK, rm.bd.err)
		return
	}
	content, ctype := "", "text/html; charset=utf-8"
	if rm.page != nil {
		content = string(rm.page.html(rm.canonical))
	}
	if req.DataFormat == "markdown" {
		ctype = "text/markdown; charset=utf-8"
		if rm.page != nil {
			content = rm.page.markdown()
		}
	}
	if req.Format == "json" {
		env, _ := json.Marshal(map[string]any{
			"status_code": rm.bd.status,
			"headers":     map[string]string{"content-type": ctype},
			"body":        content,
		})
		content, ctype = string(env), "application/json; charset=utf-8"
	}
	h.Set("Content-Type", ctype)
	h.Set("Content-Length", strconv.Itoa(len(content)))
	rw.WriteHeader(http.StatusOK)
	_, _ = io.WriteString(rw, content)
}

// apifyInput is the part of the rag-web-browser input the fake reads.
type apifyInput struct {
	Query         string   `json:"query"`
	MaxResults    *int     `json:"maxResults"`
	OutputFormats []string `json:"outputFormats"`
}

// apifyItem is a rag-web-browser dataset item (apis.md §2.2).
type apifyItem struct {
	Query    string        `json:"query"`
	Crawl    apifyCrawl    `json:"crawl"`
	Metadata apifyMetadata `json:"metadata"`
	Markdown *string       `json:"markdown"`
	Text     *string       `json:"text"`
	HTML     *string       `json:"html"`
}

type apifyCrawl struct {
	HTTPStatusCode    int    `json:"httpStatusCode"`
	HTTPStatusMessage string `json:"httpStatusMessage"`
	LoadedAt          string `json:"loadedAt"`
	UniqueKey         string `json:"uniqueKey"`
	RequestStatus     string `json:"requestStatus"`
}

type apifyMetadata struct {
	URL          string  `json:"url"`
	Title        string  `json:"title"`
	Description  string  `json:"description"`
	Author       *string `json:"author"`
	LanguageCode string  `json:"languageCode"`
}

func apifyError(rw http.ResponseWriter, status int, typ, msg string) {
	body, _ := json.Marshal(map[string]any{"error": map[string]string{"type": typ, "message": msg}})
	rw.Header().Set("Content-Type", "application/json; charset=utf-8")
	rw.WriteHeader(status)
	_, _ = rw.Write(body)
}

// serveApify is POST /v2/acts/apify~rag-web-browser/run-sync-get-dataset-items
// with the token as "Authorization: Bearer" (or ?token=) and the Actor input
// as JSON. It answers 201 with the dataset: one item for a URL query,
// handled or failed; none for a search query, which needs Google.
func (w *Web) serveApify(rw http.ResponseWriter, r *http.Request) {
	if r.URL.Path != apifyActorPath {
		apifyError(rw, http.StatusNotFound, "record-not-found", "Actor or endpoint was not found")
		return
	}
	if r.Method != http.MethodPost {
		rw.Header().Set("Allow", http.MethodPost)
		apifyError(rw, http.StatusMethodNotAllowed, "method-not-allowed", "This endpoint accepts POST only in simweb")
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxAPIBody))
	if err != nil {
		return
	}
	var in apifyInput
	jerr := json.Unmarshal(body, &in)
	if in.Query != "" {
		w.record(in.Query)
	}
	tok := w.opts.ApifyToken
	if !bearer(r, tok) && (tok == "" || subtle.ConstantTimeCompare([]byte(r.URL.Query().Get("token")), []byte(tok)) != 1) {
		apifyError(rw, http.StatusUnauthorized, "token-not-valid", "Authentication token is not valid.")
		return
	}
	switch {
	case jerr != nil:
		apifyError(rw, http.StatusBadRequest, "invalid-input", "Input is not a valid JSON object")
		return
	case strings.TrimSpace(in.Query) == "":
		apifyError(rw, http.StatusBadRequest, "invalid-input", "Input is not valid: Field input.query is required")
		return
	case in.MaxResults != nil && (*in.MaxResults < 1 || *in.MaxResults > 100):
		apifyError(rw, http.StatusBadRequest, "invalid-input", "Input is not valid: Field input.maxResults must be between 1 and 100")
		return
	}
	formats := in.OutputFormats
	if len(formats) == 0 {
		formats = []string{"markdown"}
	}
	for _, f := range formats {
		if f != "markdown" && f != "text" && f != "html" {
			apifyError(rw, http.StatusBadRequest, "invalid-input", "Input is not valid: Field input.outputFormats must be text, markdown or html")
			return
		}
	}

	items := []apifyItem{}
	if target, err := url.Parse(strings.TrimSpace(in.Query)); err == nil &&
		(target.Scheme == "http" || target.Scheme == "https") && target.Host != "" {
		items = append(items, w.apifyItemFor(in.Query, target, formats))
	}
	out, _ := json.Marshal(items)
	h := rw.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	n := strconv.Itoa(len(items))
	h.Set("X-Apify-Pagination-Offset", "0")
	h.Set("X-Apify-Pagination-Limit", n)
	h.Set("X-Apify-Pagination-Count", n)
	h.Set("X-Apify-Pagination-Total", n)
	rw.WriteHeader(http.StatusCreated)
	_, _ = rw.Write(out)
}

func (w *Web) apifyItemFor(query string, target *url.URL, formats []string) apifyItem {
	rm, ok := w.lookup(target)
	if !ok {
		rm.apify = apifyAnswer{status: http.StatusInternalServerError, message: "Request failed after 2 retries: page could not be loaded"}
	}
	key := fnv.New64a()
	_, _ = key.Write([]byte(query))
	it := apifyItem{
		Query: query,
		Crawl: apifyCrawl{
			HTTPStatusCode:    rm.apify.status,
			HTTPStatusMessage: rm.apify.message,
			LoadedAt:          time.Now().UTC().Format("2006-01-02T15:04:05.000Z"),
			UniqueKey:         strconv.FormatUint(key.Sum64(), 36),
			RequestStatus:     "failed",
		},
		Metadata: apifyMetadata{URL: query, LanguageCode: "en"},
	}
	var md, txt, html string
	if rm.apify.handled {
		it.Crawl.RequestStatus = "handled"
		if it.Crawl.HTTPStatusMessage == "" {
			it.Crawl.HTTPStatusMessage = http.StatusText(rm.apify.status)
		}
		if a := rm.page; a != nil {
			it.Metadata.Title = a.title()
			it.Metadata.Description = a.Description
			if author := a.Author; author != "" {
				it.Metadata.Author = &author
			}
			md, txt, html = a.markdown(), a.text(), string(a.html(rm.canonical))
		}
	}
	for _, f := range formats {
		switch f {
		case "markdown":
			it.Markdown = &md
		case "text":
			it.Text = &txt
		case "html":
			it.HTML = &html
		}
	}
	return it
}
