package bench

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"math"
	"net/http"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/perflab/perflab/collect/dataset"
	"github.com/perflab/perflab/collect/metrics"
	"github.com/perflab/perflab/collect/openai"
	"github.com/perflab/perflab/collect/schema"
)

// Config is one benchmark run. Zero values mean vLLM's defaults.
type Config struct {
	BaseURL  string // default http://127.0.0.1:8000
	Endpoint string // default /v1/completions (openai) or /v1/chat/completions (openai-chat)
	Backend  string // openai (default) or openai-chat
	Model    string // the "model" field sent
	Samples  []dataset.Sample

	RequestRate    float64 // requests/s; 0 or +Inf = all at once
	Burstiness     float64 // 0 means 1 (Poisson); +Inf = constant gaps
	MaxConcurrency int     // 0 = unlimited
	Seed           int64
	IgnoreEOS      bool
	// ExtraBody is merged into every request body (vLLM's sampling
	// flags and --extra-body; see openai.Request.Extra). Nil: none.
	ExtraBody  []openai.Field
	NumWarmups int
	// RequestTimeout bounds one request (0 = 6 h, as aiohttp's default in vLLM).
	RequestTimeout time.Duration
	// StallTimeout fails a request whose stream goes quiet, long before
	// RequestTimeout: after its first token, no event for StallTimeout
	// (an engine that accepted the request and hung mid-stream); before
	// it, no event of any request of the run for StallTimeout (an engine
	// that stopped serving; a request queued behind streaming ones waits
	// as long as the queue takes). The request fails with a *StallError
	// cause in its error; the run goes on. 0 = DefaultStallTimeout;
	// negative = off (RequestTimeout only, as vLLM's client).
	StallTimeout time.Duration
	Metrics      metrics.Options
	// Progress receives a live progress line (nil: quiet).
	Progress io.Writer

	// Headers are added to every request (Authorization, say). They
	// cannot replace x-request-id (vLLM's order: extra headers, then the
	// request id).
	Headers map[string]string
	// RequestIDPrefix starts every request's x-request-id, followed by
	// the request's index (vLLM's --request-id-prefix). "" means
	// "perflab-bench-" and 8 random hex digits and "-".
	RequestIDPrefix string
	// KeepText keeps each request's generated text (--save-detailed).
	KeepText bool
	// CountText, when set, counts the output tokens of each successful
	// request whose server sent no usage (or 0) from its generated text,
	// as vLLM falls back to len(tokenizer(text, add_special_tokens=False)).
	// It runs after the measured phase. Nil, or when it fails: such
	// requests count one token per token event. Either way OutputCounted
	// is set and the result warns.
	CountText func(ctx context.Context, text string) (int, error)
	// Client sends the requests; nil means a client built for the run
	// (HTTP/1.1 keep-alive pool sized to the concurrency).
	Client *http.Client

	// PromptIDs, when set, holds each sample's prompt as token ids, sent
	// in its place on the completions backend (--prompt-token-ids,
	// timed_trace); a nil entry sends the text.
	PromptIDs [][]int
	// Times, when set, are each sample's release time in seconds from the
	// start (a trace's own timestamps, --self-timed); they replace the
	// rate's schedule.
	Times []float64

	// RampUp, when set, replaces RequestRate: the rate goes from its start
	// to its end over the run (vLLM's --ramp-up-*).
	RampUp *RampUp

	// Conversations, when set, replace Samples: multi-turn chat sessions
	// (vllm-bench's --multi-turn). Each conversation's turns go one after
	// the other, turn N carrying the whole conversation so far (the
	// server's replies included) and an X-Session-ID header;
	// SessionConcurrency conversations run at once (0: MaxConcurrency,
	// else all), with TurnDelay of think time between a reply and the next
	// turn. The request rate does not apply.
	Conversations      []dataset.Conversation
	SessionConcurrency int
	TurnDelay          time.Duration

	// ReadyTimeout > 0 sends the first sample as vLLM's initial test run
	// before the warmups, again every ReadyRetry (0: vLLM's 5 s) until it
	// succeeds, for at most ReadyTimeout; the run fails if none does (see
	// readyCheck). 0 skips it, as vLLM's --ready-check-timeout-sec 0.
	ReadyTimeout, ReadyRetry time.Duration
	// Log receives vLLM's progress lines before the measured requests
	// (the test run, the warmups); nil: quiet.
	Log io.Writer

	// AfterWarmup, when set, is called once the warmup requests are done,
	// just before the measured requests start: where vLLM starts the
	// profiler and reads the spec-decode counters, so that neither covers
	// the warmups. An error stops the run.
	AfterWarmup func(context.Context) error

	// onStart, when set, receives the run's t=0 (tests and benchmarks
	// compare it with a server's clock).
	onStart func(time.Time)
	// onEnd, when set, receives how many network reads returned stream
	// data in the measured phase (benchmarks: the client's cost per read).
	onEnd func(reads int64)
	// noPoll, when set, keeps h1Client's streams off the pollers (the
	// RawConn.Read path other systems use): benchmarks compare the two.
	noPoll bool
}

// Scheduling lag above which the result warns that the client fell behind.
const lagWarnMs = 10.0

// Run runs the benchmark and returns a result with its records, summary
// and client statistics. Request failures are data in the result; an error
// means the run itself could not happen. If only the summary fails, the
// result comes back too (without Summary) along with the error. A run
// stopped (ctx cancelled) before any request finished comes back with
// Status interrupted, no records and no Summary.
func Run(ctx context.Context, cfg Config) (*schema.Result, error) {
	res, dur, err := measure(ctx, cfg)
	if err != nil {
		return nil, err
	}
	if len(res.Requests) == 0 && res.Status == schema.StatusInterrupted {
		// Stopped before any request finished: nothing to summarize, but
		// the result (status, warnings, client stats) is still reported.
		return res, nil
	}
	opt := metricsOptions(cfg, dur)
	sum, err := metrics.Summarize(res.Requests, opt)
	if err != nil {
		return res, fmt.Errorf("bench: summarize: %w", err)
	}
	res.Summary = sum
	if len(cfg.Conversations) > 0 {
		if res.PerTurn, err = PerTurn(res.Requests, opt); err != nil {
			return res, err
		}
	}
	return res, nil
}

// MetricsOptions returns the metrics options of a run of cfg that lasted
// durationS seconds: cfg.Metrics with the load fields filled in.
func metricsOptions(cfg Config, durationS float64) metrics.Options {
	opt := cfg.Metrics
	opt.DurationS = durationS
	opt.MaxConcurrency = cfg.MaxConcurrency
	opt.RequestRate = cfg.RequestRate
	if math.IsInf(opt.RequestRate, 1) {
		opt.RequestRate = 0
	}
	opt.Burstiness = cfg.Burstiness
	if opt.Burstiness == 0 {
		opt.Burstiness = 1
	}
	return opt
}

// withDefaults validates cfg and fills vLLM's defaults.
func withDefaults(cfg Config) (Config, error) {
	if cfg.BaseURL == "" {
		cfg.BaseURL = "http://127.0.0.1:8000"
	}
	cfg.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	switch cfg.Backend {
	case "", openai.Completions, "vllm":
		cfg.Backend = openai.Completions
		if cfg.Endpoint == "" {
			cfg.Endpoint = "/v1/completions"
		}
		if !strings.HasSuffix(cfg.Endpoint, "completions") {
			return cfg, fmt.Errorf("bench: endpoint %q: the openai backend needs a URL ending in completions", cfg.Endpoint)
		}
	case openai.Chat:
		if cfg.Endpoint == "" {
			cfg.Endpoint = "/v1/chat/completions"
		}
		if !strings.HasSuffix(cfg.Endpoint, "chat/completions") {
			return cfg, fmt.Errorf("bench: endpoint %q: the openai-chat backend needs a URL ending in chat/completions", cfg.Endpoint)
		}
	default:
		return cfg, fmt.Errorf("bench: backend %q: want openai or openai-chat", cfg.Backend)
	}
	if cfg.Burstiness == 0 {
		cfg.Burstiness = 1
	}
	if cfg.RequestTimeout <= 0 {
		cfg.RequestTimeout = 6 * time.Hour
	}
	if cfg.StallTimeout == 0 {
		cfg.StallTimeout = DefaultStallTimeout
	}
	if cfg.MaxConcurrency < 0 || cfg.NumWarmups < 0 {
		return cfg, fmt.Errorf("bench: max concurrency %d, warmups %d: must not be negative", cfg.MaxConcurrency, cfg.NumWarmups)
	}
	if len(cfg.Samples) == 0 && len(cfg.Conversations) == 0 {
		return cfg, fmt.Errorf("bench: no samples to send")
	}
	if len(cfg.Conversations) > 0 && cfg.Backend != openai.Chat {
		return cfg, fmt.Errorf("bench: multi-turn conversations need the openai-chat backend (each turn sends the history as messages)")
	}
	return cfg, nil
}

// runner holds one run's shared state.
type runner struct {
	cfg    Config
	url    string
	client *http.Client
	base   time.Time // the run's t=0 (monotonic)
	sem    *fifoSem  // nil: no cap
	idPfx  string
	events atomic.Int64 // SSE events parsed
	done   atomic.Int64
	failed atomic.Int64
	pool   sync.Pool // *stream
	// sessions is set in a multi-turn run (see sessions.go).
	sessions *sessionState

	// h1, when set, sends the requests instead of client (plain http, no
	// proxy, no caller's client); h1Header is its fixed header block.
	h1       *h1Client
	h1Header []byte
	reads    atomic.Int64 // network reads that returned stream data

	// lastEvent is the run's latest event (ns since base), published by
	// each stream at most every stallPublish (see stallWatch).
	lastEvent    atomic.Int64
	stallPublish time.Duration
	// suspect is when a stall found the whole run quiet (ns since base;
	// 0: none since the last event), stopped whether a request sent
	// after that found it quiet still: the engine stopped serving, and
	// no more requests are sent (runQuiet).
	suspect atomic.Int64
	stopped atomic.Bool
}

// newRunner is the runner of a run of cfg (withDefaults applied).
func newRunner(cfg Config) *runner {
	return &runner{cfg: cfg, url: cfg.BaseURL + cfg.Endpoint, client: cfg.Client, idPfx: cfg.RequestIDPrefix,
		stallPublish: min(100*time.Millisecond, cfg.StallTimeout/16)}
}

func measure(ctx context.Context, cfg Config) (*schema.Result, float64, error) {
	cfg, err := withDefaults(cfg)
	if err != nil {
		return nil, 0, err
	}
	if len(cfg.Conversations) > 0 {
		return measureSessions(ctx, cfg)
	}
	n := len(cfg.Samples)
	times, err := Schedule(n, cfg.RequestRate, cfg.Burstiness, cfg.Seed)
	var rampRates []float64
	if cfg.Times != nil {
		if len(cfg.Times) != n {
			return nil, 0, fmt.Errorf("bench: %d release times for %d samples", len(cfg.Times), n)
		}
		times = cfg.Times
	} else if cfg.RampUp != nil && err == nil {
		times, rampRates, err = ScheduleRamp(n, *cfg.RampUp, cfg.Burstiness, cfg.Seed)
	}
	if err != nil {
		return nil, 0, fmt.Errorf("bench: %w", err)
	}
	r := newRunner(cfg)
	if r.idPfx == "" {
		r.idPfx = requestIDPrefix()
	}
	if r.client == nil {
		conns := cfg.MaxConcurrency
		if conns == 0 {
			conns = n
		}
		r.client = newClient(conns, cfg.MaxConcurrency)
		defer r.client.CloseIdleConnections()
		if r.h1, r.h1Header = leanClient(r.url, cfg.Headers, conns); r.h1 != nil && !validHeader("X-Request-Id", r.idPfx) {
			r.h1 = nil // net/http reports the bad header
		} else if r.h1 != nil {
			r.h1.poll = r.h1.poll && !cfg.noPoll
			defer r.h1.closeIdle()
		}
	}
	if cfg.MaxConcurrency > 0 {
		r.sem = newFIFOSem(cfg.MaxConcurrency)
	}
	if err := r.warmup(ctx); err != nil {
		return nil, 0, err
	}
	if cfg.AfterWarmup != nil {
		if err := cfg.AfterWarmup(ctx); err != nil {
			return nil, 0, err
		}
	}

	res := &schema.Result{
		Status: schema.StatusOK,
		Engine: schema.Engine{BaseURL: cfg.BaseURL},
		Model:  schema.Model{ID: cfg.Model},
		Tool:   schema.Tool{Name: "perflab bench"},
		Load: schema.Load{
			Backend: cfg.Backend, Endpoint: cfg.Endpoint, NumPrompts: n,
			RequestRate: rateOrZero(cfg.RequestRate), Burstiness: cfg.Burstiness,
			MaxConcurrency: cfg.MaxConcurrency, Seed: cfg.Seed,
			IgnoreEOS: cfg.IgnoreEOS, NumWarmups: cfg.NumWarmups,
		},
	}
	if len(cfg.ExtraBody) > 0 {
		res.Load.ExtraBody = openai.AppendObject(nil, cfg.ExtraBody)
	}
	recs := make([]schema.Request, n)
	aborted := make([]bool, n)
	lags := make([]float64, n)
	stopProgress := r.progress(n)

	cpu0 := cpuTime()
	wall0 := time.Now()
	r.base = wall0
	if cfg.onStart != nil {
		cfg.onStart(wall0)
	}
	res.Start = wall0.UTC().Format(time.RFC3339Nano)
	var wg sync.WaitGroup
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	released := 0
dispatch:
	for i := range n {
		target := time.Duration(times[i] * float64(time.Second))
		if d := target - time.Since(r.base); d > 0 && times[i] > 0 {
			timer.Reset(d)
			select {
			case <-timer.C:
			case <-ctx.Done():
				timer.Stop()
				break dispatch
			}
		}
		if ctx.Err() != nil {
			break
		}
		released++
		arrival := time.Since(r.base)
		recs[i].Index = i
		recs[i].ArrivalS = arrival.Seconds()
		if r.sem != nil {
			lags[i] = (arrival - target).Seconds() * 1000
		}
		var ticket chan struct{}
		if r.sem != nil {
			ticket = r.sem.enqueue() // here, so that the cap admits in order
		}
		wg.Add(1)
		go func(i int, target time.Duration) {
			defer wg.Done()
			aborted[i] = r.request(ctx, i, &recs[i], ticket)
			if r.sem == nil && !aborted[i] {
				lags[i] = recs[i].SendS*1000 - target.Seconds()*1000
			}
		}(i, target)
	}
	wg.Wait()
	dur := time.Since(r.base).Seconds()
	cpu := cpuTime() - cpu0
	if cfg.onEnd != nil {
		cfg.onEnd(r.reads.Load())
	}
	stopProgress()
	res.End = time.Now().UTC().Format(time.RFC3339Nano)

	kept := recs[:0]
	keptLags := make([]float64, 0, n)
	for i := range released {
		if !aborted[i] {
			kept = append(kept, recs[i])
			keptLags = append(keptLags, lags[i])
		}
	}
	res.Requests = kept
	if ru := cfg.RampUp; ru != nil {
		res.Load.RampUpStrategy, res.Load.RampUpStartRPS, res.Load.RampUpEndRPS = ru.Strategy, ru.StartRPS, ru.EndRPS
		res.Load.RPSChanges = rpsChanges(*ru, rampRates, kept, wall0)
	}
	countErr := r.countText(ctx, kept)
	if ctx.Err() != nil && len(kept) < n {
		res.Status = schema.StatusInterrupted
		res.Error = "interrupted"
		res.Warnings = append(res.Warnings, fmt.Sprintf("interrupted: %d of %d requests finished before the run was stopped", len(kept), n))
	}
	res.Client = clientStats(kept, keptLags, r.events.Load(), dur, cpu)
	wcfg := cfg
	if countErr != nil {
		wcfg.CountText = nil // the warning must not claim tokenized counts
		res.Warnings = append(res.Warnings, fmt.Sprintf("counting output tokens with the tokenizer failed (%v): the requests without usage from there on count one token per token event", countErr))
	}
	res.Warnings = append(res.Warnings, warnings(res, wcfg)...)
	return res, dur, nil
}

// countText applies cfg.CountText to the successful records without
// usage, then drops the texts that were kept only for it. It returns the
// first counting error; the records it failed on keep their event counts.
func (r *runner) countText(ctx context.Context, recs []schema.Request) error {
	if r.cfg.CountText == nil {
		return nil
	}
	// after a Ctrl-C too: the finished requests are still reported
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Minute)
	defer cancel()
	var first error
	for i := range recs {
		rec := &recs[i]
		if rec.Success && rec.OutputCounted && first == nil {
			n, err := r.cfg.CountText(ctx, rec.GeneratedText)
			if err != nil {
				first = err
			} else {
				rec.OutputTokens = n
			}
		}
		if !r.cfg.KeepText {
			rec.GeneratedText = ""
		}
	}
	return first
}

// warmup runs the ready check, then sends the first sample NumWarmups
// times, through the cap, and waits for all (vLLM: same request, not
// recorded). A warmup failure is
// not fatal, as in vLLM; a refused server shows in the run itself.
func (r *runner) warmup(ctx context.Context) error {
	if err := r.readyCheck(ctx); err != nil {
		return err
	}
	if r.cfg.NumWarmups == 0 {
		return nil
	}
	log := r.cfg.Log
	if log == nil {
		log = io.Discard
	}
	fmt.Fprintf(log, "Warming up with %d requests...\n", r.cfg.NumWarmups)
	r.base = time.Now()
	var wg sync.WaitGroup
	for range r.cfg.NumWarmups {
		var ticket chan struct{}
		if r.sem != nil {
			ticket = r.sem.enqueue()
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			var rec schema.Request
			r.request(ctx, 0, &rec, ticket)
		}()
	}
	wg.Wait()
	r.resetCounters()
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("bench: interrupted during the warmup: %w", err)
	}
	fmt.Fprintln(log, "Warmup run completed.")
	return nil
}

func rateOrZero(r float64) float64 {
	if math.IsInf(r, 1) {
		return 0
	}
	return r
}

func requestIDPrefix() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return "perflab-bench-" + hex.EncodeToString(b[:]) + "-"
}

// progress prints a progress line every half second until stopped.
func (r *runner) progress(n int) (stop func()) {
	w := r.cfg.Progress
	if w == nil {
		return func() {}
	}
	quit := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	print := func() {
		fmt.Fprintf(w, "\rbench: %d/%d requests done, %d failed  ", r.done.Load(), n, r.failed.Load())
	}
	go func() {
		defer wg.Done()
		t := time.NewTicker(500 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				print()
			case <-quit:
				print()
				fmt.Fprintln(w)
				return
			}
		}
	}()
	return func() { close(quit); wg.Wait() }
}

// clientStats derives the client's self-measurement.
func clientStats(recs []schema.Request, lagsMs []float64, events int64, durS, cpuS float64) *schema.ClientStats {
	cs := &schema.ClientStats{}
	if len(lagsMs) > 0 {
		s := append([]float64(nil), lagsMs...)
		sort.Float64s(s)
		cs.SchedulingLagP50Ms = percentile(s, 50)
		cs.SchedulingLagP99Ms = percentile(s, 99)
		cs.SchedulingLagMaxMs = s[len(s)-1]
	}
	if durS > 0 {
		cs.EventsPerS = float64(events) / durS
		if cpuS >= 0 {
			cs.CPUPercent = 100 * cpuS / durS
		}
	}
	var itls, coalesced int
	for i := range recs {
		if !recs[i].Success {
			continue
		}
		ev := recs[i].EventS
		for j := 1; j < len(ev); j++ {
			itls++
			if ev[j]-ev[j-1] < 0.0001 {
				coalesced++
			}
		}
	}
	if itls > 0 {
		cs.CoalescedEventFraction = float64(coalesced) / float64(itls)
	}
	return cs
}

// percentile is numpy's linear percentile of sorted s.
func percentile(s []float64, p float64) float64 {
	h := p / 100 * float64(len(s)-1)
	lo := int(math.Floor(h))
	if lo+1 >= len(s) {
		return s[len(s)-1]
	}
	return s[lo] + (s[lo+1]-s[lo])*(h-float64(lo))
}

// warnings lists the caveats of a finished run.
func warnings(res *schema.Result, cfg Config) []string {
	var w []string
	counted, ok := 0, 0
	for i := range res.Requests {
		if res.Requests[i].Success {
			ok++
			if res.Requests[i].OutputCounted {
				counted++
			}
		}
	}
	if ok == 0 && len(res.Requests) > 0 {
		// vLLM: "All requests failed. This is likely due to a misconfiguration …"
		w = append(w, fmt.Sprintf("all %d requests failed (first error: %s): check the server and the benchmark arguments", len(res.Requests), firstLine(res.Requests[0].Error, 300)))
	}
	if counted > 0 && cfg.CountText != nil {
		w = append(w, fmt.Sprintf("the server sent no usage.completion_tokens for %d of %d successful requests: their output tokens are counted by tokenizing the generated text (vLLM's fallback; it may count slightly more than the server)", counted, ok))
	} else if counted > 0 {
		w = append(w, fmt.Sprintf("the server sent no usage.completion_tokens for %d of %d successful requests: their output tokens are counted as token events (one per SSE event)", counted, ok))
	}
	if s := stallWarning(res, cfg); s != "" {
		w = append(w, s)
	}
	c := res.Client
	if c.SchedulingLagP99Ms > lagWarnMs {
		w = append(w, fmt.Sprintf("the client fell behind the schedule: requests left up to %.1f ms late (p99 %.1f ms, p50 %.2f ms); rates and latencies may be off", c.SchedulingLagMaxMs, c.SchedulingLagP99Ms, c.SchedulingLagP50Ms))
	}
	if cores := float64(runtime.GOMAXPROCS(0)); c.CPUPercent > 90*cores {
		w = append(w, fmt.Sprintf("the client used %.0f%% CPU on %.0f cores: it may have limited the measurement", c.CPUPercent, cores))
	}
	if c.CoalescedEventFraction > 0.5 {
		w = append(w, fmt.Sprintf("%.0f%% of ITL samples are under 0.1 ms (events arriving together): the server batches events per write or the client fell behind; median ITL may read 0", 100*c.CoalescedEventFraction))
	}
	return w
}

// firstLine is s up to its first newline, cut to n bytes.
func firstLine(s string, n int) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > n {
		s = strings.ToValidUTF8(s[:n], "") + " …"
	}
	return s
}
