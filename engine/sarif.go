package engine

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"

	"github.com/citegate/citegate/engine/gate"
)

// The SARIF report (`--report-sarif FILE`, SARIF 2.1.0): one result per
// finding, so that code scanning shows each failing citation at the line
// that cites it.
//
//   - a rule per class (citegate/invalid, citegate/mismatch,
//     citegate/unsupported, citegate/blocked) with its help text; the level
//     is error, but warning for blocked (the site refused the checker, the
//     citation may be fine);
//   - the location is the URL's place; columns count UTF-16 code units, as
//     the run states in columnKind (SARIF's default, which viewers assume);
//   - partialFingerprints carry the cid (the normalized URL's id) and the
//     occurrence (path#n), so code scanning follows a finding from run to
//     run while lines above it move;
//   - Gate C's status, metrics and thresholds, and the tally, are the run's
//     properties;
//   - GitHub keeps at most 5,000 results of a run: the report keeps the
//     worst 5,000 and says in a tool notification how many it left out.
//
// Nothing in it varies between runs on the same inputs: no timestamp, no
// absolute path, no version unless the caller sets one.

// MaxSARIFResults is the most results a report keeps (GitHub code scanning
// keeps no more of a run).
const MaxSARIFResults = 5000

// sarifSchemaURI is the schema the report names (the OASIS errata 01 one,
// which testdata/sarif holds).
const sarifSchemaURI = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"

type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool        sarifTool         `json:"tool"`
	Invocations []sarifInvocation `json:"invocations"`
	ColumnKind  string            `json:"columnKind"`
	Results     []sarifResult     `json:"results"`
	Properties  sarifRunProps     `json:"properties"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	Version        string      `json:"version"`
	InformationURI string      `json:"informationUri"`
	Rules          []sarifRule `json:"rules"`
}

type sarifRule struct {
	ID                   string        `json:"id"`
	Name                 string        `json:"name"`
	ShortDescription     sarifText     `json:"shortDescription"`
	FullDescription      sarifText     `json:"fullDescription"`
	Help                 sarifHelp     `json:"help"`
	DefaultConfiguration sarifRuleConf `json:"defaultConfiguration"`
	Properties           sarifRuleProp `json:"properties"`
}

type sarifText struct {
	Text string `json:"text"`
}

type sarifHelp struct {
	Text     string `json:"text"`
	Markdown string `json:"markdown"`
}

type sarifRuleConf struct {
	Level string `json:"level"`
}

type sarifRuleProp struct {
	Tags     []string `json:"tags"`
	Precise  string   `json:"precision"`
	Severity string   `json:"problem.severity"`
}

type sarifInvocation struct {
	ExecutionSuccessful bool                `json:"executionSuccessful"`
	Notifications       []sarifNotification `json:"toolExecutionNotifications,omitempty"`
}

type sarifNotification struct {
	Level   string    `json:"level"`
	Message sarifText `json:"message"`
}

type sarifResult struct {
	RuleID              string            `json:"ruleId"`
	RuleIndex           int               `json:"ruleIndex"`
	Level               string            `json:"level"`
	Message             sarifText         `json:"message"`
	Locations           []sarifLocation   `json:"locations"`
	PartialFingerprints map[string]string `json:"partialFingerprints"`
}

type sarifLocation struct {
	PhysicalLocation sarifPhysical `json:"physicalLocation"`
}

type sarifPhysical struct {
	ArtifactLocation sarifArtifact `json:"artifactLocation"`
	Region           *sarifRegion  `json:"region,omitempty"`
}

type sarifArtifact struct {
	URI string `json:"uri"`
}

type sarifRegion struct {
	StartLine   int `json:"startLine"`
	StartColumn int `json:"startColumn,omitempty"`
}

type sarifRunProps struct {
	Name          string       `json:"name"`
	GateC         *sarifGate   `json:"gate_c,omitempty"`
	Counts        []LabelCount `json:"counts"`
	ResultsTotal  int          `json:"results_total"`
	ResultsKept   int          `json:"results_kept"`
	ResultsCutOff bool         `json:"results_cut"`
}

type sarifGate struct {
	Status     string       `json:"status"`
	Line       string       `json:"line"`
	Metrics    gate.Metrics `json:"metrics"`
	Thresholds string       `json:"thresholds"`
	Warnings   []string     `json:"warnings"`
	NotChecked string       `json:"not_checked,omitempty"`
}

// ruleOf describes each class's rule.
var ruleOf = map[Class]struct{ name, short, help string }{
	ClassInvalid: {"InvalidCitation", "The cited URL does not resolve to a usable page (must not cite).",
		"The URL is malformed, missing (404/410) or otherwise not a page a reader can open. Replace it with the source's working URL or drop the claim."},
	ClassMismatch: {"MismatchedCitation", "The cited page is not the source the citation names (must not cite).",
		"The page loads but its title or content does not match how the wave cites it. Check that the link points at the intended source."},
	ClassUnsupported: {"UnsupportedClaim", "The cited source does not support the claim (verify).",
		"The verify judge read the source and found the claim it is cited for unsupported. Reword the claim or cite a source that supports it."},
	ClassBlocked: {"BlockedCitation", "The checker could not read the cited page (blocked: must not cite until checked).",
		"The site refused or timed out the checker (bot wall, rate limit, dry run). The citation may be fine: check it by hand, or re-run with a provider."},
}

// SARIF renders the report as SARIF 2.1.0; version is the tool's (see
// sarifVersion).
func (r *CIReport) SARIF(version string) ([]byte, error) {
	run := sarifRun{ColumnKind: "utf16CodeUnits", Results: []sarifResult{},
		Tool: sarifTool{Driver: sarifDriver{Name: "citegate", InformationURI: "https://github.com/citegate/citegate"}}}
	run.Tool.Driver.Version = sarifVersion(version)
	index := map[Class]int{}
	for i, c := range classes {
		index[c] = i
		d := ruleOf[c]
		run.Tool.Driver.Rules = append(run.Tool.Driver.Rules, sarifRule{ID: ruleID(c), Name: d.name,
			ShortDescription: sarifText{d.short}, FullDescription: sarifText{d.short + " " + d.help},
			Help: sarifHelp{Text: d.help, Markdown: d.help}, DefaultConfiguration: sarifRuleConf{level(c)},
			Properties: sarifRuleProp{Tags: []string{"citations"}, Precise: "high", Severity: level(c)}})
	}
	kept := r.Findings[:min(len(r.Findings), MaxSARIFResults)]
	for _, f := range kept {
		run.Results = append(run.Results, sarifResultOf(f, index[f.Class]))
	}
	inv := sarifInvocation{ExecutionSuccessful: true}
	if cut := len(r.Findings) - len(kept); cut > 0 {
		inv.Notifications = []sarifNotification{{Level: "warning", Message: sarifText{fmt.Sprintf(
			"%d of %d findings left out: GitHub code scanning keeps at most %d results of a run; these are the worst %d (see the JUnit report or citations.jsonl for all)",
			cut, len(r.Findings), MaxSARIFResults, len(kept))}}}
	}
	run.Invocations = []sarifInvocation{inv}
	run.Properties = sarifRunProps{Name: r.Name, Counts: r.Counts, ResultsTotal: len(r.Findings), ResultsKept: len(kept),
		ResultsCutOff: len(kept) < len(r.Findings)}
	if run.Properties.Counts == nil {
		run.Properties.Counts = []LabelCount{}
	}
	if g := r.Gate; g != nil {
		run.Properties.GateC = &sarifGate{Status: g.Status, Line: g.Line, Metrics: g.Metrics, Thresholds: gateThresholds(),
			Warnings: append([]string{}, g.Warnings...), NotChecked: g.NotChecked}
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(sarifLog{Schema: sarifSchemaURI, Version: "2.1.0", Runs: []sarifRun{run}}); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func sarifResultOf(f Finding, rule int) sarifResult {
	loc := sarifPhysical{ArtifactLocation: sarifArtifact{URI: pathURI(f.Place.Path)}}
	if f.Place.Line > 0 {
		loc.Region = &sarifRegion{StartLine: f.Place.Line, StartColumn: f.Place.Col.UTF16}
	}
	fp := map[string]string{"citegateOccurrence/v1": fmt.Sprintf("%s#%d", f.Place.Path, f.Nth)}
	if f.CID != "" {
		fp["citegateCid/v1"] = f.CID
	}
	return sarifResult{RuleID: ruleID(f.Class), RuleIndex: rule, Level: level(f.Class), Message: sarifText{message(f)},
		Locations: []sarifLocation{{loc}}, PartialFingerprints: fp}
}

func ruleID(c Class) string { return "citegate/" + string(c) }

// level is the class's SARIF level (GitHub's annotation level too).
func level(c Class) string {
	if c.IsError() {
		return "error"
	}
	return "warning"
}

// message is a finding in one sentence: the class, the URL and the notes.
func message(f Finding) string {
	verb := "must NOT cite"
	if f.Class == ClassUnsupported {
		verb = "claim not supported by"
	}
	m := fmt.Sprintf("%s: %s %s", f.Class, verb, f.URL)
	if f.Notes != "" {
		m += " — " + f.Notes
	}
	return m
}

// pathURI is a path as a URI reference: each segment escaped, so that
// spaces and non-ASCII names stay one valid reference; an absolute path (a
// verify output outside the working directory) is a file: URI.
func pathURI(p string) string {
	if strings.HasPrefix(p, "/") {
		return (&url.URL{Scheme: "file", Path: p}).String()
	}
	return (&url.URL{Path: p}).EscapedPath()
}

// gateThresholds states Gate C's thresholds.
func gateThresholds() string {
	return fmt.Sprintf("validated >= %v, invalid <= %v, uncategorized <= %v", gate.MinValidatedRate, gate.MaxInvalidRate, gate.MaxUncategorizedRate)
}

// sarifVersion writes a version as SARIF viewers compare them, starting
// with a number (the multitool warns otherwise, SARIF2005): "v1.2.3" is
// 1.2.3, and a build without a release number ("devel", a VCS revision, or
// none given) is 0.0.0-devel, 0.0.0-<revision>, as Go's pseudo-versions do.
func sarifVersion(v string) string {
	v = strings.TrimPrefix(v, "v")
	if v != "" && v[0] >= '0' && v[0] <= '9' {
		return v
	}
	return "0.0.0-" + cmp.Or(v, "devel")
}
