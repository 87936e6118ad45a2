package bench_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/perflab/perflab/collect/bench"
	"github.com/perflab/perflab/collect/dataset"
	"github.com/perflab/perflab/collect/mock"
)

// TestStallTimeout: an engine that accepts requests and then stops
// streaming (the mock stalls half of them, until the client gives up,
// some before their first token and most mid-stream) does not hang the
// run: each stalled request fails with a stall error after StallTimeout
// of silence, the others complete, and the run ends with both counted.
func TestStallTimeout(t *testing.T) {
	t.Run("h1", func(t *testing.T) { testStallTimeout(t, nil) })
	// A caller's client: net/http reads the stream.
	t.Run("net-http", func(t *testing.T) { testStallTimeout(t, &http.Client{}) })
}

func testStallTimeout(t *testing.T, client *http.Client) {
	eng, err := mock.Start(context.Background(), mock.Config{TTFT: time.Millisecond, ITL: time.Millisecond, Seed: 7,
		Faults: mock.Faults{StallRate: 0.5}}) // Stall 0: until the client gives up
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	const n = 24
	samples := make([]dataset.Sample, n)
	for i := range samples {
		samples[i] = dataset.Sample{Prompt: fmt.Sprintf("hello %d", i), PromptLen: 2, OutputLen: 8}
	}
	// A guard against the hang this test is about, not a timing check:
	// without a stall timeout the run would wait RequestTimeout (6 h).
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := bench.Run(ctx, bench.Config{BaseURL: eng.URL, Model: "mock", Samples: samples, MaxConcurrency: 4,
		IgnoreEOS: true, StallTimeout: 300 * time.Millisecond, Client: client})
	if err != nil || ctx.Err() != nil {
		t.Fatalf("run: %v (guard: %v)", err, ctx.Err())
	}
	stalls := int(eng.Server.Stats().Stalls)
	if stalls == 0 || stalls == n {
		t.Fatalf("the mock stalled %d of %d requests; the test wants some of each", stalls, n)
	}
	if res.Summary.Failed != stalls || res.Summary.Completed != n-stalls {
		t.Errorf("completed %d, failed %d; want %d and %d (the mock stalled %d)", res.Summary.Completed, res.Summary.Failed, n-stalls, stalls, stalls)
	}
	midStream := 0
	for _, r := range res.Requests {
		if r.Success {
			continue
		}
		if !strings.HasPrefix(r.Error, "stalled: ") || strings.Contains(r.Error, "closed network connection") {
			t.Errorf("request %d: error %q, want a stall", r.Index, r.Error)
		}
		if strings.Contains(r.Error, "mid-stream") {
			midStream++
			if len(r.EventS) == 0 || !strings.Contains(r.Error, fmt.Sprintf("after %d token events", len(r.EventS))) {
				t.Errorf("request %d: mid-stream stall after %d events: %q", r.Index, len(r.EventS), r.Error)
			}
		}
	}
	if midStream == 0 {
		t.Error("no request stalled mid-stream")
	}
}

// TestStallTimeoutEngineStopped: an engine that stopped serving (the mock
// stalls every request before its first token, until the client gives
// up) costs a run about two stall timeouts, not one per request: once
// the requests sent after a run-wide stall get nothing either, the run
// sends no more, and the rest fail as not sent. Without that, 24 prompts
// at concurrency 2 would wait 12 stall timeouts, and a 1000-prompt run at
// concurrency 1 with the default 5 minutes about 83 hours.
func TestStallTimeoutEngineStopped(t *testing.T) {
	eng, err := mock.Start(context.Background(), mock.Config{TTFT: time.Millisecond, ITL: time.Millisecond, Seed: 7,
		Faults: mock.Faults{StallRate: 1}}) // every stream, until the client gives up
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	const n = 24
	samples := make([]dataset.Sample, n)
	for i := range samples {
		// one output token: the stall is before the first one
		samples[i] = dataset.Sample{Prompt: fmt.Sprintf("hello %d", i), PromptLen: 2, OutputLen: 1}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // a guard, not a timing check
	defer cancel()
	res, err := bench.Run(ctx, bench.Config{BaseURL: eng.URL, Model: "mock", Samples: samples, MaxConcurrency: 2,
		IgnoreEOS: true, StallTimeout: 200 * time.Millisecond})
	if err != nil || ctx.Err() != nil {
		t.Fatalf("run: %v (guard: %v)", err, ctx.Err())
	}
	// The first two requests raise the suspicion, the next two confirm
	// it; a third pair may be on its way as the second pair fails.
	if sent := int(eng.Server.Stats().Stalls); sent > 6 {
		t.Errorf("the engine received %d of %d requests after it stopped serving; want the run to stop sending after 4 to 6", sent, n)
	}
	notSent := 0
	for _, r := range res.Requests {
		if r.Success || !strings.HasPrefix(r.Error, "stalled: ") {
			t.Errorf("request %d: success %v, error %q; want a stall", r.Index, r.Success, r.Error)
		}
		if strings.Contains(r.Error, "not sent: the engine stopped serving") {
			notSent++
		}
	}
	if w := strings.Join(res.Warnings, "\n"); !strings.Contains(w, "not sent: the engine stopped serving") {
		t.Errorf("warnings %q do not say the engine stopped serving", w)
	}
	if len(res.Requests) != n || res.Summary.Failed != n || notSent < n-6 {
		t.Errorf("%d requests recorded, %d failed, %d not sent; want %d, %d and at least %d", len(res.Requests), res.Summary.Failed, notSent, n, n, n-6)
	}
}
