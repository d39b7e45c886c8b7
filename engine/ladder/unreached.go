package ladder

import (
	"context"

	"github.com/citegate/citegate/netguard"
)

// reach is what an item's direct attempts came to on the network: whether
// any was sent, and whether any reached a server (an HTTP answer, a
// connection, or a DNS answer such as NXDOMAIN). An item tried and never
// reached is one the network, not the site, failed: when every item of a
// run is, the network is down (the engine says so instead of blaming the
// sites or pointing at providers).
type reach struct {
	tried, reached bool
}

// note records one direct fetch's outcome.
func (r *reach) note(ctx context.Context, resp *netguard.Response, err error) {
	switch {
	case err == nil || resp != nil:
		r.tried, r.reached = true, true
	case ctx.Err() != nil || netguard.IsRefusal(err):
		// Nothing was sent, or the run stopped: no evidence either way.
	case netguard.Unreached(err):
		r.tried = true
	default:
		r.tried, r.reached = true, true
	}
}

// unreached reports whether the direct rung was tried and reached nothing.
func (r reach) unreached() bool { return r.tried && !r.reached }
