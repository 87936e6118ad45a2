package bench

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/perflab/perflab/collect/schema"
)

// readyRetry is vLLM's retry_interval in wait_for_endpoint: a failed test
// request is sent again 5 s later.
const readyRetry = 5 * time.Second

// readyCheck is vLLM's initial test run (serve.py's benchmark() and
// ready_checker.wait_for_endpoint): with ReadyTimeout > 0 it sends the
// first sample, as a measured request would go, until one succeeds,
// waiting ReadyRetry (vLLM: 5 s) after each failure, for at most
// ReadyTimeout; a test request still in flight at the deadline is
// abandoned. Nothing of it is recorded. It fails with vLLM's message when
// no test request succeeded, and at once when ctx ends. With
// ReadyTimeout 0 it sends nothing (vLLM's default since 2025-12: "Skipping
// endpoint ready check.").
func (r *runner) readyCheck(ctx context.Context) error {
	log := r.cfg.Log
	if log == nil {
		log = io.Discard
	}
	fmt.Fprintln(log, "Starting initial single prompt test run...")
	timeout := r.cfg.ReadyTimeout
	if timeout <= 0 {
		fmt.Fprintln(log, "Skipping endpoint ready check.")
		return nil
	}
	retry := r.cfg.ReadyRetry
	if retry <= 0 {
		retry = readyRetry
	}
	secs := int(timeout.Round(time.Second) / time.Second)
	fmt.Fprintf(log, "Waiting for endpoint to become up in %d seconds\n", secs)
	deadline := time.Now().Add(timeout)
	defer r.resetCounters()
	last := ""
	for time.Now().Before(deadline) {
		tctx, cancel := context.WithDeadline(ctx, deadline)
		var rec schema.Request
		r.base = time.Now()
		aborted := r.request(tctx, 0, &rec, nil)
		cancel()
		if ctx.Err() != nil {
			return fmt.Errorf("bench: interrupted during the ready check: %w", ctx.Err())
		}
		if aborted {
			break // still in flight at the deadline (vLLM: the probe is cancelled)
		}
		if rec.Success {
			fmt.Fprintln(log, "Initial test run completed.")
			return nil
		}
		last = rec.Error
		fmt.Fprintf(log, "perflab: warning: Endpoint is not ready. Error='%s'\n", lastLine(rec.Error))
		wait := min(retry, time.Until(deadline))
		if wait <= 0 {
			break
		}
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("bench: interrupted during the ready check: %w", ctx.Err())
		}
	}
	if last == "" {
		last = fmt.Sprintf("Endpoint readiness timed out after %ds.", secs)
	}
	return fmt.Errorf("bench: Initial test run failed - Please make sure benchmark arguments are correctly specified. Error: %s", last)
}

// resetCounters forgets the requests sent before the measured ones (the
// test request, the warmups).
func (r *runner) resetCounters() {
	r.events.Store(0)
	r.reads.Store(0)
	r.done.Store(0)
	r.failed.Store(0)
	// the stall watch's times are since r.base, which the run resets
	r.lastEvent.Store(0)
	r.suspect.Store(0)
	r.stopped.Store(false)
}

// lastLine is s's last non-empty line, as vLLM logs a failed probe's error.
func lastLine(s string) string {
	s = strings.TrimRight(s, " \t\r\n")
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return s
}
