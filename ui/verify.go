package ui

import (
	"context"
	"io"
	"os"

	"github.com/citegate/citegate/engine"
)

// maxOutputBytes bounds the agent output verify reads.
const maxOutputBytes = 16 << 20

// runVerify reads the agent output and prints seed 002's result JSON.
func runVerify(ctx context.Context, d Deps, c *Command, s Streams) int {
	if c.OutputFile == "" {
		return fail(s, &engine.Error{Code: engine.CodeInvalidArgs, Message: "--output-file is required (a path, or - for stdin)", Details: map[string]any{}})
	}
	var r io.Reader = s.In
	if c.OutputFile != "-" {
		f, err := os.Open(c.OutputFile)
		if err != nil {
			return fail(s, &engine.Error{Code: engine.CodeNotFound, Message: "output file unreadable", Details: map[string]any{"path": c.OutputFile, "reason": err.Error()}})
		}
		defer f.Close()
		r = f
	}
	out, err := io.ReadAll(io.LimitReader(r, maxOutputBytes+1))
	if err != nil || len(out) > maxOutputBytes {
		return fail(s, &engine.Error{Code: engine.CodeInvalidInput, Message: "output unreadable or over 16 MiB", Details: map[string]any{"path": c.OutputFile}})
	}
	res, err := d.Engine.Verify(ctx, out, c.Verify)
	if err != nil {
		return fail(s, err)
	}
	printJSON(s.Out, res)
	if !res.Passed {
		return ExitGateFailed
	}
	return ExitOK
}
