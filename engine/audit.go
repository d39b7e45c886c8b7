package engine

import (
	"github.com/citegate/citegate/engine/fsx"
	"github.com/citegate/citegate/engine/jsonx"
)

// Audit lines, one type per tool kind, in the reference's field order. The
// tools and the run pipeline both log through these so the lines are the same
// whichever way a stage ran.

type extractAudit struct {
	TS                string `json:"ts"`
	Kind              string `json:"kind"`
	RunID             string `json:"run_id"`
	Reason            string `json:"reason"`
	ExtractedURLsPath string `json:"extracted_urls_path"`
	FoundByPath       string `json:"found_by_path"`
	TotalFound        int    `json:"total_found"`
	UniqueFound       int    `json:"unique_found"`
	InputsDigest      string `json:"inputs_digest"`
	// Warnings are ours: wave directory entries that were not read.
	Warnings []string `json:"warnings,omitempty"`
}

type normalizeAudit struct {
	TS                 string `json:"ts"`
	Kind               string `json:"kind"`
	RunID              string `json:"run_id"`
	Reason             string `json:"reason"`
	NormalizedURLsPath string `json:"normalized_urls_path"`
	URLMapPath         string `json:"url_map_path"`
	UniqueNormalized   int    `json:"unique_normalized"`
	InputsDigest       string `json:"inputs_digest"`
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

func (e *Engine) auditExtract(run *Run, reason string, res *ExtractResult) {
	run.audit(extractAudit{e.nowISO(), "citations_extract_urls", res.RunID, redactReason(reason),
		res.ExtractedURLsPath, res.FoundByPath, res.TotalFound, res.UniqueFound, res.InputsDigest, res.Warnings})
}

func (e *Engine) auditNormalize(run *Run, reason string, res *NormalizeResult) {
	run.audit(normalizeAudit{e.nowISO(), "citations_normalize", res.RunID, redactReason(reason),
		res.NormalizedURLsPath, res.URLMapPath, res.UniqueNormalized, res.InputsDigest})
}

func (e *Engine) auditRender(run *Run, reason string, res *RenderResult) {
	run.audit(renderAudit{e.nowISO(), "citations_render_md", run.Manifest.RunID, redactReason(reason),
		res.OutputMDPath, res.Rendered, res.InputsDigest, res.Warnings})
}

// audit appends one line to logs/audit.jsonl. It is best-effort, as in the
// reference: a failing audit never fails the tool.
func (r *Run) audit(event any) {
	appendAudit(r.Root, r.auditPath(), event)
}

// appendAudit appends event to the audit log at path unless a symlink would
// take the line out of the run root (checkOutputs refuses such a log before
// a command starts; a repair logged before that check must not follow it).
func appendAudit(root, path string, event any) {
	if fsx.CheckTarget(root, path) != nil {
		return
	}
	line, err := jsonx.Marshal(event)
	if err != nil {
		return
	}
	_ = fsx.AppendLine(path, line)
}
