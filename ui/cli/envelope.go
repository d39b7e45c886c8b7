// Result and error envelopes: what every command prints on stdout.

package cli

import (
	"io"

	"github.com/citegate/citegate/engine"
	"github.com/citegate/citegate/engine/jsonx"
)

// Streams are the process's standard streams.
type Streams struct {
	In  io.Reader
	Out io.Writer
	Err io.Writer
	// ErrIsTTY selects in-place progress on stderr instead of plain lines.
	ErrIsTTY bool
	// InIsTTY and OutIsTTY together open the terminal UI for run and demo.
	InIsTTY, OutIsTTY bool
}

// ErrorEnvelope is {"ok":false,"error":{...}}, the documented error shape.
type ErrorEnvelope struct {
	OK    bool          `json:"ok"`
	Error *engine.Error `json:"error"`
}

// PrintJSON writes v as 2-space indented JSON plus a newline.
func PrintJSON(w io.Writer, v any) {
	b, err := jsonx.MarshalFile(v)
	if err != nil {
		b = []byte(`{"ok":false,"error":{"code":"WRITE_FAILED","message":"cannot encode result","details":{}}}` + "\n")
	}
	_, _ = w.Write(b)
}

// Fail prints the error envelope and picks the exit code.
func Fail(s Streams, err error) int {
	e := engine.AsError(err)
	PrintJSON(s.Out, ErrorEnvelope{OK: false, Error: e})
	if e.Code == engine.CodeCancelled {
		return ExitInterrupted
	}
	return ExitFailure
}
