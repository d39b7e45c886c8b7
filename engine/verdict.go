package engine

import "github.com/citegate/citegate/engine/record"

// Verdict is what validation decided about one URL (see record.Verdict).
type Verdict = record.Verdict

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
