package main

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestSharedSourceCostsLess runs the tool on testdata (three claims share
// one page): the batched run must send fewer characters per claim than the
// per-claim run, make fewer requests, and reach the same verdicts.
func TestSharedSourceCostsLess(t *testing.T) {
	var out strings.Builder
	if err := run("testdata", "hash", &out); err != nil {
		t.Fatal(err)
	}
	line := regexp.MustCompile(`(?m)^(\S+)\s+(\d+) requests\s+(\d+) prompt chars.*verdicts identical (\d+)/(\d+)$`)
	got := map[string][2]int{}
	for _, m := range line.FindAllStringSubmatch(out.String(), -1) {
		req, _ := strconv.Atoi(m[2])
		chars, _ := strconv.Atoi(m[3])
		got[m[1]] = [2]int{req, chars}
		if m[4] != m[5] {
			t.Errorf("%s: verdicts identical %s of %s", m[1], m[4], m[5])
		}
	}
	if !strings.Contains(out.String(), "4 claims, 2 sources, 3 claims cite a source another claim cites") {
		t.Errorf("summary line missing:\n%s", out.String())
	}
	per, by := got["per-claim"], got["by-source"]
	if per[0] != 4 || by[0] != 2 {
		t.Errorf("requests per-claim %d by-source %d, want 4 and 2", per[0], by[0])
	}
	if by[1] == 0 || by[1]*2 > per[1] {
		t.Errorf("by-source sends %d chars, per-claim %d: want at most half", by[1], per[1])
	}
}

// TestLexicalRuleJudgesTheTextSent: under -rule lexical the fake answers
// by the text a request carries; every protocol's row is reported, the
// two-stage one with at least one call per claim; an unknown rule is
// refused.
func TestLexicalRuleJudgesTheTextSent(t *testing.T) {
	var out strings.Builder
	if err := run("testdata", "lexical", &out); err != nil {
		t.Fatal(err)
	}
	line := regexp.MustCompile(`(?m)^(\S+)\s+(\d+) requests\s+(\d+) prompt chars.*verdicts identical (\d+)/(\d+)$`)
	rows := map[string][]string{}
	for _, m := range line.FindAllStringSubmatch(out.String(), -1) {
		rows[m[1]] = m
	}
	if len(rows) != 4 || !strings.Contains(out.String(), "fake judge rule lexical") {
		t.Fatalf("want four rows under the lexical rule:\n%s", out.String())
	}
	if ts := rows["two-stage"]; atoi(ts[2]) < 4 || ts[5] != "4" {
		t.Errorf("two-stage: %v, want at least one call per claim over 4 claims", ts)
	}
	if err := run("testdata", "coin", &out); err == nil {
		t.Error("an unknown rule was accepted")
	}
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}
