package ui

import (
	"context"
	"fmt"

	"github.com/citegate/citegate/engine"
)

// interactive reports whether run/demo should open the terminal UI: both
// stdin and stdout are terminals and --headless was not given.
func interactive(c *Command, s Streams) bool {
	return !c.Headless && s.InIsTTY && s.OutIsTTY
}

// startRun runs the pipeline in the background, returning its event stream
// and, once it returns, its outcome.
func startRun(ctx context.Context, d Deps, a engine.RunArgs) (<-chan engine.Event, <-chan Outcome) {
	events := make(chan engine.Event, 256)
	outcome := make(chan Outcome, 1)
	go func() {
		sum, err := d.Engine.Run(ctx, a, events)
		outcome <- Outcome{Summary: sum, Err: err}
	}()
	return events, outcome
}

// runInteractive drives the pipeline under the terminal UI. Quitting before
// completion cancels the workers; the engine writes nothing then, so the
// previous artifacts stay as they were.
func runInteractive(ctx context.Context, d Deps, a engine.RunArgs, s Streams, simulated bool) int {
	info, err := d.Engine.Describe(a)
	if err != nil {
		return fail(s, err)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	events, outcome := startRun(ctx, d, a)
	opts := TUIOptions{RunID: info.RunID, Mode: info.Mode, Tier: info.Tier, Simulated: simulated, Outcome: outcome}
	var last *engine.RunSummary
	opts.Rerun = func() (<-chan engine.Event, <-chan Outcome) {
		if last == nil {
			return nil, nil
		}
		blocked, err := engine.BlockedURLs(last.Artifacts.Citations)
		if err != nil || len(blocked) == 0 {
			return nil, nil
		}
		again := a
		again.Recheck = blocked
		return startRun(ctx, d, again)
	}
	// The rerun hook needs the latest summary; the UI hands outcomes back
	// only through its result, so track them here as they arrive.
	tracked := make(chan Outcome, 1)
	opts.Outcome = tracked
	go func() {
		o := <-outcome
		last = o.Summary
		tracked <- o
	}()
	res, err := RunTUI(ctx, events, s.In, s.Out, opts)
	if err != nil || !res.Completed {
		cancel()
		for range events { // let the workers finish unwinding
		}
		fmt.Fprintln(s.Err, "citegate: quit before the run completed; nothing was written, the previous artifacts are untouched")
		return ExitInterrupted
	}
	if res.Err != nil {
		return fail(s, res.Err)
	}
	sum := res.Summary
	fmt.Fprintf(s.Err, "citegate: %s Artifacts: %s\n", sum.GateC.Notes, sum.Artifacts.Citations)
	if !sum.Passed() {
		return ExitGateFailed
	}
	return ExitOK
}
