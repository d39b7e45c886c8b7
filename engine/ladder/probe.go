package ladder

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/citegate/citegate/engine/classify"
	"github.com/citegate/citegate/engine/record"
	"github.com/citegate/citegate/netguard"
)

// The site probe: the ladder asks a host for a URL that cannot exist
// there and keeps a fingerprint of the answer (classify.FingerprintOf). A
// cited page the direct rung found valid is then compared with it
// (classify.Like): a page that answers like a page that does not exist is
// a soft 404, whatever its language or template.
//
// Many sites find a page by an id in its path and ignore or canonicalise
// the words after it (/questions/<id>/<slug>, /comments/<id>/<slug>/,
// /dp/<ASIN>/ref=…, /article/<id>/<slug>.html): a probe that keeps the id
// is answered with the cited page itself, and proves nothing. So a probe
// answer is only held against a citation when it can prove something:
//
//   - the first probe is the cited URL's directory plus a random name
//     (probeURLs). When its answer differs from the page it was built
//     from, it is the site's answer to a missing page, and every citation
//     of the same shape is compared with it;
//   - when that answer may be the cited page itself (classify.Suspect: it
//     names the cited page by URL, looks like it, or carries its
//     headline), a control probe the id cannot survive is sent: the path
//     cut before its first segment holding a digit, else the parent
//     directory. Only that answer is compared with. A real 404 there means
//     the first probe found the cited page: nothing is compared;
//   - a page the wave names by its own headline (classify.NamesCitation),
//     or that a probe answer names by URL (classify.SamePage), is never a
//     soft 404 by resemblance.
//
// Probes are per shape (host and first path segment, digits folded), at
// most probeShapesPerHost shapes per host and probeRequestsPerShape
// requests per shape, sent only when a page of that shape would otherwise
// be valid, at the standard and thorough tiers. They go through netguard
// and the host's politeness gate like any request and show in the event
// stream as the rung "site_probe".

// RungProbe names the site probe in events.
const RungProbe = "site_probe"

// The probe budget (documented in the README's classification section).
const (
	probeShapesPerHost    = 4
	probeRequestsPerShape = 3
)

// probeResult is what a shape's probes came to.
type probeResult struct {
	fp     *classify.Fingerprint // nil: nothing to compare with
	detail string                // why nothing is compared, for tests and logs
}

type probeEntry struct {
	done chan struct{}
	res  probeResult
}

// siteProbes runs each shape's probes once and shares the answer.
type siteProbes struct {
	mu     sync.Mutex
	m      map[string]*probeEntry
	shapes map[string]int         // shapes probed per host
	first  map[string]*probeEntry // each host's first shape
}

// get returns the shape's probe result, running probe on the first call
// and waiting (or giving up with ctx) on later ones. A host past its
// budget of shapes sends no more probes: its shapes beyond the budget get
// the host's first shape's answer, borrowed (it may show a script shell,
// never a soft 404).
func (s *siteProbes) get(ctx context.Context, host, shape string, probe func() probeResult) (res probeResult, borrowed, ok bool) {
	s.mu.Lock()
	if s.m == nil {
		s.m, s.shapes, s.first = map[string]*probeEntry{}, map[string]int{}, map[string]*probeEntry{}
	}
	e := s.m[shape]
	if e == nil {
		if s.shapes[host] >= probeShapesPerHost {
			e, borrowed = s.first[host], true
		} else {
			s.shapes[host]++
			e = &probeEntry{done: make(chan struct{})}
			s.m[shape] = e
			if s.first[host] == nil {
				s.first[host] = e
			}
			s.mu.Unlock()
			e.res = probe()
			close(e.done)
			return e.res, false, true
		}
	}
	s.mu.Unlock()
	select {
	case <-e.done:
		return e.res, borrowed, true
	case <-ctx.Done():
		return probeResult{}, false, false
	}
}

// probeShape is the key probes are shared under: the host and the cited
// path's first directory, with a run of digits folded ("/2024" and
// "/2025" are one shape). Pages at the root of the path are one shape;
// pages found by their query (queryProbe) are one per path.
func probeShape(cited string) string {
	u, err := url.Parse(cited)
	if err != nil {
		return cited
	}
	host := strings.ToLower(u.Host)
	if queryProbe(u, classify.ProbeName) != "" {
		return host + strings.ToLower(u.EscapedPath()) + "?"
	}
	segs := strings.Split(strings.Trim(u.EscapedPath(), "/"), "/")
	if len(segs) < 2 {
		return host + "/"
	}
	return host + "/" + strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return '#'
		}
		return r
	}, strings.ToLower(segs[0])) + "/"
}

// probeTarget is one probe URL. A control is a URL the cited page's id
// cannot survive: its answer is held against citations even when it
// looks like the page the probes were built from.
type probeTarget struct {
	url     string
	control bool
}

// probeURLs are the probes for a cited URL, in the order they are sent: the
// cited directory plus a random name with the cited file's extension
// ("/news/2024/story.html" → "/news/2024/citegate-probe-<hex>.html"), then
// the controls an id in the path cannot survive: the path cut before its
// first segment holding a digit ("/questions/123/slug" →
// "/questions/citegate-probe-<hex>"), and the parent directory. Query and
// fragment are dropped; a control equal to an earlier probe is left out.
func probeURLs(cited string) []probeTarget {
	u, err := url.Parse(cited)
	if err != nil || u.Host == "" {
		return nil
	}
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil
	}
	name := classify.ProbeName + hex.EncodeToString(b[:])
	p := u.EscapedPath()
	dir, file := path.Split(p)
	if dir == "" {
		dir = "/"
	}
	ext := path.Ext(file)
	if len(ext) > 6 || strings.ContainsAny(ext, "%;") {
		ext = ""
	}
	dirs := []string{dir}
	segs := strings.Split(strings.Trim(p, "/"), "/")
	for i, s := range segs {
		if strings.ContainsAny(s, "0123456789") {
			dirs = append(dirs, "/"+strings.Join(segs[:i], "/"))
			break
		}
	}
	if dir != "/" {
		dirs = append(dirs, path.Dir(strings.TrimSuffix(dir, "/")))
	}
	var out []probeTarget
	if q := queryProbe(u, name); q != "" {
		out = append(out, probeTarget{url: q, control: true})
	}
	for i, d := range dirs {
		d = strings.TrimSuffix(d, "/") + "/"
		target := d + name
		if i == 0 {
			target += ext
		}
		if i > 0 && (d == dirs[0] || containsPrefix(out, (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: d + name}).String())) {
			continue
		}
		out = append(out, probeTarget{url: (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: target}).String(), control: i > 0})
	}
	return out
}

// queryProbe is the probe for a page found by an id in its query
// ("/watch?v=<id>", "/index.php?p=<id>", "/item?id=<id>"): the same path
// with every value replaced by the probe's name, tracking keys dropped.
// It is sent first, as a control (the id cannot survive it), when the
// path alone cannot name a page (a path at the root, or a script) and a
// value holds a digit.
func queryProbe(u *url.URL, name string) string {
	if u.RawQuery == "" {
		return ""
	}
	p := strings.Trim(u.EscapedPath(), "/")
	if strings.Contains(p, "/") && !scriptExt(path.Ext(p)) {
		return ""
	}
	q := u.Query()
	out, id := url.Values{}, false
	for k, vs := range q {
		if !trackingKey(k) {
			out.Set(k, name)
			id = id || len(vs) > 0 && strings.ContainsAny(vs[0], "0123456789")
		}
	}
	if !id {
		return ""
	}
	return (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path, RawQuery: out.Encode()}).String()
}

func scriptExt(ext string) bool {
	switch strings.ToLower(ext) {
	case ".php", ".asp", ".aspx", ".jsp", ".cgi", ".pl", ".cfm", ".do", ".action":
		return true
	}
	return false
}

// trackingKey: query keys that never name a page.
func trackingKey(k string) bool {
	k = strings.ToLower(k)
	switch k {
	case "fbclid", "gclid", "dclid", "msclkid", "mc_cid", "mc_eid", "ref", "ref_src", "source", "igshid", "si", "feature", "lang", "hl":
		return true
	}
	return strings.HasPrefix(k, "utm_")
}

// containsPrefix reports whether an earlier probe is the same URL, maybe
// with an extension.
func containsPrefix(list []probeTarget, s string) bool {
	for _, x := range list {
		if strings.HasPrefix(x.url, s) {
			return true
		}
	}
	return false
}

// probeAnswer is one probe request's outcome.
type probeAnswer struct {
	fp      *classify.Fingerprint // a 2xx answer with a body
	missing bool                  // a real 404 or 410
	detail  string
}

// probeOnce sends one probe, reporting it in the event stream as an
// attempt of the citation that needed it.
func (l *Ladder) probeOnce(ctx context.Context, it *Item, host, target string, attempt int) (probeAnswer, bool) {
	shown, _ := netguard.RedactURL(target)
	if l.report(Progress{Kind: Attempt, Item: it, Rung: RungProbe, Attempt: attempt}) != nil {
		return probeAnswer{}, false
	}
	started := time.Now()
	resp, _, err := l.fetch(ctx, host, target, false)
	var a probeAnswer
	status := 0
	switch {
	case err != nil:
		a.detail = "probe " + shown + ": " + netguard.Reason(err) + " (not compared)"
	default:
		status = resp.StatusCode
		switch {
		case status == http.StatusNotFound || status == http.StatusGone:
			a.missing = true
			a.detail = "probe " + shown + ": http " + strconv.Itoa(status) + " (the site answers missing pages with a real 404)"
		case status >= 200 && status < 300 && len(resp.Body) > 0:
			p := classify.Page{RequestedURL: target, FinalURL: resp.FinalURL, StatusCode: status, Header: resp.Header,
				Body: resp.Body, ContentType: resp.Header.Get("Content-Type"), Redirects: redirectsOf(resp)}
			a.fp = classify.FingerprintOf(p)
			a.detail = "probe " + shown + ": http " + strconv.Itoa(status) + " (a page that does not exist answers 200)"
		default:
			a.detail = "probe " + shown + ": http " + strconv.Itoa(status) + " (not compared)"
		}
	}
	err = l.report(Progress{Kind: AttemptDone, Item: it, Rung: RungProbe, Attempt: attempt, Elapsed: time.Since(started),
		Detail: a.detail, HTTPStatus: status})
	return a, err == nil && ctx.Err() == nil
}

// runProbe sends the probes of the cited item's shape (see the comment at
// the top) and returns the answer citations of that shape are compared
// with, if any. src is the fingerprint of the page the probes are built
// from.
func (l *Ladder) runProbe(ctx context.Context, it *Item, host string, src *classify.Fingerprint) probeResult {
	targets := probeURLs(it.Fetch)
	if len(targets) == 0 {
		return probeResult{detail: "no probe: cited URL has no directory"}
	}
	targets = targets[:min(len(targets), probeRequestsPerShape)]
	var first *classify.Fingerprint
	controlled := false // a control was sent after a suspect first answer
	for i, t := range targets {
		a, ok := l.probeOnce(ctx, it, host, t.url, i+1)
		controlled = controlled || first != nil
		switch {
		case !ok:
			return probeResult{detail: "cancelled"}
		case a.missing && first == nil:
			return probeResult{detail: a.detail}
		case a.missing:
			return probeResult{detail: "the first probe was answered with the cited page; a probe its id cannot survive got a real 404 (not compared)"}
		case a.fp == nil:
			return probeResult{detail: a.detail}
		case !t.control:
			if classify.Suspect(src, a.fp) == "" {
				return probeResult{fp: a.fp}
			}
			first = a.fp
		case classify.SamePage(src, a.fp) == "":
			return probeResult{fp: a.fp}
		}
	}
	if first != nil && !controlled && classify.SamePage(src, first) == "" {
		// No control can be built (a page at the root of the path): the
		// first answer stands, unless it named the cited page.
		return probeResult{fp: first}
	}
	return probeResult{detail: "no probe shape was informative (not compared)"}
}

// checkAgainstProbe compares a page the direct rung found valid with its
// host's answer to a URL that cannot exist. It returns a soft-404 decision
// (settled), or an escalation reason (escalate: the direct rung saw no
// content of the cited page's own), or neither (keep the valid decision).
func (l *Ladder) checkAgainstProbe(ctx context.Context, it *Item, host string, p classify.Page, d Decision) (settled *Decision, escalate string) {
	if l.cfg.Tier == classify.Basic || !classify.ProbeWorthy(p.RequestedURL) {
		return nil, ""
	}
	fp := classify.FingerprintOf(p)
	shape := probeShape(it.Fetch)
	res, borrowed, ok := l.probes.get(ctx, host, shape, func() probeResult {
		return l.sharedProbe(ctx, it, shape, func() probeResult { return l.runProbe(ctx, it, host, fp) })
	})
	if !ok || res.fp == nil {
		return nil, ""
	}
	why := classify.Like(fp, res.fp)
	if why == "" || classify.SamePage(fp, res.fp) != "" || classify.NamesCitation(fp, it.Citation) || borrowed && !fp.Shell() {
		return nil, ""
	}
	if d.Status != record.StatusValid {
		if borrowed {
			return nil, ""
		}
		// A mismatch the probe confirms is the site's answer for a page it
		// does not have.
		return soft404(d, why, probeLabel(it.Fetch)), ""
	}
	if fp.Shell() {
		// Every path of a script-rendered site answers with the same
		// shell: that proves nothing about the cited page, but the direct
		// rung did not see its content either. A browser rung might.
		return nil, "no meaningful content [site-probe-shell]: the site answers " + strconv.Quote(probeLabel(it.Fetch)) + " with the same page (" + why + ")"
	}
	return soft404(d, why, probeLabel(it.Fetch)), ""
}

// soft404 is the invalid decision of a page the probe showed to be the
// site's answer for a page it does not have.
func soft404(d Decision, why, probe string) *Decision {
	out := Decision{Verdict: record.Verdict{Status: record.StatusInvalid, URL: d.URL, HTTPStatus: d.HTTPStatus,
		Notes: "online ladder: direct_fetch; soft 404 [site-probe]: answers like a page that does not exist (" + why +
			"; probe " + strconv.Quote(probe) + ")"},
		Rung: d.Rung, Redirects: d.Redirects}
	return &out
}

// probeLabel names, in a note, the probes a citation was compared with by
// their shape — scheme, host and first directory (digits shown as #), then
// the probe's name — not by the URL sent: which URL of a shape builds its
// probes depends on which is checked first, and a note must be the same
// from one run to the next. The event stream shows the URLs sent.
func probeLabel(cited string) string {
	u, err := url.Parse(cited)
	if err != nil {
		return classify.ProbeName + "…"
	}
	shape := probeShape(cited)
	if strings.HasSuffix(shape, "?") {
		return u.Scheme + "://" + strings.TrimSuffix(shape, "?") + "?…=" + classify.ProbeName + "…"
	}
	return u.Scheme + "://" + shape + classify.ProbeName + "…"
}
