package mock

import (
	"sync"
	"sync/atomic"
	"time"
)

// seq is one request inside the batching model. The scheduler goroutine
// owns the plain fields; the stream goroutine reads produced and notify
// and sets aborted.
type seq struct {
	promptLen int // prompt tokens (at least 1 is prefilled)
	outLen    int // tokens to generate, at least 1
	prefilled int
	generated int
	chunk     int // prompt tokens prefilled in the planned step

	produced atomic.Int64  // generated, published after each step
	notify   chan struct{} // capacity 1: "produced changed"
	aborted  atomic.Bool   // the stream is gone; drop the sequence
}

func newSeq(promptLen, outLen int) *seq {
	return &seq{promptLen: max(promptLen, 1), outLen: max(outLen, 1), notify: make(chan struct{}, 1)}
}

// engine is the batching model without time: plan a step, then commit it.
// It is deterministic, so tests drive it in virtual time.
type engine struct {
	b       Batching
	waiting []*seq // FIFO
	running []*seq // in admission order
	emitted []*seq // sequences that got a token in the last commit
	planned bool
	kvUsed  int // KV cache tokens reserved by running sequences
}

// kvNeed is what a sequence reserves: its whole prompt and output, as
// TensorRT-LLM's guaranteed-no-evict policy does (no preemption).
func (q *seq) kvNeed() int { return q.promptLen + q.outLen }

func (e *engine) add(q *seq) { e.waiting = append(e.waiting, q) }

func (e *engine) idle() bool { return len(e.waiting) == 0 && len(e.running) == 0 }

// plan drops aborted sequences, admits waiting ones and decides the next
// step's work, returning its duration; false when there is nothing to do.
func (e *engine) plan() (time.Duration, bool) {
	e.running = e.dropAborted(e.running, true)
	e.waiting = e.dropAborted(e.waiting, false)
	budget := e.b.MaxNumBatchedTokens
	if budget == 0 {
		budget = int(^uint(0) >> 1)
	}
	decoding, ctxTokens, prefill := 0, 0, 0
	for _, q := range e.running {
		q.chunk = 0
		if q.prefilled == q.promptLen {
			decoding++
			ctxTokens += q.promptLen + q.generated
		}
	}
	budget -= decoding
	for _, q := range e.running {
		if q.prefilled < q.promptLen && budget > 0 {
			q.chunk = min(q.promptLen-q.prefilled, budget)
			budget -= q.chunk
			prefill += q.chunk
		}
	}
	admitted := 0
	for admitted < len(e.waiting) && budget > 0 && (e.b.MaxBatch == 0 || len(e.running) < e.b.MaxBatch) {
		q := e.waiting[admitted]
		// FIFO: a request that does not fit the KV cache blocks the
		// queue. Alone it is admitted anyway rather than never.
		if e.b.KVCacheTokens > 0 && e.kvUsed+q.kvNeed() > e.b.KVCacheTokens && len(e.running) > 0 {
			break
		}
		e.kvUsed += q.kvNeed()
		admitted++
		q.chunk = min(q.promptLen-q.prefilled, budget) // after any prefix-cache hit
		budget -= q.chunk
		prefill += q.chunk
		e.running = append(e.running, q)
	}
	e.waiting = e.waiting[admitted:]
	if len(e.running) == 0 {
		return 0, false
	}
	d := e.b.DecodeStep + time.Duration(decoding)*e.b.DecodeStepPerSeq +
		time.Duration(int64(ctxTokens)*int64(e.b.DecodeStepPerKTok)/1000)
	if e.b.PrefillTokPerS > 0 {
		d += time.Duration(float64(prefill) / e.b.PrefillTokPerS * float64(time.Second))
	}
	e.planned = true
	return d, true
}

// commit applies the planned step: decoding sequences and those whose
// prefill completed get a token. It returns them (valid until the next
// commit); finished sequences leave the batch.
func (e *engine) commit() []*seq {
	e.emitted = e.emitted[:0]
	if !e.planned {
		return e.emitted
	}
	e.planned = false
	kept := e.running[:0]
	for _, q := range e.running {
		switch {
		case q.prefilled == q.promptLen: // decoding
			q.generated++
			e.emitted = append(e.emitted, q)
		case q.chunk > 0:
			q.prefilled += q.chunk
			if q.prefilled == q.promptLen {
				q.generated = 1 // the prefill step samples the first token
				e.emitted = append(e.emitted, q)
			}
		}
		q.chunk = 0
		if q.generated < q.outLen {
			kept = append(kept, q)
		} else {
			e.kvUsed -= q.kvNeed()
		}
	}
	clear(e.running[len(kept):])
	e.running = kept
	return e.emitted
}

// dropAborted removes sequences whose stream is gone, freeing the KV
// cache of running ones.
func (e *engine) dropAborted(qs []*seq, running bool) []*seq {
	kept := qs[:0]
	for _, q := range qs {
		switch {
		case !q.aborted.Load():
			kept = append(kept, q)
		case running:
			e.kvUsed -= q.kvNeed()
		}
	}
	clear(qs[len(kept):])
	return kept
}

// scheduler runs the engine in real time on one goroutine.
type scheduler struct {
	eng   engine
	mu    sync.Mutex
	inbox []*seq        // submitted, not yet seen by the loop
	wake  chan struct{} // capacity 1
	quit  chan struct{}
	done  chan struct{}
	once  sync.Once

	// Counters for Stats, written by the loop.
	steps, running, waiting atomic.Int64
}

func newScheduler(b Batching) *scheduler {
	s := &scheduler{eng: engine{b: b}, wake: make(chan struct{}, 1), quit: make(chan struct{}), done: make(chan struct{})}
	go s.loop()
	return s
}

// submit hands a new request to the scheduler; it joins the waiting queue
// at the next step boundary, as on a real engine.
func (s *scheduler) submit(q *seq) {
	s.mu.Lock()
	s.inbox = append(s.inbox, q)
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

func (s *scheduler) close() {
	s.once.Do(func() { close(s.quit) })
	<-s.done
}

func (s *scheduler) drain() {
	s.mu.Lock()
	in := s.inbox
	s.inbox = nil
	s.mu.Unlock()
	for _, q := range in {
		s.eng.add(q)
	}
}

func (s *scheduler) loop() {
	defer close(s.done)
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	var next time.Time // the current step's start, on absolute deadlines
	for {
		s.drain()
		if s.eng.idle() {
			select {
			case <-s.wake:
				next = time.Now()
				continue
			case <-s.quit:
				return
			}
		}
		d, ok := s.eng.plan()
		s.running.Store(int64(len(s.eng.running)))
		s.waiting.Store(int64(len(s.eng.waiting)))
		if !ok {
			continue
		}
		next = next.Add(d)
		if wait := time.Until(next); wait > 0 {
			timer.Reset(wait)
			select {
			case <-timer.C:
			case <-s.quit:
				return
			}
		}
		s.steps.Add(1)
		for _, q := range s.eng.commit() {
			q.produced.Store(int64(q.generated))
			select {
			case q.notify <- struct{}{}:
			default:
			}
		}
	}
}
