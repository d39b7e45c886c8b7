package engine

import (
	"context"

	"github.com/citegate/citegate/engine/pdftext"
	"github.com/citegate/citegate/netguard"
)

// pdfMaxRunes bounds the text kept of one PDF: about 600 pages of a paper,
// far more than the body cap usually holds; relevantPassages narrows it.
const pdfMaxRunes = 1 << 20

// readPDF reads a fetched PDF's text for the judge, like a page's readable
// text. An encrypted, image-only or damaged PDF is an unreadable_pdf
// resolve error whose message says which.
func readPDF(ctx context.Context, body []byte) (string, *ResolveError) {
	text, err := pdftext.Text(ctx, body, pdfMaxRunes)
	if err != nil {
		return "", &ResolveError{"unreadable_pdf", netguard.RedactText(err.Error())}
	}
	return text, nil
}
