package engine

import (
	"runtime"
	"runtime/debug"
	"testing"
)

// A run bounds the heap while it lasts, raises the bound to 1.5× the live
// data when that is larger, shares the bound with concurrent runs, restores
// the limit before it when the last one ends, and leaves an operator's
// GOMEMLIMIT alone.
func TestRunBoundsTheHeap(t *testing.T) {
	t.Setenv("GOMEMLIMIT", "")
	before := debug.SetMemoryLimit(-1)
	defer debug.SetMemoryLimit(before)
	limit := func() int64 { return debug.SetMemoryLimit(-1) }

	raise1, release1 := boundHeap()
	if got := limit(); got != heapBudget {
		t.Fatalf("limit during a run %d, want %d", got, heapBudget)
	}
	_, release2 := boundHeap()
	release1()
	release1() // a second release of the same run changes nothing
	if got := limit(); got != heapBudget {
		t.Fatalf("limit with one run still going %d, want %d", got, heapBudget)
	}
	release2()
	if got := limit(); got != before {
		t.Fatalf("limit after the last run %d, want %d as before", got, before)
	}
	_ = raise1

	// raise: live data over two thirds of the budget lifts the bound.
	saved := heapBudget
	heapBudget = 1 << 20
	defer func() { heapBudget = saved }()
	raise, release := boundHeap()
	keep := make([]byte, 8<<20)
	for i := range keep {
		keep[i] = byte(i)
	}
	runtime.GC()
	raise()
	if got := limit(); got < int64(len(keep))*3/2 {
		t.Fatalf("limit after raise %d, want at least 1.5 × %d live", got, len(keep))
	}
	runtime.KeepAlive(keep)
	release()
	if got := limit(); got != before {
		t.Fatalf("limit after release %d, want %d", got, before)
	}

	// An operator's GOMEMLIMIT wins.
	t.Setenv("GOMEMLIMIT", "1GiB")
	_, release = boundHeap()
	if got := limit(); got != before {
		t.Fatalf("limit with GOMEMLIMIT set %d, want %d untouched", got, before)
	}
	release()
}
