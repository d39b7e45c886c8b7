package ladder

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/citegate/citegate/netguard"
)

func TestBackoffDelay(t *testing.T) {
	b := Backoff{InitialMS: 500, Multiplier: 2, MaxMS: 8000}
	for a, want := range map[int]time.Duration{1: 500 * time.Millisecond, 2: time.Second, 3: 2 * time.Second,
		4: 4 * time.Second, 5: 8 * time.Second, 6: 8 * time.Second, 20: 8 * time.Second} {
		if got := b.Delay(a); got != want {
			t.Errorf("Delay(%d) = %v, want %v", a, got, want)
		}
	}
	if got := (Backoff{InitialMS: 100, Multiplier: 1.5, MaxMS: 1000}).Delay(3); got != 225*time.Millisecond {
		t.Errorf("fractional multiplier: Delay(3) = %v, want 225ms", got)
	}
}

func TestRetrierNext(t *testing.T) {
	r := retrier{attempts: 3, backoff: Backoff{InitialMS: 1, Multiplier: 2, MaxMS: 4}, maxRetryWait: 3 * time.Millisecond}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tc := range []struct {
		name       string
		ctx        context.Context
		a          int
		again      bool
		retryAfter time.Duration
		waitErr    error
		want       bool
		wantWait   time.Duration // 0: onWait must not be called
	}{
		{"retry after the backoff", context.Background(), 1, true, 0, nil, true, time.Millisecond},
		{"second backoff doubles", context.Background(), 2, true, 0, nil, true, 2 * time.Millisecond},
		{"out of attempts", context.Background(), 3, true, 0, nil, false, 0},
		{"not worth repeating", context.Background(), 1, false, 0, nil, false, 0},
		{"Retry-After longer than the backoff", context.Background(), 1, true, 2 * time.Millisecond, nil, true, 2 * time.Millisecond},
		{"Retry-After capped", context.Background(), 1, true, time.Hour, nil, true, 3 * time.Millisecond},
		{"cancelled", cancelled, 1, true, 0, nil, false, 0},
		{"the stream refuses the wait", context.Background(), 1, true, 0, errors.New("consumer gone"), false, time.Millisecond},
	} {
		var waited time.Duration
		got := r.next(tc.ctx, tc.a, tc.again, tc.retryAfter, func(d time.Duration) error {
			waited = d
			return tc.waitErr
		})
		if got != tc.want || waited != tc.wantWait {
			t.Errorf("%s: next = %v (waited %v), want %v (%v)", tc.name, got, waited, tc.want, tc.wantWait)
		}
	}
}

func TestRetryable(t *testing.T) {
	for err, want := range map[error]bool{
		netguard.ErrTimeout: true, netguard.ErrConnReset: true, netguard.ErrConnRefused: true,
		netguard.ErrNetwork: true, netguard.ErrIncompleteBody: true, netguard.ErrResolve: true,
		fmt.Errorf("wrapped: %w", netguard.ErrTimeout): true,
		netguard.ErrBlockedAddress:                     false, netguard.ErrNoSuchHost: false, netguard.ErrTLS: false,
		errors.New("other"): false,
	} {
		if got := retryable(err); got != want {
			t.Errorf("retryable(%v) = %v, want %v", err, got, want)
		}
	}
}
