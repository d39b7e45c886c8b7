package ui

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

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
	bounds, err := mcpBounds(c)
	if err != nil {
		return cli.ReportUsage(s, &cli.UsageError{Command: c.Name, Msg: err.Error()})
	}
	srv, err := citemcp.NewServer(d.Engine, citemcp.Options{Version: VersionString(), AllowFetch: allow,
		AllowDecisions: c.AllowDecisions, Bounds: bounds})
	if err != nil {
		fmt.Fprintf(s.Err, "citegate: mcp: %s\n", netguard.Clip(netguard.RedactText(err.Error()), 1024))
		return cli.ExitFailure
	}
	fmt.Fprintf(s.Err, "citegate: MCP server on stdio (may fetch: %v; may record decisions: %v; judge base URLs: %d; roots: %s)\n",
		allow, c.AllowDecisions, len(bounds.JudgeBaseURLs), cmp.Or(strings.Join(bounds.Roots, ", "), "any run directory"))
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

// mcpBounds is the operator's policy from mcp's flags: built once, before
// the server answers its first call.
func mcpBounds(c *cli.Command) (citemcp.Boundaries, error) {
	v := c.Verify
	if v.MaxCitations < 0 || v.PerSourceTimeoutMS < 0 || v.PerSourceMaxBytes < 0 || (v.MaxCostUSDTotal != nil && *v.MaxCostUSDTotal < 0) ||
		v.JudgeTimeoutMS < 0 || v.JudgeConcurrency < 0 {
		return citemcp.Boundaries{}, fmt.Errorf("--max-citations, --per-source-timeout-ms, --per-source-max-bytes, --max-cost-usd-total, --judge-timeout-ms and --judge-concurrency must not be negative")
	}
	b := citemcp.Boundaries{JudgeBaseURLs: c.JudgeBaseURLs, ProviderEndpoints: c.ProviderEndpoints, DomainAllowlist: c.Net.DomainAllowlist,
		MaxCitations: v.MaxCitations, PerSourceTimeoutMS: v.PerSourceTimeoutMS, PerSourceMaxBytes: v.PerSourceMaxBytes,
		MaxCostUSDTotal: v.MaxCostUSDTotal, JudgeTimeoutMS: v.JudgeTimeoutMS, JudgeConcurrency: v.JudgeConcurrency}
	for _, r := range c.Roots {
		abs, err := filepath.Abs(r)
		if err != nil {
			return citemcp.Boundaries{}, fmt.Errorf("--root %q: %w", r, err)
		}
		b.Roots = append(b.Roots, abs)
	}
	return b, nil
}
