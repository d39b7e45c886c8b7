package ladder

import (
	"context"
	"errors"
	"time"

	"github.com/citegate/citegate/netguard"
)

// Backoff is the policy's exponential delay between attempts
// (citations_ladder_policy_v1's backoff_* keys, in milliseconds).
type Backoff struct {
	InitialMS  int
	Multiplier float64
	MaxMS      int
}

// Delay is the wait before attempt+1 (attempts count from 1): InitialMS
// times Multiplier^(attempt-1), at most MaxMS.
func (b Backoff) Delay(attempt int) time.Duration {
	d := float64(b.InitialMS)
	for i := 1; i < attempt; i++ {
		d *= b.Multiplier
	}
	return min(time.Duration(d)*time.Millisecond, time.Duration(b.MaxMS)*time.Millisecond)
}

// retrier decides, after a failed attempt of one rung, whether another
// attempt is made and how long to wait first: never more than attempts in
// all, only for a failure worth repeating, and at least the backoff delay —
// longer when the server asked for it with Retry-After (capped at
// maxRetryWait, so a hostile server cannot park a worker).
type retrier struct {
	attempts     int
	backoff      Backoff
	maxRetryWait time.Duration
}

// wait is the pause before attempt a+1 given the server's Retry-After.
func (r retrier) wait(a int, retryAfter time.Duration) time.Duration {
	return max(r.backoff.Delay(a), min(retryAfter, r.maxRetryWait))
}

// next reports whether attempt a+1 is made after attempt a failed (again:
// worth repeating). It tells onWait the pause first (the event stream says
// why the URL waits), then sleeps; cancellation, or an error from onWait,
// ends the retries.
func (r retrier) next(ctx context.Context, a int, again bool, retryAfter time.Duration, onWait func(time.Duration) error) bool {
	if !again || a >= r.attempts || ctx.Err() != nil {
		return false
	}
	d := r.wait(a, retryAfter)
	if onWait(d) != nil {
		return false
	}
	return netguard.Sleep(ctx, d) == nil
}

// retryable reports the transport failures worth another attempt: timeouts,
// resets, refused connections, network errors, cut bodies and failed name
// lookups (netguard retried a lookup with backoff already; a rung's next
// attempt, seconds later, asks again). A refused target, a bad certificate,
// a non-existent name or a name with no address is not.
func retryable(err error) bool {
	for _, e := range []error{netguard.ErrTimeout, netguard.ErrConnReset, netguard.ErrConnRefused, netguard.ErrNetwork,
		netguard.ErrIncompleteBody, netguard.ErrResolve, netguard.ErrDNSNoAnswer} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}
