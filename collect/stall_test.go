package collect

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/perflab/perflab/collect/mock"
	"github.com/perflab/perflab/collect/schema"
)

// TestCollectStalledEngine: engines that accept requests and then stop
// streaming (perflab mock stalling every stream, or half of them, until
// the client gives up) do not hang the campaign: with bench.stall_timeout
// each stalled request fails; a run whose every request stalled is
// recorded as failed, one with some as ok with them counted as failed,
// both keeping every request; the log names the run and the engine.
func TestCollectStalledEngine(t *testing.T) {
	start := func(rate float64) *mock.Running {
		srv, err := mock.Start(context.Background(), mock.Config{Model: "fake/model", TTFT: time.Millisecond,
			ITL: time.Millisecond, Seed: 3, Faults: mock.Faults{StallRate: rate}}) // Stall 0: until the client gives up
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { srv.Close() })
		return srv
	}
	hung, flaky := start(1), start(0.5)
	tok, _ := filepath.Abs("dataset/tokenizer/testdata/tiny")
	y := `id: w
model: {id: fake/model}
hardware: {gpu: H100, count: 1}
bench: {tokenizer: ` + tok + `, stall_timeout: 300ms}
profiles:
  - {id: p, name: P, dataset: random, input_len: 8, output_len: 6, num_prompts: 12, max_concurrency: 4}
steps:
  - id: s
    title: S
    experiments:
      - {id: hung, name: Hung, engine: external, base_url: ` + hung.URL + `}
      - {id: flaky, name: Flaky, engine: external, base_url: ` + flaky.URL + `}
baseline: hung
optimized: flaky
`
	f, err := Parse("w.yaml", []byte(y))
	if err != nil {
		t.Fatal(err)
	}
	o := opts(t, t.TempDir(), t.TempDir())
	o.Runner = nil // perflab bench's runner
	var log bytes.Buffer
	o.Log = &log
	// A guard against the hang this test is about, not a timing check.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	rep, err := Collect(ctx, f, o)
	if ctx.Err() != nil {
		t.Fatalf("collect hung: %v\n%s", ctx.Err(), log.String())
	}
	if err != nil {
		t.Logf("collect: %v (a failed run)", err)
	}
	rs := readResults(t, filepath.Join(o.Results, "w"))
	h, fl := rs["hung--p"], rs["flaky--p"]
	if h == nil || fl == nil {
		t.Fatalf("results: %v\n%s", rs, log.String())
	}
	if h.Status != schema.StatusFailed || !strings.Contains(h.Error, "12 of 12 requests stalled") || !strings.Contains(h.Error, "hung (external at "+hung.URL) ||
		len(h.Requests) != 12 || h.Summary == nil || h.Summary.Failed != 12 {
		t.Errorf("every request stalled: status %s, error %q, %d requests", h.Status, h.Error, len(h.Requests))
	}
	stalls := int(flaky.Server.Stats().Stalls)
	if fl.Status != schema.StatusOK || fl.Summary.Failed != stalls || fl.Summary.Completed != 12-stalls || len(fl.Requests) != 12 || stalls == 0 {
		t.Errorf("some stalled (%d): status %s, summary %+v", stalls, fl.Status, fl.Summary)
	}
	if !strings.Contains(fl.Load.Command, "--stall-timeout 300ms") {
		t.Errorf("the recorded command does not carry the stall timeout: %s", fl.Load.Command)
	}
	if !strings.Contains(strings.Join(fl.Warnings, "\n"), "requests stalled") {
		t.Errorf("no stall warning: %q", fl.Warnings)
	}
	for _, want := range []string{"hung--p: failed: 12 of 12 requests stalled: the engine of hung (external at " + hung.URL + ") sent nothing for 300ms",
		"flaky--p: " + itoa(stalls) + " of 12 requests stalled: the engine of flaky"} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("the log does not say %q:\n%s", want, log.String())
		}
	}
	if rep.Status[schema.StatusFailed] != 1 || rep.Status[schema.StatusOK] != 1 {
		t.Errorf("report: %+v", rep.Status)
	}
}

// TestValidateStallTimeout: a stall_timeout that is not a duration is an
// error naming the file, line and field.
func TestValidateStallTimeout(t *testing.T) {
	y := `id: w
model: {id: fake/model}
hardware: {gpu: H100, count: 1}
bench:
  stall_timeout: soon
profiles:
  - {id: p, name: P, dataset: random, input_len: 8, output_len: 6, num_prompts: 12}
steps:
  - id: s
    title: S
    experiments:
      - {id: m, name: M, engine: external, base_url: http://127.0.0.1:1}
baseline: m
optimized: m
`
	f, err := Parse("w.yaml", []byte(y))
	if err != nil {
		t.Fatal(err)
	}
	err = f.Validate()
	if err == nil || !strings.Contains(err.Error(), "w.yaml:5") || !strings.Contains(err.Error(), "stall_timeout") {
		t.Fatalf("bad stall_timeout: %v", err)
	}
	for v, want := range map[string]time.Duration{"": 0, "0": -1, "90s": 90 * time.Second, "100ms": 100 * time.Millisecond} {
		if got, err := StallTimeout(schema.BenchSpec{StallTimeout: v}); err != nil || got != want {
			t.Errorf("stall_timeout %q: %v %v, want %v", v, got, err, want)
		}
	}
	// 5ms is a typo for 5m: every healthy stream would stall.
	for _, v := range []string{"5ms", "-1s", "soon"} {
		if _, err := StallTimeout(schema.BenchSpec{StallTimeout: v}); err == nil || !strings.Contains(err.Error(), "at least 100ms") {
			t.Errorf("stall_timeout %q: %v, want an error naming the floor", v, err)
		}
	}
}

// TestCollectEngineStopsServing: an engine that serves the first requests
// of a run and then stops serving (a proxy in front of perflab mock lets
// 6 generation requests through and holds every later one until the
// client gives up) does not leave an ok run: the requests that finished
// measure a run cut short. The run sends no more once the engine is seen
// to have stopped, and is failed, naming the engine, so that --retry runs
// it again and diff's gate sees it.
func TestCollectEngineStopsServing(t *testing.T) {
	srv, err := mock.Start(context.Background(), mock.Config{Model: "fake/model", TTFT: time.Millisecond, ITL: time.Millisecond, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	u, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(u)
	proxy.FlushInterval = -1 // stream each event at once
	var served atomic.Int64
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/completions") && served.Add(1) > 6 {
			// accepted, never answered (the body read, as an engine
			// does: net/http sees the client go only after that)
			io.Copy(io.Discard, r.Body)
			<-r.Context().Done()
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(front.Close)
	tok, _ := filepath.Abs("dataset/tokenizer/testdata/tiny")
	y := `id: w
model: {id: fake/model}
hardware: {gpu: H100, count: 1}
bench: {tokenizer: ` + tok + `, stall_timeout: 300ms}
profiles:
  - {id: p, name: P, dataset: random, input_len: 8, output_len: 6, num_prompts: 24, max_concurrency: 4}
steps:
  - id: s
    title: S
    experiments:
      - {id: e, name: E, engine: external, base_url: ` + front.URL + `}
baseline: e
optimized: e
`
	f, err := Parse("w.yaml", []byte(y))
	if err != nil {
		t.Fatal(err)
	}
	o := opts(t, t.TempDir(), t.TempDir())
	o.Runner = nil // perflab bench's runner
	var log bytes.Buffer
	o.Log = &log
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // a guard, not a timing check
	defer cancel()
	if _, err := Collect(ctx, f, o); ctx.Err() != nil {
		t.Fatalf("collect hung: %v %v\n%s", ctx.Err(), err, log.String())
	}
	res := readResults(t, filepath.Join(o.Results, "w"))["e--p"]
	if res == nil || res.Summary == nil {
		t.Fatalf("no result:\n%s", log.String())
	}
	if res.Summary.Completed == 0 || res.Summary.Completed > 6 || len(res.Requests) != 24 {
		t.Fatalf("completed %d of %d requests; want the 6 the engine served (or fewer: warmups)", res.Summary.Completed, len(res.Requests))
	}
	if res.Status != schema.StatusFailed || !strings.Contains(res.Error, "stopped serving") || !strings.Contains(res.Error, "the engine of e (external at "+front.URL) {
		t.Errorf("status %s, error %q; want failed: the engine stopped serving", res.Status, res.Error)
	}
}
