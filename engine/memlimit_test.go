package engine

import (
	"runtime"
	"testing"
)

// A run asks for HeapBudget as it starts and for 1.5× the live data once it
// has read the waves, and ends its claim; it asks nothing when no BoundHeap
// is set (the process's limit is the program's to apply).
func TestRunAsksForTheHeapBound(t *testing.T) {
	var asked, raised []int64
	released := 0
	e := &Engine{BoundHeap: func(n int64) (func(int64), func()) {
		asked = append(asked, n)
		return func(n int64) { raised = append(raised, n) }, func() { released++ }
	}}
	raise, release := e.boundHeap()
	if len(asked) != 1 || asked[0] != HeapBudget {
		t.Fatalf("asked %v at the start, want [%d]", asked, HeapBudget)
	}
	keep := make([]byte, 8<<20)
	for i := range keep {
		keep[i] = byte(i)
	}
	runtime.GC()
	raise()
	runtime.KeepAlive(keep)
	if len(raised) != 1 || raised[0] < int64(len(keep))*3/2 {
		t.Fatalf("raised to %v, want at least 1.5 × %d live", raised, len(keep))
	}
	release()
	if released != 1 {
		t.Fatalf("released %d times, want 1", released)
	}

	raise, release = (&Engine{}).boundHeap()
	raise()
	release()
}
