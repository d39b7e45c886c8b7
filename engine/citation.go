package engine

// Status is a citation's validation verdict (seed 000).
type Status string

// The five statuses. Synthesis may cite valid and paywalled (with caution);
// it must not cite invalid, blocked or mismatch.
const (
	StatusValid     Status = "valid"
	StatusPaywalled Status = "paywalled"
	StatusBlocked   Status = "blocked"
	StatusMismatch  Status = "mismatch"
	StatusInvalid   Status = "invalid"
)

// Statuses lists every status in report order.
var Statuses = []Status{StatusValid, StatusPaywalled, StatusBlocked, StatusMismatch, StatusInvalid}

// Known reports whether s is one of the five statuses.
func (s Status) Known() bool {
	switch s {
	case StatusValid, StatusPaywalled, StatusBlocked, StatusMismatch, StatusInvalid:
		return true
	}
	return false
}

// Citable reports whether synthesis may cite a source with this status.
func (s Status) Citable() bool { return s == StatusValid || s == StatusPaywalled }

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
