package main

import (
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/citegate/citegate/engine/registry"
	"github.com/citegate/citegate/netguard"
)

// Host names the recorded registries answer under (pinned to loopback).
const (
	hostDOI      = "doi.registry.test"
	hostCrossref = "api.crossref.test"
	hostDataCite = "api.datacite.test"
	hostArXiv    = "export.arxiv.test"
	hostPubMed   = "eutils.ncbi.test"
)

var hosts = []string{hostDOI, hostCrossref, hostDataCite, hostArXiv, hostPubMed}

// recorded serves the recorded answers: Crossref messages as recorded;
// the handle API answers "registered" for a DOI Crossref holds and
// responseCode 100 otherwise (no handle API recording was found); arXiv
// and esummary batches are put together from recorded per-id entries.
type recorded struct {
	dir  string
	srv  *http.Server
	port int
	mu   sync.Mutex
	n    int
}

func startRecorded(dir string) (*recorded, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0") //nolint:noctx // a loopback listener for a dev tool
	if err != nil {
		return nil, err
	}
	addr, ok := ln.Addr().(*net.TCPAddr)
	if !ok {
		_ = ln.Close()
		return nil, fmt.Errorf("listener on %s is not TCP", ln.Addr())
	}
	r := &recorded{dir: dir, port: addr.Port}
	r.srv = &http.Server{Handler: r, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = r.srv.Serve(ln) }()
	return r, nil
}

func (r *recorded) close() { _ = r.srv.Close() }

func (r *recorded) total() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.n
}

func (r *recorded) base(host string) string { return "http://" + host + ":" + strconv.Itoa(r.port) }

func (r *recorded) bases() registry.Bases {
	return registry.Bases{DOI: r.base(hostDOI), Crossref: r.base(hostCrossref), DataCite: r.base(hostDataCite),
		ArXiv: r.base(hostArXiv), PubMed: r.base(hostPubMed), OpenAlex: r.base(hostCrossref)}
}

// guardOptions admit exactly this server under the registry host names.
func (r *recorded) guardOptions() []netguard.Option {
	lo := netip.MustParseAddr("127.0.0.1")
	opts := []netguard.Option{netguard.AllowCIDR(netip.PrefixFrom(lo, 32)), netguard.AllowPorts(r.port)}
	for _, h := range hosts {
		opts = append(opts, netguard.Pin(h, r.port, lo))
	}
	return opts
}

func (r *recorded) ServeHTTP(w http.ResponseWriter, q *http.Request) {
	r.mu.Lock()
	r.n++
	r.mu.Unlock()
	host, _, _ := net.SplitHostPort(q.Host)
	switch host {
	case hostDOI:
		r.handle(w, strings.TrimPrefix(q.URL.Path, "/api/handles/"))
	case hostCrossref:
		r.crossref(w, strings.TrimPrefix(q.URL.Path, "/works/"))
	case hostDataCite:
		w.Header().Set("Content-Type", "application/vnd.api+json")
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(`{"errors":[{"status":"404","title":"The resource you are looking for doesn't exist."}]}`))
	case hostArXiv:
		r.arxiv(w, q.URL.Query().Get("id_list"))
	case hostPubMed:
		r.esummary(w, q.URL.Query().Get("id"))
	default:
		http.Error(w, "no such host", http.StatusMisdirectedRequest)
	}
}

func (r *recorded) crossrefFile(doi string) string {
	sum := sha1.Sum([]byte(strings.ToLower(doi)))
	return filepath.Join(r.dir, "crossref", hex.EncodeToString(sum[:])+".json")
}

func (r *recorded) handle(w http.ResponseWriter, doi string) {
	w.Header().Set("Content-Type", "application/json;charset=UTF-8")
	if _, err := os.Stat(r.crossrefFile(doi)); err != nil {
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprintf(w, `{"responseCode":100,"handle":%q}`, doi)
		return
	}
	fmt.Fprintf(w, `{"responseCode":1,"handle":%q,"values":[{"index":1,"type":"URL","data":{"format":"string","value":"https://example.org/"}}]}`, doi)
}

func (r *recorded) crossref(w http.ResponseWriter, doi string) {
	w.Header().Set("X-Rate-Limit-Limit", "50")
	w.Header().Set("X-Rate-Limit-Interval", "1s")
	body, err := os.ReadFile(r.crossrefFile(doi))
	if err != nil {
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte("Resource not found."))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(body)
}

func (r *recorded) arxiv(w http.ResponseWriter, ids string) {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n" +
		`<feed xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/" xmlns:arxiv="http://arxiv.org/schemas/atom" xmlns="http://www.w3.org/2005/Atom">` + "\n")
	for _, id := range strings.Split(ids, ",") {
		if e, err := os.ReadFile(filepath.Join(r.dir, "arxiv", strings.ReplaceAll(id, "/", "_")+".xml")); err == nil {
			b.Write(e)
			b.WriteByte('\n')
		}
	}
	b.WriteString("</feed>\n")
	w.Header().Set("Content-Type", "application/atom+xml; charset=UTF-8")
	_, _ = w.Write([]byte(b.String()))
}

func (r *recorded) esummary(w http.ResponseWriter, ids string) {
	result := map[string]any{}
	var uids []string
	for _, id := range strings.Split(ids, ",") {
		uids = append(uids, id)
		var item map[string]any
		if body, err := os.ReadFile(filepath.Join(r.dir, "pubmed", id+".json")); err == nil && json.Unmarshal(body, &item) == nil {
			result[id] = item
			continue
		}
		result[id] = map[string]any{"uid": id, "error": "cannot get document summary"}
	}
	result["uids"] = uids
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	_ = json.NewEncoder(w).Encode(map[string]any{"header": map[string]any{"type": "esummary", "version": "0.3"}, "result": result})
}
