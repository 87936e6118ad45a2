package bench

import "sync"

// fifoSem is the --max-concurrency cap. Requests are admitted in the order
// they queued, as vLLM's asyncio.Semaphore admits its waiters: the
// dispatcher queues each request when the schedule releases it, so that
// the cap admits requests in dataset order. (A channel semaphore would
// admit whichever goroutine the scheduler runs first, and Go's scheduler
// runs the newest goroutine first.)
type fifoSem struct {
	mu      sync.Mutex
	free    int
	waiters []chan struct{}
}

func newFIFOSem(n int) *fifoSem { return &fifoSem{free: n} }

// enqueue queues one request and returns its ticket: a channel that
// receives once when the request may send.
func (s *fifoSem) enqueue() chan struct{} {
	t := make(chan struct{}, 1)
	s.mu.Lock()
	if s.free > 0 && len(s.waiters) == 0 {
		s.free--
		t <- struct{}{}
	} else {
		s.waiters = append(s.waiters, t)
	}
	s.mu.Unlock()
	return t
}

// release ends an admitted request: the next waiter, if any, is admitted.
func (s *fifoSem) release() {
	s.mu.Lock()
	if len(s.waiters) > 0 {
		t := s.waiters[0]
		s.waiters[0] = nil
		s.waiters = s.waiters[1:]
		t <- struct{}{}
	} else {
		s.free++
	}
	s.mu.Unlock()
}

// abandon gives a ticket up (its request was cancelled while waiting): if
// it was admitted meanwhile, the slot goes to the next waiter; else it
// leaves the queue.
func (s *fifoSem) abandon(t chan struct{}) {
	s.mu.Lock()
	for i, w := range s.waiters {
		if w == t {
			s.waiters = append(s.waiters[:i], s.waiters[i+1:]...)
			s.mu.Unlock()
			return
		}
	}
	s.mu.Unlock()
	// not queued: it was admitted
	<-t
	s.release()
}
