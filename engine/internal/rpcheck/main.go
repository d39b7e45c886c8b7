// Command rpcheck classifies a real-pages corpus (the format of
// ../shared/eval/realpages-dev: manifest.json plus gzipped page bodies)
// in-process, without a network: each entry's body, status, headers and
// redirect are handed to classify.Classify as the direct rung would hand
// them. It is a quick development loop; the corpus's own run.sh (a real
// `citegate run` against a served copy) is what the README's figures come
// from. The site probe is not simulated here (the corpus server answers a
// plain 404 for every unknown path, so a probe never changes a verdict
// there).
//
//	go run ./engine/internal/rpcheck -corpus ../shared/eval/realpages-dev -tier standard [-v]
//
// With -dir it instead classifies every *.html file of a directory as a
// page served with 200 at a deep link and prints each verdict other than
// valid: a quick sweep for false positives over a folder of articles.
package main

import (
	"compress/gzip"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/citegate/citegate/engine/classify"
)

type entry struct {
	ID         string              `json:"id"`
	Category   string              `json:"category"`
	Variant    string              `json:"variant"`
	Acceptable map[string][]string `json:"acceptable"`
	Host       string              `json:"host"`
	Path       string              `json:"path"`
	RedirectTo string              `json:"redirect_to"`
	LinkText   string              `json:"link_text"`
	URL        string              `json:"url"`
	File       string              `json:"file"`
	Serve      struct {
		Status  int        `json:"status"`
		Headers [][]string `json:"headers"`
	} `json:"serve"`
}

func main() {
	corpus := flag.String("corpus", "", "corpus directory (manifest.json, pages/)")
	tier := flag.String("tier", "standard", "basic, standard or thorough")
	verbose := flag.Bool("v", false, "print every entry, not only the unacceptable ones")
	dir := flag.String("dir", "", "a directory of *.html pages to sweep (instead of -corpus)")
	flag.Parse()
	if *dir != "" {
		if err := sweep(*dir, classify.Tier(*tier)); err != nil {
			fmt.Fprintln(os.Stderr, "rpcheck:", err)
			os.Exit(1)
		}
		return
	}
	if *corpus == "" {
		fmt.Fprintln(os.Stderr, "rpcheck: -corpus is required")
		os.Exit(2)
	}
	if err := run(*corpus, classify.Tier(*tier), *verbose); err != nil {
		fmt.Fprintln(os.Stderr, "rpcheck:", err)
		os.Exit(1)
	}
}

func run(dir string, tier classify.Tier, verbose bool) error {
	raw, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		return err
	}
	var m struct {
		Entries []entry `json:"entries"`
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		return err
	}
	type cell struct{ n, ok int }
	byCat := map[string]*cell{}
	for _, e := range m.Entries {
		body, err := readGz(filepath.Join(dir, e.File))
		if err != nil {
			return fmt.Errorf("%s: %w", e.ID, err)
		}
		h := http.Header{}
		ct := ""
		for _, kv := range e.Serve.Headers {
			if len(kv) == 2 {
				h.Add(kv[0], kv[1])
				if strings.EqualFold(kv[0], "content-type") {
					ct = kv[1]
				}
			}
		}
		p := classify.Page{RequestedURL: e.URL, StatusCode: e.Serve.Status, Header: h, Body: body, ContentType: ct}
		if e.RedirectTo != "" {
			p.FinalURL = "http://" + e.Host + e.RedirectTo
			p.Redirects = []string{e.URL}
		}
		v := classify.Classify(p, classify.Citation{LinkText: e.LinkText, SourceLine: "- [" + e.LinkText + "](" + e.URL + ")"}, tier)
		status := map[classify.Outcome]string{classify.Valid: "valid", classify.Paywalled: "paywalled",
			classify.Invalid: "invalid", classify.Mismatch: "mismatch", classify.Escalate: "blocked"}[v.Outcome]
		acc := e.Acceptable[string(tier)]
		if len(acc) == 0 {
			acc = e.Acceptable["standard"]
		}
		ok := slices.Contains(acc, status)
		cat := e.Category
		if e.Variant != "" {
			cat += "/" + e.Variant
		}
		c := byCat[cat]
		if c == nil {
			c = &cell{}
			byCat[cat] = c
		}
		c.n++
		if ok {
			c.ok++
		}
		if !ok || verbose {
			mark := "  "
			if !ok {
				mark = "✗ "
			}
			fmt.Printf("%s%-45s %-10s got %-9s http %3d  %s | title %q\n", mark, e.ID, e.Category, status, e.Serve.Status, v.Reason, v.Title)
		}
	}
	cats := make([]string, 0, len(byCat))
	total, good := 0, 0
	for k, c := range byCat {
		cats = append(cats, k)
		total += c.n
		good += c.ok
	}
	sort.Strings(cats)
	for _, k := range cats {
		fmt.Printf("%-24s %3d/%3d\n", k, byCat[k].ok, byCat[k].n)
	}
	fmt.Printf("tier %s: accepted %d/%d\n", tier, good, total)
	return nil
}

func readGz(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		return nil, err
	}
	return io.ReadAll(z)
}

// sweep classifies every *.html file under dir as a 200 page.
func sweep(dir string, tier classify.Tier) error {
	n, odd := 0, 0
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(strings.ToLower(path), ".html") {
			return err
		}
		body, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		n++
		p := classify.Page{RequestedURL: "https://www.example-news.net/2024/05/" + strings.TrimSuffix(d.Name(), ".html") + "-story",
			StatusCode: 200, Body: body, ContentType: "text/html"}
		v := classify.Classify(p, classify.Citation{}, tier)
		if v.Outcome != classify.Valid {
			odd++
			fmt.Printf("%-9s %s  %s | title %q\n", v.Outcome, filepath.Base(path), v.Reason, v.Title)
		}
		return nil
	})
	fmt.Printf("%d pages, %d not valid\n", n, odd)
	return err
}
