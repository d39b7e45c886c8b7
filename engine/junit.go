package engine

import (
	"bytes"
	"cmp"
	"encoding/xml"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/citegate/citegate/engine/gate"
)

// The JUnit report (`run --report-junit FILE`): one test case per citation so
// that a CI system shows citations the way it shows tests. It follows the
// common JUnit XML schema (Apache Ant's, as published by Windy Road:
// testdata/junit/JUnit.xsd), which every CI system that reads JUnit accepts:
// one <testsuite> with <properties>, the test cases, <system-out> and
// <system-err>.
//
//   - a must-not-cite status (blocked, mismatch, invalid) is a <failure> whose
//     type is the status and whose message is the record's notes;
//   - valid and paywalled pass; paywalled ("cite with caution") is listed in
//     <system-out>, since the schema gives a test case no output of its own;
//   - Gate C is one more test case (classname "citegate.gate"), failing when
//     the gate fails, and its status, metrics and thresholds are suite
//     properties;
//   - the run's warnings (lists of sources skipped, network unreachable) are
//     <system-err>, one a line, and Gate C's warning codes (NO_URLS_EXTRACTED,
//     NETWORK_UNREACHABLE) the property gate_c.warnings, and what the run was
//     given but did not check the property gate_c.not_checked;
//   - timestamp is when the report was made (the one thing that varies
//     between runs on the same inputs), hostname is "localhost" (the
//     machine's name is not the report's business) and every time is 0: the
//     records do not keep durations, and a report must not vary run to run.
//
// URLs and notes come from citations.jsonl, which is redacted.

type junitSuite struct {
	XMLName    xml.Name        `xml:"testsuite"`
	Name       string          `xml:"name,attr"`
	Timestamp  string          `xml:"timestamp,attr"`
	Hostname   string          `xml:"hostname,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Time       string          `xml:"time,attr"`
	Properties []junitProperty `xml:"properties>property"`
	Cases      []junitCase     `xml:"testcase"`
	SystemOut  string          `xml:"system-out"`
	SystemErr  string          `xml:"system-err"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitFailure `xml:"failure"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// JUnitReport renders the report of a finished run from its summary and its
// citations.jsonl.
func (e *Engine) JUnitReport(sum *RunSummary) ([]byte, error) {
	records, err := readCitations(sum.Artifacts.Citations)
	if err != nil {
		return nil, err
	}
	s := junitSuite{Name: "citegate." + sum.RunID, Hostname: "localhost", Time: "0",
		Timestamp: e.Now().UTC().Format("2006-01-02T15:04:05")}
	m := sum.GateC.Metrics
	s.Properties = []junitProperty{
		{"run_id", sum.RunID}, {"mode", sum.Mode}, {"validation_tier", sum.ValidationTier},
		{"gate_c.status", sum.GateC.Status},
		{"gate_c.validated_url_rate", strconv.FormatFloat(m.ValidatedURLRate, 'f', -1, 64)},
		{"gate_c.invalid_url_rate", strconv.FormatFloat(m.InvalidURLRate, 'f', -1, 64)},
		{"gate_c.uncategorized_url_rate", strconv.FormatFloat(m.UncategorizedURLRate, 'f', -1, 64)},
		{"gate_c.thresholds", fmt.Sprintf("validated >= %v, invalid <= %v, uncategorized <= %v", gate.MinValidatedRate, gate.MaxInvalidRate, gate.MaxUncategorizedRate)},
	}
	if len(sum.GateC.Warnings) > 0 {
		s.Properties = append(s.Properties, junitProperty{"gate_c.warnings", strings.Join(sum.GateC.Warnings, ",")})
	}
	if sum.GateC.NotChecked != "" {
		s.Properties = append(s.Properties, junitProperty{"gate_c.not_checked", sum.GateC.NotChecked})
	}
	var cautions bytes.Buffer
	for _, r := range records {
		c := junitCase{Name: cmp.Or(r.URL, r.NormalizedURL), Classname: "citations." + hostForClass(r.NormalizedURL), Time: "0"}
		switch r.Status {
		case StatusValid:
		case StatusPaywalled:
			fmt.Fprintf(&cautions, "paywalled (cite with caution): %s\n", c.Name)
		default:
			c.Failure = &junitFailure{Type: string(r.Status), Message: fmt.Sprintf("%s: must NOT cite", r.Status), Text: r.Notes}
			s.Failures++
		}
		s.Cases = append(s.Cases, c)
	}
	gate := junitCase{Name: "Gate C", Classname: "citegate.gate", Time: "0"}
	if !sum.Passed() {
		gate.Failure = &junitFailure{Type: "gate_c", Message: sum.GateC.Line, Text: sum.GateC.Line}
		s.Failures++
	}
	s.Cases = append(s.Cases, gate)
	s.Tests = len(s.Cases)
	s.SystemOut = cautions.String()
	// The run's warnings (lists skipped, network unreachable), one a line.
	for _, w := range redactAll(sum.Warnings) {
		s.SystemErr += w + "\n"
	}
	out, err := xml.MarshalIndent(s, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(append([]byte(xml.Header), out...), '\n'), nil
}

// hostForClass is the URL's host, the test case's class: CI systems group
// test cases by class, so citations group by site.
func hostForClass(raw string) string {
	if u, err := url.Parse(raw); err == nil && u.Hostname() != "" {
		return u.Hostname()
	}
	return "unknown"
}
