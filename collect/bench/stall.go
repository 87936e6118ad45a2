package bench

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/perflab/perflab/collect/schema"
)

// DefaultStallTimeout is Config.StallTimeout's default. A healthy engine
// leaves a stream quiet for seconds (a sequence preempted and
// recomputed, a long prefill batch beside it), not for minutes.
const DefaultStallTimeout = 5 * time.Minute

// MinStallTimeout is the shortest stall timeout taken: a healthy stream's
// chunks come tens of milliseconds apart, so a shorter one fails requests
// the engine is serving — and 5ms is a typo for 5m.
const MinStallTimeout = 100 * time.Millisecond

// CheckStallTimeout says what is wrong with d as a stall timeout (0: off),
// for the flag and the campaign field alike.
func CheckStallTimeout(d time.Duration) error {
	if d < 0 || (d > 0 && d < MinStallTimeout) {
		return fmt.Errorf("want 0 (off) or a duration of at least %v such as 2m or 90s (default %v)", MinStallTimeout, DefaultStallTimeout)
	}
	return nil
}

// StallError is the cause of a request ended by its stall watch: no
// data for Quiet, after its first token (Streaming), or, before it,
// while no request of the run received any.
type StallError struct {
	Quiet     time.Duration
	Streaming bool
}

// stallPrefix begins the error of a request that stalled (Stalled).
const stallPrefix = "stalled: "

func (e *StallError) Error() string {
	if e.Streaming {
		return fmt.Sprintf(stallPrefix+"the stream sent nothing for %s mid-stream", e.Quiet)
	}
	return fmt.Sprintf(stallPrefix+"no token for %s, nor for any other request of the run meanwhile (the engine stopped serving)", e.Quiet)
}

// Stalled reports whether a request failed because its stream stalled
// (Config.StallTimeout).
func Stalled(req *schema.Request) bool {
	return !req.Success && strings.HasPrefix(req.Error, stallPrefix)
}

// notSentPrefix begins the error of a request the run did not send
// because the engine had stopped serving (NotSent).
const notSentPrefix = stallPrefix + "not sent: "

// NotSent reports whether a request was not sent because the engine had
// stopped serving: every request sent after a stall of the whole run
// stalled too (see runQuiet). Such a request is also Stalled.
func NotSent(req *schema.Request) bool {
	return !req.Success && strings.HasPrefix(req.Error, notSentPrefix)
}

// stallWarning is the result's warning when requests stalled ("" when
// none did).
func stallWarning(res *schema.Result, cfg Config) string {
	n, notSent := 0, 0
	for i := range res.Requests {
		if Stalled(&res.Requests[i]) {
			n++
		}
		if NotSent(&res.Requests[i]) {
			notSent++
		}
	}
	if n == 0 {
		return ""
	}
	if notSent > 0 {
		return fmt.Sprintf("%d of %d requests stalled (no data for %s), %d of them not sent: the engine stopped serving, and the requests that finished measure a run cut short; they count as failed", n, len(res.Requests), cfg.StallTimeout, notSent)
	}
	return fmt.Sprintf("%d of %d requests stalled (no data for %s: the engine hung mid-stream or stopped serving); they count as failed", n, len(res.Requests), cfg.StallTimeout)
}

// stallWatch fails one request whose stream goes quiet (see
// Config.StallTimeout). Its timer fires once per StallTimeout of the
// request's life at most (a new one each time, so that nothing resets a
// timer its callback may be reading); the stream's goroutine only stores the time of
// each event (event), so a healthy stream pays one atomic store a token.
type stallWatch struct {
	r      *runner
	sent   time.Duration // since r.base
	last   atomic.Int64  // this request's latest event, ns since r.base; 0: none yet
	shared time.Duration // the latest time this stream published to r.lastEvent
	cancel context.CancelCauseFunc
	timer  atomic.Pointer[time.Timer]
	done   atomic.Bool // the request ended: a late check does nothing
}

// watchStall starts the stall watch of a request about to be sent: ctx,
// cancelled with a *StallError as its cause when the stream stalls, and
// the watch (nil when StallTimeout is off), to be stopped when the
// request ends.
func (r *runner) watchStall(ctx context.Context) (context.Context, *stallWatch) {
	if r.cfg.StallTimeout <= 0 {
		return ctx, nil
	}
	ctx, cancel := context.WithCancelCause(ctx)
	w := &stallWatch{r: r, sent: time.Since(r.base), cancel: cancel}
	w.arm(r.cfg.StallTimeout)
	return ctx, w
}

// stop ends the watch of a request that ended.
func (w *stallWatch) stop() {
	if w == nil {
		return
	}
	w.done.Store(true)
	w.timer.Load().Stop()
	w.cancel(nil)
}

// arm runs check after d.
func (w *stallWatch) arm(d time.Duration) { w.timer.Store(time.AfterFunc(d, w.check)) }

// event notes an event at now (since r.base), and every stallPublish the
// run's latest event, which requests still waiting for their first token
// go by.
func (w *stallWatch) event(now time.Duration) {
	if w == nil {
		return
	}
	w.last.Store(int64(now))
	if now-w.shared >= w.r.stallPublish {
		w.shared = now
		w.r.lastEvent.Store(int64(now))
	}
}

// check runs when the request may have been quiet for StallTimeout: it
// fails the request, or waits again until it may be. Before its first
// token a request waits while others stream (a queue as long as it
// takes): it stalls only when the whole run has received nothing (the
// engine stopped serving, or never answered).
func (w *stallWatch) check() {
	if w.done.Load() {
		return
	}
	s := w.r.cfg.StallTimeout
	now := time.Since(w.r.base)
	ref := time.Duration(w.last.Load())
	streaming := ref > 0
	if !streaming {
		ref = max(w.sent, time.Duration(w.r.lastEvent.Load()))
	}
	if quiet := now - ref; quiet >= s {
		w.r.runQuiet(w.sent, now)
		w.cancel(&StallError{Quiet: s, Streaming: streaming})
		return
	}
	w.arm(ref + s - now)
}

// runQuiet notes that a request sent at sent stalled at now. When no
// request of the run received anything for StallTimeout either, the
// engine may have stopped serving, or only the requests in flight hung
// (one stuck batch): the first such stall makes the run suspect it. A
// later one, of a request sent after the suspicion with nothing received
// since, shows that the engine answers no new request either: it stopped
// serving, and the run sends no more requests (engineStopped), since each
// would wait StallTimeout for nothing (a 1000-prompt run at concurrency 1
// would take 1000 × StallTimeout). Anything received clears the
// suspicion.
func (r *runner) runQuiet(sent, now time.Duration) {
	last := time.Duration(r.lastEvent.Load())
	if now-last < r.cfg.StallTimeout {
		return // other requests stream: this one alone hung
	}
	suspect := r.suspect.Load()
	if suspect == 0 || last > time.Duration(suspect) {
		r.suspect.CompareAndSwap(suspect, int64(now))
		return
	}
	if sent > time.Duration(suspect) {
		r.stopped.Store(true)
	}
}

// engineStopped is the error of a request not sent because the engine
// stopped serving (runQuiet); "" while it serves.
func (r *runner) engineStopped() string {
	if !r.stopped.Load() {
		return ""
	}
	return fmt.Sprintf(notSentPrefix+"the engine stopped serving (nothing for %s to any request, neither to those in flight at a stall nor to those sent after it)", r.cfg.StallTimeout)
}
