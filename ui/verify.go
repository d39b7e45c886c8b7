package ui

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/citegate/citegate/engine"
	"github.com/citegate/citegate/engine/verify"
	"github.com/citegate/citegate/ui/cli"
)

// runVerify reads the agent output and prints seed 002's result JSON.
func runVerify(ctx context.Context, d Deps, c *cli.Command, s cli.Streams) int {
	if c.OutputFile == "" {
		return cli.Fail(s, &engine.Error{Code: engine.CodeInvalidArgs, Message: "--output-file is required (a path, or - for stdin)", Details: map[string]any{}})
	}
	r := s.In
	if c.OutputFile != "-" {
		f, err := os.Open(c.OutputFile)
		if err != nil {
			return cli.Fail(s, &engine.Error{Code: engine.CodeNotFound, Message: "output file unreadable", Details: map[string]any{"path": c.OutputFile, "reason": err.Error()}})
		}
		defer f.Close()
		r = f
	}
	out, err := io.ReadAll(io.LimitReader(r, verify.MaxOutputBytes+1))
	if err != nil || len(out) > verify.MaxOutputBytes {
		return cli.Fail(s, &engine.Error{Code: engine.CodeInvalidInput, Message: "output unreadable or over 16 MiB", Details: map[string]any{"path": c.OutputFile}})
	}
	res, err := d.Engine.Verify(ctx, out, c.Verify)
	if err != nil {
		return cli.Fail(s, err)
	}
	cli.PrintJSON(s.Out, res)
	if !writeVerifyReports(d, c.OutputFile, out, res, newCIReports(c), s) {
		return cli.ExitFailure
	}
	if res.TotalJudgeErrors > 0 && !res.JudgeFailed() {
		fmt.Fprintf(s.Err, "citegate: verify: the judge failed on %d citation(s) (see resolve_error); the verdict stands without them\n", res.TotalJudgeErrors)
	}
	switch {
	case res.JudgeFailed():
		fmt.Fprintf(s.Err, "citegate: verify: %s\n", res.Reason)
		return cli.ExitNotJudged
	case res.Passed == nil:
		// Nothing checked is not a pass: a script gating on exit 0 must not
		// go on.
		fmt.Fprintf(s.Err, "citegate: verify: %s\n", res.Reason)
		return cli.ExitGateFailed
	case !*res.Passed:
		return cli.ExitGateFailed
	}
	return cli.ExitOK
}
