package mock

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"
)

// Config describes one simulated engine. The zero value is a valid engine:
// model "mock", fixed timing with no delays, no faults.
type Config struct {
	// Model is the model path the engine "loaded" (vLLM's positional
	// MODEL); /v1/models reports it as root. Empty means "mock".
	Model string
	// ServedModelNames are the names requests may use (vLLM's
	// --served-model-name). Empty means just Model. Requests with any
	// other model get 404; requests without a model use the first name.
	ServedModelNames []string
	// MaxModelLen is the context length: prompt + max_tokens beyond it is
	// a 400, and the default max_tokens is what is left of it. 0 means 32768.
	MaxModelLen int
	// Seed picks the generated text and which requests get faults. Runs
	// with the same seed and the same request order are identical.
	Seed int64

	// TTFT and ITL are the fixed timing mode (used when Batching is nil):
	// the first token event is written TTFT after the request arrived and
	// token k (from 0) at arrival + TTFT + k*ITL, on absolute deadlines so
	// that lateness never accumulates. Zero means no delay.
	TTFT, ITL time.Duration
	// Batching, when set, replaces the fixed timing with a simulated
	// continuous-batching engine shared by all requests.
	Batching *Batching

	// EOSMeanTokens is the mean length at which a request without
	// ignore_eos stops by itself (finish_reason "stop"); the natural length
	// is uniform in [1, 2*mean-1], fixed per prompt and seed. 0 means 256;
	// negative means never stop early.
	EOSMeanTokens int

	// Faults injects failures into a deterministic subset of requests.
	Faults Faults

	// StartupDelay makes the engine "load" for this long after New: until
	// then every route answers 503 (as SGLang and TensorRT-LLM do while
	// starting), so clients' wait-until-healthy loops can be tested.
	StartupDelay time.Duration
	// CrashAfterRequests, when positive, makes the engine crash when the
	// request after that many generation requests arrives: every
	// connection is dropped, in-flight streams end without [DONE], and
	// Running.Wait returns ErrCrashed (the command exits 1).
	CrashAfterRequests int

	// PrefixCache, when set, reuses the KV cache of prompt blocks seen
	// before: hits shorten the prefill, so TTFT.
	PrefixCache *PrefixCache
	// SpecDecode, when set, reports speculative decoding counters.
	SpecDecode *SpecDecode
}

// Batching is the continuous-batching timing model. One scheduler runs
// steps back to back while there is work. Each step (as vLLM V1 does):
//
//  1. every running sequence that has finished its prefill decodes one
//     token (one unit of the step's token budget each);
//  2. running sequences still in prefill get the next chunk of their
//     prompt, in admission order, within the remaining budget;
//  3. waiting requests are admitted first come first served while fewer
//     than MaxBatch run, budget is left and the KV cache has room for the
//     request's prompt and max output; each starts its prefill.
//
// The step lasts DecodeStep + DecodeStepPerSeq*decoding +
// DecodeStepPerKTok*contextTokens/1000 + prefillTokens/PrefillTokPerS,
// where contextTokens sums prompt and generated tokens of the decoding
// sequences. At the end of the step each decoding sequence emits a token,
// and a sequence whose prefill completed emits its first token. So a
// bigger batch raises throughput (tokens per step) and TPOT (step time),
// long prompts delay everyone's next token, and requests beyond MaxBatch
// queue.
//
// Zero values mean "free" or "unlimited": a zero Batching is an engine
// with instant steps and no batch limit.
type Batching struct {
	// PrefillTokPerS is the prompt processing rate (0 = instant).
	PrefillTokPerS float64
	// DecodeStep is the fixed cost of one step.
	DecodeStep time.Duration
	// DecodeStepPerSeq is added per decoding sequence in the step.
	DecodeStepPerSeq time.Duration
	// DecodeStepPerKTok is added per 1000 tokens of context of the
	// decoding sequences (attention reads the KV cache).
	DecodeStepPerKTok time.Duration
	// MaxBatch is the most sequences running at once (vLLM
	// --max-num-seqs); the rest wait in FIFO order. 0 = unlimited.
	MaxBatch int
	// MaxNumBatchedTokens is the token budget of one step (vLLM
	// --max-num-batched-tokens); prompts longer than what is left are
	// prefilled in chunks over several steps. 0 = unlimited: a prompt is
	// prefilled in one step however long it is.
	MaxNumBatchedTokens int
	// KVCacheTokens is the KV cache size in tokens. A running sequence
	// reserves prompt + output tokens for its lifetime (no preemption), so
	// long prompts shrink the batch. 0 = unlimited.
	KVCacheTokens int
}

// Faults are failure rates, each a fraction of generation requests in
// [0, 1]; together at most 1. Which requests fail is decided by Config.Seed
// and the request's arrival number (the n-th generation request the server
// received), so a run that sends requests in the same order gets the same
// faults. Where in a stream a fault strikes is chosen the same way.
type Faults struct {
	// ErrorRate answers HTTP 500 with an OpenAI error body at once.
	ErrorRate float64
	// StallRate pauses the stream before one of its tokens for Stall
	// (0 = until the client gives up or the server closes). In fixed
	// mode the later tokens keep their spacing after the pause; in
	// batching mode the engine goes on generating, so the tokens made
	// meanwhile arrive together when the stream resumes.
	StallRate float64
	Stall     time.Duration
	// CutRate closes the connection after one of the tokens, without
	// [DONE] and without the HTTP chunked terminator.
	CutRate float64
	// GarbageRate writes one malformed JSON event before one of the
	// tokens and then goes on normally.
	GarbageRate float64
}

func (c Config) maxModelLen() int {
	if c.MaxModelLen <= 0 {
		return 32768
	}
	return c.MaxModelLen
}

func (c Config) model() string {
	if c.Model == "" {
		return "mock"
	}
	return c.Model
}

func (c Config) servedNames() []string {
	if len(c.ServedModelNames) == 0 {
		return []string{c.model()}
	}
	return c.ServedModelNames
}

func (c Config) eosMean() int {
	if c.EOSMeanTokens == 0 {
		return 256
	}
	return c.EOSMeanTokens
}

// Validate reports the first bad field of c, by its name.
func (c Config) Validate() error {
	if c.MaxModelLen < 0 {
		return fmt.Errorf("mock: config: MaxModelLen %d is negative", c.MaxModelLen)
	}
	for _, n := range c.ServedModelNames {
		if n == "" {
			return errors.New("mock: config: ServedModelNames holds an empty name")
		}
	}
	if c.StartupDelay < 0 || c.CrashAfterRequests < 0 {
		return errors.New("mock: config: StartupDelay and CrashAfterRequests must not be negative")
	}
	if c.TTFT < 0 || c.ITL < 0 {
		return fmt.Errorf("mock: config: TTFT %v and ITL %v must not be negative", c.TTFT, c.ITL)
	}
	if b := c.Batching; b != nil {
		if err := b.Validate(); err != nil {
			return err
		}
		if c.TTFT != 0 || c.ITL != 0 {
			return errors.New("mock: config: TTFT and ITL belong to the fixed timing mode; set them or Batching, not both")
		}
	}
	if err := validateFeatures(c); err != nil {
		return err
	}
	return c.Faults.Validate()
}

// Validate reports the first bad field of b, by its name.
func (b Batching) Validate() error {
	switch {
	case b.PrefillTokPerS < 0:
		return fmt.Errorf("mock: batching: PrefillTokPerS %g is negative", b.PrefillTokPerS)
	case b.DecodeStep < 0 || b.DecodeStepPerSeq < 0 || b.DecodeStepPerKTok < 0:
		return errors.New("mock: batching: DecodeStep, DecodeStepPerSeq and DecodeStepPerKTok must not be negative")
	case b.MaxBatch < 0:
		return fmt.Errorf("mock: batching: MaxBatch %d is negative", b.MaxBatch)
	case b.MaxNumBatchedTokens < 0:
		return fmt.Errorf("mock: batching: MaxNumBatchedTokens %d is negative", b.MaxNumBatchedTokens)
	case b.KVCacheTokens < 0:
		return fmt.Errorf("mock: batching: KVCacheTokens %d is negative", b.KVCacheTokens)
	case b.MaxNumBatchedTokens > 0 && (b.MaxBatch == 0 || b.MaxNumBatchedTokens < b.MaxBatch):
		// As vLLM: every running sequence must be able to decode in a step.
		return fmt.Errorf("mock: batching: MaxNumBatchedTokens %d must be at least MaxBatch %d (and MaxBatch set)", b.MaxNumBatchedTokens, b.MaxBatch)
	}
	return nil
}

// Validate reports the first bad rate of f.
func (f Faults) Validate() error {
	rates := []struct {
		name string
		v    float64
	}{{"ErrorRate", f.ErrorRate}, {"StallRate", f.StallRate}, {"CutRate", f.CutRate}, {"GarbageRate", f.GarbageRate}}
	sum := 0.0
	for _, r := range rates {
		if !(r.v >= 0 && r.v <= 1) {
			return fmt.Errorf("mock: faults: %s %g is outside [0, 1]", r.name, r.v)
		}
		sum += r.v
	}
	if sum > 1+1e-9 {
		return fmt.Errorf("mock: faults: rates add up to %g, more than 1", sum)
	}
	if f.Stall < 0 {
		return fmt.Errorf("mock: faults: Stall %v is negative", f.Stall)
	}
	return nil
}

// Preset returns the batching parameters of a named configuration. They
// stand for an 8B-class model on one H100-class GPU served by engines of
// different character, so a demo campaign shows believable, different
// numbers; they are not measurements of those engines.
//
//	name    prefill tok/s  step  +per seq  +per 1k ctx  max batch  batched tokens  KV tokens
//	vllm    30000          8ms   60µs      20µs         256        8192            400000
//	sglang  33000          7ms   55µs      18µs         384        8192            420000
//	trtllm  38000          6ms   50µs      16µs         512        8192            450000
//
// (An 8B model with grouped-query attention stores about 128 KiB of KV
// cache per token, so 400,000 tokens is about 50 GiB.)
//
// At one stream that is about 8 ms per token (125 tok/s); a full vllm
// batch of 256 sequences with 1k-token contexts steps in about 29 ms
// (about 8,800 output tok/s).
func Preset(name string) (Batching, error) {
	switch name {
	case "vllm":
		return Batching{PrefillTokPerS: 30000, DecodeStep: 8 * time.Millisecond, DecodeStepPerSeq: 60 * time.Microsecond,
			DecodeStepPerKTok: 20 * time.Microsecond, MaxBatch: 256, MaxNumBatchedTokens: 8192, KVCacheTokens: 400000}, nil
	case "sglang":
		return Batching{PrefillTokPerS: 33000, DecodeStep: 7 * time.Millisecond, DecodeStepPerSeq: 55 * time.Microsecond,
			DecodeStepPerKTok: 18 * time.Microsecond, MaxBatch: 384, MaxNumBatchedTokens: 8192, KVCacheTokens: 420000}, nil
	case "trtllm":
		return Batching{PrefillTokPerS: 38000, DecodeStep: 6 * time.Millisecond, DecodeStepPerSeq: 50 * time.Microsecond,
			DecodeStepPerKTok: 16 * time.Microsecond, MaxBatch: 512, MaxNumBatchedTokens: 8192, KVCacheTokens: 450000}, nil
	}
	return Batching{}, fmt.Errorf("mock: unknown preset %q (known: %s)", name, strings.Join(PresetNames(), ", "))
}

// PresetNames lists the presets Preset knows, sorted.
func PresetNames() []string {
	n := []string{"vllm", "sglang", "trtllm"}
	sort.Strings(n)
	return n
}
