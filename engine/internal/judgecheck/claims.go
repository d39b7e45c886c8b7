package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/citegate/citegate/engine/judge"
)

// textCase is one line of a plain claim set: a claim, the source text it
// is checked against, and its label ("supported" or anything else for
// not supported). source_label, when given, groups the figures (for
// example SUPPORT, CONTRADICT, NEI).
type textCase struct {
	ID          string `json:"id"`
	Claim       string `json:"claim"`
	Text        string `json:"text"`
	Label       string `json:"label"`
	SourceLabel string `json:"source_label"`
}

// judgeClaims runs the lexical judge over a JSON-lines claim set whose
// source text is given as plain text (no page to read), and prints the
// same figures as for a page set, per source label.
func judgeClaims(path string, verbose bool) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	j := judge.NewLexical()
	groups := map[string]*cell{}
	all := &cell{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var k textCase
		if err := json.Unmarshal(sc.Bytes(), &k); err != nil {
			return err
		}
		v, err := j.Judge(context.Background(), k.Claim, k.Text)
		if err != nil {
			return err
		}
		want := k.Label == "supported"
		all.add(v, want)
		fold(groups, k.SourceLabel).add(v, want)
		if verbose {
			mark := " "
			if v.Outcome != judge.VerdictUncertain && (v.Outcome == judge.VerdictSupported) != want {
				mark = "✗"
			}
			fmt.Printf("%s %s %-11s %-11s %s\n   %s\n", mark, k.ID, k.Label, v.Outcome, k.Claim, v.Rationale)
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	printFolds(groups, all)
	return nil
}
