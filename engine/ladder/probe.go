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

// The site probe: once per host and run, the ladder asks the host for a
// URL that cannot exist there — the cited URL's directory plus a random
// name with the cited file's extension — and keeps a fingerprint of the
// answer (classify.FingerprintOf). A cited page the direct rung found
// valid is then compared with it (classify.Like): a page that answers like
// a page that does not exist is a soft 404, whatever its language or
// template. The probe is sent only when a host has a page that would
// otherwise be valid, at the standard and thorough tiers; it goes through
// netguard and the host's politeness gate like any request, shows in the
// event stream as the rung "site_probe", and a host whose probe gets a
// real 404 or 410 is never compared again.

// RungProbe names the site probe in events.
const RungProbe = "site_probe"

// probeResult is what a host answered to the probe.
type probeResult struct {
	fp     *classify.Fingerprint // nil: nothing to compare with
	detail string                // for the event stream
}

type probeEntry struct {
	done chan struct{}
	res  probeResult
}

// siteProbes runs at most one probe per host and shares its answer.
type siteProbes struct {
	mu sync.Mutex
	m  map[string]*probeEntry
}

// get returns host's probe result, running probe on the first call and
// waiting (or giving up with ctx) on later ones.
func (s *siteProbes) get(ctx context.Context, host string, probe func() probeResult) (probeResult, bool) {
	s.mu.Lock()
	if s.m == nil {
		s.m = map[string]*probeEntry{}
	}
	e := s.m[host]
	if e == nil {
		e = &probeEntry{done: make(chan struct{})}
		s.m[host] = e
		s.mu.Unlock()
		e.res = probe()
		close(e.done)
		return e.res, true
	}
	s.mu.Unlock()
	select {
	case <-e.done:
		return e.res, true
	case <-ctx.Done():
		return probeResult{}, false
	}
}

// probeURL is the cited URL's directory plus a random name that keeps the
// cited file's extension ("/news/2024/story.html" → "/news/2024/
// citegate-probe-<hex>.html"); query and fragment are dropped.
func probeURL(cited string) (string, bool) {
	u, err := url.Parse(cited)
	if err != nil || u.Host == "" {
		return "", false
	}
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", false
	}
	dir, file := path.Split(u.EscapedPath())
	if dir == "" {
		dir = "/"
	}
	ext := path.Ext(file)
	if len(ext) > 6 || strings.ContainsAny(ext, "%;") {
		ext = ""
	}
	p := &url.URL{Scheme: u.Scheme, Host: u.Host, Path: dir + classify.ProbeName + hex.EncodeToString(b[:]) + ext}
	return p.String(), true
}

// runProbe sends the probe for it's host, reporting it in the event stream
// as an attempt of the citation that needed it.
func (l *Ladder) runProbe(ctx context.Context, it *Item, host string) probeResult {
	target, ok := probeURL(it.Fetch)
	if !ok {
		return probeResult{detail: "no probe: cited URL has no directory"}
	}
	shown, _ := netguard.RedactURL(target)
	if l.report(Progress{Kind: Attempt, Item: it, Rung: RungProbe, Attempt: 1}) != nil {
		return probeResult{}
	}
	started := time.Now()
	resp, _, err := l.fetch(ctx, host, target, false)
	var res probeResult
	status := 0
	switch {
	case err != nil:
		res.detail = "probe " + shown + ": " + netguard.Reason(err) + " (not compared)"
	default:
		status = resp.StatusCode
		switch {
		case status == http.StatusNotFound || status == http.StatusGone:
			res.detail = "probe " + shown + ": http " + strconv.Itoa(status) + " (the site answers missing pages with a real 404)"
		case status >= 200 && status < 300 && len(resp.Body) > 0:
			p := classify.Page{RequestedURL: target, FinalURL: resp.FinalURL, StatusCode: status, Header: resp.Header,
				Body: resp.Body, ContentType: resp.Header.Get("Content-Type"), Redirects: redirectsOf(resp)}
			res.fp = classify.FingerprintOf(p)
			res.detail = "probe " + shown + ": http " + strconv.Itoa(status) + " (a page that does not exist answers 200; compared)"
		default:
			res.detail = "probe " + shown + ": http " + strconv.Itoa(status) + " (not compared)"
		}
	}
	_ = l.report(Progress{Kind: AttemptDone, Item: it, Rung: RungProbe, Attempt: 1, Elapsed: time.Since(started),
		Detail: res.detail, HTTPStatus: status})
	return res
}

// checkAgainstProbe compares a page the direct rung found valid with its
// host's answer to a URL that cannot exist. It returns a soft-404 decision
// (settled), or an escalation reason (escalate: the direct rung saw no
// content of the cited page's own), or neither (keep the valid decision).
func (l *Ladder) checkAgainstProbe(ctx context.Context, it *Item, host string, p classify.Page, d Decision) (settled *Decision, escalate string) {
	if l.cfg.Tier == classify.Basic || !classify.ProbeWorthy(p.RequestedURL) {
		return nil, ""
	}
	res, ok := l.probes.get(ctx, host, func() probeResult { return l.runProbe(ctx, it, host) })
	if !ok || res.fp == nil {
		return nil, ""
	}
	fp := classify.FingerprintOf(p)
	why := classify.Like(fp, res.fp)
	if why == "" {
		return nil, ""
	}
	if !fp.Meaningful() {
		// Every path of a script-rendered site answers with the same
		// shell: that proves nothing about the cited page, but the direct
		// rung did not see its content either. A browser rung might.
		return nil, "no meaningful content (the site answers every path with the same page: " + why + ")"
	}
	out := Decision{Verdict: record.Verdict{Status: record.StatusInvalid, URL: d.URL, HTTPStatus: d.HTTPStatus,
		Notes: "online ladder: direct_fetch; soft 404: answers like a page that does not exist (" + why + ")"},
		Rung: d.Rung, Redirects: d.Redirects}
	return &out, ""
}
