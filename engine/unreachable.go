package engine

import (
	"fmt"
	"slices"

	"github.com/citegate/citegate/engine/gate"
)

// Network unreachable. With the network down every direct fetch fails at
// DNS or connect, the ladder calls each URL blocked and its advice is to
// configure a provider: the report blamed the sites and sold a service for
// a cable. When the URLs checked live include some that no server answered
// and none that one did (ladder.Decision), the run says "network
// unreachable" once (a warning: stderr, the TUI, the summary, the report,
// the JUnit report) and is not checked: Gate C fails with the warning code
// NETWORK_UNREACHABLE and notes saying why, however many URLs fixtures or
// the cache settled. gates.json keeps its format: a fail with a warning
// code, as an empty run's NO_URLS_EXTRACTED is.

// networkAction is blocked-urls.json's recommended action for a URL the
// network, not the site, failed.
const networkAction = "Network unreachable: no server answered (DNS or connect failed). Check the connection, proxy or firewall, then run again."

// reachCount tallies the live URLs by what their direct fetches came to.
type reachCount struct {
	reached   int
	unreached []string // normalized URLs
}

// down reports whether the network was: some URLs sent, none answered.
func (c *reachCount) down() bool { return len(c.unreached) > 0 && c.reached == 0 }

// unreachableWarning is the one warning a run without network gives.
func unreachableWarning(n int) string {
	return fmt.Sprintf("network unreachable: none of the %d URL%s checked online reached a server (every DNS lookup or connection failed); "+
		"they are blocked and the run is not checked (Gate C does not pass). Check the connection, proxy or firewall, then run again",
		n, plural(n))
}

// markNotChecked turns a Gate C result into the not-checked fail of a run
// whose n live URLs reached no server.
func markNotChecked(g *GateCResult, n int) {
	g.Status = "fail"
	c := &g.Update.C
	c.Status = "fail"
	if !slices.Contains(c.Warnings, gate.WarningNetworkUnreachable) {
		c.Warnings = append(slices.Clone(c.Warnings), gate.WarningNetworkUnreachable)
	}
	c.Notes = fmt.Sprintf("Gate C not checked: network unreachable (%d URL%s could not be fetched). %s", n, plural(n), c.Notes)
}
