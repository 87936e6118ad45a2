package benchrun

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"math"
	"net/http"
	"time"

	"github.com/perflab/perflab/collect/bench"
	"github.com/perflab/perflab/collect/dataset"
	"github.com/perflab/perflab/collect/metrics"
	"github.com/perflab/perflab/collect/schema"
)

// Config is the measuring configuration of o sending w: o.Bench with the
// workload in place of its samples, ignore_eos forced where the dataset
// forces it, the multi-turn pacing, output tokens counted with the run's
// tokenizer when a server sends no usage, and the metrics' load fields
// (written in the text block) taken from the load itself.
func (o *Options) Config(w *Workload) bench.Config {
	cfg := o.Bench
	cfg.Metrics.MaxConcurrency, cfg.Metrics.Burstiness = cfg.MaxConcurrency, cfg.Burstiness
	cfg.Metrics.RequestRate = 0
	if r := cfg.RequestRate; r > 0 && !math.IsInf(r, 1) {
		cfg.Metrics.RequestRate = r
	}
	cfg.Samples, cfg.PromptIDs, cfg.Times, cfg.Conversations = w.Samples, w.PromptIDs, w.Times, w.Conversations
	cfg.IgnoreEOS = cfg.IgnoreEOS || o.Dataset.ForcesIgnoreEOS()
	if mt := o.Dataset.MultiTurn; mt != nil {
		cfg.SessionConcurrency, cfg.TurnDelay = mt.Concurrency, mt.Delay
	}
	if cfg.CountText == nil && o.Tokenizer != nil {
		cfg.CountText = CountWith(o.Tokenizer)
	}
	return cfg
}

// Run measures w with o (bench.Run) and describes the dataset in the
// result's Load. Its result and error are bench.Run's: the result comes
// back whenever the run happened, with an error when only its summary
// failed.
//
// Around the measured requests (after the warmups and o.Bench.AfterWarmup,
// and after the run) it reads the server's speculative-decoding counters,
// as vLLM's client does; a server that reports none gets no SpecDecode.
// A result with a summary gets its steady state (o.Steady) and the text
// block perflab bench prints, in RawOutput: the failures, vLLM's result
// block, the steady-state and per-turn sections.
func Run(ctx context.Context, o *Options, w *Workload) (*schema.Result, error) {
	cfg := o.Config(w)
	aux := o.auxClient()
	var specBefore *bench.SpecCounters
	hook := cfg.AfterWarmup
	cfg.AfterWarmup = func(ctx context.Context) error {
		if hook != nil {
			if err := hook(ctx); err != nil {
				return err
			}
		}
		specBefore, _ = bench.ScrapeSpecDecode(ctx, aux, cfg.BaseURL)
		return nil
	}
	res, err := bench.Run(ctx, cfg)
	if specBefore != nil && res != nil && res.Summary != nil {
		after, serr := bench.ScrapeSpecDecode(context.WithoutCancel(ctx), aux, cfg.BaseURL)
		if serr != nil {
			res.Warnings = append(res.Warnings, fmt.Sprintf("speculative decoding: reading /metrics after the run failed: %v", serr))
		}
		res.Summary.SpecDecode = bench.SpecDecodeDelta(specBefore, after)
	}
	if res != nil && res.Summary != nil {
		if serr := o.summarize(res, cfg); serr != nil {
			return nil, serr
		}
	}
	if res != nil {
		o.Describe(&res.Load)
		if w.Times != nil {
			res.Warnings = append(res.Warnings, "self-timed: requests left at the trace's timestamps; request_rate is recorded as inf")
		}
	}
	return res, err
}

// summarize adds the steady state to res's summary and writes its text
// block into RawOutput.
func (o *Options) summarize(res *schema.Result, cfg bench.Config) error {
	opt := cfg.Metrics
	opt.MaxConcurrency = cfg.MaxConcurrency
	if o.Steady != nil {
		ss, err := metrics.SteadyState(res.Requests, opt, *o.Steady)
		if err != nil {
			return fmt.Errorf("steady state: %w", err)
		}
		res.Summary.SteadyState = ss
	}
	var text bytes.Buffer
	if err := metrics.WriteFailures(&text, res.Requests); err != nil {
		return err
	}
	if err := metrics.WriteText(&text, res.Summary, cfg.Metrics); err != nil {
		return err
	}
	if err := metrics.WriteSteadyText(&text, res.Summary.SteadyState, cfg.MaxConcurrency); err != nil {
		return err
	}
	if err := metrics.WritePerTurn(&text, res.PerTurn); err != nil {
		return err
	}
	res.RawOutput = text.String()
	return nil
}

// Describe records the dataset of o in l: its name and file, and the
// lengths asked for in the fields of schema.Load (what each dataset
// calls its input, output and shared-prefix lengths). A length left at
// zero is recorded as the default Build uses for it, so that a profile
// that leaves a field out records what perflab bench records with that
// flag left out.
func (o *Options) Describe(l *schema.Load) {
	d := &o.Dataset
	l.Dataset, l.DatasetPath = d.name(), d.Path
	switch d.name() {
	case "random":
		l.InputLen = cmp.Or(d.RandomInputLen, dataset.DefaultInputLen)
		l.OutputLen = cmp.Or(d.RandomOutputLen, dataset.DefaultOutputLen)
		l.RangeRatio, l.PrefixLen = d.RandomRangeRatio, d.RandomPrefixLen
	case "prefix_repetition":
		l.InputLen, l.PrefixLen = d.PrefixLen+d.SuffixLen, d.PrefixLen
		l.OutputLen = cmp.Or(d.PrefixOutputLen, dataset.DefaultOutputLen)
	case "custom":
		l.OutputLen = max(0, cmp.Or(d.CustomOutputLen, dataset.DefaultCustomOutputLen))
	case "sharegpt":
		l.OutputLen = d.ShareGPTOutputLen
	}
}

// CountWith counts a generated text's tokens with tok, without special
// tokens, as vLLM does for a request whose server sent no usage.
func CountWith(tok dataset.Tokenizer) func(context.Context, string) (int, error) {
	return func(ctx context.Context, text string) (int, error) {
		if ec, ok := tok.(interface {
			EncodeContext(context.Context, string, bool) ([]int, error)
		}); ok {
			ids, err := ec.EncodeContext(ctx, text, false)
			return len(ids), err
		}
		ids, err := tok.Encode(text)
		return len(ids), err
	}
}

// auxClient is the client for the requests around the benchmark.
func (o *Options) auxClient() *http.Client {
	if o.AuxClient != nil {
		return o.AuxClient
	}
	return Client(o.Bench.Headers)
}

// Client is the client for the requests around the benchmark (the model
// list, /tokenize, /metrics, the profiler): headers on every request (the
// server may want the run's key there too), a 60 s timeout.
func Client(headers map[string]string) *http.Client {
	c := &http.Client{Timeout: 60 * time.Second}
	if len(headers) > 0 {
		c.Transport = headerTransport{base: http.DefaultTransport, headers: headers}
	}
	return c
}

// headerTransport adds fixed headers to each request.
type headerTransport struct {
	base    http.RoundTripper
	headers map[string]string
}

func (t headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	for k, v := range t.headers {
		req.Header.Set(k, v)
	}
	return t.base.RoundTrip(req)
}
