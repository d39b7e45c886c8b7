package ui

import (
	"runtime/debug"
	"testing"

	"github.com/citegate/citegate/engine"
)

// A run's bound holds while it lasts, rises to what a run asks for when that
// is larger, is shared with concurrent runs, gives way to the limit before it
// when the last one ends, and leaves an operator's GOMEMLIMIT alone.
func TestRunBoundsTheHeap(t *testing.T) {
	t.Setenv("GOMEMLIMIT", "")
	before := debug.SetMemoryLimit(-1)
	defer debug.SetMemoryLimit(before)
	limit := func() int64 { return debug.SetMemoryLimit(-1) }

	_, release1 := BoundHeap(engine.HeapBudget)
	if got := limit(); got != engine.HeapBudget {
		t.Fatalf("limit during a run %d, want %d", got, engine.HeapBudget)
	}
	_, release2 := BoundHeap(engine.HeapBudget)
	release1()
	release1() // a second release of the same run changes nothing
	if got := limit(); got != engine.HeapBudget {
		t.Fatalf("limit with one run still going %d, want %d", got, engine.HeapBudget)
	}
	release2()
	if got := limit(); got != before {
		t.Fatalf("limit after the last run %d, want %d as before", got, before)
	}

	// raise: a larger request lifts the bound, a smaller one leaves it.
	raise, release := BoundHeap(1 << 20)
	raise(12 << 20)
	raise(2 << 20)
	if got := limit(); got != 12<<20 {
		t.Fatalf("limit after raise %d, want %d", got, 12<<20)
	}
	release()
	if got := limit(); got != before {
		t.Fatalf("limit after release %d, want %d", got, before)
	}

	// An operator's GOMEMLIMIT wins.
	t.Setenv("GOMEMLIMIT", "1GiB")
	raise, release = BoundHeap(engine.HeapBudget)
	raise(4 << 30)
	if got := limit(); got != before {
		t.Fatalf("limit with GOMEMLIMIT set %d, want %d untouched", got, before)
	}
	release()
}
