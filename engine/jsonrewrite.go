package engine

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"

	"github.com/citegate/citegate/engine/jsonx"
)

// rewriteJSONStrings replaces string values of a JSON document in place,
// leaving every other byte as it was (key order, spacing, numbers), so a
// file a user wrote keeps its shape. replace is asked for each string value
// with the object keys leading to it (array positions are not keys) and
// returns the new value and whether to replace it. It returns the document
// and how many values changed.
func rewriteJSONStrings(data []byte, replace func(path []string, s string) (string, bool)) ([]byte, int, error) {
	type frame struct {
		object, wantKey bool
		key             string
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	var (
		stack []frame
		out   []byte
		last  int // data[:last] is in out
		n     int
	)
	path := func() []string {
		var p []string
		for _, f := range stack {
			if f.object {
				p = append(p, f.key)
			}
		}
		return p
	}
	valueDone := func() {
		if len(stack) > 0 && stack[len(stack)-1].object {
			stack[len(stack)-1].wantKey = true
		}
	}
	for {
		start := dec.InputOffset()
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) && len(stack) == 0 {
			break
		}
		if errors.Is(err, io.EOF) {
			return nil, 0, io.ErrUnexpectedEOF
		}
		if err != nil {
			return nil, 0, err
		}
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{':
				stack = append(stack, frame{object: true, wantKey: true})
			case '[':
				stack = append(stack, frame{})
			default:
				stack = stack[:len(stack)-1]
				valueDone()
			}
		case string:
			if top := len(stack) - 1; top >= 0 && stack[top].object && stack[top].wantKey {
				stack[top].key, stack[top].wantKey = t, false
				continue
			}
			if v, ok := replace(path(), t); ok && v != t {
				// The token's bytes run from the delimiter before it to its
				// closing quote; the value starts at its opening quote.
				end := int(dec.InputOffset())
				open := int(start) + bytes.IndexByte(data[start:end], '"')
				out = jsonx.AppendString(append(out, data[last:open]...), v)
				last, n = end, n+1
			}
			valueDone()
		default:
			valueDone()
		}
	}
	return append(out, data[last:]...), n, nil
}
