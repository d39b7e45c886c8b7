package engine

import (
	"bufio"
	"cmp"
	"context"
	"fmt"
	"strings"

	"github.com/citegate/citegate/engine/gate"

	"github.com/citegate/citegate/engine/jsonx"
	"github.com/citegate/citegate/netguard"
	"github.com/citegate/citegate/parse/icu"
)

// RenderArgs mirrors deep_research_citations_render_md.
type RenderArgs struct {
	ManifestPath  string `json:"manifest_path" jsonschema:"Absolute path of the run directory's manifest.json (required). Relative paths are refused. The tool deep_research_citations_init (or citegate init DIR) writes a run directory with one."`
	CitationsPath string `json:"citations_path,omitempty" jsonschema:"Absolute path of citations.jsonl to read. Default (recommended): <run>/citations/citations.jsonl, as the previous step wrote it."`
	OutputMDPath  string `json:"output_md_path,omitempty" jsonschema:"Absolute path to write the rendered markdown report to, inside the run directory. Default (recommended): <run>/citations/validated-citations.md."`
	Reason        string `json:"reason" jsonschema:"Why this step is run, in a few words (required; e.g. 'first pass' or 'recheck after fixing wave-1'); recorded in the run's logs/audit.jsonl; at most 1000 characters."`
}

// RenderResult is the tool's success envelope.
type RenderResult struct {
	OK           bool   `json:"ok"`
	OutputMDPath string `json:"output_md_path"`
	Rendered     int    `json:"rendered"`
	InputsDigest string `json:"inputs_digest"`
	// Warnings name each citations.jsonl record that is not a valid
	// citation.v1 record; render renders every record, as the reference
	// does, whatever it lacks.
	Warnings []string `json:"warnings,omitempty"`
}

type renderRecord struct {
	NormalizedURL string `json:"normalized_url"`
	CID           string `json:"cid"`
	URL           string `json:"url"`
	Status        string `json:"status"`
	Title         string `json:"title"`
	Publisher     string `json:"publisher"`
}

type renderDigest struct {
	Schema  string         `json:"schema"`
	RunID   string         `json:"run_id"`
	Records []renderRecord `json:"records"`
	// The run's warnings are printed in the report but are not among the
	// digested inputs: the digest is the reference's (a hand-edited
	// fixture's warning must not change it), and the warnings follow from
	// the inputs and the run, which other digests cover.
}

// synthesisLine tells the reader of the report what synthesis may do with a
// citation (seed 001: paywalled is cited with caution).
func synthesisLine(s Status) string {
	switch s {
	case StatusValid:
		return "may cite"
	case StatusPaywalled:
		return "may cite with **caution** (paywalled: content behind an access barrier, claims could not be fully checked)"
	case StatusBlocked, StatusMismatch, StatusInvalid:
		return fmt.Sprintf("must NOT cite (%s)", s)
	default:
		return "must NOT cite (not a known status)"
	}
}

// render builds validated-citations.md from redacted records (buildRecord
// and readCitations redact): the reference layout, plus a
// caution marker for paywalled sources and a may/must-not-cite line, and
// the run's warnings (see renderRecords).
func render(runID string, records []Citation, warnings ...string) (func(w *bufio.Writer) error, string, error) {
	rs := make([]renderRecord, len(records))
	for i, r := range records {
		rs[i] = renderRecord{strings.TrimSpace(r.NormalizedURL), strings.TrimSpace(r.CID), strings.TrimSpace(r.URL),
			strings.TrimSpace(string(r.Status)), strings.TrimSpace(r.Title), strings.TrimSpace(r.Publisher)}
	}
	return renderRecords(runID, rs, warnings...)
}

// renderRecords lays out the report from trimmed, redacted fields; the
// report is streamed into its file, one section per record. warnings (the
// run's: lists skipped, network unreachable) come after the counts, before
// the citations, so that a reader of a report that looks complete learns
// what was not checked; a run without them writes the reference's layout.
func renderRecords(runID string, rs []renderRecord, warnings ...string) (func(w *bufio.Writer) error, string, error) {
	icu.SortBy(rs, func(r renderRecord) string { return r.NormalizedURL }, func(r renderRecord) string { return r.CID })
	var c Counts
	unknown := 0
	for _, r := range rs {
		c.Add(Status(r.Status))
		if !Status(r.Status).Known() {
			unknown++
		}
	}
	warnings = redactAll(warnings)
	d, err := jsonx.Digest(renderDigest{Schema: "citations_render_md.inputs.v1", RunID: runID, Records: rs})
	if err != nil {
		return nil, "", err
	}
	return func(b *bufio.Writer) error {
		// bufio's errors are sticky: the commit's Flush reports the first.
		fmt.Fprintf(b, "# Validated Citations\n\nRun ID: %s\nRendered: %d\n", runID, len(rs))
		fmt.Fprintf(b, "Synthesis may cite: %d (valid %d, paywalled %d with caution)\n", c.Valid+c.Paywalled, c.Valid, c.Paywalled)
		// Hand-edited records with an unknown status (see looseRecord) are
		// named too, so the total adds up.
		fmt.Fprintf(b, "Synthesis must not cite: %d (%s)\n\n", c.Invalid+c.Blocked+c.Mismatch+unknown,
			gate.MustNotCite(c.Invalid, c.Blocked, c.Mismatch, unknown))
		if len(warnings) > 0 {
			fmt.Fprintf(b, "Warnings: %d (the run did not check everything it was given)\n", len(warnings))
			for _, w := range warnings {
				fmt.Fprintf(b, "- %s\n", w)
			}
			_ = b.WriteByte('\n')
		}
		for _, r := range rs {
			status := cmp.Or(r.Status, "(missing-status)")
			if Status(r.Status) == StatusPaywalled {
				status += " — **caution**"
			}
			fmt.Fprintf(b, "## %s\n- URL: %s\n- Status: %s\n", cmp.Or(r.CID, "(missing-cid)"), cmp.Or(r.URL, "(missing-url)"), status)
			fmt.Fprintf(b, "- Synthesis: %s\n", synthesisLine(Status(r.Status)))
			if r.Title != "" {
				fmt.Fprintf(b, "- Title: %s\n", r.Title)
			}
			if r.Publisher != "" {
				fmt.Fprintf(b, "- Publisher: %s\n", r.Publisher)
			}
			_ = b.WriteByte('\n')
		}
		return nil
	}, d, nil
}

// redactAll redacts each warning (they quote wave lines and paths) and
// keeps each on one line of its own.
func redactAll(ws []string) []string {
	if len(ws) == 0 {
		return nil
	}
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = strings.Join(strings.Fields(netguard.RedactText(w)), " ")
	}
	return out
}

// Render runs the render tool.
func (e *Engine) Render(ctx context.Context, a RenderArgs) (*RenderResult, error) {
	run, paths, release, err := e.openTool(a.Reason, a.ManifestPath,
		pathArg{"citations_path", a.CitationsPath, "citations.jsonl"},
		pathArg{"output_md_path", a.OutputMDPath, "validated-citations.md"})
	if err != nil {
		return nil, err
	}
	defer release()
	citationsPath, outPath := paths[0], paths[1]
	if err := checkOutputs(run, outPath); err != nil {
		return nil, err
	}
	records, err := readLooseCitations(citationsPath)
	if err != nil {
		return nil, err
	}
	rs := make([]renderRecord, len(records))
	var warnings []string
	for i, r := range records {
		rs[i] = renderRecord{r.normalizedURL, r.cid, r.url, r.status, r.title, r.publisher}
		if w := r.warning("rendered as must NOT cite"); w != "" {
			warnings = append(warnings, w)
		}
	}
	md, digest, err := renderRecords(run.Manifest.RunID, rs)
	if err != nil {
		return nil, err
	}
	if err := e.commit(ctx, run, []pendingWrite{{path: outPath, message: "cannot write validated-citations.md", stream: md}}, nil); err != nil {
		return nil, err
	}
	res := &RenderResult{OK: true, OutputMDPath: outPath, Rendered: len(records), InputsDigest: digest, Warnings: warnings}
	e.auditRender(run, a.Reason, res)
	return res, nil
}

type renderAudit struct {
	TS           string `json:"ts"`
	Kind         string `json:"kind"`
	RunID        string `json:"run_id"`
	Reason       string `json:"reason"`
	OutputMDPath string `json:"output_md_path"`
	Rendered     int    `json:"rendered"`
	InputsDigest string `json:"inputs_digest"`
	// Warnings are the render tool's (hand-edited records); the reference
	// has no such field, so it is omitted when empty.
	Warnings []string `json:"warnings,omitempty"`
}

func (e *Engine) auditRender(run *RunDir, reason string, res *RenderResult) {
	run.audit(renderAudit{e.nowISO(), "citations_render_md", run.Manifest.RunID, redactReason(reason),
		res.OutputMDPath, res.Rendered, res.InputsDigest, res.Warnings})
}
