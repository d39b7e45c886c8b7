package engine

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/citegate/citegate/engine/gate"

	"github.com/citegate/citegate/engine/fsx"
	"github.com/citegate/citegate/engine/jsonx"
	"github.com/citegate/citegate/netguard"
	"github.com/citegate/citegate/parse/icu"
)

// GateCArgs mirrors deep_research_gate_c_compute; Write additionally applies
// the update to gates.json (gates_write semantics).
type GateCArgs struct {
	ManifestPath      string `json:"manifest_path" jsonschema:"Absolute path of the run directory's manifest.json (required). Relative paths are refused. The tool deep_research_citations_init (or citegate init DIR) writes a run directory with one."`
	CitationsPath     string `json:"citations_path,omitempty" jsonschema:"Absolute path of citations.jsonl to read. Default (recommended): <run>/citations/citations.jsonl, as the previous step wrote it."`
	ExtractedURLsPath string `json:"extracted_urls_path,omitempty" jsonschema:"Absolute path of the extracted URLs to read. Default (recommended): <run>/citations/extracted-urls.txt, as the previous step wrote it."`
	Reason            string `json:"reason" jsonschema:"Why this step is run, in a few words (required; e.g. 'first pass' or 'recheck after fixing wave-1'); recorded in the run's logs/audit.jsonl; at most 1000 characters."`
	Write             bool   `json:"write,omitempty" jsonschema:"true also records the result in the run's gates.json; false (default) only computes and returns it."`
}

// GatePatch is the update for one gate.
type GatePatch struct {
	Status    string       `json:"status"`
	CheckedAt string       `json:"checked_at"`
	Metrics   gate.Metrics `json:"metrics"`
	Artifacts []string     `json:"artifacts"`
	Warnings  []string     `json:"warnings"`
	Notes     string       `json:"notes"`
}

// GateCResult is the tool's success envelope.
type GateCResult struct {
	OK      bool         `json:"ok"`
	GateID  string       `json:"gate_id"`
	Status  string       `json:"status"`
	Metrics gate.Metrics `json:"metrics"`
	Update  struct {
		C GatePatch `json:"C"`
	} `json:"update"`
	InputsDigest  string  `json:"inputs_digest"`
	GatesPath     *string `json:"gates_path,omitempty"`
	GatesRevision *int    `json:"gates_revision,omitempty"`
	// Warnings name each citations.jsonl record that is not a valid
	// citation.v1 record and say how it was read (see looseRecord); they
	// are also in update.C.warnings, and so in gates.json with --write.
	Warnings []string `json:"warnings,omitempty"`
	// counts are what the gate was computed from, for GateCLine.
	counts gate.Counts
}

type statusPair struct {
	NormalizedURL string `json:"normalized_url"`
	Status        string `json:"status"`
}

type gateCDigest struct {
	Schema       string       `json:"schema"`
	ExtractedSet []string     `json:"extracted_set"`
	CitationsSet []statusPair `json:"citations_set"`
}

// normalizedSet is Gate C's U: the extracted URL lines normalized, distinct,
// in collation order.
func normalizedSet(extracted []string) ([]string, error) {
	set := map[string]bool{}
	u := []string{}
	for _, line := range distinctSorted(extracted) {
		n, err := normalizeOne(line, "failed to normalize extracted URL")
		if err != nil {
			return nil, err
		}
		if !set[n] {
			set[n] = true
			u = append(u, n)
		}
	}
	icu.Sort(u)
	return u, nil
}

// gateC computes Gate C from U (see normalizedSet) and the citation
// statuses. artifacts are the two input paths relative to the run root.
func gateC(u []string, records []statusPair, checkedAt string, artifacts []string) (*GateCResult, error) {
	if u == nil {
		u = []string{} // digests as [], not null
	}
	byURL := make(map[string]string, len(records))
	for _, r := range records {
		if _, dup := byURL[r.NormalizedURL]; dup {
			return nil, newError(CodeSchemaValidation, "duplicate normalized_url in citations.jsonl", map[string]any{"normalized_url": r.NormalizedURL})
		}
		byURL[r.NormalizedURL] = r.Status
	}
	c := gate.Counts{Total: len(u)}
	for _, n := range u {
		c.Add(Status(byURL[n]), 1)
	}
	total, validated, invalid, uncategorized := c.Total, c.Validated, c.Invalid, c.Uncategorized
	m := c.Metrics()
	pass := c.Passes()
	status, warnings := "fail", []string{}
	if pass {
		status = "pass"
	}
	notes := fmt.Sprintf("Gate C %s: %d/%d validated, %d invalid, %d uncategorized.", status, validated, total, invalid, uncategorized)
	if total == 0 {
		warnings = []string{"NO_URLS_EXTRACTED"}
		notes = "Gate C failed: NO_URLS_EXTRACTED"
	}
	sorted := append([]statusPair(nil), records...)
	icu.SortBy(sorted, func(p statusPair) string { return p.NormalizedURL })
	if sorted == nil {
		sorted = []statusPair{}
	}
	d, err := jsonx.Digest(gateCDigest{Schema: "gate_c_compute.inputs.v1", ExtractedSet: u, CitationsSet: sorted})
	if err != nil {
		return nil, err
	}
	res := &GateCResult{OK: true, GateID: "C", Status: status, Metrics: m, InputsDigest: d, counts: c}
	res.Update.C = GatePatch{Status: status, CheckedAt: checkedAt, Metrics: m, Artifacts: artifacts, Warnings: warnings, Notes: notes}
	return res, nil
}

func statusPairs(records []Citation) []statusPair {
	out := make([]statusPair, len(records))
	for i, r := range records {
		out[i] = statusPair{strings.TrimSpace(r.NormalizedURL), strings.TrimSpace(string(r.Status))}
	}
	return out
}

// GateC runs the gate-c tool.
func (e *Engine) GateC(ctx context.Context, a GateCArgs) (*GateCResult, error) {
	run, paths, release, err := e.openTool(a.Reason, a.ManifestPath,
		pathArg{"citations_path", a.CitationsPath, "citations.jsonl"},
		pathArg{"extracted_urls_path", a.ExtractedURLsPath, "extracted-urls.txt"})
	if err != nil {
		return nil, err
	}
	defer release()
	citationsPath, extractedPath := paths[0], paths[1]
	outputs := []string{gatesAuditPath(run)}
	if a.Write {
		outputs = append(outputs, run.gatesPath())
	}
	if err := checkOutputs(run, outputs...); err != nil {
		return nil, err
	}
	data, rerr := fsx.ReadLimited(extractedPath, maxListBytes)
	if rerr != nil {
		return nil, readError("extracted urls", extractedPath, "required file missing", rerr)
	}
	records, err := readLooseCitations(citationsPath)
	if err != nil {
		return nil, err
	}
	pairs := make([]statusPair, 0, len(records))
	seen := make(map[string]bool, len(records))
	var warnings []string
	for _, r := range records {
		if err := checkGateRecord(r, citationsPath, seen); err != nil {
			return nil, err
		}
		pairs = append(pairs, statusPair{r.normalizedURL, r.status})
		if w := r.warning("counted as uncategorized"); w != "" {
			warnings = append(warnings, w)
		}
	}
	u, err := normalizedSet(splitLines(data))
	if err != nil {
		return nil, err
	}
	res, err := gateC(u, pairs, e.nowISO(),
		[]string{relPOSIX(run.Root, citationsPath), relPOSIX(run.Root, extractedPath)})
	if err != nil {
		return nil, err
	}
	if len(warnings) > 0 {
		res.Warnings = warnings
		res.Update.C.Warnings = append(res.Update.C.Warnings, warnings...)
	}
	if !a.Write {
		// Nothing to commit, but a cancelled command logs nothing either.
		if ctx.Err() != nil {
			return nil, cancelled()
		}
		e.auditGateC(run, a.Reason, res)
		return res, nil
	}
	path, prev, rev, err := e.writeGate(ctx, run, "C", res.Update.C, res.InputsDigest)
	if err != nil {
		return nil, err
	}
	res.GatesPath, res.GatesRevision = &path, &rev
	// The audit lines follow the commit, so a cancelled or failed write logs
	// nothing; their order is the reference's (compute, then gates_write).
	e.auditGateC(run, a.Reason, res)
	auditGates(filepath.Dir(path), e.nowISO(), run.Manifest.RunID, a.Reason, prev, rev, res.InputsDigest, "C")
	return res, nil
}

// checkGateRecord refuses what the reference's gate_c_compute refuses, in
// its order, record by record: no normalized_url, no status (absent, null
// or blank: an unknown status is counted as uncategorized, a missing one is
// an error), a normalized_url seen before. seen collects the URLs.
func checkGateRecord(r looseRecord, path string, seen map[string]bool) error {
	details := func(pointer string) map[string]any {
		d := map[string]any{"path": path, "line": r.line, "pointer": pointer}
		if r.normalizedURL != "" {
			d["normalized_url"], _ = netguard.RedactURL(r.normalizedURL)
		}
		return d
	}
	switch {
	case r.normalizedURL == "":
		return newError(CodeSchemaValidation, "citation record missing normalized_url", details("/normalized_url"))
	case r.status == "" && !r.statusMistyped:
		return newError(CodeSchemaValidation, "citation record missing status", details("/status"))
	case seen[r.normalizedURL]:
		return newError(CodeSchemaValidation, "duplicate normalized_url in citations.jsonl", details("/normalized_url"))
	}
	seen[r.normalizedURL] = true
	return nil
}
