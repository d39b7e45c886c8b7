package ui

import (
	"cmp"
	"context"
	"fmt"
	"os"

	"github.com/citegate/citegate/engine"
	"github.com/citegate/citegate/ui/cli"
)

// runDecide records, removes or lists operator decisions: the JSON envelope
// on stdout, the same in words on stderr.
func runDecide(ctx context.Context, d Deps, c *cli.Command, s cli.Streams) int {
	a := c.Decide
	a.Who = cmp.Or(a.Who, os.Getenv("USER"))
	a.Via = "cli"
	res, err := d.Engine.Decide(ctx, a)
	if err != nil {
		return cli.Fail(s, err)
	}
	cli.PrintJSON(s.Out, res)
	describeDecision(s, res)
	return cli.ExitOK
}

// describeDecision says in words what decide did and what is left.
func describeDecision(s cli.Streams, res *engine.DecideResult) {
	if d := res.Decision; d != nil {
		switch res.Action {
		case "undone":
			fmt.Fprintf(s.Err, "citegate: removed the decision on %s (it was %s)\n", d.NormalizedURL, d.Status)
		case "excluded":
			fmt.Fprintf(s.Err, "citegate: %s excluded from synthesis (was %s)\n", d.NormalizedURL, d.Overrides)
		default:
			fmt.Fprintf(s.Err, "citegate: %s decided %s (was %s): %s\n", d.NormalizedURL, d.Status, d.Overrides, d.Note)
		}
	}
	fmt.Fprintf(s.Err, "citegate: %d decision(s) in %s; %d must-not-cite citation(s) undecided\n",
		len(res.Decisions), res.DecisionsPath, len(res.Undecided))
	for i, n := range res.Next {
		fmt.Fprintf(s.Err, "  next %d: %s\n", i+1, n)
	}
}
