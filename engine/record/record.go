// Package record holds the vocabulary every part of validation shares: the
// five statuses and the verdict record. It imports nothing of citegate, so
// the engine, the live ladder (engine/ladder) and the front ends can all
// use it; the engine re-exports both names.
package record

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

// Verdict is what validation decided about one URL: the fields every copy of
// a result carries. It is stored as is (embedded, in this key order) in the
// result cache's entries and the online-fixtures capture's items, carried by
// decision while a URL is settled, and spread into a citations.jsonl record
// (whose key order the reference fixes) by the engine's Citation.setVerdict.
type Verdict struct {
	Status          Status `json:"status"`
	URL             string `json:"url"`
	Notes           string `json:"notes"`
	HTTPStatus      *int   `json:"http_status,omitempty"`
	Title           string `json:"title,omitempty"`
	Publisher       string `json:"publisher,omitempty"`
	EvidenceSnippet string `json:"evidence_snippet,omitempty"`
}
