package main

import (
	crand "crypto/rand"
	"encoding/hex"
	"encoding/json"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// probeMarker starts the last segment of citegate's site probe
// (classify.ProbeName); the request log flags such requests.
const probeMarker = "citegate-probe-"

// server answers every emulated host of one or more splits, by Host header,
// and logs each request.
type server struct {
	hosts map[string]*Host

	mu  sync.Mutex
	rng *rand.Rand
	log io.Writer // JSON lines; nil: no log
	tag string    // written with each logged request (the tier being run)
	seq int
}

// newServer serves the hosts of specs. seed 0 picks a random seed: the
// dynamic parts of the pages (nonces, sidebars, grids) need not repeat.
func newServer(specs []*Spec, seed uint64, log io.Writer) *server {
	if seed == 0 {
		var b [8]byte
		_, _ = crand.Read(b[:])
		for _, x := range b {
			seed = seed<<8 | uint64(x)
		}
	}
	s := &server{hosts: map[string]*Host{}, rng: mrand(seed), log: log}
	for _, sp := range specs {
		for i := range sp.Hosts {
			s.hosts[sp.Hosts[i].Host] = &sp.Hosts[i]
		}
	}
	return s
}

func mrand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)) }

// setTag names the requests that follow in the log.
func (s *server) setTag(tag string) {
	s.mu.Lock()
	s.tag = tag
	s.mu.Unlock()
}

// reply is what a host answers.
type reply struct {
	status   int
	location string
	header   map[string]string
	body     string
}

func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	host := strings.ToLower(r.Host)
	if i := strings.LastIndexByte(host, ':'); i >= 0 && !strings.Contains(host[i:], "]") {
		host = host[:i]
	}
	h := s.hosts[host]
	var rep reply
	if h == nil {
		rep = reply{status: http.StatusMisdirectedRequest, body: "unknown host\n"}
	} else {
		rep = s.answer(h, r.URL)
	}
	ct := "text/html; charset=utf-8"
	for k, v := range rep.header {
		w.Header().Set(k, v)
	}
	if w.Header().Get("Content-Type") == "" {
		w.Header().Set("Content-Type", ct)
	}
	if rep.location != "" {
		w.Header().Set("Location", rep.location)
	}
	w.WriteHeader(rep.status)
	if r.Method != http.MethodHead {
		_, _ = io.WriteString(w, rep.body)
	}
	s.record(r, host, rep)
}

// record appends one request to the log.
func (s *server) record(r *http.Request, host string, rep reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seq++
	if s.log == nil {
		return
	}
	line, _ := json.Marshal(map[string]any{
		"seq": s.seq, "time": time.Now().UTC().Format(time.RFC3339Nano), "tag": s.tag,
		"host": host, "method": r.Method, "uri": r.URL.RequestURI(), "probe": strings.Contains(r.URL.Path, probeMarker),
		"status": rep.status, "location": rep.location, "bytes": len(rep.body), "user_agent": r.UserAgent(),
	})
	_, _ = s.log.Write(append(line, '\n'))
}

// dyn is one request's dynamic material: it makes two answers of the same
// page differ byte for byte, as real pages do.
type dyn struct {
	nonce, csrf, reqID, stamp string
	pick                      func(list []string, n int) []string
	intn                      func(n int) int
}

func (s *server) newDyn() dyn {
	s.mu.Lock()
	seed := s.rng.Uint64()
	s.mu.Unlock()
	r := mrand(seed)
	hexN := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(r.UintN(256))
		}
		return hex.EncodeToString(b)
	}
	return dyn{nonce: hexN(12), csrf: hexN(20), reqID: hexN(8), stamp: time.Now().UTC().Format("2006-01-02T15:04:05.000Z"),
		pick: func(list []string, n int) []string {
			idx := r.Perm(len(list))
			if n > len(idx) {
				n = len(idx)
			}
			out := make([]string, n)
			for i := range out {
				out[i] = list[idx[i]]
			}
			return out
		},
		intn: func(n int) int { return r.IntN(n) }}
}

// answer routes one request of host h.
func (s *server) answer(h *Host, u *url.URL) reply {
	d := s.newDyn()
	p := u.EscapedPath()
	if p == "" {
		p = "/"
	}
	if h.Fallback == "spa" {
		return reply{status: 200, body: renderSPA(h, d)}
	}
	if h.Fallback == "locale" && !strings.HasPrefix(p, "/en-us/") {
		return redirect(301, "/en-us"+p+keepQuery(u))
	}
	if (p == "/" || h.Fallback == "locale" && p == "/en-us/") && u.RawQuery == "" {
		return reply{status: 200, body: renderHome(h, d)}
	}
	if h.Fallback == "search302" && p == "/search" {
		return reply{status: 200, body: renderSearch(h, d, u.Query().Get("q"))}
	}
	for i := range h.Pages {
		if h.Pages[i].Canonical == u.RequestURI() {
			return reply{status: 200, body: renderPage(h, &h.Pages[i], d)}
		}
	}
	for i := range h.Routes {
		if rep, ok := s.route(h, &h.Routes[i], u, p, d); ok {
			return rep
		}
	}
	return s.fallback(h, u, d)
}

// redirect answers status with Location loc and the short body servers
// send with it.
func redirect(status int, loc string) reply {
	return reply{status: status, location: loc, body: "<html><body>Moved to <a href=\"" + escape(loc) + "\">" + escape(loc) + "</a></body></html>"}
}

func keepQuery(u *url.URL) string {
	if u.RawQuery == "" {
		return ""
	}
	return "?" + u.RawQuery
}

// route applies one route; ok is false when it does not match.
func (s *server) route(h *Host, r *Route, u *url.URL, p string, d dyn) (reply, bool) {
	m := r.re.FindStringSubmatch(p)
	if m == nil {
		return reply{}, false
	}
	group := func(name string) string {
		if i := r.re.SubexpIndex(name); i >= 0 {
			return m[i]
		}
		return ""
	}
	id := group("id")
	if r.QueryID != "" {
		id = u.Query().Get(r.QueryID)
		if id == "" {
			return reply{}, false
		}
	}
	var pg *Page
	switch {
	case r.Page != "":
		pg = h.page(r.Page)
	case r.Key == "slug":
		pg = h.bySlug(group("slug"), r.Guess)
	default:
		pg = h.page(id)
	}
	if pg == nil {
		switch r.Unknown {
		case "404":
			return reply{status: 404, body: renderNotFound(h, d, u, false)}, true
		case "unavailable200":
			return reply{status: 200, body: renderUnavailable(h, d)}, true
		}
		return s.fallback(h, u, d), true
	}
	if u.RequestURI() != pg.Canonical && r.OtherSlug == "301" {
		return redirect(301, pg.Canonical), true
	}
	return reply{status: 200, body: renderPage(h, pg, d)}, true
}

// bySlug finds the page with slug, or with guess the first page whose slug
// starts with it (WordPress's redirect_guess_404_permalink matches
// post_name LIKE 'slug%').
func (h *Host) bySlug(slug string, guess bool) *Page {
	slug = strings.Trim(slug, "/")
	for i := range h.Pages {
		if h.Pages[i].Slug == slug {
			return &h.Pages[i]
		}
	}
	if !guess || slug == "" {
		return nil
	}
	for i := range h.Pages {
		if strings.HasPrefix(h.Pages[i].Slug, slug) {
			return &h.Pages[i]
		}
	}
	return nil
}

// fallback is the host's answer to a path it has nothing for.
func (s *server) fallback(h *Host, u *url.URL, d dyn) reply {
	switch h.Fallback {
	case "home200":
		return reply{status: 200, body: renderHome(h, d)}
	case "home302":
		return redirect(302, "/")
	case "search302":
		return redirect(302, "/search?q="+url.QueryEscape(searchWords(u.Path)))
	case "notfound200":
		return reply{status: 200, body: renderNotFound(h, d, u, true)}
	case "wp404_200":
		return reply{status: 200, body: renderWP404(h, d)}
	case "shop404_200":
		return reply{status: 200, body: renderShop404(h, d)}
	case "azure200":
		return reply{status: 200, body: renderAzure(d)}
	case "cf403":
		return reply{status: 403, header: map[string]string{"cf-mitigated": "challenge", "Server": "cloudflare",
			"cf-ray": d.reqID + "-AMS", "Cache-Control": "private, max-age=0, no-store, no-cache, must-revalidate"},
			body: renderChallenge(h, d)}
	}
	return reply{status: 404, body: renderNotFound(h, d, u, false)}
}

// searchWords turns a deep link's last segment into the query a shop's
// catch-all redirect puts in its search URL.
func searchWords(p string) string {
	p = strings.TrimSuffix(p, "/")
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		p = p[i+1:]
	}
	if i := strings.LastIndexByte(p, '.'); i > 0 {
		p = p[:i]
	}
	return strings.Join(strings.FieldsFunc(p, func(r rune) bool { return r == '-' || r == '_' || r == '+' }), " ")
}
