package engine

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/citegate/citegate/engine/fsx"
)

// readJSONLObjects reads citations.jsonl with the reference's JSONL rules:
// blank lines are skipped, and a line that is not one JSON object is
// INVALID_JSONL naming the line. each gets every object (numbers kept as
// json.Number), its 1-based line number and its raw bytes; its error ends
// the read. A missing file is NOT_FOUND.
func readJSONLObjects(path string, each func(line int, raw []byte, doc map[string]any) error) error {
	data, err := fsx.ReadLimited(path, maxListBytes)
	if err != nil {
		return readError("citations.jsonl", path, "citations.jsonl missing", err)
	}
	for i, line := range bytes.Split(data, []byte("\n")) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		var doc any
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.UseNumber()
		if err := dec.Decode(&doc); err != nil || dec.More() {
			return newError(CodeInvalidJSONL, "citations.jsonl malformed", map[string]any{"path": path, "line": i + 1, "message": fmt.Sprintf("line %d is not valid JSON", i+1)})
		}
		m, ok := doc.(map[string]any)
		if !ok {
			return newError(CodeInvalidJSONL, "citations.jsonl malformed", map[string]any{"path": path, "line": i + 1, "message": fmt.Sprintf("line %d is not a JSON object", i+1)})
		}
		if err := each(i+1, line, m); err != nil {
			return err
		}
	}
	return nil
}
