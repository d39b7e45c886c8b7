package engine

import (
	"strings"

	"github.com/citegate/citegate/engine/schema"
)

// Typed schema checks for the artifacts citegate writes in bulk. Validating
// by marshalling and decoding every document costs more than the rest of a
// large run, so records that pass these conservative checks — they may
// reject what the schema accepts, never the reverse (checks_test.go mutates
// records to prove it) — skip the generic validator; anything they reject is
// validated by the schema itself, which reports the precise error.
//
// Kept because a benchmark of the whole run shows it (with encode.go's hand
// encoders) (2,000 wave files, 50,000 URLs; medians of three interleaved runs,
// issue 12): BenchmarkRunOffline 0.89 s → 1.16 s without them,
// BenchmarkToolChainOffline 1.95 s → 2.35 s. A schema change these checks do
// not follow fails checks_test.go.

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
