package engine

import (
	"cmp"
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/citegate/citegate/engine/fsx"
	"github.com/citegate/citegate/engine/verify"
	"github.com/citegate/citegate/netguard"
	"github.com/citegate/citegate/parse"
)

// The record every CI report is made from (SARIF, GitHub and GitLab
// annotations, Code Quality, the job summary, and JUnit's locations): each
// failing citation at each place that cites it, worst first.
//
// found-by.json keeps the reference's fields (a source line's text, no line
// number), so a report finds the places again: it parses the wave files its
// failing records' provenance names, with the run's Sources titles, and keeps
// the links whose URL normalizes to the record's. A report is made right after
// its run's commit, so the files are the ones the run read; a file that is
// gone or unreadable by then still names its path, without a line.

// Place is where a file cites a URL: its path (POSIX, relative to the
// report's base, see Engine.ReportBase), the 1-based line (0: only the file
// is known) and the URL's column on it.
type Place struct {
	Path string
	Line int
	Col  parse.Column
}

// String is "path:line", or the path alone when the line is unknown.
func (p Place) String() string {
	if p.Line <= 0 {
		return p.Path
	}
	return fmt.Sprintf("%s:%d", p.Path, p.Line)
}

// Class is what is wrong with a finding: a must-not-cite status, or a claim
// verify's judge found unsupported.
type Class string

// The classes, worst first.
const (
	ClassInvalid     Class = "invalid"
	ClassMismatch    Class = "mismatch"
	ClassUnsupported Class = "unsupported"
	ClassBlocked     Class = "blocked"
)

// classes lists the classes in rank order (rank is the index).
var classes = []Class{ClassInvalid, ClassMismatch, ClassUnsupported, ClassBlocked}

func (c Class) rank() int {
	if i := slices.Index(classes, c); i >= 0 {
		return i
	}
	return len(classes)
}

// IsError says whether the class fails a citation outright; blocked (the
// site refused the checker) is a warning: the citation may be fine.
func (c Class) IsError() bool { return c != ClassBlocked }

// Finding is one failing citation at one place.
type Finding struct {
	Class Class
	// URL is the cited URL as the record holds it (redacted).
	URL string
	// CID identifies the normalized URL across runs ("" when verify's
	// marker names no URL).
	CID   string
	Notes string
	Place Place
	// Nth numbers the URL's places within Place.Path, in document order:
	// it tells apart two citations of one URL in one file and, unlike a
	// line number, survives edits above them (fingerprints use it).
	Nth int
}

// CIReport is a finished run's (or verify's) findings, worst first, and what
// the reports say about the run as a whole.
type CIReport struct {
	// Name is the run id, or "verify" for a verify of its own.
	Name string
	// Gate is Gate C's outcome; nil for verify.
	Gate *GateCSummary
	// Counts are the citations per status (a run) or per verdict (verify),
	// in report order.
	Counts []LabelCount
	// Findings are every failing citation at every place, worst first,
	// then by path, line and column.
	Findings []Finding
}

// LabelCount is one line of a report's tally.
type LabelCount struct {
	Label string `json:"label"`
	N     int    `json:"count"`
}

// CIReport makes the CI reports' record of a finished run from its summary,
// its citations.jsonl and its wave files.
func (e *Engine) CIReport(sum *RunSummary) (*CIReport, error) {
	records, places, err := e.runPlaces(sum, failing)
	if err != nil {
		return nil, err
	}
	gate := sum.GateC
	r := &CIReport{Name: sum.RunID, Gate: &gate}
	c := sum.Counts
	r.Counts = []LabelCount{{"valid", c.Valid}, {"paywalled", c.Paywalled}, {"blocked", c.Blocked}, {"mismatch", c.Mismatch}, {"invalid", c.Invalid}}
	for _, rec := range records {
		if !failing(rec.Status) {
			continue
		}
		for _, p := range places[rec.NormalizedURL] {
			r.Findings = append(r.Findings, Finding{Class: Class(rec.Status), URL: cmp.Or(rec.URL, rec.NormalizedURL), CID: rec.CID,
				Notes: rec.Notes, Place: p.Place, Nth: p.nth})
		}
	}
	r.sort()
	return r, nil
}

// failing says whether a status is must-not-cite.
func failing(s Status) bool {
	return s == StatusInvalid || s == StatusMismatch || s == StatusBlocked
}

// AddVerify adds verify's unsupported claims to the report: each at its
// citation marker in the output file, named path as the command line gave
// it. A report of a verify alone starts from NewVerifyReport.
func (r *CIReport) AddVerify(path string, output []byte, res *verify.Result) {
	if res == nil {
		return
	}
	path = filepath.ToSlash(filepath.Clean(path))
	nth := map[string]int{}
	for _, c := range res.Citations {
		if c.Judge == nil || c.Judge.Verdict != "unsupported" {
			continue
		}
		url := c.Citation.Identifier
		if c.Source != nil && c.Source.URL != "" {
			url = c.Source.URL
		}
		url, _ = netguard.RedactURL(url)
		cid := ""
		if n, err := parse.Normalize(url); err == nil {
			cid = parse.CID(n)
		}
		line, col := parse.Locate(output, c.Citation.OffsetStart)
		nth[url]++
		notes := netguard.RedactText(strings.TrimSpace("claim cited as " + c.Citation.Raw + ": " + c.Judge.Rationale))
		r.Findings = append(r.Findings, Finding{Class: ClassUnsupported, URL: url, CID: cid, Notes: notes,
			Place: Place{Path: path, Line: line, Col: col}, Nth: nth[url]})
	}
	r.sort()
}

// NewVerifyReport is the report of a verify of its own (the verify command).
func NewVerifyReport(path string, output []byte, res *verify.Result) *CIReport {
	r := &CIReport{Name: "verify"}
	if res != nil {
		r.Counts = []LabelCount{{"supported", res.TotalSupported}, {"unsupported", unsupported(res)},
			{"uncertain", res.TotalUncertain}, {"judge errors", res.TotalJudgeErrors}}
	}
	r.AddVerify(path, output, res)
	return r
}

func unsupported(res *verify.Result) int {
	n := 0
	for _, c := range res.Citations {
		if c.Judge != nil && c.Judge.Verdict == "unsupported" {
			n++
		}
	}
	return n
}

// sort orders the findings worst first, then by place.
func (r *CIReport) sort() {
	slices.SortStableFunc(r.Findings, func(a, b Finding) int {
		return cmp.Or(cmp.Compare(a.Class.rank(), b.Class.rank()), strings.Compare(a.Place.Path, b.Place.Path),
			cmp.Compare(a.Place.Line, b.Place.Line), cmp.Compare(a.Place.Col.Byte, b.Place.Col.Byte), strings.Compare(a.URL, b.URL))
	})
}

// place is a Place and its Nth.
type place struct {
	Place
	nth int
}

// runPlaces reads a finished run's records and finds the places that cite
// each one of a status in, by normalized URL.
func (e *Engine) runPlaces(sum *RunSummary, in func(Status) bool) ([]Citation, map[string][]place, error) {
	records, err := readCitations(sum.Artifacts.Citations)
	if err != nil {
		return nil, nil, err
	}
	want := map[string]bool{}
	var files []string
	for _, r := range records {
		if !in(r.Status) {
			continue
		}
		want[r.NormalizedURL] = true
		for _, f := range r.FoundBy {
			files = append(files, f.ArtifactPath)
		}
	}
	slices.Sort(files)
	files = slices.Compact(files)
	prefix := e.reportPrefix(sum.origin.root)
	places := map[string][]place{}
	if sum.origin.root != "" {
		for _, f := range files {
			locateFile(sum.origin, f, prefix, want, places)
		}
	}
	// A file whose places were not found again (gone, unreadable or
	// changed since the run) is still named, without a line.
	for _, r := range records {
		if !want[r.NormalizedURL] {
			continue
		}
		found := map[string]bool{}
		for _, p := range places[r.NormalizedURL] {
			found[p.Path] = true
		}
		for _, f := range r.FoundBy {
			if path := prefix + f.ArtifactPath; !found[path] {
				found[path] = true
				places[r.NormalizedURL] = append(places[r.NormalizedURL], place{Place{Path: path}, 1})
			}
		}
	}
	return records, places, nil
}

// reportOrigin is where a run's wave files are and how they were read: what
// a report needs to find the places again. The summary carries it.
type reportOrigin struct {
	root   string
	titles []string
}

// locateFile adds the places of the wanted URLs in one wave file (rel to
// the run root) to places.
func locateFile(o reportOrigin, rel, prefix string, want map[string]bool, places map[string][]place) {
	p := filepath.Join(o.root, filepath.FromSlash(rel))
	if r, err := filepath.Rel(o.root, p); err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return
	}
	data, err := fsx.ReadLimited(p, maxWaveFileBytes)
	if err != nil {
		return
	}
	links, err := parse.SourcesWith(context.Background(), data, parse.SourcesOptions{Titles: o.titles})
	if err != nil {
		return
	}
	nth := map[string]int{}
	type at struct {
		url  string
		line int
	}
	seen := map[at]bool{} // the run keeps a URL once per line, as redacted
	for _, l := range links {
		u, _ := netguard.RedactURL(l.URL)
		n, err := parse.Normalize(u)
		if err != nil || !want[n] || seen[at{u, l.Line}] {
			continue
		}
		seen[at{u, l.Line}] = true
		nth[n]++
		places[n] = append(places[n], place{Place{Path: prefix + rel, Line: l.Line, Col: l.Col}, nth[n]})
	}
}

// reportPrefix is what comes before a run-relative path in a report: the
// run root relative to ReportBase, when the root lies under it (CI runs from
// the repository's root, and code scanning resolves paths against it), else
// nothing.
func (e *Engine) reportPrefix(root string) string {
	if e.ReportBase == "" || root == "" {
		return ""
	}
	rel, err := filepath.Rel(e.ReportBase, root)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return ""
	}
	return filepath.ToSlash(rel) + "/"
}
