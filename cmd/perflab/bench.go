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
	"strconv"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/perflab/perflab/collect/bench"
	"github.com/perflab/perflab/collect/dataset"
	"github.com/perflab/perflab/collect/metrics"
	"github.com/perflab/perflab/collect/openai"
	"github.com/perflab/perflab/collect/schema"
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
}

// samplingFlags are vLLM's sampling flags, in the order vLLM merges them
// into the request body; each is sent only when given.
var samplingFlags = []struct{ flag, key, help string }{
	{"top-p", "top_p", "top-p sampling parameter (sent only when given)"},
	{"top-k", "top_k", "top-k sampling parameter (sent only when given)"},
	{"min-p", "min_p", "min-p sampling parameter (sent only when given)"},
	{"temperature", "temperature", "sampling temperature (sent only when given: the server's default applies otherwise, as in vLLM's newest bench)"},
	{"frequency-penalty", "frequency_penalty", "frequency penalty (sent only when given)"},
	{"presence-penalty", "presence_penalty", "presence penalty (sent only when given)"},
	{"repetition-penalty", "repetition_penalty", "repetition penalty (sent only when given; completions otherwise send 1.0 as vLLM)"},
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

// multiValue are the flags that take several values in vLLM
// (argparse nargs="+"/"*"): `--goodput ttft:50 tpot:10`.
var multiValue = map[string]bool{"goodput": true, "metadata": true, "header": true, "compare": true, "slo": true}

// joinMultiValue rewrites `--goodput a b --x` into `--goodput a --goodput b
// --x`, so that vLLM's spelling parses with the flag package and each
// value stays one item.
func joinMultiValue(args []string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		name := strings.TrimLeft(a, "-")
		if !strings.HasPrefix(a, "-") || strings.Contains(name, "=") || !multiValue[name] {
			out = append(out, a)
			continue
		}
		n := 0
		for i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
			i++
			n++
			out = append(out, a, args[i])
		}
		if n == 0 {
			out = append(out, a) // the flag package reports the missing value
		}
	}
	return out
}

func parseBenchFlags(args []string, stderr io.Writer) (*benchFlags, error) {
	f := &benchFlags{}
	fs := flag.NewFlagSet("perflab bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: perflab bench [flags]   (the flags of vllm bench serve)")
		fs.PrintDefaults()
	}
	fs.StringVar(&f.baseURL, "base-url", "", "server URL, e.g. http://127.0.0.1:8000 (overrides --host/--port)")
	fs.StringVar(&f.host, "host", "127.0.0.1", "server host")
	fs.IntVar(&f.port, "port", 8000, "server port")
	fs.StringVar(&f.endpoint, "endpoint", "", "API path (default /v1/completions, or /v1/chat/completions for openai-chat)")
	fs.StringVar(&f.backend, "backend", "openai", "openai (completions) or openai-chat")
	fs.StringVar(&f.model, "model", "", "model id (default: the server's first /v1/models entry: its id is sent, its root recorded)")
	fs.StringVar(&f.servedModelName, "served-model-name", "", "model name sent in requests when it differs from --model")
	fs.StringVar(&f.tokenizer, "tokenizer", "server", "tokenizer.json path or model folder, or \"server\" for the server's /tokenize")
	fs.StringVar(&f.datasetName, "dataset-name", "random", "random or sharegpt")
	fs.StringVar(&f.datasetPath, "dataset-path", "", "ShareGPT JSON file")
	fs.IntVar(&f.randomInputLen, "random-input-len", 1024, "random dataset: input tokens per request")
	fs.IntVar(&f.randomOutputLen, "random-output-len", 128, "random dataset: output tokens per request")
	fs.Float64Var(&f.randomRangeRatio, "random-range-ratio", 0, "random dataset: lengths drawn from [len*(1-r), len*(1+r)]")
	fs.IntVar(&f.randomPrefixLen, "random-prefix-len", 0, "random dataset: shared prefix tokens")
	fs.IntVar(&f.sharegptOutLen, "sharegpt-output-len", 0, "sharegpt: fixed output length (0: the conversation's reply length)")
	inputLen := fs.Int("input-len", 0, "alias: --random-input-len (vLLM's general length flag)")
	outputLen := fs.Int("output-len", 0, "alias: --random-output-len and --sharegpt-output-len (vLLM's general length flag)")
	fs.BoolVar(&f.disableShuffle, "disable-shuffle", false, "sharegpt: take the conversations in file order")
	fs.BoolVar(&f.noOversample, "no-oversample", false, "sharegpt: send fewer than --num-prompts requests when too few conversations pass the filters (default: repeat some)")
	fs.IntVar(&f.readyTimeout, "ready-check-timeout-sec", 0, "wait up to this many seconds for the server to answer GET /v1/models before starting (0: no wait, as vLLM's default)")
	fs.BoolVar(&f.disableTqdm, "disable-tqdm", false, "no progress line (it is shown only on a terminal anyway)")
	fs.IntVar(&f.numPrompts, "num-prompts", 1000, "number of requests")
	fs.StringVar(&f.requestRate, "request-rate", "inf", "requests per second, or inf to send all at once")
	fs.Float64Var(&f.burstiness, "burstiness", 1.0, "gamma shape of the arrival gaps (1 = Poisson)")
	fs.IntVar(&f.maxConcurrency, "max-concurrency", 0, "most requests in flight (0 = no cap)")
	fs.Int64Var(&f.seed, "seed", 0, "random seed (dataset and arrivals)")
	fs.BoolVar(&f.ignoreEOS, "ignore-eos", false, "send ignore_eos (forced on for the random dataset, as vLLM does)")
	fs.IntVar(&f.numWarmups, "num-warmups", 0, "warmup requests before the measured run")
	fs.StringVar(&f.percentileMetric, "percentile-metrics", "ttft,tpot,itl", "metrics to report percentiles of: ttft,tpot,itl,e2el,client_queue_time,e2el_including_client_queue")
	fs.StringVar(&f.metricPercentile, "metric-percentiles", "99", "percentiles to report, e.g. 50,90,99")
	fs.Var(&f.goodput, "goodput", "SLOs in ms, e.g. \"ttft:500 tpot:50\" (repeatable)")
	fs.BoolVar(&f.saveResult, "save-result", false, "write vLLM's result JSON (and perflab's beside it)")
	fs.BoolVar(&f.appendResult, "append-result", false, "like --save-result, but append the vLLM JSON as one more line to the file (with --result-filename); each run's perflab JSON gets its own dated name")
	fs.BoolVar(&f.saveDetailed, "save-detailed", false, "with --save-result: include per-request lists and generated texts")
	fs.StringVar(&f.resultDir, "result-dir", "", "folder for --save-result files (default: current)")
	fs.StringVar(&f.resultFilename, "result-filename", "", "file name for --save-result (default: vLLM's naming)")
	fs.StringVar(&f.label, "label", "", "label of the run (default: the backend)")
	fs.Var(&f.metadata, "metadata", "KEY=VALUE pairs recorded with the result (repeatable)")
	fs.StringVar(&f.outputJSON, "output-json", "", "write perflab's result JSON here (default with --save-result: beside the vLLM JSON, .perflab.json)")
	fs.DurationVar(&f.requestTimeout, "request-timeout", 6*time.Hour, "per-request timeout")
	fs.Var(&f.header, "header", "KEY=VALUE headers sent with every request, e.g. x-tenant=a (repeatable; override OPENAI_API_KEY's Authorization)")
	fs.StringVar(&f.extraBody, "extra-body", "", "JSON object merged into every request body, e.g. '{\"chat_template_kwargs\":{\"enable_thinking\":false}}' (wins over the sampling flags)")
	sampling := map[string]*string{}
	for _, sf := range samplingFlags {
		v := new(string)
		sampling[sf.flag] = v
		fs.StringVar(v, sf.flag, "", sf.help)
	}
	fs.StringVar(&f.requestIDPrefix, "request-id-prefix", "", "x-request-id prefix; the request's index follows (default perflab-bench-<8 hex>-)")
	f.series.register(fs)
	if err := fs.Parse(joinMultiValue(args)); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, err
		}
		return nil, usageError("bench: %v", err)
	}
	if fs.NArg() > 0 {
		return nil, usageError("bench: unexpected argument %q", fs.Arg(0))
	}
	set := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	// vLLM maps the general lengths onto the datasets' own flags
	if set["input-len"] {
		f.randomInputLen = *inputLen
	}
	if set["output-len"] {
		f.randomOutputLen, f.sharegptOutLen = *outputLen, *outputLen
	}
	if err := f.series.parse(set); err != nil {
		return nil, err
	}
	for _, sf := range samplingFlags {
		if !set[sf.flag] {
			continue
		}
		v, err := samplingValue(sf.flag, *sampling[sf.flag])
		if err != nil {
			return nil, err
		}
		f.sampling = append(f.sampling, openai.Field{Key: sf.key, Value: v})
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
	f   *benchFlags
	cfg bench.Config
	// modelID is the model recorded (vLLM's model_id: --model, or the
	// first served model's root); cfg.Model the name sent.
	modelID  string
	rate     float64
	metadata []metrics.KeyValue
	tok      dataset.Tokenizer
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
	switch {
	case f.backend != "openai" && f.backend != "openai-chat" && f.backend != "vllm":
		return nil, usageError("bench: --backend %q: want openai or openai-chat", f.backend)
	case f.datasetName != "random" && f.datasetName != "sharegpt":
		return nil, usageError("bench: --dataset-name %q: want random or sharegpt", f.datasetName)
	case f.datasetName == "random" && f.datasetPath != "":
		// vLLM refuses it too: the file would be silently ignored
		return nil, usageError("bench: --dataset-path %s with --dataset-name random: the random dataset reads no file (want --dataset-name sharegpt?)", f.datasetPath)
	case f.datasetName == "sharegpt" && f.datasetPath == "":
		return nil, usageError("bench: --dataset-name sharegpt needs --dataset-path")
	case f.numPrompts <= 0:
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
	ignoreEOS := f.ignoreEOS || f.datasetName == "random" // vLLM forces it for random
	// vLLM: --model is the id recorded, --served-model-name the name sent
	r.modelID = f.model
	served := f.model
	if f.servedModelName != "" {
		if f.model == "" {
			return nil, usageError("bench: --served-model-name needs --model")
		}
		served = f.servedModelName
	}
	r.cfg = bench.Config{
		BaseURL: strings.TrimRight(base, "/"), Endpoint: f.endpoint, Backend: f.backend, Model: served,
		RequestRate: rate, Burstiness: f.burstiness, MaxConcurrency: f.maxConcurrency, Seed: f.seed,
		IgnoreEOS: ignoreEOS, NumWarmups: f.numWarmups, RequestTimeout: f.requestTimeout,
		Metrics: m, KeepText: f.saveDetailed,
	}
	r.cfg.RequestIDPrefix = f.requestIDPrefix
	r.cfg.ExtraBody = f.sampling
	if f.extraBody != "" {
		extra, err := openai.ParseObject(f.extraBody)
		if err != nil {
			return nil, usageError("bench: --extra-body: %v", err)
		}
		// vLLM: {**sampling_params, **extra_body}
		r.cfg.ExtraBody = openai.MergeFields(r.cfg.ExtraBody, extra)
	}
	if r.cfg.Headers, err = benchHeaders(f.header); err != nil {
		return nil, err
	}
	return r, nil
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
	if err := r.prepareSeries(); err != nil {
		return err
	}
	if err := r.connect(ctx, stderr); err != nil {
		return err
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
	aux := auxClient(r.cfg.Headers)
	if f.readyTimeout > 0 {
		if err := waitReady(ctx, aux, r.cfg.BaseURL, time.Duration(f.readyTimeout)*time.Second, time.Second, stderr); err != nil {
			return err
		}
	}
	if r.cfg.Model == "" {
		if r.cfg.Model, r.modelID, err = firstModel(ctx, aux, r.cfg.BaseURL); err != nil {
			return err
		}
	}
	r.tok, err = openTokenizer(f.tokenizer, r.cfg.BaseURL, r.cfg.Model, aux)
	if err != nil {
		return err
	}
	r.cfg.CountText = countWith(r.tok)
	if !f.disableTqdm && isTerminal(stderr) {
		r.cfg.Progress = stderr
	}
	return nil
}

// runOnce runs the benchmark once with r's current load, prints its block
// and saves its files. The result comes back whenever the run happened,
// with an error when it was interrupted or every request failed.
func (r *benchRun) runOnce(ctx context.Context, args []string, stdout, stderr io.Writer) (*schema.Result, error) {
	f := r.f
	var err error
	if r.cfg.Samples, err = r.cachedSamples(ctx); err != nil {
		return nil, err
	}
	fmt.Fprintf(stderr, "Traffic request rate: %s\n", pyFloat(r.rate))
	proc := "(Poisson process)"
	if f.burstiness != 1 {
		proc = "(Gamma distribution)"
	}
	fmt.Fprintf(stderr, "Burstiness factor: %s %s\n", pyFloat(f.burstiness), proc)
	conc := "None"
	if f.maxConcurrency > 0 {
		conc = strconv.Itoa(f.maxConcurrency)
	}
	fmt.Fprintf(stderr, "Maximum request concurrency: %s\n", conc)

	start := time.Now()
	res, runErr := bench.Run(ctx, r.cfg)
	if res == nil {
		return nil, runErr
	}
	r.describe(res, start, args)
	r.markSeries(res)
	var text bytes.Buffer
	if res.Summary != nil {
		if err := r.steadyState(res); err != nil {
			return nil, err
		}
		if err := metrics.WriteFailures(&text, res.Requests); err != nil {
			return nil, err
		}
		if err := metrics.WriteText(&text, res.Summary, r.cfg.Metrics); err != nil {
			return nil, err
		}
		if err := metrics.WriteSteadyText(&text, res.Summary.SteadyState, r.cfg.MaxConcurrency); err != nil {
			return nil, err
		}
		res.RawOutput = text.String()
		if _, err := stdout.Write(text.Bytes()); err != nil {
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
		return res, fmt.Errorf("bench: interrupted before any of the %d requests finished", f.numPrompts)
	}
	if res.Status == schema.StatusInterrupted {
		return res, fmt.Errorf("bench: interrupted after %d of %d requests (the finished ones are reported)", len(res.Requests), f.numPrompts)
	}
	if len(f.series.sloLimits) > 0 && !f.series.active() {
		if err := writeSLOCheck(stdout, f.series.sloLimits, res.Summary); err != nil {
			return res, err
		}
	}
	return res, nil
}

// countWith counts a generated text's tokens without special tokens, as
// vLLM does for a request whose server sent no usage.
func countWith(tok dataset.Tokenizer) func(context.Context, string) (int, error) {
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

// samples builds the dataset.
func (r *benchRun) samples(ctx context.Context, tok dataset.Tokenizer) ([]dataset.Sample, error) {
	f := r.f
	var s []dataset.Sample
	var err error
	if f.datasetName == "sharegpt" {
		s, err = dataset.ShareGPT(ctx, tok, f.datasetPath, dataset.ShareGPTConfig{NumPrompts: f.numPrompts,
			OutputLen: f.sharegptOutLen, Seed: f.seed, DisableShuffle: f.disableShuffle, NoOversample: f.noOversample})
	} else {
		s, err = dataset.RandomContext(ctx, tok, dataset.RandomConfig{
			NumPrompts: f.numPrompts, InputLen: f.randomInputLen, OutputLen: f.randomOutputLen,
			RangeRatio: f.randomRangeRatio, PrefixLen: f.randomPrefixLen, Seed: f.seed,
		})
	}
	if err != nil {
		return nil, fmt.Errorf("bench: dataset %s: %w", f.datasetName, err)
	}
	if len(s) == 0 {
		return nil, fmt.Errorf("bench: dataset %s: no samples", f.datasetName)
	}
	return s, nil
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
	if r.cfg.Model != r.modelID {
		res.Model.Served = r.cfg.Model
	}
	res.Model.Tokenizer = f.tokenizer
	res.Load.Dataset = f.datasetName
	res.Load.DatasetPath = f.datasetPath
	if f.datasetName == "random" {
		res.Load.InputLen, res.Load.OutputLen = f.randomInputLen, f.randomOutputLen
		res.Load.RangeRatio, res.Load.PrefixLen = f.randomRangeRatio, f.randomPrefixLen
	} else {
		res.Load.OutputLen = f.sharegptOutLen
	}
	res.Load.Command = "perflab bench " + strings.Join(quoteArgs(args), " ")
	if g := r.cfg.Metrics.Goodput; len(g) > 0 {
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
		opt := r.cfg.Metrics
		// vLLM's tokenizer_id is --tokenizer or else the model id; the
		// server's /tokenize is the model's own tokenizer.
		tokID := f.tokenizer
		if tokID == "server" || tokID == "" {
			tokID = r.modelID
		}
		h := metrics.VLLMHeader{
			Date: metrics.VLLMDate(start), Backend: r.cfg.Backend, Label: f.label, ModelID: r.modelID,
			TokenizerID: tokID, NumPrompts: f.numPrompts, Metadata: r.metadata, Options: opt,
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
			res.Artifacts = append(res.Artifacts, schema.Artifact{Kind: "vllm-json", Path: name})
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

// headerTransport adds fixed headers to each request: the model list and
// the server tokenizer need the same key as the benchmark requests.
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

// auxClient is the client for the requests around the benchmark
// (/v1/models, /tokenize): the run's headers, a 60 s timeout.
func auxClient(headers map[string]string) *http.Client {
	c := &http.Client{Timeout: 60 * time.Second}
	if len(headers) > 0 {
		c.Transport = headerTransport{base: http.DefaultTransport, headers: headers}
	}
	return c
}

// waitReady polls GET base/v1/models every poll until it answers 200 (an
// engine still loading answers 503 or refuses connections), for at most
// timeout: --ready-check-timeout-sec, for scripts that start the server
// and the benchmark together.
func waitReady(ctx context.Context, client *http.Client, base string, timeout, poll time.Duration, stderr io.Writer) error {
	fmt.Fprintf(stderr, "Waiting for %s to become ready (up to %v)...\n", base, timeout)
	deadline := time.Now().Add(timeout)
	var last string
	for {
		rctx, cancel := context.WithTimeout(ctx, poll)
		req, err := http.NewRequestWithContext(rctx, http.MethodGet, base+"/v1/models", nil)
		if err != nil {
			cancel()
			return fmt.Errorf("bench: ready check: %w", err)
		}
		resp, err := client.Do(req)
		if err == nil {
			_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				cancel()
				fmt.Fprintln(stderr, "Endpoint is ready.")
				return nil
			}
			last = resp.Status
		} else {
			last = err.Error()
		}
		<-rctx.Done()
		cancel()
		if ctx.Err() != nil {
			return fmt.Errorf("bench: ready check: %w", ctx.Err())
		}
		if !time.Now().Before(deadline) {
			return fmt.Errorf("bench: %s not ready after %v (last: %s)", base, timeout, last)
		}
	}
}

// firstModel asks the server for its first model, as vLLM does when
// --model is not given: the name to send (its id) and the model id to
// record (its root, the model path behind a --served-model-name; the id
// when the server gives no root).
func firstModel(ctx context.Context, client *http.Client, base string) (name, id string, err error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/v1/models", nil)
	if err != nil {
		return "", "", fmt.Errorf("bench: model list: %w", err)
	}
	resp, err := client.Do(req)
	if err != nil {
		return "", "", fmt.Errorf("bench: no --model given and the model list failed: %w", err)
	}
	defer resp.Body.Close()
	var list struct {
		Data []struct {
			ID   string `json:"id"`
			Root string `json:"root"`
		} `json:"data"`
	}
	if resp.StatusCode != http.StatusOK {
		return "", "", fmt.Errorf("bench: no --model given and GET %s/v1/models: %s", base, resp.Status)
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 16<<20)).Decode(&list); err != nil || len(list.Data) == 0 || list.Data[0].ID == "" {
		return "", "", fmt.Errorf("bench: no --model given and GET %s/v1/models lists no model (%v)", base, err)
	}
	m := list.Data[0]
	if m.Root == "" {
		m.Root = m.ID
	}
	return m.ID, m.Root, nil
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
