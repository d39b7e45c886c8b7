package engine

import (
	"bufio"
	"strings"

	"github.com/citegate/citegate/engine/schema"
)

// found-by.json (found_by.v1): which wave file and Sources line cite each URL,
// and the extract stage's audit line.

// FoundByItem is one provenance pointer in found-by.json. ArtifactPath is our
// addition (the reference reconstructed it, wrongly for nested files).
type FoundByItem struct {
	URLOriginal   string `json:"url_original"`
	Wave          string `json:"wave"`
	PerspectiveID string `json:"perspective_id"`
	SourceLine    string `json:"source_line"`
	Ordinal       int    `json:"ordinal"`
	ArtifactPath  string `json:"artifact_path,omitempty"`
	// raw is the URL as the wave wrote it, secrets included. It is never
	// written anywhere; the live ladder fetches it.
	raw string
}

// FoundByDoc is found-by.json.
type FoundByDoc struct {
	SchemaVersion string        `json:"schema_version"`
	RunID         string        `json:"run_id"`
	Items         []FoundByItem `json:"items"`
}

// writeFile streams found-by.json.
func (d *FoundByDoc) writeFile(w *bufio.Writer) error {
	return writeItemsFile(w, d.SchemaVersion, d.RunID, len(d.Items), func(dst []byte, i int) []byte {
		it := &d.Items[i]
		dst = appendStringField(dst, in3, "url_original", it.URLOriginal, true)
		dst = appendStringField(dst, in3, "wave", it.Wave, false)
		dst = appendStringField(dst, in3, "perspective_id", it.PerspectiveID, false)
		dst = appendStringField(dst, in3, "source_line", it.SourceLine, false)
		dst = appendIntField(dst, in3, "ordinal", it.Ordinal, false)
		if it.ArtifactPath != "" {
			dst = appendStringField(dst, in3, "artifact_path", it.ArtifactPath, false)
		}
		return dst
	})
}

// schemaOK mirrors found_by.v1.
func (d *FoundByDoc) schemaOK() bool {
	if d.SchemaVersion != "found_by.v1" || !schema.NonBlank(d.RunID) || d.Items == nil {
		return false
	}
	for _, it := range d.Items {
		if it.URLOriginal == "" || (it.Wave != "wave-1" && it.Wave != "wave-2") || it.Ordinal < 1 ||
			strings.HasPrefix(it.ArtifactPath, "/") {
			return false
		}
	}
	return true
}

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

func (e *Engine) auditExtract(run *RunDir, reason string, res *ExtractResult) {
	run.audit(extractAudit{e.nowISO(), "citations_extract_urls", res.RunID, redactReason(reason),
		res.ExtractedURLsPath, res.FoundByPath, res.TotalFound, res.UniqueFound, res.InputsDigest, res.Warnings})
}
