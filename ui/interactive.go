package ui

import (
	"context"
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"

	"github.com/citegate/citegate/engine"
)

// interactive reports whether run/demo should open the terminal UI: both
// stdin and stdout are terminals and --headless was not given.
func interactive(c *Command, s Streams) bool {
	return !c.Headless && s.InIsTTY && s.OutIsTTY
}

// interactiveOptions are the terminal UI's settings beyond the run's
// arguments.
type interactiveOptions struct {
	// simulated labels the web as simulated (the online demo).
	simulated bool
	// logFile, if set, receives the progress log.
	logFile string
	// verifyFile is run's --verify synthesis file, verified after every
	// successful run (reruns included, since they rewrite the citations).
	verifyFile string
	// wrote is set once the latest run has committed its artifacts, so that
	// quitting during its --verify step is not reported as "nothing was
	// written".
	wrote *atomic.Bool
	// running counts the run goroutines, so that wrote is read only after
	// they have returned.
	running *sync.WaitGroup
}

// startRun runs the pipeline in the background, returning its event stream
// and, once it returns (and the --verify step after it, if any), its
// outcome. The outcome channel is buffered, so the send never blocks.
func startRun(ctx context.Context, d Deps, a engine.RunArgs, o interactiveOptions) (<-chan engine.Event, <-chan Outcome) {
	events := make(chan engine.Event, 256)
	outcome := make(chan Outcome, 1)
	if o.wrote != nil {
		o.wrote.Store(false) // this run has written nothing yet
	}
	if o.running != nil {
		o.running.Add(1)
	}
	go func() {
		if o.running != nil {
			defer o.running.Done()
		}
		sum, err := d.Engine.Run(ctx, a, events)
		if err == nil && o.wrote != nil {
			o.wrote.Store(true)
		}
		if err == nil && o.verifyFile != "" {
			err = verifyAfterRun(ctx, d, sum, o.verifyFile)
		}
		outcome <- Outcome{Summary: sum, Err: err}
	}()
	return events, outcome
}

// runInteractive drives the pipeline under the terminal UI. Quitting before
// completion cancels the workers; the engine writes nothing then, so the
// previous artifacts stay as they were.
func runInteractive(ctx context.Context, d Deps, a engine.RunArgs, s Streams, o interactiveOptions) int {
	info, err := d.Engine.Describe(a)
	if err != nil {
		return fail(s, err)
	}
	var log io.Writer
	if o.logFile != "" {
		f, err := os.OpenFile(o.logFile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			fmt.Fprintf(s.Err, "citegate: --log-file: %v\n", err)
			return ExitUsage
		}
		defer f.Close()
		log = f
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	o.wrote, o.running = new(atomic.Bool), new(sync.WaitGroup)
	events, outcome := startRun(ctx, d, a, o)
	if log != nil {
		events = logged(ctx, events, log)
	}
	opts := TUIOptions{RunID: info.RunID, Mode: info.Mode, Tier: info.Tier, Simulated: o.simulated, Outcome: outcome}
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
		ev, out := startRun(ctx, d, again, o)
		if log != nil {
			ev = logged(ctx, ev, log)
		}
		return ev, out
	}
	// The rerun hook needs the latest summary; the UI hands outcomes back
	// only through its result, so track them here as they arrive.
	tracked := make(chan Outcome, 1)
	opts.Outcome = tracked
	go func() {
		first := <-outcome
		last = first.Summary
		tracked <- first
	}()
	res, err := RunTUI(ctx, events, s.In, s.Out, opts)
	if err != nil || !res.Completed {
		cancel()
		for range events { // let the workers finish unwinding
		}
		o.running.Wait()
		if o.wrote.Load() {
			fmt.Fprintln(s.Err, "citegate: quit during the --verify step; the run's artifacts were written, citations/verify.json may not have been")
		} else {
			fmt.Fprintln(s.Err, "citegate: quit before the run completed; nothing was written, the previous artifacts are untouched")
		}
		return ExitInterrupted
	}
	if res.Err != nil {
		return fail(s, res.Err)
	}
	sum := res.Summary
	// The screen is gone: leave the warnings (the screen showed at most a
	// few) where the headless run prints them.
	for _, w := range sum.Warnings {
		fmt.Fprintf(s.Err, "citegate: warning: %s\n", w)
	}
	fmt.Fprintf(s.Err, "citegate: %s Artifacts: %s\n", sum.GateC.Notes, sum.Artifacts.Citations)
	if sum.Verify != nil {
		fmt.Fprintf(s.Err, "citegate: %s\n", verifyLine(sum.Verify))
	}
	if !sum.Passed() {
		return ExitGateFailed
	}
	return ExitOK
}

// logged copies the progress log of an event stream to w on its way to the
// terminal UI.
func logged(ctx context.Context, in <-chan engine.Event, w io.Writer) <-chan engine.Event {
	out := make(chan engine.Event, 256)
	p := NewProgress(w, false)
	go func() {
		defer close(out)
		for ev := range in {
			p.handle(ev)
			select {
			case out <- ev:
			case <-ctx.Done():
				for range in { // drain so the engine can finish unwinding
				}
				return
			}
		}
	}()
	return out
}
