package dataset

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
)

// TimedTraceConfig mirrors vLLM's --timed-trace-* flags.
type TimedTraceConfig struct {
	// NumPrompts caps the rows replayed (0: all), in file order.
	NumPrompts int
	// BlockTokens is --timed-trace-chunk-hash-size: tokens per hash id
	// (0: 16; Mooncake's traces use 512).
	BlockTokens int
	// SecMultiplier is --timed-trace-sec-multiplier: seconds per
	// timestamp unit (0: 1; 0.001 for milliseconds).
	SecMultiplier float64
	// Keys name the JSON fields (--timed-trace-label-*); "" means
	// timestamp, input_length, output_length, hash_ids.
	KeyTimestamp, KeyInput, KeyOutput, KeyHashIDs string
}

// Trace is a replayed trace: the samples, each prompt's token ids (the
// prompt text is their decoding), and each request's release time in
// seconds from the first row's timestamp.
type Trace struct {
	Samples []Sample
	IDs     [][]int
	AtS     []float64
}

// TimedTrace reads a Mooncake-style JSONL trace, one request per line:
// {"timestamp": 27482, "input_length": 6955, "output_length": 52,
// "hash_ids": [46, 47, …]}. As vllm-bench's timed_trace, each hash id
// expands to a block of BlockTokens pseudo-random token ids fixed by
// (hash id, block size), the last block cut so the prompt has exactly
// input_length tokens (fewer when the trace gives too few hash ids), so
// requests sharing leading hash ids share their leading tokens and a
// server's prefix cache hits as it did when the trace was recorded. Our
// blocks are drawn with our own generator: the same trace gives the same
// prompts here on every run, not vllm-bench's tokens.
func TimedTrace(ctx context.Context, tok Tokenizer, path string, cfg TimedTraceConfig) (*Trace, error) {
	if cfg.BlockTokens == 0 {
		cfg.BlockTokens = 16
	}
	if cfg.SecMultiplier == 0 {
		cfg.SecMultiplier = 1
	}
	def := func(s *string, d string) {
		if *s == "" {
			*s = d
		}
	}
	def(&cfg.KeyTimestamp, "timestamp")
	def(&cfg.KeyInput, "input_length")
	def(&cfg.KeyOutput, "output_length")
	def(&cfg.KeyHashIDs, "hash_ids")
	if cfg.BlockTokens < 1 || !(cfg.SecMultiplier > 0) {
		return nil, fmt.Errorf("dataset: timed_trace: block tokens %d and seconds multiplier %v must be positive", cfg.BlockTokens, cfg.SecMultiplier)
	}
	vocab := tok.VocabSize()
	if vocab <= 0 {
		return nil, fmt.Errorf("dataset: timed_trace: %w (give --tokenizer PATH to a tokenizer.json)", errNoVocab)
	}
	allowed := allowedIDs(tok, vocab)
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fileErr(fmt.Errorf("dataset: timed_trace: %w", err))
	}
	type key struct{ hash, size int64 }
	blocks := map[key][]int{}
	tr := &Trace{}
	var t0 float64
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, len(data)+1)
	for line := 1; sc.Scan(); line++ {
		if cfg.NumPrompts > 0 && len(tr.Samples) >= cfg.NumPrompts {
			break
		}
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("dataset: timed_trace: %w", err)
		}
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		var row map[string]json.RawMessage
		if err := json.Unmarshal(b, &row); err != nil {
			return nil, fileErr(fmt.Errorf("dataset: timed_trace: %s:%d: not a JSON object: %v", path, line, err))
		}
		field := func(name, flag string, v any) error {
			raw, ok := row[name]
			if !ok {
				keys := make([]string, 0, len(row))
				for k := range row {
					keys = append(keys, k)
				}
				return fileErr(fmt.Errorf("dataset: timed_trace: %s:%d: no field %q (the line has %s; --%s names it)", path, line, name, strings.Join(keys, ", "), flag))
			}
			if err := json.Unmarshal(raw, v); err != nil {
				return fileErr(fmt.Errorf("dataset: timed_trace: %s:%d: field %q: %v", path, line, name, err))
			}
			return nil
		}
		var ts float64
		var in, out int
		var hashes []int64
		if err := field(cfg.KeyTimestamp, "timed-trace-label-timestamp", &ts); err != nil {
			return nil, err
		}
		if err := field(cfg.KeyInput, "timed-trace-label-input-length", &in); err != nil {
			return nil, err
		}
		if err := field(cfg.KeyOutput, "timed-trace-label-output-length", &out); err != nil {
			return nil, err
		}
		if _, ok := row[cfg.KeyHashIDs]; ok { // absent: an empty prompt, as vLLM
			if err := field(cfg.KeyHashIDs, "timed-trace-label-hash-ids", &hashes); err != nil {
				return nil, err
			}
		}
		if in < 0 || out < 1 {
			return nil, fileErr(fmt.Errorf("dataset: timed_trace: %s:%d: input length %d and output length %d: want >= 0 and >= 1", path, line, in, out))
		}
		// The prompt is at most the blocks its hash ids name: a trace's
		// input_length (1e14, say) must not size the allocation.
		size := in
		if h := len(hashes); h <= in/cfg.BlockTokens { // h*BlockTokens ≤ in: no overflow
			size = h * cfg.BlockTokens
		}
		ids := make([]int, 0, size)
		left := in
		for _, h := range hashes {
			if left == 0 {
				break
			}
			size := min(left, cfg.BlockTokens)
			k := key{h, int64(size)}
			blk, ok := blocks[k]
			if !ok {
				rng := rand.New(rand.NewPCG(uint64(h)*0x9e3779b97f4a7c15, uint64(size)))
				blk = make([]int, size)
				for i := range blk {
					blk[i] = allowed[rng.IntN(len(allowed))]
				}
				blocks[k] = blk
			}
			ids = append(ids, blk...)
			left -= size
		}
		if len(ids) == 0 {
			return nil, fileErr(fmt.Errorf("dataset: timed_trace: %s:%d: an empty prompt (no %q)", path, line, cfg.KeyHashIDs))
		}
		text, err := tok.Decode(ids)
		if err != nil {
			return nil, fmt.Errorf("dataset: timed_trace: %s:%d: %w", path, line, err)
		}
		at := ts * cfg.SecMultiplier
		if len(tr.Samples) == 0 {
			t0 = at
		}
		if at < t0 {
			return nil, fileErr(fmt.Errorf("dataset: timed_trace: %s:%d: timestamp %v is before the first line's: the trace must be in time order", path, line, ts))
		}
		tr.Samples = append(tr.Samples, Sample{Prompt: text, PromptLen: len(ids), OutputLen: out})
		tr.IDs = append(tr.IDs, ids)
		tr.AtS = append(tr.AtS, at-t0)
	}
	if len(tr.Samples) == 0 {
		return nil, fileErr(fmt.Errorf("dataset: timed_trace: %s: no lines", path))
	}
	return tr, nil
}
