package output

import (
	"iter"
	"runtime"
	"sync"
	"sync/atomic"
)

// onCores calls do with each item of items on every core and returns
// when every call has. Once a call returns false no further item is
// handed to do (calls under way finish). The output's checks, links and
// stats run this way: each is a system call per file, and a serial loop
// over a site's files was a large share of a rebuild.
func onCores[T any](items iter.Seq[T], do func(T) bool) {
	var stop atomic.Bool
	work := make(chan T, 64)
	var wg sync.WaitGroup
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for it := range work {
				if !stop.Load() && !do(it) {
					stop.Store(true)
				}
			}
		}()
	}
	for it := range items {
		if stop.Load() {
			break
		}
		work <- it
	}
	close(work)
	wg.Wait()
}
