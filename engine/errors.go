package engine

import (
	"errors"
	"fmt"
	"io/fs"
	"syscall"

	"github.com/citegate/citegate/engine/fsx"
	"github.com/citegate/citegate/engine/schema"
	"github.com/citegate/citegate/netguard"
)

// Error codes of the result envelope. The first six are the reference
// implementation's; the others are ours and documented in the README.
const (
	CodeInvalidArgs      = "INVALID_ARGS"
	CodeNotFound         = "NOT_FOUND"
	CodeInvalidJSON      = "INVALID_JSON"
	CodeInvalidJSONL     = "INVALID_JSONL"
	CodeSchemaValidation = "SCHEMA_VALIDATION_FAILED"
	CodeWriteFailed      = "WRITE_FAILED"
	// CodeInvalidInput marks an input file that is not usable text: binary data,
	// over the size cap, not a regular file, unreadable.
	CodeInvalidInput = "INVALID_INPUT"
	// CodeCancelled is returned when the context was cancelled mid-run; nothing
	// was written.
	CodeCancelled = "CANCELLED"
)

// Error is an expected failure, printed as the envelope
// {"ok":false,"error":{"code","message","details"}}.
type Error struct {
	Code    string         `json:"code"`
	Message string         `json:"message"`
	Details map[string]any `json:"details"`
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

func newError(code, message string, details map[string]any) *Error {
	if details == nil {
		details = map[string]any{}
	}
	return &Error{Code: code, Message: message, Details: details}
}

// AsError converts any error into an *Error, capped (Error.Capped) for
// printing. Unexpected errors become WRITE_FAILED, as in the reference's
// catch-all.
func AsError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e.Capped()
	}
	return newError(CodeWriteFailed, "unexpected failure", map[string]any{"message": err.Error()}).Capped()
}

// readError maps a file-read failure of a named input to the envelope.
// missingMsg is the reference's message for an absent file.
func readError(what, path, missingMsg string, err error) *Error {
	d := map[string]any{"path": path}
	if errors.Is(err, fs.ErrNotExist) {
		return newError(CodeNotFound, missingMsg, d)
	}
	for _, c := range []struct {
		err            error
		reason, suffix string
	}{
		{fsx.ErrTooLarge, "file exceeds the size cap", " too large"},
		{fsx.ErrNotRegular, "not a regular file", " is not a regular file"},
		{syscall.ELOOP, "symlink loop", " unreadable"},
		{fs.ErrPermission, "permission denied", " unreadable"},
	} {
		if errors.Is(err, c.err) {
			d["reason"] = c.reason
			return newError(CodeInvalidInput, what+c.suffix, d)
		}
	}
	d["reason"] = err.Error()
	return newError(CodeInvalidInput, what+" unreadable", d)
}

// schemaError maps a schema.Validate/ValidateJSON failure. badJSONMsg is used
// when the bytes are not JSON at all.
func schemaError(what, path, badJSONMsg string, err error) *Error {
	var se *schema.Error
	if errors.As(err, &se) {
		d := map[string]any{"path": path, "pointer": se.Pointer, "schema": string(se.Schema)}
		if len(se.Problems) > 0 {
			// A message can quote a key or value of the file (which may
			// hold a credential), as the main message can.
			ps := make([]schema.Problem, len(se.Problems))
			for i, p := range se.Problems {
				ps[i] = schema.Problem{Pointer: netguard.RedactText(p.Pointer), Message: netguard.RedactText(p.Message), Hint: p.Hint}
			}
			d["problems"] = ps
		}
		switch se.Schema {
		case schema.Manifest, schema.RunConfig:
			d["hint"] = "`citegate init DIR --waves FILES` writes a complete run directory (manifest.json, run-config.json, gates.json, the wave layout)"
		default:
			// The other files are the tools' own output or inputs with
			// their own help; the problems list is the whole answer.
		}
		return newError(CodeSchemaValidation, fmt.Sprintf("%s fails %s: %s", what, se.Schema, se.Message), d)
	}
	if errors.Is(err, schema.ErrInvalidJSON) {
		return newError(CodeInvalidJSON, badJSONMsg, map[string]any{"path": path, "reason": err.Error()})
	}
	return newError(CodeSchemaValidation, what+" invalid", map[string]any{"path": path, "reason": err.Error()})
}

// cancelled is the envelope of a run stopped by its context: the stages
// check the context between writes, so nothing reached the disk.
func cancelled() *Error {
	return newError(CodeCancelled, "cancelled before completion; no artifacts were written", nil)
}

// outputError maps an unusable output path to the envelope.
func outputError(path string, err error) *Error {
	d := map[string]any{"path": path}
	switch {
	case errors.Is(err, fsx.ErrNotRegular):
		d["reason"] = "exists and is not a regular file (directory, device, FIFO, socket or symlink)"
		return newError(CodeInvalidArgs, "output path is not a regular file; nothing was written", d)
	case errors.Is(err, fsx.ErrOutsideRoot):
		d["reason"] = "a symlinked directory leads outside the run root"
		return newError(CodeInvalidArgs, "output path leaves the run root; nothing was written", d)
	}
	d["reason"] = err.Error()
	return newError(CodeWriteFailed, "cannot write output artifacts", d)
}
