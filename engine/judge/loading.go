package judge

import (
	"fmt"
	"strings"
	"time"
)

// A server still loading its model answers 503 until the model is in
// memory: llama.cpp's server with
// {"error":{"code":503,"message":"Loading model","type":"unavailable_error"}}.
// That is not a failed judge but a judge not ready yet, so the call is
// retried after a backoff from firstLoadingWait, doubling up to
// maxLoadingWait, at most maxLoadingRetries times, and never past one
// judge timeout from the first attempt. Other 5xx answers are not retried.
const (
	maxLoadingRetries = 6
	firstLoadingWait  = 500 * time.Millisecond
	maxLoadingWait    = 8 * time.Second
)

// modelLoading reports a 503 body that says the model is loading: llama.cpp's
// error type, or its message.
func modelLoading(errType, text string) bool {
	return errType == "unavailable_error" || strings.Contains(strings.ToLower(text), "loading model")
}

// loadingBudget tracks one call's retries of a loading model.
type loadingBudget struct {
	now     func() time.Time
	timeout time.Duration
	start   time.Time
	tries   int
	waited  time.Duration
}

func (j *llmJudge) newLoadingBudget() *loadingBudget {
	now := j.now
	if now == nil {
		now = time.Now
	}
	return &loadingBudget{now: now, timeout: j.timeout, start: now()}
}

// remaining bounds an attempt once the model was found loading: the
// retries share the first attempt's judge timeout. Zero before.
func (b *loadingBudget) remaining() time.Duration {
	if b.tries == 0 {
		return 0
	}
	return max(b.start.Add(b.timeout).Sub(b.now()), time.Nanosecond)
}

// next is the wait before the next attempt, or false when the tries are
// spent or the wait would end past the judge timeout.
func (b *loadingBudget) next() (time.Duration, bool) {
	if b.tries == maxLoadingRetries {
		return 0, false
	}
	wait := min(firstLoadingWait<<b.tries, maxLoadingWait)
	if !b.now().Add(wait).Before(b.start.Add(b.timeout)) {
		return 0, false
	}
	b.tries++
	b.waited += wait
	return wait, true
}

// gaveUp is appended to the last loading answer's message.
func (b *loadingBudget) gaveUp() string {
	if b.tries == 0 {
		return " (model still loading; not retried: the judge timeout is too short)"
	}
	return fmt.Sprintf(" (model still loading after %d retries over %s, within the judge timeout %s)", b.tries, b.waited, b.timeout)
}
