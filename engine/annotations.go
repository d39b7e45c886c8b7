package engine

import (
	"fmt"
	"strings"

	"github.com/citegate/citegate/engine/gate"
)

// Annotations in a CI job's log (`--annotations github|gitlab`).
//
// GitHub: workflow commands (::error file=…,line=…,col=…,title=…::message),
// which the runner turns into annotations on the changed files. GitHub keeps
// at most 10 error and 10 warning annotations a step (50 a job), so a
// failing Gate C comes first, then the findings worst first up to the caps,
// and a last ::notice says how many were left out. col counts characters
// (GitHub's columns are 1-based characters). Values are escaped as the
// runner unescapes them (actions/toolkit, packages/core/src/command.ts):
// in the message %, CR and LF; in a property also : and ,.
//
// GitLab has no such commands: its job log gets one "path:line:col: level:
// message" line a finding (columns in characters, as GitHub's), which
// editors and terminals open at the place; its merge-request widget reads
// the Code Quality report (codequality.go).

// GitHub's per-step annotation caps.
const (
	maxGitHubErrors   = 10
	maxGitHubWarnings = 10
)

// maxGitLabLines bounds the log lines of --annotations gitlab.
const maxGitLabLines = 1000

// GitHubAnnotations renders the report as GitHub workflow commands, one a
// line.
func (r *CIReport) GitHubAnnotations() []byte {
	var b strings.Builder
	errs, warns, left := 0, 0, 0
	if g := r.Gate; g != nil && g.Status != "pass" {
		fmt.Fprintf(&b, "::error title=%s::%s\n", escapeProperty("citegate: Gate C "+g.Status), escapeData(gateMessage(g)))
		errs++
	}
	for _, f := range r.Findings {
		n, limit := &warns, maxGitHubWarnings
		if f.Class.IsError() {
			n, limit = &errs, maxGitHubErrors
		}
		if *n >= limit {
			left++
			continue
		}
		*n++
		b.WriteString("::" + level(f.Class) + " " + githubProperties(f) + "::" + escapeData(message(f)) + "\n")
	}
	if left > 0 {
		fmt.Fprintf(&b, "::notice title=%s::%s\n", escapeProperty("citegate: findings left out"), escapeData(fmt.Sprintf(
			"%d more findings not annotated: GitHub shows at most %d errors and %d warnings a step; the job summary, SARIF and JUnit reports list them all",
			left, maxGitHubErrors, maxGitHubWarnings)))
	}
	return []byte(b.String())
}

// githubProperties are a finding's command properties.
func githubProperties(f Finding) string {
	p := "file=" + escapeProperty(f.Place.Path)
	if f.Place.Line > 0 {
		p += fmt.Sprintf(",line=%d,col=%d", f.Place.Line, f.Place.Col.Rune)
	}
	return p + ",title=" + escapeProperty("citegate: "+string(f.Class)+" citation")
}

// escapeData escapes a workflow command's message.
func escapeData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// escapeProperty escapes a workflow command's property value.
func escapeProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}

// GitLabAnnotations renders the report as "path:line:col: level: message"
// lines, with a last line saying how many were left out.
func (r *CIReport) GitLabAnnotations() []byte {
	var b strings.Builder
	if g := r.Gate; g != nil && g.Status != "pass" {
		fmt.Fprintf(&b, "citegate: error: %s\n", oneLine(gateMessage(g)))
	}
	for i, f := range r.Findings {
		if i == maxGitLabLines {
			fmt.Fprintf(&b, "citegate: %d more findings not listed; the Code Quality and JUnit reports list them all\n", len(r.Findings)-i)
			break
		}
		loc := f.Place.Path
		if f.Place.Line > 0 {
			loc += fmt.Sprintf(":%d:%d", f.Place.Line, f.Place.Col.Rune)
		}
		fmt.Fprintf(&b, "%s: %s: %s\n", loc, level(f.Class), oneLine(message(f)))
	}
	return []byte(b.String())
}

// oneLine keeps a log line one line: CR and LF become spaces.
func oneLine(s string) string {
	return strings.NewReplacer("\r\n", " ", "\r", " ", "\n", " ").Replace(s)
}

// gateMessage states Gate C's verdict, then its metrics against their
// thresholds.
func gateMessage(g *GateCSummary) string {
	m := g.Metrics
	return fmt.Sprintf("%s Metrics: validated rate %v (needs >= %v); invalid rate %v (needs <= %v); uncategorized rate %v (needs <= %v).",
		g.Line, m.ValidatedURLRate, gate.MinValidatedRate, m.InvalidURLRate, gate.MaxInvalidRate, m.UncategorizedURLRate, gate.MaxUncategorizedRate)
}
