// Command citegate stops phantom citations before an AI research report is
// written: it extracts the URLs a deep-research run cites, validates them, and
// computes Gate C. See README.md.
package main

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"os"
	"os/signal"
	"syscall"

	"golang.org/x/term"

	"github.com/citegate/citegate/engine"
	"github.com/citegate/citegate/ui"
	"github.com/citegate/citegate/ui/cli"
)

//go:embed all:testdata/demo
var demoFiles embed.FS

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], cli.Streams{In: os.Stdin, Out: os.Stdout, Err: os.Stderr,
		ErrIsTTY: term.IsTerminal(int(os.Stderr.Fd())), InIsTTY: term.IsTerminal(int(os.Stdin.Fd())),
		OutIsTTY: term.IsTerminal(int(os.Stdout.Fd()))})
	stop()
	os.Exit(code)
}

// run parses the command line, builds the dependencies and executes.
func run(ctx context.Context, args []string, s cli.Streams) int {
	cmd, err := cli.Parse(args)
	if err != nil {
		return cli.ReportUsage(s, err)
	}
	demo, err := fs.Sub(demoFiles, "testdata/demo")
	if err != nil {
		fmt.Fprintf(s.Err, "citegate: embedded demo missing: %v\n", err)
		return cli.ExitFailure
	}
	eng := engine.New()
	eng.Net.Getenv = os.Getenv // provider credentials come only from the environment
	eng.BoundHeap = ui.BoundHeap
	return ui.Execute(ctx, ui.Deps{Engine: eng, Demo: demo}, cmd, s)
}
