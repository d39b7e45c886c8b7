package ui

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/citegate/citegate/ui/cli"
)

// runInit writes a run directory and says what was written and what to do
// next: the JSON envelope on stdout (for scripts and agents), the same in
// words on stderr.
func runInit(ctx context.Context, d Deps, c *cli.Command, s cli.Streams) int {
	res, err := d.Engine.Init(ctx, c.Init)
	if err != nil {
		return cli.Fail(s, err)
	}
	cli.PrintJSON(s.Out, res)
	fmt.Fprintf(s.Err, "citegate: initialised %s (run %s, %s mode, %s tier): %d wave file(s)", res.RunDir, res.RunID, res.Mode, res.Tier, len(res.WaveFiles))
	if res.FixturesURLs != nil {
		fmt.Fprintf(s.Err, ", %d URL(s) in offline-fixtures.json", *res.FixturesURLs)
	}
	fmt.Fprintln(s.Err)
	if len(res.Replaced) > 0 {
		fmt.Fprintf(s.Err, "citegate: --force moved the previous run's %d file(s) aside into %s\n", len(res.Replaced), filepath.Join(res.RunDir, res.ReplacedDir))
	}
	for _, w := range res.Warnings {
		fmt.Fprintf(s.Err, "citegate: warning: %s\n", w)
	}
	for i, n := range res.Next {
		fmt.Fprintf(s.Err, "  next %d: %s\n", i+1, n)
	}
	return cli.ExitOK
}
