package engine

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"path/filepath"

	"github.com/citegate/citegate/engine/fsx"
	"github.com/citegate/citegate/engine/gate"
	"github.com/citegate/citegate/engine/jsonx"
	"github.com/citegate/citegate/engine/schema"
)

// Gate is one entry of gates.json (gates.v1).
type Gate struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Class     string          `json:"class"`
	Status    string          `json:"status"`
	CheckedAt *string         `json:"checked_at"`
	Metrics   json.RawMessage `json:"metrics"`
	Artifacts []string        `json:"artifacts"`
	Warnings  []string        `json:"warnings"`
	Notes     string          `json:"notes"`
}

// GatesDoc is gates.json, gates in A–F order.
type GatesDoc struct {
	SchemaVersion string `json:"schema_version"`
	RunID         string `json:"run_id"`
	Revision      int    `json:"revision"`
	UpdatedAt     string `json:"updated_at"`
	InputsDigest  string `json:"inputs_digest"`
	Gates         struct {
		A *Gate `json:"A"`
		B *Gate `json:"B"`
		C *Gate `json:"C"`
		D *Gate `json:"D"`
		E *Gate `json:"E"`
		F *Gate `json:"F"`
	} `json:"gates"`
}

// gate is the gate named id, nil for an unknown id.
func (d *GatesDoc) gate(id string) *Gate {
	g := &d.Gates
	return map[string]*Gate{"A": g.A, "B": g.B, "C": g.C, "D": g.D, "E": g.E, "F": g.F}[id]
}

// newGatesDoc is what run_init writes: six hard gates, not run.
func newGatesDoc(runID, now string) *GatesDoc {
	d := &GatesDoc{SchemaVersion: "gates.v1", RunID: runID, Revision: 1, UpdatedAt: now, InputsDigest: "sha256:0"}
	mk := func(id, name string) *Gate {
		return &Gate{ID: id, Name: name, Class: "hard", Status: "not_run", Metrics: json.RawMessage("{}"), Artifacts: []string{}, Warnings: []string{}}
	}
	d.Gates.A = mk("A", "Planning completeness")
	d.Gates.B = mk("B", "Wave output contract compliance")
	d.Gates.C = mk("C", "Citation validation integrity")
	d.Gates.D = mk("D", "Summary pack boundedness")
	d.Gates.E = mk("E", "Synthesis quality")
	d.Gates.F = mk("F", "Rollout safety")
	return d
}

// loadGates reads gates.json, or starts a fresh one when the run has none.
func (e *Engine) loadGates(run *RunDir, path string) (*GatesDoc, error) {
	data, err := fsx.ReadLimited(path, maxJSONBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return newGatesDoc(run.Manifest.RunID, e.nowISO()), nil
	}
	if err != nil {
		return nil, readError("gates.json", path, "gates.json missing", err)
	}
	var doc GatesDoc
	if err := decodeChecked(data, schema.Gates, "gates.json", "gates.json unreadable", path, &doc); err != nil {
		return nil, err
	}
	if doc.RunID != run.Manifest.RunID {
		return nil, newError(CodeSchemaValidation, "gates.json run_id mismatch", map[string]any{"expected": run.Manifest.RunID, "got": doc.RunID})
	}
	return &doc, nil
}

// applyGate renders the new gates.json with one gate patched, with
// gates_write semantics: shallow merge, lifecycle rules, revision+1.
func (e *Engine) applyGate(doc *GatesDoc, id string, p GatePatch, digest, path string) ([]byte, error) {
	g := doc.gate(id)
	if g == nil {
		return nil, newError("UNKNOWN_GATE_ID", "unknown gate id", map[string]any{"gate_id": id})
	}
	if g.Class == "hard" && p.Status == "warn" {
		return nil, newError("LIFECYCLE_RULE_VIOLATION", "hard gate cannot be warn", map[string]any{"gate_id": id})
	}
	metrics, err := jsonx.Marshal(p.Metrics)
	if err != nil {
		return nil, err
	}
	checkedAt := p.CheckedAt
	g.Status, g.CheckedAt, g.Metrics, g.Artifacts, g.Warnings, g.Notes = p.Status, &checkedAt, metrics, p.Artifacts, p.Warnings, p.Notes
	doc.Revision++
	doc.UpdatedAt = e.nowISO()
	doc.InputsDigest = digest
	return marshalChecked(schema.Gates, doc, path)
}

// writeGate patches one gate in gates.json and writes it atomically,
// returning the path and the previous and new revisions; the caller logs the
// write (auditGates) once its own audit line is out. The caller holds the run
// directory's lock, so no other process can slip a revision in between the
// read and the write.
func (e *Engine) writeGate(ctx context.Context, run *RunDir, id string, p GatePatch, digest string) (string, int, int, error) {
	path := run.gatesPath()
	doc, err := e.loadGates(run, path)
	if err != nil {
		return "", 0, 0, err
	}
	prev := doc.Revision
	data, err := e.applyGate(doc, id, p, digest, path)
	if err != nil {
		return "", 0, 0, err
	}
	if err := e.commit(ctx, run, []pendingWrite{{path: path, message: "cannot write gates.json", data: data}}, nil); err != nil {
		return "", 0, 0, err
	}
	return path, prev, doc.Revision, nil
}

// gatesAuditPath is the audit log gates_write appends to: logs/ beside gates.json.
func gatesAuditPath(run *RunDir) string {
	return filepath.Join(filepath.Dir(run.gatesPath()), "logs", "audit.jsonl")
}

// auditGates logs next to gates.json, as gates_write does.
func auditGates(dir, ts, runID, reason string, prev, next int, digest, id string) {
	line, err := jsonx.Marshal(struct {
		TS           string   `json:"ts"`
		Kind         string   `json:"kind"`
		RunID        string   `json:"run_id"`
		Reason       string   `json:"reason"`
		PrevRevision int      `json:"prev_revision"`
		NewRevision  int      `json:"new_revision"`
		InputsDigest string   `json:"inputs_digest"`
		GateIDs      []string `json:"gate_ids"`
	}{ts, "gates_write", runID, redactReason(reason), prev, next, digest, []string{id}})
	if err == nil {
		_ = fsx.AppendLine(filepath.Join(dir, "logs", "audit.jsonl"), line)
	}
}

func (e *Engine) auditGateC(run *RunDir, reason string, res *GateCResult) {
	run.audit(struct {
		TS           string       `json:"ts"`
		Kind         string       `json:"kind"`
		RunID        string       `json:"run_id"`
		Reason       string       `json:"reason"`
		Status       string       `json:"status"`
		Metrics      gate.Metrics `json:"metrics"`
		InputsDigest string       `json:"inputs_digest"`
		Warnings     []string     `json:"warnings,omitempty"`
	}{res.Update.C.CheckedAt, "gate_c_compute", run.Manifest.RunID, redactReason(reason), res.Status, res.Metrics, res.InputsDigest, res.Warnings})
}
