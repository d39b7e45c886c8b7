// Command judgecheck runs the offline judge over a labelled claim set in
// the format of ../shared/eval/wice-dev (cases.jsonl, pages/) in-process:
// each page is read as verify reads it (readable text, narrowed to the
// claim), then judged. It prints forced-choice accuracy, the accuracy of
// committed verdicts and the share committed, per fold. A development
// loop; the README's figures come from the set's own run.sh.
//
//	go run ./engine/internal/judgecheck -data ../shared/eval/wice-dev [-v]
//	go run ./engine/internal/judgecheck -claims set.jsonl [-v]
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/citegate/citegate/engine/judge"
	"github.com/citegate/citegate/engine/verify"
)

type kase struct {
	ID, Page, Label, Fold, Claim string
}

func main() {
	data := flag.String("data", "", "a directory with cases.jsonl and pages/")
	verbose := flag.Bool("v", false, "print every case")
	features := flag.Bool("features", false, "print the offline judge's evidence for every case as JSON lines")
	budget := flag.Int("budget", 12000, "with -retrieval: the judge's input budget in bytes")
	outDir := flag.String("out", "", "score a run.sh OUT_DIR (doc-NN.json verify results) instead of judging in-process")
	claims := flag.String("claims", "", "judge a JSON-lines claim set with the source as plain text (id, claim, text, label, source_label) instead")
	retrieval := flag.Bool("retrieval", false, "measure retrieval instead: the share of supported cases whose supporting sentences (sample.jsonl) are all in the text the judge reads")
	flag.Parse()
	if *claims != "" {
		if err := judgeClaims(*claims, *verbose); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		return
	}
	if *outDir != "" {
		if err := scoreRun(*data, *outDir); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		return
	}
	if *retrieval {
		if err := measureRetrieval(*data, *budget, *verbose); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		return
	}
	f, err := os.Open(filepath.Join(*data, "cases.jsonl"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer f.Close()
	j := judge.NewLexical()
	folds := map[string]*cell{}
	all := &cell{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var k kase
		if err := json.Unmarshal(sc.Bytes(), &k); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		html, err := os.ReadFile(filepath.Join(*data, "pages", k.Page))
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		text := verify.OfflineJudgeInput(html, "text/html")
		v, err := j.Judge(context.Background(), k.Claim, text)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		want := k.Label == "supported"
		all.add(v, want)
		fold(folds, k.Fold).add(v, want)
		if *features {
			ev := judge.Explain(k.Claim, text)
			b, _ := json.Marshal(map[string]any{"id": k.ID, "label": k.Label, "fold": k.Fold, "ev": ev})
			fmt.Println(string(b))
		}
		if *verbose {
			mark := " "
			if v.Outcome != judge.VerdictUncertain && (v.Outcome == judge.VerdictSupported) != want {
				mark = "✗"
			}
			fmt.Printf("%s %s %-11s %-11s %s\n   %s\n", mark, k.ID, k.Label, v.Outcome, k.Claim, v.Rationale)
		}
	}
	printFolds(folds, all)
}

type cell struct{ n, forced, committed, committedOK int }

// add counts one verdict against the label: its forced choice, and whether
// it committed and was right.
func (c *cell) add(v judge.Verdict, want bool) {
	c.n++
	if v.Supported == want {
		c.forced++
	}
	if v.Outcome != judge.VerdictUncertain {
		c.committed++
		if (v.Outcome == judge.VerdictSupported) == want {
			c.committedOK++
		}
	}
}

func fold(m map[string]*cell, k string) *cell {
	if m[k] == nil {
		m[k] = &cell{}
	}
	return m[k]
}

// measureRetrieval checks, for every case with supporting sentences, that
// each of them is in the text a judge reads (JudgeInput), comparing
// whitespace-collapsed text.
func measureRetrieval(data string, budget int, verbose bool) error {
	f, err := os.Open(filepath.Join(data, "sample.jsonl"))
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	n, ok, inputChars := 0, 0, 0
	for sc.Scan() {
		var r struct {
			ID         string   `json:"id"`
			Claim      string   `json:"claim"`
			Evidence   []string `json:"evidence"`
			Supporting [][]int  `json:"supporting_sentences"`
			Label      string   `json:"label"`
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return err
		}
		if r.Label != "supported" || len(r.Supporting) == 0 {
			continue
		}
		html, err := os.ReadFile(filepath.Join(data, "pages", r.ID+".html"))
		if err != nil {
			return err
		}
		in := collapse(verify.JudgeInputWithin(html, "text/html", r.Claim, budget))
		inputChars += len(in)
		// A case is covered when one of its annotated sets of supporting
		// sentences is entirely in the input.
		covered := false
		var missing string
		for _, set := range r.Supporting {
			all := true
			for _, i := range set {
				if i < 0 || i >= len(r.Evidence) {
					continue
				}
				line := collapse(strings.TrimLeft(r.Evidence[i], "# "))
				if strings.HasPrefix(line, "(meta data)") {
					continue
				}
				if !strings.Contains(in, line) {
					all, missing = false, line
					break
				}
			}
			if all {
				covered = true
				break
			}
		}
		n++
		if covered {
			ok++
		} else if verbose {
			fmt.Printf("%s: missing %q\n", r.ID, missing)
		}
	}
	fmt.Printf("retrieval: %d of %d supported cases have every supporting sentence in the judge's input (%.1f%%); mean input %d chars\n",
		ok, n, 100*float64(ok)/float64(max(1, n)), inputChars/max(1, n))
	return nil
}

func collapse(s string) string { return strings.Join(strings.Fields(s), " ") }

// scoreRun scores the verify results a set's run.sh kept in outDir
// (doc-NN.json): forced-choice accuracy from seed 002's boolean, and the
// accuracy of committed verdicts ("supported"/"unsupported") with the share
// committed, per fold. A case without a judge verdict counts as wrong in
// forced choice and as not committed.
func scoreRun(data, outDir string) error {
	f, err := os.Open(filepath.Join(data, "cases.jsonl"))
	if err != nil {
		return err
	}
	defer f.Close()
	type result struct {
		Citations []struct {
			Citation struct {
				OffsetStart int `json:"offset_start"`
			} `json:"citation"`
			Judge *struct {
				Verdict   string `json:"verdict"`
				Supported bool   `json:"supported"`
			} `json:"judge"`
		} `json:"citations"`
	}
	docs := map[string]*result{}
	folds := map[string]*cell{}
	all := &cell{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var k struct {
			Doc, Label, Fold string
			OffsetStart      int `json:"offset_start"`
		}
		if err := json.Unmarshal(sc.Bytes(), &k); err != nil {
			return err
		}
		r, ok := docs[k.Doc]
		if !ok {
			if b, err := os.ReadFile(filepath.Join(outDir, k.Doc+".json")); err == nil {
				r = &result{}
				if json.Unmarshal(b, r) != nil {
					r = nil
				}
			}
			docs[k.Doc] = r
		}
		want := k.Label == "supported"
		for _, c := range []*cell{all, fold(folds, k.Fold)} {
			c.n++
		}
		if r == nil {
			continue
		}
		for _, c := range r.Citations {
			if c.Citation.OffsetStart != k.OffsetStart || c.Judge == nil {
				continue
			}
			for _, x := range []*cell{all, fold(folds, k.Fold)} {
				if c.Judge.Supported == want {
					x.forced++
				}
				if c.Judge.Verdict == "supported" || c.Judge.Verdict == "unsupported" {
					x.committed++
					if (c.Judge.Verdict == "supported") == want {
						x.committedOK++
					}
				}
			}
		}
	}
	printFolds(folds, all)
	return nil
}

// printFolds prints forced and committed accuracy per fold, then overall.
func printFolds(folds map[string]*cell, all *cell) {
	for _, n := range append(slices.Sorted(maps.Keys(folds)), "all") {
		c := all
		if n != "all" {
			c = folds[n]
		}
		fmt.Printf("%-10s n=%3d forced %.3f  committed %.3f on %.0f%% (%d)\n", n, c.n, float64(c.forced)/float64(c.n),
			float64(c.committedOK)/float64(max(1, c.committed)), 100*float64(c.committed)/float64(c.n), c.committed)
	}
}
