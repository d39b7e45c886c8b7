package judge

import (
	"context"
	"errors"
	"net/http"
	"sync/atomic"
	"testing"
	"time"
)

// TestRateLimitIsWaitedOut: a 429 is retried after its Retry-After (or a
// backoff), a bounded number of times; a Retry-After longer than
// maxRetryWait is not waited for; a canceled context ends the wait.
func TestRateLimitIsWaitedOut(t *testing.T) {
	for _, tc := range []struct {
		name       string
		limited    int // 429 answers before a verdict
		retryAfter string
		wantReqs   int
		wantWaits  []time.Duration
		wantKind   string
	}{
		{"once, Retry-After 2", 1, "2", 2, []time.Duration{2 * time.Second}, ""},
		{"twice, no Retry-After", 2, "", 3, []time.Duration{time.Second, 2 * time.Second}, ""},
		{"always", 99, "1", 1 + maxRetries, []time.Duration{time.Second, time.Second, time.Second}, KindRateLimited},
		{"Retry-After past the cap", 1, "120", 1, nil, KindRateLimited},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var calls atomic.Int32
			f := newFakeAPI(t, func(w http.ResponseWriter, _ *http.Request, _ recorded) {
				if int(calls.Add(1)) <= tc.limited {
					if tc.retryAfter != "" {
						w.Header().Set("Retry-After", tc.retryAfter)
					}
					writeJSON(w, 429, openAIError("rate_limit_exceeded", "rate_limit_exceeded", "slow down"))
					return
				}
				writeJSON(w, 200, openAIAnswer(goodVerdict, 1, 1))
			})
			j, err := New(Config{Model: "m", BaseURL: f.URL, Getenv: env(), Client: f.Client()})
			if err != nil {
				t.Fatal(err)
			}
			var waits []time.Duration
			j.(*llmJudge).sleep = func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil }
			v, err := j.Judge(context.Background(), "c", "s")
			if tc.wantKind == "" && (err != nil || v.Outcome != VerdictSupported) {
				t.Fatalf("got %+v, %v", v, err)
			}
			if tc.wantKind != "" && asError(t, err).Kind != tc.wantKind {
				t.Fatalf("error %v, want kind %s", err, tc.wantKind)
			}
			if n := len(f.requests()); n != tc.wantReqs {
				t.Errorf("%d requests, want %d", n, tc.wantReqs)
			}
			if len(waits) != len(tc.wantWaits) {
				t.Fatalf("waits %v, want %v", waits, tc.wantWaits)
			}
			for i := range waits {
				if waits[i] != tc.wantWaits[i] {
					t.Errorf("waits %v, want %v", waits, tc.wantWaits)
				}
			}
		})
	}
}

// TestRateLimitWaitEndsWithContext: the wait for a Retry-After stops when
// the caller's context is canceled.
func TestRateLimitWaitEndsWithContext(t *testing.T) {
	f := newFakeAPI(t, func(w http.ResponseWriter, _ *http.Request, _ recorded) {
		w.Header().Set("Retry-After", "20")
		writeJSON(w, 429, openAIError("rate_limit_exceeded", "rate_limit_exceeded", "slow down"))
	})
	j, err := New(Config{Model: "m", BaseURL: f.URL, Getenv: env(), Client: f.Client()})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err = j.Judge(ctx, "c", "s")
	if el := time.Since(start); el > 5*time.Second || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("after %v: %v", el, err)
	}
}
