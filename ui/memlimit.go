package ui

import (
	"os"
	"runtime/debug"
	"sync"
)

// heapBound is shared by the runs of one process (the MCP server can run
// several): the limit is the largest any of them asked for, and the last to
// finish restores the one before the first.
var heapBound struct {
	sync.Mutex
	users         int
	before, limit int64
}

// BoundHeap applies the soft memory limit a run asks for (engine.HeapBudget
// when it starts; Engine.BoundHeap) and returns the function that raises it
// once the run knows its live data (raise) and the one that ends the run's
// claim (release). A GOMEMLIMIT set by the operator wins (GOMEMLIMIT=off
// turns the bound off): the runtime reads it and citegate leaves the limit
// alone.
func BoundHeap(limit int64) (raise func(int64), release func()) {
	if os.Getenv("GOMEMLIMIT") != "" {
		return func(int64) {}, func() {}
	}
	heapBound.Lock()
	defer heapBound.Unlock()
	if heapBound.users == 0 {
		heapBound.before = debug.SetMemoryLimit(-1)
		heapBound.limit = 0
	}
	heapBound.users++
	setHeapLimit(limit)
	raise = func(n int64) {
		heapBound.Lock()
		defer heapBound.Unlock()
		setHeapLimit(n)
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
