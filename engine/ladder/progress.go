package ladder

import "time"

// ProgressKind says what a Progress reports.
type ProgressKind int

const (
	// Attempt: a rung starts an attempt at the item.
	Attempt ProgressKind = iota + 1
	// AttemptDone: the attempt is over (Detail says how, HTTPStatus what
	// the site or provider answered, Proto in which protocol).
	AttemptDone
	// RetryWait: the rung waits Wait before its next attempt (Detail: why).
	RetryWait
)

// Progress is one step of the ladder for one item, in the order it happened
// for that item.
type Progress struct {
	Kind       ProgressKind
	Item       *Item
	Rung       string
	Attempt    int
	Wait       time.Duration
	Detail     string
	Elapsed    time.Duration
	HTTPStatus int
	// Proto is the protocol of a direct attempt's response ("HTTP/2.0",
	// "HTTP/1.1"; "" when none arrived), so walls can be told apart by
	// the protocol they answered.
	Proto string
}

// report sends p; an error (the consumer was cancelled) stops the item.
func (l *Ladder) report(p Progress) error {
	if l.cfg.Report == nil {
		return nil
	}
	return l.cfg.Report(p)
}
