package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/perflab/perflab/collect/mock"
)

// batchingFlags are the flags that select the batching timing model.
var batchingFlags = []string{"preset", "prefill-tok-per-s", "decode-step", "decode-step-per-seq",
	"decode-step-per-ktok", "max-batch", "max-num-seqs", "max-num-batched-tokens", "kv-cache-tokens"}

// runMock serves the simulated engine until ctx ends (SIGINT, SIGTERM).
func runMock(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("mock", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, `usage: perflab mock [flags]

Serve a simulated OpenAI-compatible engine (vLLM's routes and stream shapes).
Timing is fixed (--ttft, --itl) unless a batching flag or --preset is given;
batching flags override the preset's values (default preset: vllm).
Presets: %s. Prints "listening on http://ADDR" once ready.

`, strings.Join(mock.PresetNames(), ", "))
		fs.PrintDefaults()
	}
	var cfg mock.Config
	host := fs.String("host", "127.0.0.1", "address to listen on")
	port := fs.Int("port", 8000, "port to listen on; 0 picks a free one")
	model := fs.String("model", "mock", "model name (path) the engine reports as root")
	served := fs.String("served-model-name", "", "comma-separated names requests may use (default: --model)")
	maxLen := fs.Int("max-model-len", 32768, "context length in tokens")
	seed := fs.Int64("seed", 0, "seed for generated text and fault selection")
	fs.DurationVar(&cfg.StartupDelay, "startup-delay", 0, "answer 503 for this long after start, as an engine loading its model")
	fs.IntVar(&cfg.CrashAfterRequests, "crash-after", 0, "crash (drop connections, exit 1) when the request after this many arrives; 0: never")
	eos := fs.Int("eos-mean-tokens", 256, "mean output length without ignore_eos; 0 or negative: never stop early")

	ttft := fs.Duration("ttft", 20*time.Millisecond, "fixed mode: time to first token")
	itl := fs.Duration("itl", 5*time.Millisecond, "fixed mode: time between tokens")

	preset := fs.String("preset", "", "batching preset: "+strings.Join(mock.PresetNames(), ", "))
	prefill := fs.Float64("prefill-tok-per-s", 0, "batching: prompt tokens processed per second")
	step := fs.Duration("decode-step", 0, "batching: fixed time of one step")
	perSeq := fs.Duration("decode-step-per-seq", 0, "batching: step time added per decoding sequence")
	perKTok := fs.Duration("decode-step-per-ktok", 0, "batching: step time added per 1000 context tokens")
	maxBatch := fs.Int("max-batch", 0, "batching: most running sequences; more wait in FIFO order")
	fs.IntVar(maxBatch, "max-num-seqs", 0, "alias of --max-batch (vLLM's name)")
	budget := fs.Int("max-num-batched-tokens", 0, "batching: token budget of a step (chunked prefill)")
	kv := fs.Int("kv-cache-tokens", 0, "batching: KV cache size in tokens; a sequence holds prompt+max output")

	var f mock.Faults
	fs.Float64Var(&f.ErrorRate, "error-rate", 0, "fraction of requests answered HTTP 500")
	fs.Float64Var(&f.StallRate, "stall-rate", 0, "fraction of streams that stall once")
	fs.DurationVar(&f.Stall, "stall", 0, "length of a stall; 0: until the client gives up")
	fs.Float64Var(&f.CutRate, "cut-rate", 0, "fraction of streams cut without [DONE]")
	fs.Float64Var(&f.GarbageRate, "garbage-rate", 0, "fraction of streams with one malformed JSON event")

	pcache := fs.Bool("enable-prefix-caching", false, "cache prompt blocks: a repeated prefix is not prefilled again (shorter TTFT)")
	pcBlock := fs.Int("block-size", 16, "prefix cache: tokens per block")
	pcBlocks := fs.Int("prefix-cache-blocks", 0, "prefix cache: most blocks kept, least recently used dropped first (0: all)")
	specK := fs.Int("num-speculative-tokens", 0, "report speculative decoding with this many draft tokens per step on /metrics (vllm:spec_decode_*); 0: off")
	specRate := fs.Float64("spec-accept-rate", 0.7, "speculative decoding: probability that a draft token is accepted after an accepted one")

	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return nil
		}
		return usageError("mock: %v", err)
	}
	if fs.NArg() > 0 {
		return usageError("mock: unexpected argument %q", fs.Arg(0))
	}
	set := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })

	cfg.Model, cfg.MaxModelLen, cfg.Seed, cfg.EOSMeanTokens, cfg.Faults = *model, *maxLen, *seed, *eos, f
	if *pcache {
		cfg.PrefixCache = &mock.PrefixCache{BlockTokens: *pcBlock, Blocks: *pcBlocks}
	}
	if *specK > 0 {
		cfg.SpecDecode = &mock.SpecDecode{NumSpecTokens: *specK, AcceptRate: *specRate}
	}
	if *eos == 0 {
		cfg.EOSMeanTokens = -1 // 0 on the command line: never stop early
	}
	if *served != "" {
		for _, n := range strings.Split(*served, ",") {
			cfg.ServedModelNames = append(cfg.ServedModelNames, strings.TrimSpace(n))
		}
	}
	batching := false
	for _, n := range batchingFlags {
		batching = batching || set[n]
	}
	if batching {
		if set["ttft"] || set["itl"] {
			return usageError("mock: --ttft and --itl are the fixed timing mode; they do not mix with --preset or batching flags")
		}
		name := *preset
		if name == "" {
			name = "vllm"
		}
		b, err := mock.Preset(name)
		if err != nil {
			return usageError("%v", err)
		}
		override := func(flagName string, apply func()) {
			if set[flagName] {
				apply()
			}
		}
		override("prefill-tok-per-s", func() { b.PrefillTokPerS = *prefill })
		override("decode-step", func() { b.DecodeStep = *step })
		override("decode-step-per-seq", func() { b.DecodeStepPerSeq = *perSeq })
		override("decode-step-per-ktok", func() { b.DecodeStepPerKTok = *perKTok })
		override("max-batch", func() { b.MaxBatch = *maxBatch })
		override("max-num-seqs", func() { b.MaxBatch = *maxBatch })
		override("max-num-batched-tokens", func() { b.MaxNumBatchedTokens = *budget })
		override("kv-cache-tokens", func() { b.KVCacheTokens = *kv })
		cfg.Batching = &b
	} else {
		cfg.TTFT, cfg.ITL = *ttft, *itl
	}
	if err := cfg.Validate(); err != nil {
		return usageError("%v", err)
	}

	r, err := mock.Listen(ctx, net.JoinHostPort(*host, strconv.Itoa(*port)), cfg)
	if err != nil {
		return err
	}
	if b := cfg.Batching; b != nil {
		fmt.Fprintf(stderr, "mock: batching: prefill %g tok/s, step %v + %v/seq + %v/1k ctx tokens, max batch %d, max batched tokens %d, KV cache %d tokens (0: unlimited)\n",
			b.PrefillTokPerS, b.DecodeStep, b.DecodeStepPerSeq, b.DecodeStepPerKTok, b.MaxBatch, b.MaxNumBatchedTokens, b.KVCacheTokens)
	} else {
		fmt.Fprintf(stderr, "mock: fixed timing: TTFT %v, ITL %v\n", cfg.TTFT, cfg.ITL)
	}
	fmt.Fprintf(stdout, "listening on %s\n", r.URL)
	return r.Wait()
}
