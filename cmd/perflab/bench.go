package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/perflab/perflab/collect/bench"
	"github.com/perflab/perflab/collect/benchflags"
	"github.com/perflab/perflab/collect/benchrun"
	"github.com/perflab/perflab/collect/dataset"
	"github.com/perflab/perflab/collect/metrics"
	"github.com/perflab/perflab/collect/openai"
	"github.com/perflab/perflab/collect/schema"
	"github.com/perflab/perflab/collect/sweep"
)

// benchFlags are `perflab bench`'s flags: `vllm bench serve`'s names and
// defaults, so that one command line works with both.
type benchFlags struct {
	baseURL, host    string
	port             int
	endpoint         string
	backend          string
	model            string
	tokenizer        string
	datasetName      string
	datasetPath      string
	randomInputLen   int
	randomOutputLen  int
	randomRangeRatio float64
	randomPrefixLen  int
	sharegptOutLen   int
	numPrompts       int
	requestRate      string
	burstiness       float64
	maxConcurrency   int
	seed             int64
	ignoreEOS        bool
	numWarmups       int
	percentileMetric string
	metricPercentile string
	goodput          listFlag
	saveResult       bool
	appendResult     bool
	saveDetailed     bool
	resultDir        string
	resultFilename   string
	label            string
	metadata         itemFlag
	outputJSON       string
	requestTimeout   time.Duration
	stallTimeout     time.Duration
	header           itemFlag
	requestIDPrefix  string
	extraBody        string
	servedModelName  string
	disableShuffle   bool
	noOversample     bool
	disableTqdm      bool
	readyTimeout     int
	// sampling are the sampling flags given, in vLLM's order.
	sampling []openai.Field
	// series are the flags of more than one run (bench_sweep.go).
	series seriesFlags

	customOutputLen              int
	skipChatTemplate             bool
	prefixLen, suffixLen         int
	numPrefixes, prefixOutputLen int
	traceBlock                   int
	traceSecMul                  float64
	traceKeyTS, traceKeyIn       string
	traceKeyOut, traceKeyHash    string
	rampStrategy                 string
	rampStart, rampEnd           int
	selfTimed, noSelfTimed       bool
	profile                      bool
	logprobs                     int
	multiTurn                    bool
	mtTurns, mtMinTurns          int
	mtMaxTurns, mtConcurrency    int
	mtDelayMs, perTurnInputLen   int
	mtGlobalRatio, mtConvRatio   float64
	dryRun, promptTokenIDs       bool
	// warnings are the flags given that have no effect here, one line each.
	warnings []string
	// given are the flags on the command line (hyphenated names).
	given map[string]bool
}

// listFlag collects a repeatable flag; each use may hold several
// space-separated items ("ttft:50 tpot:10").
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, " ") }
func (l *listFlag) Set(s string) error {
	*l = append(*l, strings.Fields(s)...)
	return nil
}

// itemFlag collects a repeatable flag whose each use is one item, spaces
// included ("note=two words"), as one argv element is in vLLM.
type itemFlag []string

func (l *itemFlag) String() string { return strings.Join(*l, " ") }
func (l *itemFlag) Set(s string) error {
	*l = append(*l, s)
	return nil
}

// samplingFlags are vLLM's sampling flags, in the order vLLM merges them
// into the request body; each is sent only when given.
var samplingFlags = []struct{ flag, key string }{
	{"top-p", "top_p"}, {"top-k", "top_k"}, {"min-p", "min_p"}, {"temperature", "temperature"},
	{"frequency-penalty", "frequency_penalty"}, {"presence-penalty", "presence_penalty"},
	{"repetition-penalty", "repetition_penalty"},
}

// benchTable is perflab bench's command line: vLLM's flags, then
// perflab's own (another file may append more rows here).
var benchTable = append(append(append(benchflags.Table{}, benchflags.VLLM...), seriesRows...), benchflags.Own...)

// binds maps each flag perflab acts on to the field it sets; the sampling
// flags and the general lengths are read from the parsed values instead
// (readByValues).
func (f *benchFlags) binds() map[string]any {
	m := map[string]any{
		"base-url": &f.baseURL, "host": &f.host, "port": &f.port, "endpoint": &f.endpoint, "backend": &f.backend,
		"model": &f.model, "served-model-name": &f.servedModelName, "tokenizer": &f.tokenizer,
		"dataset-name": &f.datasetName, "dataset-path": &f.datasetPath,
		"random-input-len": &f.randomInputLen, "random-output-len": &f.randomOutputLen,
		"random-range-ratio": &f.randomRangeRatio, "random-prefix-len": &f.randomPrefixLen,
		"sharegpt-output-len": &f.sharegptOutLen, "disable-shuffle": &f.disableShuffle, "no-oversample": &f.noOversample,
		"ready-check-timeout-sec": &f.readyTimeout, "disable-tqdm": &f.disableTqdm, "num-prompts": &f.numPrompts,
		"request-rate": &f.requestRate, "burstiness": &f.burstiness, "max-concurrency": &f.maxConcurrency,
		"seed": &f.seed, "ignore-eos": &f.ignoreEOS, "num-warmups": &f.numWarmups,
		"percentile-metrics": &f.percentileMetric, "metric-percentiles": &f.metricPercentile, "goodput": &f.goodput,
		"save-result": &f.saveResult, "append-result": &f.appendResult, "save-detailed": &f.saveDetailed,
		"result-dir": &f.resultDir, "result-filename": &f.resultFilename, "label": &f.label, "metadata": &f.metadata,
		"output-json": &f.outputJSON, "request-timeout": &f.requestTimeout, "stall-timeout": &f.stallTimeout, "header": &f.header,
		"request-id-prefix": &f.requestIDPrefix, "extra-body": &f.extraBody,
		"custom-output-len": &f.customOutputLen, "skip-chat-template": &f.skipChatTemplate,
		"prefix-repetition-prefix-len": &f.prefixLen, "prefix-repetition-suffix-len": &f.suffixLen,
		"prefix-repetition-num-prefixes": &f.numPrefixes, "prefix-repetition-output-len": &f.prefixOutputLen,
		"timed-trace-chunk-hash-size": &f.traceBlock, "timed-trace-sec-multiplier": &f.traceSecMul,
		"timed-trace-label-timestamp": &f.traceKeyTS, "timed-trace-label-input-length": &f.traceKeyIn,
		"timed-trace-label-output-length": &f.traceKeyOut, "timed-trace-label-hash-ids": &f.traceKeyHash,
		"ramp-up-strategy": &f.rampStrategy, "ramp-up-start-rps": &f.rampStart, "ramp-up-end-rps": &f.rampEnd,
		"self-timed": &f.selfTimed, "no-self-timed": &f.noSelfTimed, "profile": &f.profile, "logprobs": &f.logprobs,
		"multi-turn": &f.multiTurn, "multi-turn-num-turns": &f.mtTurns, "multi-turn-min-turns": &f.mtMinTurns,
		"multi-turn-max-turns": &f.mtMaxTurns, "multi-turn-concurrency": &f.mtConcurrency,
		"multi-turn-delay-ms": &f.mtDelayMs, "per-turn-input-len": &f.perTurnInputLen,
		"multi-turn-prefix-global-ratio": &f.mtGlobalRatio, "multi-turn-prefix-conversation-ratio": &f.mtConvRatio,
		"dry-run": &f.dryRun, "prompt-token-ids": &f.promptTokenIDs,
	}
	f.series.binds(m)
	return m
}

// readByValues are the flags perflab acts on that parseBenchFlags reads
// from the parsed values rather than through binds.
var readByValues = map[string]bool{"input-len": true, "output-len": true, "top-p": true, "top-k": true, "min-p": true,
	"temperature": true, "frequency-penalty": true, "presence-penalty": true, "repetition-penalty": true}

// assign sets the field p points to from a flag's values (a list flag's
// values all at once, a scalar's last).
func assign(row *benchflags.Flag, p any, vals []string) error {
	last := vals[len(vals)-1]
	bad := func(want string) error { return usageError("bench: --%s %q: want %s", row.Name, last, want) }
	switch p := p.(type) {
	case *string:
		*p = last
	case *bool:
		*p = last == "true"
	case *int:
		n, err := strconv.Atoi(strings.TrimSpace(last))
		if err != nil {
			return bad("an integer")
		}
		*p = n
	case *int64:
		n, err := strconv.ParseInt(strings.TrimSpace(last), 10, 64)
		if err != nil {
			return bad("an integer")
		}
		*p = n
	case *float64:
		v, err := strconv.ParseFloat(strings.TrimSpace(last), 64)
		if err != nil {
			return bad("a number")
		}
		*p = v
	case *time.Duration:
		d, err := time.ParseDuration(last)
		if err != nil {
			return bad("a duration like 300ms or 2m")
		}
		*p = d
	case *listFlag:
		*p = nil
		for _, v := range vals {
			_ = p.Set(v)
		}
	case *itemFlag:
		*p = append((*p)[:0], vals...)
	default:
		return fmt.Errorf("bench: --%s: no binding for %T", row.Name, p)
	}
	return nil
}

func parseBenchFlags(args []string, stderr io.Writer) (*benchFlags, error) {
	v, err := benchTable.Parse(args)
	if err == benchflags.ErrHelp {
		fmt.Fprintln(stderr, "usage: perflab bench [flags]   (the flags of vllm bench serve; --config FILE.yaml, --flag_with_underscores and --extra-body.key value work as in vLLM)")
		_ = benchTable.WriteUsage(stderr)
		return nil, flag.ErrHelp
	}
	if err != nil {
		return nil, usageError("bench: %v", err)
	}
	f := &benchFlags{}
	binds := f.binds()
	// defaults first, from the table, then the values given
	for i := range benchTable {
		row := &benchTable[i]
		if p, ok := binds[row.Name]; ok && row.Default != "" {
			if err := assign(row, p, []string{row.Default}); err != nil {
				return nil, err
			}
		}
	}
	f.given = map[string]bool{}
	for _, name := range v.Given() {
		f.given[name] = true
		if p, ok := binds[name]; ok && benchTable.Lookup(name).Action == benchflags.Act {
			if err := assign(benchTable.Lookup(name), p, v.All(name)); err != nil {
				return nil, err
			}
		}
	}
	f.warnings = v.Warnings
	// vLLM maps the general lengths onto the datasets' own flags
	if v.Has("input-len") {
		n, _ := strconv.Atoi(strings.TrimSpace(v.Get("input-len"))) // the table checked it
		f.randomInputLen = n
	}
	if v.Has("output-len") {
		n, _ := strconv.Atoi(strings.TrimSpace(v.Get("output-len")))
		f.randomOutputLen, f.sharegptOutLen, f.customOutputLen, f.prefixOutputLen = n, n, n, n
	}
	if err := f.series.parse(f.given); err != nil {
		return nil, err
	}
	for _, sf := range samplingFlags {
		if !v.Has(sf.flag) {
			continue
		}
		val, err := samplingValue(sf.flag, v.Get(sf.flag))
		if err != nil {
			return nil, err
		}
		f.sampling = append(f.sampling, openai.Field{Key: sf.key, Value: val})
	}
	return f, nil
}

// samplingValue is the JSON of a sampling flag's value: an integer for
// --top-k, else a float written as Python's json.dumps writes it (0.0).
func samplingValue(name, s string) (json.RawMessage, error) {
	if name == "top-k" {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil {
			return nil, usageError("bench: --%s %q: want an integer", name, s)
		}
		return json.RawMessage(strconv.Itoa(n)), nil
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
		return nil, usageError("bench: --%s %q: want a number", name, s)
	}
	return json.RawMessage(pyFloat(v)), nil
}

// benchRun is a validated command line.
type benchRun struct {
	f *benchFlags
	// opt is the run the flags ask for (collect/benchrun); a sweep or a
	// search changes its load point by point (setLoad).
	opt benchrun.Options
	// modelID is the model recorded (vLLM's model_id: --model, or the
	// first served model's root); opt.Bench.Model the name sent.
	modelID  string
	rate     float64
	metadata []metrics.KeyValue
	// readyChecked: a run of this command has had its ready check.
	readyChecked bool
	// series is the state of a sweep, repeats or search (bench_sweep.go).
	series seriesState
}

func (f *benchFlags) validate() (*benchRun, error) {
	r := &benchRun{f: f}
	rate := math.Inf(1)
	if rs := strings.ToLower(strings.TrimSpace(f.requestRate)); rs != "inf" && rs != "+inf" && rs != "infinity" {
		v, err := strconv.ParseFloat(rs, 64)
		if err != nil || !(v > 0) || math.IsInf(v, 0) {
			return nil, usageError("bench: --request-rate %q: want a positive number or inf", f.requestRate)
		}
		rate = v
	}
	r.rate = rate
	f.datasetName = strings.ReplaceAll(f.datasetName, "-", "_") // vllm-bench's aliases: prefix-repetition, timed-trace
	if f.multiTurn {
		if !f.given["backend"] {
			f.backend = "openai-chat" // turns are chat messages
		}
		switch {
		case f.backend != "openai-chat":
			return nil, usageError("bench: --multi-turn sends chat messages: want --backend openai-chat, not %s", f.backend)
		case f.datasetName != "random" && f.datasetName != "sharegpt":
			return nil, usageError("bench: --multi-turn builds conversations from --dataset-name random or sharegpt, not %s", f.datasetName)
		case f.given["request-rate"] || f.given["burstiness"]:
			return nil, usageError("bench: --multi-turn paces turns by the replies (and --multi-turn-delay-ms), not by --request-rate or --burstiness")
		case f.mtTurns < 1 || f.mtMinTurns < 0 || f.mtMaxTurns < 0 || f.mtDelayMs < 0 || f.mtConcurrency < 0 || f.perTurnInputLen < 0:
			return nil, usageError("bench: --multi-turn-*: turns at least 1, the rest not negative")
		case !(f.mtGlobalRatio >= 0 && f.mtGlobalRatio <= 1) || !(f.mtConvRatio >= 0 && f.mtConvRatio <= 1):
			// vllm-bench's checks and words
			return nil, usageError("bench: --multi-turn-prefix-global-ratio %v, --multi-turn-prefix-conversation-ratio %v: each must be in [0.0, 1.0]", f.mtGlobalRatio, f.mtConvRatio)
		case f.mtGlobalRatio+f.mtConvRatio >= 1:
			return nil, usageError("bench: --multi-turn-prefix-global-ratio + --multi-turn-prefix-conversation-ratio must be < 1.0 (unique suffix required)")
		case (f.mtGlobalRatio > 0 || f.mtConvRatio > 0) && f.datasetName != "random":
			return nil, usageError("bench: the multi-turn prefix ratios work with --dataset-name random only (as in vllm-bench)")
		}
	} else {
		for _, name := range []string{"multi-turn-num-turns", "multi-turn-min-turns", "multi-turn-max-turns", "multi-turn-concurrency", "multi-turn-delay-ms", "per-turn-input-len",
			"multi-turn-prefix-global-ratio", "multi-turn-prefix-conversation-ratio"} {
			if f.given[name] {
				return nil, usageError("bench: --%s needs --multi-turn", name)
			}
		}
	}
	switch {
	case f.backend != "openai" && f.backend != "openai-chat" && f.backend != "vllm":
		return nil, usageError("bench: --backend %q: want openai or openai-chat", f.backend)
	case f.endpoint != "" && f.backend == "openai-chat" && !strings.HasSuffix(f.endpoint, "chat/completions"):
		// vLLM's check too; a usage error before anything is sent
		return nil, usageError("bench: --endpoint %s: the openai-chat backend needs a URL ending in chat/completions", f.endpoint)
	case f.endpoint != "" && f.backend != "openai-chat" && !strings.HasSuffix(f.endpoint, "completions"):
		return nil, usageError("bench: --endpoint %s: the %s backend needs a URL ending in completions", f.endpoint, f.backend)
	case !slices.Contains(benchrun.Datasets, f.datasetName):
		return nil, usageError("bench: --dataset-name %q: want one of %s", f.datasetName, strings.Join(benchrun.Datasets, ", "))
	case (f.datasetName == "random" || f.datasetName == "prefix_repetition") && f.datasetPath != "":
		// vLLM refuses it too: the file would be silently ignored
		return nil, usageError("bench: --dataset-path %s with --dataset-name %s: that dataset reads no file (want --dataset-name sharegpt or custom?)", f.datasetPath, f.datasetName)
	case f.datasetName != "random" && f.datasetName != "prefix_repetition" && f.datasetPath == "":
		return nil, usageError("bench: --dataset-name %s needs --dataset-path", f.datasetName)
	case f.customOutputLen == 0 || f.customOutputLen < -1:
		return nil, usageError("bench: --custom-output-len %d: want a positive number, or -1 for each line's output_tokens", f.customOutputLen)
	case f.prefixLen < 0 || f.suffixLen < 0 || f.numPrefixes < 1 || f.prefixOutputLen < 1:
		return nil, usageError("bench: --prefix-repetition-*: lengths must not be negative, prefixes and output at least 1")
	case f.datasetName == "prefix_repetition" && f.prefixLen+f.suffixLen == 0:
		return nil, usageError("bench: --prefix-repetition-prefix-len and --prefix-repetition-suffix-len are both 0: the prompts would be empty")
	case f.datasetName == "random" && (f.randomInputLen == 0 || f.randomOutputLen == 0):
		// the dataset reads 0 as its default (1024, 128): refuse rather than
		// send other lengths than asked
		return nil, usageError("bench: --random-input-len %d, --random-output-len %d: want at least 1 token each", f.randomInputLen, f.randomOutputLen)
	case f.numPrompts <= 0 && f.datasetName != "custom": // custom: 0 takes every line
		return nil, usageError("bench: --num-prompts %d: want at least 1", f.numPrompts)
	case !(f.burstiness > 0):
		return nil, usageError("bench: --burstiness %v: want a positive number", f.burstiness)
	case f.maxConcurrency < 0 || f.numWarmups < 0:
		return nil, usageError("bench: --max-concurrency and --num-warmups must not be negative")
	case f.randomInputLen < 0 || f.randomOutputLen < 0 || f.randomPrefixLen < 0 || f.sharegptOutLen < 0:
		return nil, usageError("bench: token lengths must not be negative")
	case !(f.randomRangeRatio >= 0 && f.randomRangeRatio < 1):
		return nil, usageError("bench: --random-range-ratio %v: want a number in [0, 1)", f.randomRangeRatio)
	case f.seed < 0 || f.seed > math.MaxUint32:
		return nil, usageError("bench: --seed %d: want 0 to 2**32-1", f.seed)
	case f.readyTimeout < 0:
		return nil, usageError("bench: --ready-check-timeout-sec %d: must not be negative", f.readyTimeout)
	case f.requestTimeout <= 0:
		return nil, usageError("bench: --request-timeout %v: want a positive duration", f.requestTimeout)
	case bench.CheckStallTimeout(f.stallTimeout) != nil:
		return nil, usageError("bench: --stall-timeout %v: %v", f.stallTimeout, bench.CheckStallTimeout(f.stallTimeout))
	}
	var err error
	m := metrics.Options{MaxConcurrency: f.maxConcurrency, Burstiness: f.burstiness}
	if !math.IsInf(rate, 1) {
		m.RequestRate = rate
	}
	if m.Metrics, err = metrics.ParseMetrics(f.percentileMetric); err != nil {
		return nil, usageError("%v", err)
	}
	if m.Percentiles, err = metrics.ParsePercentiles(f.metricPercentile); err != nil {
		return nil, usageError("%v", err)
	}
	if m.Goodput, err = metrics.ParseGoodput(f.goodput); err != nil {
		return nil, usageError("%v", err)
	}
	if r.metadata, err = metrics.ParseMetadata(f.metadata); err != nil {
		return nil, usageError("%v", err)
	}
	base := f.baseURL
	if base == "" {
		base = fmt.Sprintf("http://%s:%d", f.host, f.port)
	}
	// vLLM: --model is the id recorded, --served-model-name the name sent
	r.modelID = f.model
	served := f.model
	if f.servedModelName != "" {
		if f.model == "" {
			return nil, usageError("bench: --served-model-name needs --model")
		}
		served = f.servedModelName
	}
	r.opt.Bench = bench.Config{
		BaseURL: strings.TrimRight(base, "/"), Endpoint: f.endpoint, Backend: f.backend, Model: served,
		RequestRate: rate, Burstiness: f.burstiness, MaxConcurrency: f.maxConcurrency, Seed: f.seed,
		IgnoreEOS: f.ignoreEOS, NumWarmups: f.numWarmups, RequestTimeout: f.requestTimeout,
		Metrics: m, KeepText: f.saveDetailed, StallTimeout: f.stallTimeout,
	}
	if f.stallTimeout == 0 {
		r.opt.Bench.StallTimeout = -1 // off (bench.Config's 0 is the default)
	}
	r.opt.Bench.RequestIDPrefix = f.requestIDPrefix
	r.opt.Bench.ExtraBody = f.sampling
	if f.extraBody != "" {
		extra, err := openai.ParseObject(f.extraBody)
		if err != nil {
			return nil, usageError("bench: --extra-body: %v", err)
		}
		// vLLM: {**sampling_params, **extra_body}
		r.opt.Bench.ExtraBody = openai.MergeFields(r.opt.Bench.ExtraBody, extra)
	}
	if f.given["chat-template-kwargs"] && f.datasetName == "custom" && !f.skipChatTemplate {
		// vLLM passes them to apply_chat_template; perflab's renderers take
		// none, so the prompts would silently differ from vLLM's
		return nil, usageError("bench: --chat-template-kwargs with the custom dataset: perflab renders chat templates without arguments; give --skip-chat-template with prompts already templated, or drop it")
	}
	// timed_trace replays its own timestamps unless --no-self-timed
	selfTimed := f.datasetName == "timed_trace" && !f.noSelfTimed
	switch {
	case f.selfTimed && f.noSelfTimed:
		return nil, usageError("bench: --self-timed and --no-self-timed contradict each other")
	case f.selfTimed && f.datasetName != "timed_trace":
		return nil, usageError("bench: --self-timed needs --dataset-name timed_trace (the only dataset with timestamps)")
	case selfTimed && f.given["request-rate"]:
		return nil, usageError("bench: timed_trace sends at the trace's timestamps: drop --request-rate, or add --no-self-timed")
	case f.promptTokenIDs && f.backend == "openai-chat":
		return nil, usageError("bench: --prompt-token-ids sends completions prompts as token ids; the chat backend sends messages")
	case f.datasetName == "timed_trace" && f.backend == "openai-chat":
		return nil, usageError("bench: timed_trace prompts are token ids: use the completions backend (openai)")
	}
	if sweepsRate := f.series.sweepRate != "" || f.series.search == sweep.Rate; sweepsRate {
		switch {
		case f.multiTurn:
			return nil, usageError("bench: --multi-turn paces turns by the replies: a request-rate sweep or search does not apply")
		case selfTimed:
			return nil, usageError("bench: timed_trace sends at the trace's timestamps: a request-rate sweep or search needs --no-self-timed")
		case f.rampStrategy != "":
			return nil, usageError("bench: --ramp-up-strategy sets the rate: drop the request-rate sweep or search")
		}
	}
	if f.rampStrategy == "" && (f.given["ramp-up-start-rps"] || f.given["ramp-up-end-rps"]) {
		// vLLM reads the rates only under --ramp-up-strategy; a pasted
		// line with them alone runs at --request-rate there
		f.warnings = append(f.warnings, "--ramp-up-start-rps and --ramp-up-end-rps have no effect without --ramp-up-strategy (as in vLLM): the rate is --request-rate")
	}
	if f.rampStrategy != "" {
		switch {
		case !f.given["ramp-up-start-rps"] || !f.given["ramp-up-end-rps"]:
			return nil, usageError("bench: ramp-up needs --ramp-up-strategy, --ramp-up-start-rps and --ramp-up-end-rps together")
		case !math.IsInf(rate, 1):
			return nil, usageError("bench: with --ramp-up-strategy leave --request-rate at inf: the ramp sets the rate (as vLLM)")
		case f.multiTurn:
			return nil, usageError("bench: --multi-turn has no request rate to ramp up")
		}
		ru := bench.RampUp{Strategy: f.rampStrategy, StartRPS: f.rampStart, EndRPS: f.rampEnd}
		if err := ru.Validate(); err != nil {
			return nil, usageError("bench: %v", err)
		}
		r.opt.Bench.RampUp = &ru
	}
	if f.given["logprobs"] {
		if f.logprobs < 0 {
			return nil, usageError("bench: --logprobs %d: must not be negative", f.logprobs)
		}
		if f.backend == "openai-chat" {
			// vLLM's chat request sends no logprobs either
			f.warnings = append(f.warnings, "--logprobs has no effect with --backend openai-chat (vLLM's chat request sends none)")
		} else {
			// vLLM's completion body carries "logprobs": N in place of null
			lp := []openai.Field{{Key: "logprobs", Value: json.RawMessage(strconv.Itoa(f.logprobs))}}
			r.opt.Bench.ExtraBody = openai.MergeFields(lp, r.opt.Bench.ExtraBody)
		}
	}
	if r.opt.Bench.Headers, err = benchHeaders(f.header); err != nil {
		return nil, err
	}
	if r.opt.Dataset, err = f.dataset(selfTimed); err != nil {
		return nil, err
	}
	if s := &f.series; !s.noSteady {
		r.opt.Steady = &metrics.SteadyOptions{Threshold: s.steadyThreshold, MinWindowS: s.steadyMinWindow}
	}
	return r, nil
}

// dataset is the dataset the flags ask for.
func (f *benchFlags) dataset(selfTimed bool) (benchrun.Dataset, error) {
	d := benchrun.Dataset{Name: f.datasetName, Path: f.datasetPath, NumPrompts: f.numPrompts, Seed: f.seed,
		DisableShuffle: f.disableShuffle, NoOversample: f.noOversample,
		RandomInputLen: f.randomInputLen, RandomOutputLen: f.randomOutputLen, RandomRangeRatio: f.randomRangeRatio,
		RandomPrefixLen: f.randomPrefixLen, ShareGPTOutputLen: f.sharegptOutLen,
		CustomOutputLen: f.customOutputLen, SkipChatTemplate: f.skipChatTemplate,
		PrefixLen: f.prefixLen, SuffixLen: f.suffixLen, NumPrefixes: f.numPrefixes, PrefixOutputLen: f.prefixOutputLen,
		TraceBlockTokens: f.traceBlock, TraceSecMultiplier: f.traceSecMul, TraceKeyTimestamp: f.traceKeyTS,
		TraceKeyInput: f.traceKeyIn, TraceKeyOutput: f.traceKeyOut, TraceKeyHashIDs: f.traceKeyHash,
		SelfTimed: selfTimed, PromptTokenIDs: f.promptTokenIDs}
	if f.multiTurn {
		d.MultiTurn = &benchrun.MultiTurn{NumTurns: f.mtTurns, MinTurns: f.mtMinTurns, MaxTurns: f.mtMaxTurns,
			PerTurnInputLen: f.perTurnInputLen, GlobalRatio: f.mtGlobalRatio, ConversationRatio: f.mtConvRatio,
			Concurrency: f.mtConcurrency, Delay: time.Duration(f.mtDelayMs) * time.Millisecond}
		if lo, hi := d.MultiTurn.Turns(); hi < lo && f.datasetName == "random" {
			return d, usageError("bench: --multi-turn-max-turns %d is below the minimum %d", hi, lo)
		}
	}
	return d, nil
}

func runBench(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	f, err := parseBenchFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	if len(f.series.compare) > 0 {
		return runCompare(f, stdout) // no server
	}
	r, err := f.validate()
	if err != nil {
		return err
	}
	for _, w := range f.warnings {
		fmt.Fprintln(stderr, "perflab: warning:", w)
	}
	if err := r.prepareSeries(); err != nil {
		return err
	}
	if err := r.connect(ctx, stderr); err != nil {
		return err
	}
	if f.dryRun {
		return r.dryRun(ctx, stdout, stderr)
	}
	if f.series.active() {
		return r.runSeries(ctx, args, stdout, stderr)
	}
	_, err = r.runOnce(ctx, args, stdout, stderr)
	return err
}

// connect waits for the server when asked, finds the model and opens the
// tokenizer.
func (r *benchRun) connect(ctx context.Context, stderr io.Writer) error {
	f := r.f
	var err error
	aux := benchrun.Client(r.opt.Bench.Headers)
	// a dry run with a tokenizer of its own needs no server at all
	own := f.tokenizer != "server" && f.tokenizer != ""
	offline := f.dryRun && own
	r.opt.Offline, r.opt.Log, r.opt.AuxClient = offline, stderr, aux
	// the model list and the server's tokenizer (or its /tokenize for
	// the alignment, see benchrun.Build) are needed before the test
	// request can be built: wait for them first (vllm-bench does too)
	needServer := r.opt.Bench.Model == "" || !own || (!offline && r.opt.Dataset.Alignable())
	if f.readyTimeout > 0 && !offline && needServer {
		if err := benchrun.WaitReady(ctx, aux, r.opt.Bench.BaseURL, time.Duration(f.readyTimeout)*time.Second, time.Second, stderr); err != nil {
			return fmt.Errorf("bench: %w", err)
		}
	}
	if r.opt.Bench.Model == "" && !offline {
		if r.opt.Bench.Model, r.modelID, err = benchrun.FirstModel(ctx, aux, r.opt.Bench.BaseURL); err != nil {
			return fmt.Errorf("bench: %w", err)
		}
	}
	r.opt.Tokenizer, err = openTokenizer(f.tokenizer, r.opt.Bench.BaseURL, r.opt.Bench.Model, aux)
	if err != nil {
		return err
	}
	if !f.disableTqdm && isTerminal(stderr) {
		r.opt.Bench.Progress = stderr
	}
	return nil
}

// dryRun builds the dataset (or the conversations), prints its
// statistics and sends nothing (--dry-run).
func (r *benchRun) dryRun(ctx context.Context, stdout, stderr io.Writer) error {
	w, err := r.workload(ctx)
	if err != nil {
		return err
	}
	samples := w.Samples
	if r.f.multiTurn {
		samples = withHistory(w.Conversations)
	}
	writeDatasetStats(stdout, r.f.datasetName, samples)
	switch {
	case r.f.multiTurn && len(w.Conversations) > 0 && w.Conversations[0].NoHistory:
		fmt.Fprintln(stderr, "perflab: --dry-run --multi-turn: prefix-sharing mode sends no history: a turn's input is its own message (shared parts included), without the chat template's tokens")
	case r.f.multiTurn:
		fmt.Fprintln(stderr, "perflab: --dry-run --multi-turn: a turn's input is its whole history (earlier messages, each reply counted at its max_tokens) and its message, without the chat template's tokens")
	}
	fmt.Fprintln(stderr, "perflab: --dry-run: nothing sent")
	return nil
}

// withHistory is the conversations' turns as samples whose input is what
// the turn sends: every earlier user message and reply (a reply counted
// at its max_tokens, what the server returns with ignore_eos) and its own
// message.
func withHistory(convs []dataset.Conversation) []dataset.Sample {
	var out []dataset.Sample
	for _, c := range convs {
		hist := 0
		for _, t := range c.Turns {
			out = append(out, dataset.Sample{Prompt: t.Content, PromptLen: hist + t.ContentLen, OutputLen: t.OutputLen})
			if !c.NoHistory {
				hist += t.ContentLen + t.OutputLen
			}
		}
	}
	return out
}

// runOnce runs the benchmark once with r's current load, prints its block
// and saves its files. The result comes back whenever the run happened,
// with an error when it was interrupted or every request failed.
func (r *benchRun) runOnce(ctx context.Context, args []string, stdout, stderr io.Writer) (*schema.Result, error) {
	f := r.f
	w, err := r.workload(ctx)
	if err != nil {
		return nil, err
	}
	aux := r.opt.AuxClient
	// after the warmups, as vLLM: the profiler starts (and benchrun.Run
	// reads the server's spec-decode counters)
	profiling := false
	opt := r.opt
	opt.Bench.Log = stderr
	if !r.readyChecked {
		// vLLM's initial test run, once per command (not per sweep point)
		opt.Bench.ReadyTimeout = time.Duration(f.readyTimeout) * time.Second
		r.readyChecked = true
	}
	opt.Bench.AfterWarmup = func(ctx context.Context) error {
		fmt.Fprintln(stderr, "Starting main benchmark run...")
		if f.profile {
			fmt.Fprintln(stderr, "Starting profiler...")
			if err := benchrun.Profiler(ctx, aux, r.opt.Bench.BaseURL, "/start_profile"); err != nil {
				return fmt.Errorf("bench: --profile: %w", err)
			}
			profiling = true
			fmt.Fprintln(stderr, "Profiler started")
		}
		r.writeTraffic(stderr, w.Times != nil) // after the warmups and the profiler, as vLLM
		return nil
	}
	start := time.Now()
	res, runErr := benchrun.Run(ctx, &opt, w)
	numPrompts := r.opt.Dataset.NumPrompts
	if n := len(w.Conversations); res != nil && f.multiTurn && n < numPrompts {
		res.Warnings = append(res.Warnings, fmt.Sprintf("multi-turn: %s has only %d conversations of 2 or more turns: %d ran, not the %d of --num-prompts", f.datasetPath, n, n, numPrompts))
	}
	if profiling {
		if err := benchrun.Profiler(context.WithoutCancel(ctx), aux, r.opt.Bench.BaseURL, "/stop_profile"); err != nil {
			fmt.Fprintln(stderr, "perflab: warning:", fmt.Errorf("bench: --profile: %w", err))
		} else {
			fmt.Fprintln(stderr, "Profiler stopped")
		}
	}
	if res == nil {
		return nil, runErr
	}
	r.describe(res, start, args)
	r.markSeries(res)
	if res.Summary != nil {
		// the text block benchrun.Run wrote
		if _, err := io.WriteString(stdout, res.RawOutput); err != nil {
			return nil, err
		}
	}
	for _, w := range res.Warnings {
		fmt.Fprintln(stderr, "perflab: warning:", w)
	}
	if err := r.save(res, start); err != nil {
		return nil, err
	}
	if runErr != nil {
		return res, runErr
	}
	if s := res.Summary; s != nil && s.Completed == 0 && res.Status != schema.StatusInterrupted {
		// the reports are written; a script should still see the failure
		return res, fmt.Errorf("bench: all %d requests failed", s.Failed)
	}
	if res.Status == schema.StatusInterrupted && len(res.Requests) == 0 {
		return res, fmt.Errorf("bench: interrupted before any of the %d requests finished", numPrompts)
	}
	if res.Status == schema.StatusInterrupted {
		return res, fmt.Errorf("bench: interrupted after %d of %d requests (the finished ones are reported)", len(res.Requests), numPrompts)
	}
	if len(f.series.sloLimits) > 0 && len(f.series.points) == 0 && f.series.search == "" {
		// a single run, or each of --num-runs repeats (a sweep's table
		// and the search judge their points themselves)
		if err := writeSLOCheck(stdout, f.series.sloLimits, res.Summary); err != nil {
			return res, err
		}
	}
	return res, nil
}

// writeTraffic prints vLLM's traffic lines: the rate (or the ramp, or the
// trace's timestamps), the burstiness and the concurrency cap.
func (r *benchRun) writeTraffic(w io.Writer, selfTimed bool) {
	f := r.f
	if selfTimed {
		fmt.Fprintln(w, "Self timing is set, using the timestamps from the trace file.")
		return
	} else if ru := r.opt.Bench.RampUp; ru != nil {
		fmt.Fprintf(w, "Traffic ramp-up strategy: %s.\n", ru.Strategy)
		fmt.Fprintf(w, "Will increase RPS from %d to %d RPS over the duration of the benchmark.\n", ru.StartRPS, ru.EndRPS)
	} else {
		fmt.Fprintf(w, "Traffic request rate: %s\n", pyFloat(r.rate))
	}
	proc := "(Poisson process)"
	if f.burstiness != 1 {
		proc = "(Gamma distribution)"
	}
	fmt.Fprintf(w, "Burstiness factor: %s %s\n", pyFloat(f.burstiness), proc)
	conc := "None"
	if c := r.opt.Bench.MaxConcurrency; c > 0 {
		conc = strconv.Itoa(c)
	}
	fmt.Fprintf(w, "Maximum request concurrency: %s\n", conc)
}

// artifactPath is target's path relative to the directory of the result
// file at result, as schema.Artifact.Path wants it.
func artifactPath(result, target string) (string, error) {
	dir := filepath.Dir(result)
	if rel, err := filepath.Rel(dir, target); err == nil {
		return filepath.ToSlash(rel), nil
	}
	absDir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	absTarget, err := filepath.Abs(target)
	if err != nil {
		return "", err
	}
	rel, err := filepath.Rel(absDir, absTarget)
	if err != nil {
		return "", err
	}
	return filepath.ToSlash(rel), nil
}

// datasetError is err from building the dataset (benchrun.Build): a
// usage error (exit 2) when the dataset file is at fault (missing, bad
// JSON, a bad line) or its settings cannot build it, as vLLM fails before
// sending anything; else a failure (the tokenizer, the server).
func datasetError(err error) error {
	if errors.As(err, new(*dataset.FileError)) || errors.As(err, new(*dataset.SettingsError)) {
		return fmt.Errorf("%w: bench: %w", errUsage, err)
	}
	return fmt.Errorf("bench: %w", err)
}

// describe fills what the command line knows about the run.
func (r *benchRun) describe(res *schema.Result, start time.Time, args []string) {
	f := r.f
	res.ID = "bench-" + start.UTC().Format("20060102-150405")
	res.Label = f.label
	if res.Engine.Name == "" {
		res.Engine.Name = "external"
	}
	res.Model.ID = r.modelID
	if r.opt.Bench.Model != r.modelID {
		res.Model.Served = r.opt.Bench.Model
	}
	res.Model.Tokenizer = f.tokenizer
	res.Load.Command = "perflab bench " + strings.Join(quoteArgs(args), " ")
	if g := r.opt.Bench.Metrics.Goodput; len(g) > 0 {
		res.Load.GoodputSLOMs = g
	}
	if len(r.metadata) > 0 {
		res.Metadata = map[string]string{}
		for _, kv := range r.metadata {
			res.Metadata[kv.Key] = kv.Value
		}
	}
}

// save writes the vLLM JSON (--save-result) and perflab's result JSON. A
// run without a summary (stopped before any request finished) has no vLLM
// JSON, but its perflab JSON is still written, with status and warnings.
func (r *benchRun) save(res *schema.Result, start time.Time) error {
	f := r.f
	out := r.seriesOutputJSON(f.outputJSON)
	if f.saveResult || f.appendResult {
		vllmPath := "" // the vLLM JSON written
		opt := r.opt.Bench.Metrics
		// vLLM's tokenizer_id is --tokenizer or else the model id; the
		// server's /tokenize is the model's own tokenizer.
		tokID := f.tokenizer
		if tokID == "server" || tokID == "" {
			tokID = r.modelID
		}
		h := metrics.VLLMHeader{
			Date: metrics.VLLMDate(start), Backend: r.opt.Bench.Backend, Label: f.label, ModelID: r.modelID,
			TokenizerID: tokID, NumPrompts: r.opt.Dataset.NumPrompts, Metadata: r.metadata, Options: opt,
			PerTurn: res.PerTurn, RPSChanges: res.Load.RPSChanges,
			PrefixGlobalRatio: f.mtGlobalRatio, PrefixConversationRatio: f.mtConvRatio,
			RampUpStrategy: res.Load.RampUpStrategy, RampUpStartRPS: res.Load.RampUpStartRPS, RampUpEndRPS: res.Load.RampUpEndRPS,
		}
		if h.Backend == "" {
			h.Backend = "openai"
		}
		h.SteadyStateKey = true
		name := f.resultFilename
		if name == "" {
			name = metrics.VLLMFileName(h)
		}
		name = r.seriesFileName(name)
		path := filepath.Join(f.resultDir, name)
		record := 1 // with --append-result: this run's line in the JSON-lines file
		if f.resultDir != "" {
			if err := os.MkdirAll(f.resultDir, 0o755); err != nil {
				return fmt.Errorf("bench: %w", err)
			}
		}
		if res.Summary != nil {
			var buf bytes.Buffer
			if err := metrics.WriteVLLMJSON(&buf, res.Requests, res.Summary, h, f.saveDetailed); err != nil {
				return fmt.Errorf("bench: vLLM JSON: %w", err)
			}
			data := buf.Bytes()
			if f.appendResult {
				// vLLM: open "a+", a newline before each appended record
				old, err := os.ReadFile(path)
				if err != nil && !errors.Is(err, os.ErrNotExist) {
					return fmt.Errorf("bench: --append-result: %w", err)
				}
				if len(old) > 0 {
					record = bytes.Count(old, []byte("\n")) + 2
					data = append(append(old, '\n'), data...)
				}
			}
			if err := schema.WriteAtomic(path, data); err != nil {
				return fmt.Errorf("bench: %w", err)
			}
			vllmPath = path
		}
		if out == "" {
			out = strings.TrimSuffix(path, ".json")
			if f.appendResult {
				// one perflab result per appended run, named after its
				// record's line: unique even for runs ending in the same second
				out += fmt.Sprintf("-%d", record)
			}
			out += ".perflab.json"
		}
		if vllmPath != "" {
			// an artifact's path is relative to the result file's
			// directory (--output-json may be elsewhere; --result-filename
			// may hold a folder)
			rel, err := artifactPath(out, vllmPath)
			if err != nil {
				return fmt.Errorf("bench: %w", err)
			}
			res.Artifacts = append(res.Artifacts, schema.Artifact{Kind: "vllm-json", Path: rel})
		}
	}
	if out == "" {
		return nil
	}
	if !f.saveDetailed {
		for i := range res.Requests {
			res.Requests[i].GeneratedText = ""
		}
	}
	if dir := filepath.Dir(out); dir != "." {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("bench: %w", err)
		}
	}
	if err := schema.WriteFile(out, res); err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	return nil
}

// benchHeaders are the headers of every request to the server, as vLLM
// builds them: Authorization from OPENAI_API_KEY, then the --header pairs
// (split at the first "=", trimmed), which may replace it.
func benchHeaders(pairs []string) (map[string]string, error) {
	h := map[string]string{}
	if key := os.Getenv("OPENAI_API_KEY"); key != "" {
		h["Authorization"] = "Bearer " + key
	}
	for _, p := range pairs {
		k, v, ok := strings.Cut(p, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return nil, usageError("bench: --header %q: want KEY=VALUE", p)
		}
		h[http.CanonicalHeaderKey(k)] = strings.TrimSpace(v)
	}
	if len(h) == 0 {
		return nil, nil
	}
	return h, nil
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// pyFloat formats v as Python's str(float) does for the values a flag
// holds ("1.0", "0.5", "inf").
func pyFloat(v float64) string {
	if math.IsInf(v, 1) {
		return "inf"
	}
	s := strconv.FormatFloat(v, 'g', -1, 64)
	if !strings.ContainsAny(s, ".e") {
		s += ".0"
	}
	return s
}

func quoteArgs(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		if a == "" || strings.ContainsAny(a, " \t\"'$\\") {
			a = strconv.Quote(a)
		}
		out[i] = a
	}
	return out
}
