package engine

import (
	"runtime/metrics"
)

// HeapBudget is the heap bound a run asks for. Go's collector lets the heap
// grow to twice the live data before it collects (GOGC=100); a 20,000-file
// run has ~260 MB live at its peak, so it reached ~450 MB of RSS. A run
// instead asks for a soft memory limit: HeapBudget, or 1.5× the live data
// once the extract stage has read the waves, whichever is larger, so that a
// run whose data outgrows the budget gets headroom instead of a collector
// that runs without pause. Below the limit nothing changes (a 2,000-file run
// never reaches it); near it the collector runs more often: more CPU, not
// more memory. 345 MiB was measured against 330 and 360 (README,
// "Performance"): lower costs CPU, higher leaves less room under 400 MB.
//
// The engine only asks (Engine.BoundHeap): the memory limit belongs to the
// process, so the program that runs the command applies it (ui.BoundHeap),
// and an operator's GOMEMLIMIT wins there.
const HeapBudget int64 = 345 << 20

// boundHeap asks e.BoundHeap for a run starting now and returns the
// function that raises the request to 1.5× the live data once the run has
// read its waves (raise), and the one that ends the run's claim (release).
func (e *Engine) boundHeap() (raise func(), release func()) {
	if e.BoundHeap == nil {
		return func() {}, func() {}
	}
	raiseTo, release := e.BoundHeap(HeapBudget)
	return func() { raiseTo(liveHeap() / 2 * 3) }, release
}

// liveHeap is the heap the last collection found reachable.
func liveHeap() int64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(min(s[0].Value.Uint64(), 1<<62))
}
