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

// firstErr keeps the first error of calls made on every core (onCores).
type firstErr struct {
	mu  sync.Mutex
	err error
}

// keep records err when it is the first, and says whether err is nil:
// what a call given to onCores returns to go on.
func (f *firstErr) keep(err error) bool {
	if err != nil {
		f.mu.Lock()
		if f.err == nil {
			f.err = err
		}
		f.mu.Unlock()
	}
	return err == nil
}

// first is the first error kept, if any.
func (f *firstErr) first() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.err
}
