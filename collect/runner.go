package collect

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/perflab/perflab/collect/bench"
	"github.com/perflab/perflab/collect/benchrun"
	"github.com/perflab/perflab/collect/dataset"
	"github.com/perflab/perflab/collect/metrics"
	"github.com/perflab/perflab/collect/mock"
	"github.com/perflab/perflab/collect/schema"
)

// BenchRunner measures runs with perflab's benchmark core (collect/bench),
// as `perflab bench` with the profile's flags would. It keeps the
// tokenizers it loaded (a tokenizer.json takes a while to read) for the
// runs that follow. The zero value is ready to use.
type BenchRunner struct {
	mu   sync.Mutex
	toks map[string]dataset.Tokenizer
}

// extraArgs are the benchmark flags a profile may pass in args beyond
// the profile's own fields.
type extraArgs struct {
	ignoreEOS   bool
	warmups     int
	prefixLen   int
	metrics     []string
	percentiles []float64
	goodput     map[string]float64
}

// parseArgs reads a profile's args: the vllm bench serve flags that have
// no field of their own.
func parseArgs(args []string) (extraArgs, error) {
	var x extraArgs
	for i := 0; i < len(args); i++ {
		name, val, hasVal := strings.Cut(args[i], "=")
		next := func() (string, error) {
			if hasVal {
				return val, nil
			}
			if i+1 >= len(args) {
				return "", fmt.Errorf("args: %s needs a value", name)
			}
			i++
			return args[i], nil
		}
		var err error
		switch name {
		case "--ignore-eos":
			x.ignoreEOS = true
		case "--num-warmups", "--random-prefix-len":
			var v string
			if v, err = next(); err == nil {
				var n int
				if n, err = strconv.Atoi(v); err == nil {
					if name == "--num-warmups" {
						x.warmups = n
					} else {
						x.prefixLen = n
					}
				}
			}
		case "--percentile-metrics":
			var v string
			if v, err = next(); err == nil {
				x.metrics, err = metrics.ParseMetrics(v)
			}
		case "--metric-percentiles":
			var v string
			if v, err = next(); err == nil {
				x.percentiles, err = metrics.ParsePercentiles(v)
			}
		case "--goodput":
			// vLLM takes one or more KEY:VALUE words after --goodput.
			var pairs []string
			if hasVal {
				pairs = append(pairs, val)
			}
			for i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
				i++
				pairs = append(pairs, args[i])
			}
			x.goodput, err = metrics.ParseGoodput(pairs)
		default:
			err = fmt.Errorf("args: %q is not a benchmark flag perflab collect passes on (--ignore-eos, --num-warmups, --random-prefix-len, --percentile-metrics, --metric-percentiles, --goodput)", args[i])
		}
		if err != nil {
			return x, err
		}
	}
	return x, nil
}

// Run measures one run: builds the profile's prompts with the campaign's
// tokenizer, benchmarks the engine and returns the result with the
// benchmark's text block as raw output. The dataset is built and measured
// by collect/benchrun, as perflab bench builds and measures it from the
// same flags (see options).
func (b *BenchRunner) Run(ctx context.Context, t Target) (*schema.Result, error) {
	c, p := t.Campaign, t.Run.Profile
	opt, tokName, err := b.options(t)
	if err != nil {
		return nil, err
	}
	w, err := benchrun.Build(ctx, &opt)
	if err != nil {
		return nil, fmt.Errorf("profile %s: %w", p.ID, err)
	}
	stop := func() {}
	if t.Measure != nil {
		stop = t.Measure()
	}
	res, err := benchrun.Run(ctx, &opt, w)
	stop()
	if err != nil {
		return res, err
	}
	if w.Aligned > 0 {
		res.Warnings = append(res.Warnings, fmt.Sprintf("%d of %d prompts were longer by the server's tokenizer than by %s: cut to their length with its /detokenize (as vLLM aligns them)",
			w.Aligned, len(w.Samples), tokName))
	}
	ran := res.Load // what the run itself recorded: ramp-up, conversations
	res.Load = loadOf(c, p)
	res.Load.IgnoreEOS, res.Load.NumWarmups = ran.IgnoreEOS, ran.NumWarmups
	res.Load.RampUpStrategy, res.Load.RampUpStartRPS, res.Load.RampUpEndRPS = ran.RampUpStrategy, ran.RampUpStartRPS, ran.RampUpEndRPS
	res.Load.RPSChanges, res.Load.Conversations = ran.RPSChanges, ran.Conversations
	if p.MultiTurn {
		res.Load.NumPrompts = ran.NumPrompts // the turns sent; num_prompts counts conversations
	}
	perflab := *c
	perflab.Bench.Tool = ""
	res.Load.Command = BenchCommand(&perflab, p, t.Model, t.BaseURL)
	res.Model.Tokenizer = tokName
	if res.Tool.Name == "" {
		res.Tool.Name = ToolPerflab
	}
	return res, nil
}

// options maps the run's profile onto benchrun's options, field by field
// as perflab bench maps the flags of the same names (BenchArgs writes
// them), with the campaign's tokenizer (and its name, as recorded).
// Validate has checked the fields.
func (b *BenchRunner) options(t Target) (benchrun.Options, string, error) {
	c, p := t.Campaign, t.Run.Profile
	x, err := parseArgs(p.Args)
	if err != nil {
		return benchrun.Options{}, "", fmt.Errorf("profile %s: %w", p.ID, err)
	}
	tok, tokName, err := b.tokenizer(t)
	if err != nil {
		return benchrun.Options{}, "", fmt.Errorf("profile %s: tokenizer: %w", p.ID, err)
	}
	path := t.DatasetPath
	if path == "" {
		path = p.DatasetPath
	}
	backend, endpoint := backendEndpoint(c.Bench)
	opt := benchrun.Options{
		Bench: bench.Config{BaseURL: t.BaseURL, Endpoint: endpoint, Backend: backend, Model: t.Model,
			RequestRate: p.RequestRate, Burstiness: p.Burstiness, MaxConcurrency: p.MaxConcurrency, Seed: p.Seed,
			IgnoreEOS: x.ignoreEOS, NumWarmups: x.warmups, Progress: t.Progress,
			Metrics: metrics.Options{Metrics: x.metrics, Percentiles: x.percentiles, Goodput: x.goodput}},
		// the steady state as perflab bench computes it by default
		Steady:    &metrics.SteadyOptions{},
		Dataset:   profileDataset(p, path, x),
		Tokenizer: tok,
		// no idle keep-alive connections left behind to hold the
		// server's HTTP threads during the benchmark
		AuxClient: &http.Client{Timeout: time.Minute, Transport: withKey(&http.Transport{DisableKeepAlives: true}, t.APIKey)},
	}
	if opt.Bench.StallTimeout, err = StallTimeout(c.Bench); err != nil {
		return benchrun.Options{}, "", err
	}
	if p.RampUpStrategy != "" {
		opt.Bench.RampUp = &bench.RampUp{Strategy: p.RampUpStrategy, StartRPS: p.RampUpStartRPS, EndRPS: p.RampUpEndRPS}
	}
	if t.APIKey != "" {
		opt.Bench.Headers = map[string]string{"Authorization": "Bearer " + t.APIKey}
	}
	return opt, tokName, nil
}

// StallTimeout is bench.Config.StallTimeout of the campaign's bench
// settings: stall_timeout as a duration, 0 (bench's default) when empty,
// negative (off) when "0".
func StallTimeout(b schema.BenchSpec) (time.Duration, error) {
	if b.StallTimeout == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(b.StallTimeout)
	if err == nil {
		err = bench.CheckStallTimeout(d)
	} else {
		err = bench.CheckStallTimeout(-1) // not a duration: the same advice
	}
	switch {
	case err != nil:
		return 0, fmt.Errorf("%q: %w", b.StallTimeout, err)
	case d == 0:
		return -1, nil
	}
	return d, nil
}

// profileDataset is profile p's dataset (path: its file) with args x,
// the profile's fields being perflab bench's flags with underscores.
func profileDataset(p *schema.Profile, path string, x extraArgs) benchrun.Dataset {
	orDefault := func(v *int, d int) int {
		if v == nil {
			return d
		}
		return *v
	}
	d := benchrun.Dataset{Name: p.Dataset, Path: path, NumPrompts: p.NumPrompts, Seed: p.Seed,
		RandomInputLen: p.InputLen, RandomOutputLen: p.OutputLen, RandomRangeRatio: p.RangeRatio, RandomPrefixLen: x.prefixLen,
		ShareGPTOutputLen: p.OutputLen, CustomOutputLen: p.CustomOutputLen, SkipChatTemplate: p.SkipChatTemplate,
		// vLLM's defaults for the two lengths 0 may set
		PrefixLen: orDefault(p.PrefixRepetitionPrefixLen, 256), SuffixLen: orDefault(p.PrefixRepetitionSuffixLen, 256),
		NumPrefixes: p.PrefixRepetitionNumPrefixes, PrefixOutputLen: p.PrefixRepetitionOutputLen,
		TraceBlockTokens: p.TimedTraceChunkHashSize, TraceSecMultiplier: p.TimedTraceSecMultiplier,
		SelfTimed: p.Dataset == "timed_trace" && (p.SelfTimed == nil || *p.SelfTimed)}
	if p.MultiTurn {
		d.MultiTurn = profileMultiTurn(p)
	}
	return d
}

// profileMultiTurn is profile p's multi-turn settings, the fields as
// given (benchrun resolves the turns).
func profileMultiTurn(p *schema.Profile) *benchrun.MultiTurn {
	return &benchrun.MultiTurn{NumTurns: p.MultiTurnNumTurns, MinTurns: p.MultiTurnMinTurns, MaxTurns: p.MultiTurnMaxTurns,
		PerTurnInputLen: p.PerTurnInputLen, GlobalRatio: p.MultiTurnPrefixGlobalRatio, ConversationRatio: p.MultiTurnPrefixConversationRatio,
		Concurrency: p.MultiTurnConcurrency, Delay: time.Duration(p.MultiTurnDelayMs) * time.Millisecond}
}

// tokenizer returns the tokenizer that sizes prompts:
//
//   - bench.tokenizer, a tokenizer.json file or a model directory;
//   - "server": the engine's own /tokenize route;
//   - empty: the model's tokenizer.json in the Hugging Face cache (where
//     vLLM, SGLang and TensorRT-LLM put the model they serve; the served
//     name, then the campaign's model id), else the engine's route.
func (b *BenchRunner) tokenizer(t Target) (dataset.Tokenizer, string, error) {
	spec := t.Campaign.Bench.Tokenizer
	if spec == "" {
		for _, m := range []string{t.Model, t.Campaign.Model.ID} {
			if path, ok := HFTokenizer(m); ok {
				spec = path
				break
			}
		}
	}
	if spec == "" || spec == "server" {
		if t.TokenizeRoute == "" {
			return nil, "", fmt.Errorf("engine %s has no tokenizer route and %s is not in the Hugging Face cache: set bench.tokenizer to a tokenizer.json", t.Run.Experiment.Engine, t.Model)
		}
		return serverTokenizer(t), "server", nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if tok, ok := b.toks[spec]; ok {
		return tok, spec, nil
	}
	tok, err := dataset.Load(spec)
	if err != nil {
		return nil, "", err
	}
	if b.toks == nil {
		b.toks = map[string]dataset.Tokenizer{}
	}
	b.toks[spec] = tok
	return tok, spec, nil
}

// HFTokenizer finds the tokenizer.json of a model: model itself when it
// is a directory holding one, else the model's in the Hugging Face hub
// cache, as perflab bench finds it (benchrun.HFCache).
func HFTokenizer(model string) (string, bool) {
	if model == "" {
		return "", false
	}
	if p := filepath.Join(model, "tokenizer.json"); fileExists(p) {
		return p, true
	}
	if !strings.Contains(model, "/") {
		return "", false
	}
	if dir, _ := benchrun.HFCache(model); dir != "" {
		return filepath.Join(dir, "tokenizer.json"), true
	}
	return "", false
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}

// serverTokenizer asks the engine under test. perflab mock does not
// publish its vocabulary size, which Random needs; it is fixed, so it is
// given here.
func serverTokenizer(t Target) dataset.Tokenizer {
	// No idle keep-alive connections left behind to hold the server's
	// HTTP threads during the benchmark.
	client := &http.Client{Transport: withKey(&http.Transport{DisableKeepAlives: true}, t.APIKey)}
	st := dataset.NewServerTokenizer(t.BaseURL, t.Model, client)
	if t.Run.Experiment.Engine == "mock" {
		st.Vocab = mock.BaseVocabSize
	}
	return st
}
