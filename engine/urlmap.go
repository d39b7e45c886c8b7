package engine

import (
	"bufio"

	"github.com/citegate/citegate/engine/schema"
	"github.com/citegate/citegate/netguard"
	"github.com/citegate/citegate/parse"
)

// url-map.json (url_map.v1): each original URL's normalized form and cid,
// and the normalize stage's audit line.

// URLMapItem maps one original URL to its normalized form and cid.
type URLMapItem struct {
	URLOriginal   string `json:"url_original"`
	NormalizedURL string `json:"normalized_url"`
	CID           string `json:"cid"`
}

// URLMapDoc is url-map.json.
type URLMapDoc struct {
	SchemaVersion string       `json:"schema_version"`
	RunID         string       `json:"run_id"`
	Items         []URLMapItem `json:"items"`
}

// writeFile streams url-map.json.
func (d *URLMapDoc) writeFile(w *bufio.Writer) error {
	return writeItemsFile(w, d.SchemaVersion, d.RunID, len(d.Items), func(dst []byte, i int) []byte {
		it := &d.Items[i]
		dst = appendStringField(dst, in3, "url_original", it.URLOriginal, true)
		dst = appendStringField(dst, in3, "normalized_url", it.NormalizedURL, false)
		return appendStringField(dst, in3, "cid", it.CID, false)
	})
}

// schemaOK mirrors url_map.v1.
func (d *URLMapDoc) schemaOK() bool {
	if d.SchemaVersion != "url_map.v1" || !schema.NonBlank(d.RunID) || d.Items == nil {
		return false
	}
	for _, it := range d.Items {
		if !schema.NonBlank(it.URLOriginal) || !schema.NonBlank(it.NormalizedURL) || !schema.IsCID(it.CID) {
			return false
		}
	}
	return true
}

type normalizeAudit struct {
	TS                 string `json:"ts"`
	Kind               string `json:"kind"`
	RunID              string `json:"run_id"`
	Reason             string `json:"reason"`
	NormalizedURLsPath string `json:"normalized_urls_path"`
	URLMapPath         string `json:"url_map_path"`
	UniqueNormalized   int    `json:"unique_normalized"`
	InputsDigest       string `json:"inputs_digest"`
}

func (e *Engine) auditNormalize(run *RunDir, reason string, res *NormalizeResult) {
	run.audit(normalizeAudit{e.nowISO(), "citations_normalize", res.RunID, redactReason(reason),
		res.NormalizedURLsPath, res.URLMapPath, res.UniqueNormalized, res.InputsDigest})
}

// redactURLMap removes secrets from a url-map written by another tool: a
// redacted normalized_url is normalized again and gets its own cid.
func redactURLMap(items []URLMapItem) ([]URLMapItem, error) {
	for i := range items {
		it := &items[i]
		it.URLOriginal, _ = netguard.RedactURL(it.URLOriginal)
		if r, _ := netguard.RedactURL(it.NormalizedURL); r != it.NormalizedURL {
			n, err := normalizeOne(r, "url-map normalized_url is not a valid URL")
			if err != nil {
				return nil, err
			}
			it.NormalizedURL, it.CID = n, parse.CID(n)
		}
	}
	return items, nil
}
