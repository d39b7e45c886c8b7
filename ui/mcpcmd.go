package ui

import (
	"context"
	"fmt"
	"os"

	"github.com/citegate/citegate/netguard"
	"github.com/citegate/citegate/ui/cli"
	citemcp "github.com/citegate/citegate/ui/mcp"
)

// runMCP serves the tools over stdio until the client closes the connection
// or a signal stops it. stdout carries JSON-RPC only; anything for the
// operator goes to stderr.
func runMCP(ctx context.Context, d Deps, c *cli.Command, s cli.Streams) int {
	getenv := d.Engine.Net.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	allow := c.AllowFetch || getenv("CITEGATE_ALLOW_FETCH") == "1" || getenv("IRIS_CITATION_ALLOW_FETCH") == "1"
	srv, err := citemcp.NewServer(d.Engine, citemcp.Options{Version: VersionString(), AllowFetch: allow})
	if err != nil {
		fmt.Fprintf(s.Err, "citegate: mcp: %v\n", err)
		return cli.ExitFailure
	}
	fmt.Fprintf(s.Err, "citegate: MCP server on stdio (verify_citations may fetch: %v)\n", allow)
	err = citemcp.Serve(ctx, srv, s.In, s.Out)
	if ctx.Err() != nil {
		return cli.ExitInterrupted
	}
	if err != nil {
		fmt.Fprintf(s.Err, "citegate: mcp: %s\n", netguard.RedactText(err.Error()))
		return cli.ExitFailure
	}
	return cli.ExitOK
}
