// Command regeval measures the registry rung (engine/registry) on a
// labelled set of scholarly citations, against registry answers recorded in
// public client libraries' test fixtures (see SOURCE.md) served under the
// CITEGATE_*_BASE base URLs on loopback. It runs the engine in process (the
// guard admits exactly the loopback server, pinned under the registry host
// names), at the standard tier, and reports per kind of citation the share
// that got its expected status and the registry requests per citation.
//
//	go run ./engine/internal/regeval -set /tmp/reg-dev -split dev
//
// The set directory holds set.jsonl (one labelled citation a line: kind,
// url, link_text, want, split) and responses/ (crossref/<sha1 of DOI>.json
// Crossref messages, arxiv/<id>.xml Atom entries, pubmed/<pmid>.json
// esummary items); its layout is in SOURCE.md.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/citegate/citegate/engine"
)

// citation is one labelled line of set.jsonl.
type citation struct {
	Kind     string `json:"kind"`
	URL      string `json:"url"`
	LinkText string `json:"link_text"`
	Want     string `json:"want"`
	Split    string `json:"split"`
}

func main() {
	set := flag.String("set", "/tmp/reg-dev", "the development set directory")
	split := flag.String("split", "dev", "which part to run: dev, heldout or all")
	tier := flag.String("tier", "standard", "validation tier")
	verbose := flag.Bool("v", false, "list every citation that missed its expected status")
	list := flag.Bool("list", false, "list every citation with its status and notes")
	flag.Parse()
	if err := run(*set, *split, *tier, *verbose, *list); err != nil {
		fmt.Fprintln(os.Stderr, "regeval:", err)
		os.Exit(1)
	}
}

func run(dir, split, tier string, verbose, list bool) error {
	cites, err := readSet(filepath.Join(dir, "set.jsonl"), split)
	if err != nil {
		return err
	}
	srv, err := startRecorded(filepath.Join(dir, "responses"))
	if err != nil {
		return err
	}
	defer srv.close()
	work, err := os.MkdirTemp("", "regeval-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	got, err := runEngine(work, srv, cites, tier)
	if err != nil {
		return err
	}
	if list {
		for _, c := range cites {
			r := got[strings.ToLower(c.URL)]
			fmt.Printf("%-10s %-8s %-8s [%s] %s\n", c.Kind, c.Want, r.status, c.LinkText, r.notes)
		}
	}
	report(os.Stdout, cites, got, srv.total(), verbose)
	return nil
}

func readSet(path, split string) ([]citation, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []citation
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var c citation
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if split == "all" || c.Split == split {
			out = append(out, c)
		}
	}
	return out, sc.Err()
}

// result is what the run concluded for a citation.
type result struct{ status, notes string }

// runEngine writes a wave citing every citation, inits an online run at
// tier and runs it against the recorded registries.
func runEngine(work string, srv *recorded, cites []citation, tier string) (map[string]result, error) {
	var b strings.Builder
	b.WriteString("# Registry evaluation\n\n## Sources\n\n")
	for _, c := range cites {
		fmt.Fprintf(&b, "- [%s](%s)\n", strings.NewReplacer("[", "(", "]", ")").Replace(c.LinkText), c.URL)
	}
	wave := filepath.Join(work, "p01.md")
	if err := os.WriteFile(wave, []byte(b.String()), 0o644); err != nil {
		return nil, err
	}
	e := engine.New()
	e.GuardOptions = srv.guardOptions()
	e.Net = engine.Network{Registries: srv.bases(), Getenv: func(string) string { return "" }, HostInterval: time.Millisecond}
	ctx := context.Background()
	in, err := e.Init(ctx, engine.InitArgs{Dir: filepath.Join(work, "run"), Waves: []string{wave}, Mode: "online", Tier: tier,
		RunID: "dr_regeval", Query: "registry evaluation"})
	if err != nil {
		return nil, err
	}
	if _, err := e.Run(ctx, engine.RunArgs{ManifestPath: in.ManifestPath}, nil); err != nil {
		return nil, err
	}
	f, err := os.Open(filepath.Join(in.RunDir, "citations", "citations.jsonl"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	got := map[string]result{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var r struct {
			URLOriginal string `json:"url_original"`
			Status      string `json:"status"`
			Notes       string `json:"notes"`
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return nil, err
		}
		got[strings.ToLower(r.URLOriginal)] = result{r.Status, r.Notes}
	}
	return got, sc.Err()
}

// report prints, per kind, the citations that got their expected status,
// and the status counts the targets read.
func report(w *os.File, cites []citation, got map[string]result, requests int, verbose bool) {
	type tally struct {
		n, ok int
		by    map[string]int
	}
	kinds := map[string]*tally{}
	all := &tally{by: map[string]int{}}
	for _, c := range cites {
		t := kinds[c.Kind]
		if t == nil {
			t = &tally{by: map[string]int{}}
			kinds[c.Kind] = t
		}
		r, ok := got[strings.ToLower(c.URL)]
		if !ok {
			r.status = "missing"
		}
		t.n++
		all.n++
		t.by[r.status]++
		if r.status == c.Want {
			t.ok++
			all.ok++
		} else if verbose {
			fmt.Fprintf(w, "MISS %-10s want %-8s got %-8s %s [%s] %s\n", c.Kind, c.Want, r.status, c.URL, c.LinkText, r.notes)
		}
	}
	names := make([]string, 0, len(kinds))
	for k := range kinds {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		t := kinds[k]
		fmt.Fprintf(w, "%-10s %2d/%2d expected (%5.1f%%)  statuses %v\n", k, t.ok, t.n, pct(t.ok, t.n), t.by)
	}
	fmt.Fprintf(w, "%-10s %2d/%2d expected (%5.1f%%)\n", "all", all.ok, all.n, pct(all.ok, all.n))
	fmt.Fprintf(w, "registry requests: %d for %d citations (%.2f per citation)\n", requests, len(cites), float64(requests)/float64(max(1, len(cites))))
}

func pct(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return 100 * float64(a) / float64(b)
}
