package engine

import (
	"cmp"
	"context"
	"errors"

	"github.com/citegate/citegate/engine/fsx"
	"github.com/citegate/citegate/engine/jsonx"
	"github.com/citegate/citegate/engine/schema"
	"github.com/citegate/citegate/netguard"
	"github.com/citegate/citegate/parse"
	"github.com/citegate/citegate/parse/icu"
)

// NormalizeArgs mirrors deep_research_citations_normalize.
type NormalizeArgs struct {
	ManifestPath       string `json:"manifest_path" jsonschema:"Absolute path of the run directory's manifest.json (required). Relative paths are refused. The tool deep_research_citations_init (or citegate init DIR) writes a run directory with one."`
	ExtractedURLsPath  string `json:"extracted_urls_path,omitempty" jsonschema:"Absolute path of the extracted URLs to read. Default (recommended): <run>/citations/extracted-urls.txt, as the previous step wrote it."`
	NormalizedURLsPath string `json:"normalized_urls_path,omitempty" jsonschema:"Absolute path to write the normalized URLs to, inside the run directory. Default (recommended): <run>/citations/normalized-urls.txt."`
	URLMapPath         string `json:"url_map_path,omitempty" jsonschema:"Absolute path to write url-map.json (original URL to normalized URL and cid) to, inside the run directory. Default (recommended): <run>/citations/url-map.json."`
	Reason             string `json:"reason" jsonschema:"Why this step is run, in a few words (required; e.g. 'first pass' or 'recheck after fixing wave-1'); recorded in the run's logs/audit.jsonl; at most 1000 characters."`
}

// NormalizeResult is the tool's success envelope.
type NormalizeResult struct {
	OK                 bool   `json:"ok"`
	RunID              string `json:"run_id"`
	NormalizedURLsPath string `json:"normalized_urls_path"`
	URLMapPath         string `json:"url_map_path"`
	UniqueNormalized   int    `json:"unique_normalized"`
	InputsDigest       string `json:"inputs_digest"`
}

type normalizeDigest struct {
	Schema        string   `json:"schema"`
	RunID         string   `json:"run_id"`
	ExtractedURLs []string `json:"extracted_urls"`
}

// normalization is the in-memory result of the normalize stage.
type normalization struct {
	normalized []string // distinct, ICU-sorted
	urlMap     URLMapDoc
	digest     string
}

// distinctSorted redacts, dedupes and collation-sorts URL lines. Redacting
// here keeps secrets out even when the list came from another tool.
func distinctSorted(in []string) []string {
	seen := make(map[string]bool, len(in))
	out := make([]string, 0, len(in))
	for _, s := range in {
		s, _ = netguard.RedactURL(s)
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	icu.Sort(out)
	return out
}

// normalizeOne maps a parse error to the reference's envelope.
func normalizeOne(original, message string) (string, *Error) {
	n, err := parse.Normalize(original)
	if err == nil {
		return n, nil
	}
	var ue *parse.URLError
	if errors.As(err, &ue) && errors.Is(err, parse.ErrNotHTTP) {
		return "", newError(CodeSchemaValidation, cmp.Or(message, "only http/https URLs are allowed"),
			map[string]any{"url_original": original, "protocol": ue.Protocol})
	}
	return "", newError(CodeSchemaValidation, cmp.Or(message, "invalid absolute URL"),
		map[string]any{"url_original": original, "error": err.Error()})
}

// normalize computes url-map and the normalized list from extracted URLs.
func normalize(runID string, extracted []string) (*normalization, error) {
	return normalizeDistinct(runID, distinctSorted(extracted))
}

// normalizeDistinct is normalize for originals that are already redacted,
// distinct and in collation order — what distinctSorted returns, and what
// the extract stage's unique list is (RedactURL is idempotent), so the
// pipeline does not redact, dedupe and sort them a second time.
func normalizeDistinct(runID string, originals []string) (*normalization, error) {
	items := make([]URLMapItem, len(originals))
	for i, o := range originals {
		n, err := normalizeOne(o, "")
		if err != nil {
			return nil, err
		}
		items[i] = URLMapItem{URLOriginal: o, NormalizedURL: n}
	}
	icu.SortBy(items, func(i URLMapItem) string { return i.NormalizedURL }, func(i URLMapItem) string { return i.URLOriginal })
	// Originals that normalize alike are now adjacent (but for collation
	// ties): they share one string and one cid instead of one each.
	for i := range items {
		if i > 0 && items[i].NormalizedURL == items[i-1].NormalizedURL {
			items[i].NormalizedURL, items[i].CID = items[i-1].NormalizedURL, items[i-1].CID
			continue
		}
		items[i].CID = parse.CID(items[i].NormalizedURL)
	}
	// Collation can tie distinct strings, so equal normalized URLs are not
	// guaranteed to be adjacent: dedupe exactly, then sort.
	normalized := make([]string, len(items))
	for i, it := range items {
		normalized[i] = it.NormalizedURL
	}
	normalized = distinctExact(normalized)
	icu.Sort(normalized)
	d, err := jsonx.Digest(normalizeDigest{Schema: "citations_normalize.inputs.v1", RunID: runID, ExtractedURLs: originals})
	if err != nil {
		return nil, err
	}
	return &normalization{normalized: normalized, urlMap: URLMapDoc{SchemaVersion: "url_map.v1", RunID: runID, Items: items}, digest: d}, nil
}

func distinctExact(in []string) []string {
	seen := make(map[string]bool, len(in))
	out := in[:0]
	for _, s := range in {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// Normalize runs the normalize tool.
func (e *Engine) Normalize(ctx context.Context, a NormalizeArgs) (*NormalizeResult, error) {
	run, paths, release, err := e.openTool(a.Reason, a.ManifestPath,
		pathArg{"extracted_urls_path", a.ExtractedURLsPath, "extracted-urls.txt"},
		pathArg{"normalized_urls_path", a.NormalizedURLsPath, "normalized-urls.txt"},
		pathArg{"url_map_path", a.URLMapPath, "url-map.json"})
	if err != nil {
		return nil, err
	}
	defer release()
	if err := checkOutputs(run, paths[1], paths[2]); err != nil {
		return nil, err
	}
	data, rerr := fsx.ReadLimited(paths[0], maxListBytes)
	if rerr != nil {
		return nil, readError("extracted urls", paths[0], "extracted urls missing", rerr)
	}
	nz, err := normalize(run.Manifest.RunID, splitLines(data))
	if err != nil {
		return nil, err
	}
	files, err := nz.files(paths[1], paths[2])
	if err != nil {
		return nil, err
	}
	if err := e.commit(ctx, run, files, nil); err != nil {
		return nil, err
	}
	res := &NormalizeResult{OK: true, RunID: run.Manifest.RunID, NormalizedURLsPath: paths[1], URLMapPath: paths[2],
		UniqueNormalized: len(nz.normalized), InputsDigest: nz.digest}
	e.auditNormalize(run, a.Reason, res)
	return res, nil
}

// files renders and schema-checks the normalize artifacts.
func (nz *normalization) files(normalizedPath, urlMapPath string) ([]pendingWrite, error) {
	return listAndDoc(normalizedPath, nz.normalized, urlMapPath, schema.URLMap, &nz.urlMap)
}
