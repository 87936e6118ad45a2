package output

import (
	"slices"
	"sync/atomic"
	"testing"
)

// TestOnCores: every item is handed to do once when all calls go on;
// after a call returns false the rest of the items are not handed out.
func TestOnCores(t *testing.T) {
	items := make([]int, 10000)
	for i := range items {
		items[i] = i
	}
	var sum, calls atomic.Int64
	onCores(slices.Values(items), func(i int) bool {
		sum.Add(int64(i))
		calls.Add(1)
		return true
	})
	if calls.Load() != 10000 || sum.Load() != 10000*9999/2 {
		t.Errorf("%d calls, sum %d; want every item once", calls.Load(), sum.Load())
	}
	calls.Store(0)
	onCores(slices.Values(items), func(i int) bool {
		calls.Add(1)
		return i != 10
	})
	// Items already in the queue (64) or taken by a worker when the stop
	// was seen may still run; the other thousands may not.
	if n := calls.Load(); n < 1 || n > 11+64+8 {
		t.Errorf("%d calls after a stop at item 10", n)
	}
}
