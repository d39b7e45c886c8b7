package engine

import (
	"context"
	"sync"
	"time"
)

// EventKind tells consumers what an Event reports.
type EventKind int

// Event kinds. The constants' order is not the stream's: a run emits a
// stage event before each stage (extract, normalize, validate, gate-c,
// render, then verify with --verify); extraction's warnings after
// "extract"; after "validate", the fixtures' warnings, every URL's queued
// event, the finished events of the URLs settled without the ladder, the
// ladder's warnings, then per live URL attempt → attempt-done (→
// retry-wait → attempt → attempt-done …) → finished, URLs interleaved, and
// possibly a last warning that too few hosts answered; after "verify", one
// verified event per citation. The validate tool alone emits the same from
// its one "validate" stage.
const (
	// EventStage: a pipeline stage began (Stage is set).
	EventStage EventKind = iota
	// EventQueued: a URL joined the validation work list (Index, Total, URL, CID).
	EventQueued
	// EventFinished: a URL has its status (Citation is set).
	EventFinished
	// EventAttempt: a ladder rung (Rung) starts attempt number Attempt.
	EventAttempt
	// EventRetryWait: the ladder waits Wait before retrying Rung; Detail
	// says why (e.g. "http 429").
	EventRetryWait
	// EventAttemptDone: attempt Attempt of Rung ended after Elapsed;
	// Detail is its outcome ("ok: html", "http 503", "timeout", …) and
	// HTTPStatus the status seen, if any, and Proto the protocol of the
	// direct fetch's response (HTTP/2.0, HTTP/1.1).
	EventAttemptDone
	// EventWarning: a problem the operator should fix that does not stop
	// the run (Detail says what), e.g. a provider configuration that can
	// never work or a fixture entry read leniently. Each is emitted once;
	// all but the unreachable-hosts warning come before the ladder checks
	// any URL.
	EventWarning
	// EventVerified: run --verify settled one citation of the synthesis
	// (Verified is set; Index is its position in verify.json's citations,
	// Total how many verify.json lists, URL the cited source's normalized
	// URL). They follow the "verify" stage, one per citation, in order.
	EventVerified
)

// String names the kind for logs and tests.
func (k EventKind) String() string {
	switch k {
	case EventStage:
		return "stage"
	case EventQueued:
		return "queued"
	case EventFinished:
		return "finished"
	case EventAttempt:
		return "attempt"
	case EventRetryWait:
		return "retry-wait"
	case EventAttemptDone:
		return "attempt-done"
	case EventWarning:
		return "warning"
	case EventVerified:
		return "verified"
	}
	return "unknown"
}

// Event is one step of a run. Events arrive in a total order given by Seq,
// which is the same in headless and TUI mode.
type Event struct {
	Seq   uint64
	Kind  EventKind
	Stage string
	// Index is the URL's position in the normalized_url-sorted work list.
	Index int
	Total int
	// URL is the redacted normalized URL.
	URL string
	CID string
	// Rung names the ladder rung (direct_fetch, bright_data, apify) or, on
	// EventFinished, what decided the status: offline-fixture,
	// online-fixture, dry-run, preflight, cache or a rung.
	Rung       string
	Attempt    int
	Wait       time.Duration
	Detail     string
	Elapsed    time.Duration
	HTTPStatus int
	// Proto is the protocol a direct attempt's response came in
	// (EventAttemptDone), "" if none did.
	Proto string
	// Redirects lists the redacted URLs a finished URL's direct fetch went
	// through before its final URL.
	Redirects []string
	Citation  *Citation
	// Verified is what an EventVerified reports.
	Verified *VerifiedClaim
}

// emitter numbers events and sends them without ever blocking past
// cancellation. A nil channel discards events. Ladder workers emit
// concurrently; the mutex makes Seq a total order.
type emitter struct {
	mu  sync.Mutex
	ch  chan<- Event
	seq uint64
}

func (em *emitter) emit(ctx context.Context, ev Event) error {
	if em.ch == nil {
		// Report cancellation as the CANCELLED envelope, never as a bare
		// context error (which AsError would turn into WRITE_FAILED).
		if ctx.Err() != nil {
			return cancelled()
		}
		return nil
	}
	em.mu.Lock()
	defer em.mu.Unlock()
	em.seq++
	ev.Seq = em.seq
	select {
	case em.ch <- ev:
		return nil
	case <-ctx.Done():
		return cancelled()
	}
}
