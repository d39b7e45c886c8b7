package engine

import "github.com/citegate/citegate/engine/record"

// Status is a citation's validation verdict (seed 000); see record.Status.
type Status = record.Status

// The five statuses (see record).
const (
	StatusValid     = record.StatusValid
	StatusPaywalled = record.StatusPaywalled
	StatusBlocked   = record.StatusBlocked
	StatusMismatch  = record.StatusMismatch
	StatusInvalid   = record.StatusInvalid
)

// Statuses lists every status in report order.
var Statuses = record.Statuses

// Citation is one citations.jsonl record (citation.v1), fields in the
// reference's key order; optional fields are omitted when absent.
type Citation struct {
	SchemaVersion   string         `json:"schema_version"`
	NormalizedURL   string         `json:"normalized_url"`
	CID             string         `json:"cid"`
	URL             string         `json:"url"`
	URLOriginal     string         `json:"url_original"`
	Status          Status         `json:"status"`
	CheckedAt       string         `json:"checked_at"`
	FoundBy         []FoundByEntry `json:"found_by"`
	Notes           string         `json:"notes"`
	HTTPStatus      *int           `json:"http_status,omitempty"`
	Title           string         `json:"title,omitempty"`
	Publisher       string         `json:"publisher,omitempty"`
	EvidenceSnippet string         `json:"evidence_snippet,omitempty"`
}

// FoundByEntry is a citation's provenance pointer.
type FoundByEntry struct {
	Wave          int    `json:"wave"`
	PerspectiveID string `json:"perspective_id"`
	AgentType     string `json:"agent_type"`
	ArtifactPath  string `json:"artifact_path"`
	SourceLine    string `json:"source_line,omitempty"`
}

// Counts tallies citations per status.
type Counts struct {
	Valid     int `json:"valid"`
	Paywalled int `json:"paywalled"`
	Blocked   int `json:"blocked"`
	Mismatch  int `json:"mismatch"`
	Invalid   int `json:"invalid"`
}

// Add counts one status.
func (c *Counts) Add(s Status) {
	switch s {
	case StatusValid:
		c.Valid++
	case StatusPaywalled:
		c.Paywalled++
	case StatusBlocked:
		c.Blocked++
	case StatusMismatch:
		c.Mismatch++
	case StatusInvalid:
		c.Invalid++
	}
}

func countStatuses(records []Citation) Counts {
	var c Counts
	for _, r := range records {
		c.Add(r.Status)
	}
	return c
}
