package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strings"
)

// Spec is one split of the evaluation set (testdata/probesites/*.json):
// emulated hosts, each one instance of a documented routing behaviour, and
// the cited URLs with the label written before citegate ever ran on them.
type Spec struct {
	Schema string `json:"schema"`
	Split  string `json:"split"`
	Hosts  []Host `json:"hosts"`
}

// Host is one emulated site. What it answers is decided, in order, by: the
// home page, a page whose canonical path is the request's, the routes (first
// match wins), then the fallback for everything else.
type Host struct {
	Host      string   `json:"host"`
	Behaviour string   `json:"behaviour"`
	Style     string   `json:"style"` // page template: qa, forum, shop, news, blog, wiki, docs, video, code
	Lang      string   `json:"lang"`
	Site      string   `json:"site"`
	Sources   []Source `json:"sources"`
	Notes     string   `json:"notes"`
	Routes    []Route  `json:"routes,omitempty"`
	Fallback  string   `json:"fallback"`
	NotFound  NotFound `json:"notfound"`
	Sidebar   []string `json:"sidebar,omitempty"`
	Products  []string `json:"products,omitempty"`
	HomeIntro string   `json:"home_intro,omitempty"`
	Pages     []Page   `json:"pages,omitempty"`
	URLs      []Cited  `json:"urls"`
}

// Source is the public document that describes the behaviour.
type Source struct {
	Title string `json:"title"`
	URL   string `json:"url"`
}

// Route finds a page by an id (or slug) taken from the path or the query.
type Route struct {
	Match     string `json:"match"`              // regexp on the path; named groups id, slug
	QueryID   string `json:"query_id,omitempty"` // take the id from this query parameter instead
	Key       string `json:"key,omitempty"`      // "id" (default) or "slug": which page field the id is
	Page      string `json:"page,omitempty"`     // always this page id (a catch-all route)
	OtherSlug string `json:"other_slug"`         // a found page at a non-canonical URL: "301" or "200"
	Guess     bool   `json:"guess,omitempty"`    // an unknown slug 301s to the first page whose slug starts with it
	Unknown   string `json:"unknown_id"`         // an id with no page: "404", "fallback" or "unavailable200"
	re        *regexp.Regexp
}

// NotFound is the host's own wording for a page it does not have.
type NotFound struct {
	Title string `json:"title"`
	H1    string `json:"h1"`
	Text  string `json:"text"`
}

// Page is one real document of a host.
type Page struct {
	ID        string   `json:"id"`
	Slug      string   `json:"slug,omitempty"`
	Canonical string   `json:"canonical"` // path (and query) the site considers the page's own
	Title     string   `json:"title"`
	Author    string   `json:"author,omitempty"`
	Date      string   `json:"date,omitempty"`
	Price     string   `json:"price,omitempty"`
	Body      []string `json:"body"`
}

// Cited is one URL of the wave file and its label.
type Cited struct {
	URL        string   `json:"url"`
	Label      string   `json:"label"` // real, real_js, soft404, missing
	LinkText   string   `json:"link_text"`
	Note       string   `json:"note"`
	Acceptable []string `json:"acceptable,omitempty"` // default from the label
}

// Labels and what each accepts (every tier).
var labelAcceptable = map[string][]string{
	"real":    {"valid", "paywalled", "blocked"},
	"real_js": {"blocked"},
	"soft404": {"invalid"},
	"missing": {"invalid"},
}

// realLabel reports whether a label is a page that exists (never invalid).
func realLabel(l string) bool { return l == "real" || l == "real_js" }

// accepts is the statuses a cited URL may get.
func (c Cited) accepts() []string {
	if len(c.Acceptable) > 0 {
		return c.Acceptable
	}
	return labelAcceptable[c.Label]
}

var fallbacks = []string{"404", "home200", "home302", "search302", "notfound200", "wp404_200",
	"shop404_200", "azure200", "cf403", "spa", "locale"}

var styles = []string{"qa", "forum", "shop", "news", "blog", "wiki", "docs", "video", "code", "plain"}

// loadSpec reads and checks a split.
func loadSpec(path string) (*Spec, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var s Spec
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := s.check(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &s, nil
}

// check compiles the routes and reports every inconsistency at once.
func (s *Spec) check() error {
	var errs []error
	bad := func(f string, a ...any) { errs = append(errs, fmt.Errorf(f, a...)) }
	if s.Schema != "probesites.v1" {
		bad("schema %q, want probesites.v1", s.Schema)
	}
	seen := map[string]bool{}
	for i := range s.Hosts {
		h := &s.Hosts[i]
		if h.Host == "" || seen[h.Host] {
			bad("host %d: empty or duplicate name %q", i, h.Host)
		}
		seen[h.Host] = true
		if h.Behaviour == "" || len(h.Sources) == 0 {
			bad("%s: a behaviour and at least one source are required", h.Host)
		}
		for _, src := range h.Sources {
			if u, err := url.Parse(src.URL); err != nil || u.Scheme != "https" && u.Scheme != "http" || src.Title == "" {
				bad("%s: source %q needs a title and an http(s) URL", h.Host, src.URL)
			}
		}
		if !slices.Contains(fallbacks, h.Fallback) {
			bad("%s: fallback %q is not one of %v", h.Host, h.Fallback, fallbacks)
		}
		if !slices.Contains(styles, h.Style) {
			bad("%s: style %q is not one of %v", h.Host, h.Style, styles)
		}
		if h.Lang == "" || h.Site == "" || h.NotFound.Title == "" {
			bad("%s: lang, site and notfound.title are required", h.Host)
		}
		for j := range h.Routes {
			r := &h.Routes[j]
			re, err := regexp.Compile(r.Match)
			if err != nil {
				bad("%s: route %d: %v", h.Host, j, err)
				continue
			}
			r.re = re
			if r.OtherSlug != "301" && r.OtherSlug != "200" {
				bad("%s: route %d: other_slug %q", h.Host, j, r.OtherSlug)
			}
			if !slices.Contains([]string{"404", "fallback", "unavailable200"}, r.Unknown) {
				bad("%s: route %d: unknown_id %q", h.Host, j, r.Unknown)
			}
			if r.Page != "" && h.page(r.Page) == nil {
				bad("%s: route %d: page %q does not exist", h.Host, j, r.Page)
			}
		}
		ids := map[string]bool{}
		for _, p := range h.Pages {
			if p.ID == "" || ids[p.ID] || !strings.HasPrefix(p.Canonical, "/") || p.Title == "" || len(p.Body) == 0 {
				bad("%s: page %q needs a unique id, a canonical path, a title and a body", h.Host, p.ID)
			}
			ids[p.ID] = true
		}
		if len(h.URLs) == 0 {
			bad("%s: no cited URL", h.Host)
		}
		for _, c := range h.URLs {
			u, err := url.Parse(c.URL)
			if err != nil || u.Scheme != "http" || u.Host != h.Host {
				bad("%s: cited URL %q must be http on the host itself", h.Host, c.URL)
			}
			if _, ok := labelAcceptable[c.Label]; !ok {
				bad("%s: %s: label %q", h.Host, c.URL, c.Label)
			}
			if c.LinkText == "" || c.Note == "" {
				bad("%s: %s: link_text and note are required", h.Host, c.URL)
			}
		}
	}
	return errors.Join(errs...)
}

// page returns the page with id, or nil.
func (h *Host) page(id string) *Page {
	for i := range h.Pages {
		if h.Pages[i].ID == id {
			return &h.Pages[i]
		}
	}
	return nil
}

// counts tallies the split's cited URLs by label.
func (s *Spec) counts() map[string]int {
	n := map[string]int{}
	for _, h := range s.Hosts {
		for _, c := range h.URLs {
			n[c.Label]++
		}
	}
	return n
}
