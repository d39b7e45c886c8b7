package engine

import (
	"os"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// The heap bound of a run. Go's collector lets the heap grow to twice the
// live data before it collects (GOGC=100); a 20,000-file run has ~260 MB
// live at its peak, so it reached ~450 MB of RSS. A run instead asks the
// runtime for a soft memory limit: heapBudget, or 1.5× the live data once
// the extract stage has read the waves, whichever is larger, so that a run
// whose data outgrows the budget gets headroom instead of a collector that
// runs without pause. Below the limit nothing changes (a 2,000-file run
// never reaches it); near it the collector runs more often: more CPU, not
// more memory. 345 MiB was measured against 330 and 360 (README,
// "Performance"): lower costs CPU, higher leaves less room under 400 MB.
// A GOMEMLIMIT set by the operator wins (GOMEMLIMIT=off turns the bound
// off): the runtime reads it and citegate leaves the limit alone.
var heapBudget int64 = 345 << 20 // a variable so that tests can use a small one

// heapBound is shared by the runs of one process (the MCP server can run
// several): the limit is the largest any of them asked for, and the last to
// finish restores the one before the first.
var heapBound struct {
	sync.Mutex
	users         int
	before, limit int64
}

// boundHeap applies the bound for a run starting now and returns the
// function that raises it once the run knows its live data (raise) and the
// one that ends the run's claim (release).
func boundHeap() (raise func(), release func()) {
	if os.Getenv("GOMEMLIMIT") != "" {
		return func() {}, func() {}
	}
	heapBound.Lock()
	defer heapBound.Unlock()
	if heapBound.users == 0 {
		heapBound.before = debug.SetMemoryLimit(-1)
		heapBound.limit = 0
	}
	heapBound.users++
	setHeapLimit(heapBudget)
	raise = func() {
		heapBound.Lock()
		defer heapBound.Unlock()
		setHeapLimit(liveHeap() / 2 * 3)
	}
	var once sync.Once
	release = func() {
		once.Do(func() {
			heapBound.Lock()
			defer heapBound.Unlock()
			if heapBound.users--; heapBound.users == 0 {
				debug.SetMemoryLimit(heapBound.before)
			}
		})
	}
	return raise, release
}

// setHeapLimit raises the shared limit to n if it is below; callers hold
// the lock.
func setHeapLimit(n int64) {
	if n > heapBound.limit {
		heapBound.limit = n
		debug.SetMemoryLimit(n)
	}
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
