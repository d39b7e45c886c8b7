package engine

import "context"

// EventKind tells consumers what an Event reports.
type EventKind int

// Event kinds, in the order a run emits them.
const (
	// EventStage: a pipeline stage began (Stage is set).
	EventStage EventKind = iota
	// EventQueued: a URL joined the validation work list (Index, Total, URL, CID).
	EventQueued
	// EventFinished: a URL has its status (Citation is set).
	EventFinished
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
	// Rung names what decided the status: offline-fixture, online-fixture,
	// dry-run or preflight.
	Rung     string
	Citation *Citation
}

// emitter numbers events and sends them without ever blocking past
// cancellation. A nil channel discards events.
type emitter struct {
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
	em.seq++
	ev.Seq = em.seq
	select {
	case em.ch <- ev:
		return nil
	case <-ctx.Done():
		return cancelled()
	}
}
