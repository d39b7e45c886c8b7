package ui

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"

	"github.com/citegate/citegate/engine"
	"github.com/citegate/citegate/ui/cli"
	"github.com/citegate/citegate/ui/tui"
)

// interactive reports whether run/demo should open the terminal UI: both
// stdin and stdout are terminals and --headless was not given.
func interactive(c *cli.Command, s cli.Streams) bool {
	return !c.Headless && s.InIsTTY && s.OutIsTTY
}

// interactiveOptions are the terminal UI's settings beyond the run's
// arguments.
type interactiveOptions struct {
	// simulated labels the web as simulated (the online demo).
	simulated bool
	// logFile, if set, receives the progress log.
	logFile string
	// verifyFile is run's --verify synthesis file. It is read before the
	// run starts and verified inside every run's commit (reruns included,
	// since they rewrite the citations), as the headless path does.
	verifyFile string
	// reports are the CI reports of the completed run.
	reports ciReports
}

// runs tracks the pipeline runs of one terminal UI session (the run and its
// reruns), so that after a quit the caller can wait for them and learn how
// the last one ended: a quit that lands after the commit point does not stop
// the commit.
type runs struct {
	wg   sync.WaitGroup
	mu   sync.Mutex
	last tui.Outcome
}

// start runs the pipeline in the background, returning its event stream
// and, once it returns, its outcome.
func (r *runs) start(ctx context.Context, d Deps, a engine.RunArgs) (<-chan engine.Event, <-chan tui.Outcome) {
	events := make(chan engine.Event, 256)
	outcome := make(chan tui.Outcome, 1)
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		sum, err := d.Engine.Run(ctx, a, events)
		o := tui.Outcome{Summary: sum, Err: err}
		r.mu.Lock()
		r.last = o
		r.mu.Unlock()
		outcome <- o // buffered: never blocks
	}()
	return events, outcome
}

// wait waits for every run to return and reports the outcome of the last.
func (r *runs) wait() tui.Outcome {
	r.wg.Wait()
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.last
}

// runInteractive drives the pipeline under the terminal UI. Quitting before
// completion cancels the workers; the engine writes nothing then, so the
// previous artifacts stay as they were — unless the run had already passed
// its commit point, in which case the commit completes and is reported.
func runInteractive(ctx context.Context, d Deps, a engine.RunArgs, s cli.Streams, o interactiveOptions) int {
	info, err := d.Engine.Describe(a)
	if err != nil {
		return cli.Fail(s, err)
	}
	var log io.Writer
	if o.logFile != "" {
		f, err := os.OpenFile(o.logFile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			fmt.Fprintf(s.Err, "citegate: --log-file: %v\n", err)
			return cli.ExitUsage
		}
		defer f.Close()
		log = f
	}
	if o.verifyFile != "" {
		out, err := engine.ReadVerifyFile(o.verifyFile)
		if err != nil {
			return cli.Fail(s, err)
		}
		a.VerifyOutput = out
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var rs runs
	events, outcome := rs.start(ctx, d, a)
	if log != nil {
		events = logged(ctx, events, log)
	}
	opts := tui.Options{RunID: info.RunID, Mode: info.Mode, Tier: info.Tier, Simulated: o.simulated, Outcome: outcome,
		Verify: o.verifyFile != ""}
	var last *engine.RunSummary
	opts.Rerun = func() (<-chan engine.Event, <-chan tui.Outcome) {
		if last == nil {
			return nil, nil
		}
		blocked, err := engine.BlockedURLs(last.Artifacts.Citations)
		if err != nil || len(blocked) == 0 {
			return nil, nil
		}
		again := a
		again.Recheck = blocked
		ev, out := rs.start(ctx, d, again)
		if log != nil {
			ev = logged(ctx, ev, log)
		}
		return ev, out
	}
	opts.Decide = func(da engine.DecideArgs) (*engine.DecideResult, error) {
		da.Dir, da.Who = filepath.Dir(a.ManifestPath), cmp.Or(da.Who, os.Getenv("USER"))
		return d.Engine.Decide(ctx, da)
	}
	opts.Recompute = func(urls []string) (<-chan engine.Event, <-chan tui.Outcome) {
		again := a
		again.Recheck = urls
		ev, out := rs.start(ctx, d, again)
		if log != nil {
			ev = logged(ctx, ev, log)
		}
		return ev, out
	}
	opts.OpenURL = func(u string) error { return openBrowser(u, os.Getenv, startDetached) }
	// The rerun hook needs the latest summary; the UI hands outcomes back
	// only through its result, so track them here as they arrive.
	tracked := make(chan tui.Outcome, 1)
	opts.Outcome = tracked
	go func() {
		first := <-outcome
		last = first.Summary
		tracked <- first
	}()
	res, err := tui.Run(ctx, events, s.In, s.Out, opts)
	if err != nil || !res.Completed {
		cancel()
		for range events { // let the workers finish unwinding
		}
		final := rs.wait()
		if final.Err != nil || final.Summary == nil {
			fmt.Fprintln(s.Err, "citegate: quit before the run completed; nothing was written, the previous artifacts are untouched")
			return cli.ExitInterrupted
		}
		// The quit came after the commit point, which a quit does not stop:
		// the run finished writing, so report it with its own exit code.
		res = tui.Result{Completed: true, Summary: final.Summary}
		fmt.Fprintln(s.Err, "citegate: the run reached its commit point before the UI closed; its artifacts were written")
	}
	if res.Err != nil {
		return cli.Fail(s, res.Err)
	}
	sum := res.Summary
	// The screen is gone: leave the warnings (the screen showed at most a
	// few) where the headless run prints them.
	for _, w := range sum.Warnings {
		fmt.Fprintf(s.Err, "citegate: warning: %s\n", w)
	}
	fmt.Fprintf(s.Err, "citegate: %s Artifacts: %s\n", sum.GateC.Line, sum.Artifacts.Citations)
	if sum.Verify != nil {
		fmt.Fprintf(s.Err, "citegate: %s\n", tui.VerifyLine(sum.Verify))
	}
	if !writeRunReports(d, sum, o.reports, o.verifyFile, s) {
		return cli.ExitFailure
	}
	if !sum.Passed() {
		return cli.ExitGateFailed
	}
	return cli.ExitOK
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
