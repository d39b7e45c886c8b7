package engine

// Verdict is what validation decided about one URL: the fields every copy of
// a result carries. It is stored as is (embedded, in this key order) in the
// result cache's entries and the online-fixtures capture's items, carried by
// decision while a URL is settled, and spread into a citations.jsonl record
// (whose key order the reference fixes) by Citation.setVerdict.
type Verdict struct {
	Status          Status `json:"status"`
	URL             string `json:"url"`
	Notes           string `json:"notes"`
	HTTPStatus      *int   `json:"http_status,omitempty"`
	Title           string `json:"title,omitempty"`
	Publisher       string `json:"publisher,omitempty"`
	EvidenceSnippet string `json:"evidence_snippet,omitempty"`
}

// Verdict is the record's verdict.
func (c *Citation) Verdict() Verdict {
	return Verdict{Status: c.Status, URL: c.URL, Notes: c.Notes, HTTPStatus: c.HTTPStatus, Title: c.Title,
		Publisher: c.Publisher, EvidenceSnippet: c.EvidenceSnippet}
}

// setVerdict puts v into the record.
func (c *Citation) setVerdict(v Verdict) {
	c.Status, c.URL, c.Notes, c.HTTPStatus = v.Status, v.URL, v.Notes, v.HTTPStatus
	c.Title, c.Publisher, c.EvidenceSnippet = v.Title, v.Publisher, v.EvidenceSnippet
}
