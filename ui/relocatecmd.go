package ui

import (
	"context"
	"fmt"
	"strings"

	"github.com/citegate/citegate/ui/cli"
)

// runRelocate points a copied or moved run directory at itself: the JSON
// envelope on stdout, the same in words on stderr.
func runRelocate(ctx context.Context, d Deps, c *cli.Command, s cli.Streams) int {
	res, err := d.Engine.Relocate(ctx, c.Relocate)
	if err != nil {
		return cli.Fail(s, err)
	}
	cli.PrintJSON(s.Out, res)
	if len(res.Rewritten) == 0 {
		fmt.Fprintf(s.Err, "citegate: %s is already its manifest's run root; nothing to do\n", res.RunDir)
	} else {
		fmt.Fprintf(s.Err, "citegate: relocated %s (its manifest named %s): rewrote %s\n", res.RunDir, res.PreviousRoot, strings.Join(res.Rewritten, ", "))
	}
	for i, n := range res.Next {
		fmt.Fprintf(s.Err, "  next %d: %s\n", i+1, n)
	}
	return cli.ExitOK
}
