package engine

import (
	"bufio"
	"strconv"

	"github.com/citegate/citegate/engine/jsonx"
)

// Hand-written encoders and typed schema checks for the artifacts that hold
// one entry per URL; each format's writeFile and schemaOK live in the format's
// own file (citation.go, foundby.go, urlmap.go). The encoders produce exactly
// the bytes jsonx.MarshalFile / jsonx.Marshal produce for the same values
// (encode_test.go compares them), without encoding/json's intermediate
// buffers. The checks are conservative — they may reject what the schema
// accepts, never the reverse (checks_test.go mutates records to prove it) — so
// a record they pass skips the generic validator, and anything they reject is
// validated by the schema itself, which reports the precise error. A schema
// change the checks do not follow fails checks_test.go.
//
// Kept because a benchmark of the whole run shows it (2,000 wave files,
// 50,000 URLs; medians of three interleaved runs): BenchmarkRunOffline
// 0.89 s → 1.16 s and 3.3 M → 6.4 M allocations without them;
// BenchmarkToolChainOffline 1.95 s → 2.35 s.

func appendField(dst []byte, indent, key string, first bool) []byte {
	if !first {
		dst = append(dst, ',')
	}
	dst = append(dst, indent...)
	// Keys are this file's own field names, which need no escaping (the
	// encode tests compare every artifact with encoding/json's bytes).
	dst = append(append(append(dst, '"'), key...), '"')
	if indent == "" {
		return append(dst, ':')
	}
	return append(dst, ':', ' ')
}

func appendStringField(dst []byte, indent, key, value string, first bool) []byte {
	return jsonx.AppendString(appendField(dst, indent, key, first), value)
}

func appendIntField(dst []byte, indent, key string, value int, first bool) []byte {
	return strconv.AppendInt(appendField(dst, indent, key, first), int64(value), 10)
}

// Indentation of the top-level fields and of the fields of array items, as
// JSON.stringify(v, null, 2) lays them out.
const (
	in1 = "\n  "
	in3 = "\n      "
)

// spillAt is how many encoded bytes the streaming encoders gather before
// handing them to the (buffered) file.
const spillAt = 32 << 10

// writeItemsFile streams the shape found-by.json and url-map.json share,
// {schema_version, run_id, items: [...]}, encoding each item's fields with
// field into a reused buffer.
func writeItemsFile(w *bufio.Writer, schemaVersion, runID string, n int, field func(dst []byte, i int) []byte) error {
	dst := make([]byte, 0, spillAt+4096)
	dst = append(dst, '{')
	dst = appendStringField(dst, in1, "schema_version", schemaVersion, true)
	dst = appendStringField(dst, in1, "run_id", runID, false)
	dst = append(appendField(dst, in1, "items", false), '[')
	for i := range n {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, "\n    {"...)
		dst = field(dst, i)
		dst = append(dst, "\n    }"...)
		if len(dst) >= spillAt {
			_, _ = w.Write(dst) // sticky: the commit's Flush reports it
			dst = dst[:0]
		}
	}
	if n > 0 {
		dst = append(dst, in1...)
	}
	_, err := w.Write(append(dst, "]\n}\n"...))
	return err
}
