package engine

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strconv"
)

// The Code Quality report (`--report-codequality FILE`): the JSON array
// GitLab reads for its merge-request widget (a subset of Code Climate's
// issue format): one issue per finding, with description, check_name (the
// SARIF rule id), a fingerprint unique to the finding and stable across
// runs (class, cid or URL, path and occurrence number, not the line),
// severity, and location.path with lines.begin (1 when only the file is
// known: GitLab requires a line).

type codeQualityIssue struct {
	Description string              `json:"description"`
	CheckName   string              `json:"check_name"`
	Fingerprint string              `json:"fingerprint"`
	Severity    string              `json:"severity"`
	Location    codeQualityLocation `json:"location"`
}

type codeQualityLocation struct {
	Path  string           `json:"path"`
	Lines codeQualityLines `json:"lines"`
}

type codeQualityLines struct {
	Begin int `json:"begin"`
}

// severityOf maps a class to GitLab's severities (info, minor, major,
// critical, blocker).
var severityOf = map[Class]string{ClassInvalid: "critical", ClassMismatch: "major", ClassUnsupported: "major", ClassBlocked: "minor"}

// CodeQuality renders the report as a GitLab Code Quality report.
func (r *CIReport) CodeQuality() ([]byte, error) {
	issues := make([]codeQualityIssue, 0, len(r.Findings))
	for _, f := range r.Findings {
		issues = append(issues, codeQualityIssue{Description: message(f), CheckName: ruleID(f.Class), Fingerprint: fingerprint(f),
			Severity: severityOf[f.Class], Location: codeQualityLocation{Path: f.Place.Path, Lines: codeQualityLines{Begin: max(f.Place.Line, 1)}}})
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(issues); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// fingerprint identifies a finding across runs.
func fingerprint(f Finding) string {
	id := f.CID
	if id == "" {
		id = f.URL
	}
	sum := sha256.Sum256([]byte(string(f.Class) + "\x00" + id + "\x00" + f.Place.Path + "\x00" + strconv.Itoa(f.Nth)))
	return hex.EncodeToString(sum[:])
}
