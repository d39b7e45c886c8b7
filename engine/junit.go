package engine

import (
	"bytes"
	"cmp"
	"encoding/xml"
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

// The JUnit report (`run --report-junit FILE`): one test case per citation so
// that a CI system shows citations the way it shows tests. It follows the
// common JUnit XML schema (Apache Ant's, as published by Windy Road:
// testdata/junit/JUnit.xsd), which every CI system that reads JUnit accepts:
// one <testsuite> with <properties>, the test cases, <system-out> and
// <system-err>.
//
//   - a must-not-cite status (blocked, mismatch, invalid) is a <failure> whose
//     type is the status, whose message says where the URL is cited (every
//     place: "invalid: must NOT cite; cited at wave-1/costs.md:17") and
//     whose text is the record's notes;
//   - every citation's test case carries file and line attributes, as
//     lychee's do: its first place (findings.go finds them); GitLab and
//     other readers link the case to it. The Windy Road schema does not
//     list them; readers ignore attributes they do not know;
//   - valid and paywalled pass; paywalled ("cite with caution") is listed in
//     <system-out>, since the schema gives a test case no output of its own;
//   - Gate C is one more test case (classname "citegate.gate"), failing when
//     the gate fails with a message stating its metrics and thresholds, and
//     its status, metrics and thresholds are suite properties;
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
	File      string        `xml:"file,attr,omitempty"`
	Line      int           `xml:"line,attr,omitempty"`
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
	records, places, err := e.runPlaces(sum, func(Status) bool { return true })
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
		{"gate_c.thresholds", gateThresholds()},
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
		at := places[r.NormalizedURL]
		if len(at) > 0 {
			c.File, c.Line = at[0].Path, at[0].Line
		}
		switch r.Status {
		case StatusValid:
		case StatusPaywalled:
			fmt.Fprintf(&cautions, "paywalled (cite with caution): %s\n", c.Name)
		default:
			c.Failure = &junitFailure{Type: string(r.Status), Message: fmt.Sprintf("%s: must NOT cite%s", r.Status, citedAt(at)), Text: r.Notes}
			s.Failures++
		}
		s.Cases = append(s.Cases, c)
	}
	gate := junitCase{Name: "Gate C", Classname: "citegate.gate", Time: "0"}
	if !sum.Passed() {
		msg := gateMessage(&sum.GateC)
		gate.Failure = &junitFailure{Type: "gate_c", Message: msg, Text: msg}
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

// citedAt names every place, "; cited at a.md:3, b.md:7", or nothing when
// none is known.
func citedAt(at []place) string {
	if len(at) == 0 {
		return ""
	}
	names := make([]string, len(at))
	for i, p := range at {
		names[i] = p.String()
	}
	return "; cited at " + strings.Join(names, ", ")
}
