package engine

import (
	"github.com/citegate/citegate/engine/fsx"
	"github.com/citegate/citegate/engine/jsonx"
)

// Audit lines, one type per tool kind, in the reference's field order. The
// tools and the run pipeline both log through these so the lines are the same
// whichever way a stage ran.

// audit appends one line to logs/audit.jsonl. It is best-effort, as in the
// reference: a failing audit never fails the tool.
func (r *RunDir) audit(event any) {
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
