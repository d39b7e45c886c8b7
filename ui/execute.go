package ui

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/citegate/citegate/engine"
	"github.com/citegate/citegate/ui/cli"
)

// Deps are the dependencies main builds.
type Deps struct {
	Engine *engine.Engine
	// Demo holds the embedded demo run (the contents of testdata/demo).
	Demo fs.FS
}

// Execute runs a parsed command and returns the process exit code.
func Execute(ctx context.Context, d Deps, c *cli.Command, s cli.Streams) int {
	if c.Help {
		if c.Name == "" {
			fmt.Fprint(s.Out, cli.Usage())
		} else {
			fmt.Fprint(s.Out, cli.CommandUsage(c.Name))
		}
		return cli.ExitOK
	}
	if c.Name == "help" {
		return runHelp(c, s)
	}
	if c.Name == "version" {
		fmt.Fprintf(s.Out, "citegate %s\n", VersionString())
		return cli.ExitOK
	}
	opts, err := c.Net.Options()
	if err != nil { // Parse already refused these; a hand-built Command may not have
		return cli.ReportUsage(s, &cli.UsageError{Command: c.Name, Msg: err.Error()})
	}
	d.Engine.GuardOptions = append(d.Engine.GuardOptions, opts...)
	c.Net.Apply(&d.Engine.Net)
	var res any
	switch c.Name {
	case "extract":
		res, err = d.Engine.Extract(ctx, c.Extract)
	case "normalize":
		res, err = d.Engine.Normalize(ctx, c.Normalize)
	case "validate":
		res, err = consume(s, func(ch chan<- engine.Event) (any, error) { return d.Engine.Validate(ctx, c.Validate, ch) })
	case "gate-c":
		res, err = d.Engine.GateC(ctx, c.GateC)
	case "render":
		res, err = d.Engine.Render(ctx, c.Render)
	case "run":
		if interactive(c, s) {
			return runInteractive(ctx, d, c.Run, s, interactiveOptions{logFile: c.LogFile, verifyFile: c.OutputFile, reports: newCIReports(c)})
		}
		return runPipeline(ctx, d, c.Run, s, c.OutputFile, newCIReports(c))
	case "demo":
		return runDemo(ctx, d, c, s)
	case "init":
		return runInit(ctx, d, c, s)
	case "relocate":
		return runRelocate(ctx, d, c, s)
	case "decide":
		return runDecide(ctx, d, c, s)
	case "mcp":
		return runMCP(ctx, d, c, s)
	case "verify":
		return runVerify(ctx, d, c, s)
	default:
		return cli.ReportUsage(s, &cli.UsageError{Msg: fmt.Sprintf("unknown command %q", c.Name)})
	}
	if err != nil {
		return cli.Fail(s, err)
	}
	noteLateSignal(ctx, s)
	cli.PrintJSON(s.Out, res)
	return cli.ExitOK
}

// noteLateSignal tells the operator that a signal came too late to stop the
// command: past the commit point the write completes (see the README's
// "Signals"), so the result printed is the real, complete one and the exit
// code is the command's own, not cli.ExitInterrupted.
func noteLateSignal(ctx context.Context, s cli.Streams) {
	if ctx.Err() != nil {
		fmt.Fprintln(s.Err, "citegate: interrupted after the commit point; the write was completed and the result stands")
	}
}

// consume runs an engine call with the headless progress printer attached to
// its event stream. The engine closes the channel when it returns.
func consume[T any](s cli.Streams, call func(chan<- engine.Event) (T, error)) (T, error) {
	events := make(chan engine.Event, 256)
	done := make(chan struct{})
	go func() {
		defer close(done)
		NewProgress(s.Err, s.ErrIsTTY).Consume(events)
	}()
	res, err := call(events)
	<-done
	return res, err
}

func runPipeline(ctx context.Context, d Deps, a engine.RunArgs, s cli.Streams, verifyFile string, reports ciReports) int {
	if verifyFile != "" {
		// Read before the run, so that an unreadable file fails before
		// anything is written, and the verification joins the run's commit.
		out, err := engine.ReadVerifyFile(verifyFile)
		if err != nil {
			return cli.Fail(s, err)
		}
		a.VerifyOutput = out
	}
	sum, err := consume(s, func(ch chan<- engine.Event) (*engine.RunSummary, error) { return d.Engine.Run(ctx, a, ch) })
	if err != nil {
		return cli.Fail(s, err)
	}
	noteLateSignal(ctx, s)
	cli.PrintJSON(s.Out, sum)
	fmt.Fprintf(s.Err, "citegate: %s\n", sum.GateC.Line)
	if !writeRunReports(d, sum, reports, verifyFile, s) {
		return cli.ExitFailure
	}
	if !sum.Passed() {
		return cli.ExitGateFailed
	}
	return cli.ExitOK
}

func runDemo(ctx context.Context, d Deps, c *cli.Command, s cli.Streams) int {
	failDemo := func(err error) int {
		var e *engine.Error
		if !errors.As(err, &e) {
			err = &engine.Error{Code: engine.CodeWriteFailed, Message: "cannot create the demo run", Details: map[string]any{"reason": err.Error()}}
		}
		return cli.Fail(s, err)
	}
	// A demo in a temp dir of its own leaves nothing behind unless asked.
	cleanup := func(root string) {
		if c.DemoDir != "" || c.DemoKeep {
			return
		}
		if err := os.RemoveAll(root); err == nil {
			fmt.Fprintf(s.Err, "citegate: demo run removed (keep it with --keep, or --dir DIR)\n")
		}
	}
	if c.DemoOffline {
		manifest, err := CopyDemo(d.Demo, c.DemoDir)
		if err != nil {
			return failDemo(err)
		}
		defer cleanup(manifest.Root)
		fmt.Fprintf(s.Err, "citegate: demo run copied to %s (offline fixtures)\n", manifest.Root)
		a := engine.RunArgs{ManifestPath: manifest.Path, Reason: "citegate demo"}
		if interactive(c, s) {
			return runInteractive(ctx, d, a, s, interactiveOptions{logFile: c.LogFile, reports: newCIReports(c)})
		}
		return runPipeline(ctx, d, a, s, "", newCIReports(c))
	}
	sd, err := startSimDemo(d.Demo, c.DemoDir)
	if err != nil {
		return failDemo(err)
	}
	defer sd.web.Close()
	defer cleanup(sd.run.Root)
	d.Engine.GuardOptions = append(d.Engine.GuardOptions, sd.opts...)
	d.Engine.Net = sd.net
	fmt.Fprintf(s.Err, "citegate: demo run copied to %s\n", sd.run.Root)
	fmt.Fprintln(s.Err, "citegate: SIMULATED WEB — every cited site, Bright Data and Apify are simulated in this process; no real site is contacted")
	a := engine.RunArgs{ManifestPath: sd.run.Path, Reason: "citegate demo"}
	if interactive(c, s) {
		return runInteractive(ctx, d, a, s, interactiveOptions{simulated: true, logFile: c.LogFile, reports: newCIReports(c)})
	}
	return runPipeline(ctx, d, a, s, "", newCIReports(c))
}
