package ladder

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/citegate/citegate/netguard"
)

// acceptDirect is what the direct rung asks a site for.
const acceptDirect = "text/html,application/xhtml+xml,application/pdf;q=0.9,*/*;q=0.8"

// fetch does one direct request to url under the host gate (hosts.go),
// and tells the gate how the host answered: a request to slow down
// (slowSignal) or an ordinary answer. With headFirst (the basic tier) it
// goes through headThenGet; head reports that the response is a HEAD
// response.
func (l *Ladder) fetch(ctx context.Context, host, url string, headFirst bool) (resp *netguard.Response, head bool, err error) {
	release, err := l.gate.acquire(ctx, host)
	if err != nil {
		return nil, false, err
	}
	defer release()
	releaseFleet, err := l.fleetAcquire(ctx, host)
	if err != nil {
		return nil, false, err
	}
	defer releaseFleet()
	releaseAddr, err := l.addrs.acquire(ctx, host, url)
	if err != nil {
		return nil, false, err
	}
	defer releaseAddr()
	do := func(method string) (*netguard.Response, error) {
		r, err := l.cfg.Guard.Fetch(ctx, netguard.Request{Method: method, URL: url, Header: http.Header{"Accept": {acceptDirect}}})
		if r != nil {
			if until, slow := slowSignal(r.StatusCode, r.RetryAfter, r.Header, time.Now(), l.cfg.MaxRetryWait); slow {
				l.gate.slowDown(host, until)
				if l.cfg.Fleet != nil {
					l.cfg.Fleet.SlowDown(ctx, host, until)
				}
			} else {
				l.gate.answered(host)
				if l.cfg.Fleet != nil {
					l.cfg.Fleet.Answered(ctx, host)
				}
			}
		}
		return r, err
	}
	if headFirst {
		return headThenGet(do)
	}
	resp, err = do(http.MethodGet)
	return resp, false, err
}

// headThenGet asks with HEAD and falls back to GET when the server does not
// answer HEAD usefully (seed 004): any status outside 2xx–3xx or a transport
// failure gets a GET, since many servers refuse or mishandle HEAD. A refused
// target, a name that does not exist, or a certificate or protocol version
// the handshake refused (netguard.TLSDetail) is final: GET would fail the
// same way.
func headThenGet(do func(method string) (*netguard.Response, error)) (resp *netguard.Response, head bool, err error) {
	resp, err = do(http.MethodHead)
	if err == nil && resp.StatusCode >= 200 && resp.StatusCode < 400 {
		return resp, true, nil
	}
	if err != nil && (netguard.IsRefusal(err) || errors.Is(err, netguard.ErrNoSuchHost) || netguard.TLSDetail(err) != "") {
		return resp, true, err
	}
	resp, err = do(http.MethodGet)
	return resp, false, err
}
