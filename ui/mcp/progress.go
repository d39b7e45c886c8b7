package mcp

import (
	"context"
	"fmt"

	"github.com/citegate/citegate/engine"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// withProgress runs an engine call with its event stream attached. When the
// client sent a progress token, each settled URL becomes a progress
// notification (at most about a hundred per call: every URL up to 100,
// then every 1%). The engine closes the channel when it returns; the
// consumer stops with it, or with ctx.
func withProgress(ctx context.Context, req *mcp.CallToolRequest, call func(chan<- engine.Event) (any, error)) (any, error) {
	events := make(chan engine.Event, 256)
	done := make(chan struct{})
	token := req.Params.GetProgressToken()
	go func() {
		defer close(done)
		finished, last := 0, -1
		for {
			select {
			case ev, ok := <-events:
				if !ok {
					return
				}
				if token == nil || ev.Kind != engine.EventFinished || ev.Total <= 0 {
					continue
				}
				finished++
				if step := max(1, ev.Total/100); finished/step == last && finished != ev.Total {
					continue
				}
				last = finished / max(1, ev.Total/100)
				msg := fmt.Sprintf("%d/%d settled", finished, ev.Total)
				if ev.Citation != nil {
					msg = fmt.Sprintf("%d/%d %s %s", finished, ev.Total, ev.Citation.Status, ev.URL)
				}
				// A failed notification does not stop the run.
				_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token,
					Progress: float64(finished), Total: float64(ev.Total), Message: msg})
			case <-ctx.Done():
				for range events { // the engine closes it as it returns
				}
				return
			}
		}
	}()
	res, err := call(events)
	<-done
	return res, err
}
