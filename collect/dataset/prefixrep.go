package dataset

import (
	"context"
	"fmt"
)

// PrefixRepetitionConfig mirrors vLLM's --prefix-repetition-* flags. Zero
// values mean vLLM's defaults, except for the two lengths: a prefix or a
// suffix of 0 tokens is a workload of its own (all prompts of a group
// the same, or no shared prefix).
type PrefixRepetitionConfig struct {
	// NumPrompts is --num-prompts (0: 1000); NumPrompts / NumPrefixes
	// prompts are built per prefix (the remainder is not sent, as vLLM).
	NumPrompts int
	PrefixLen  int // --prefix-repetition-prefix-len (vLLM's default: 256)
	SuffixLen  int // --prefix-repetition-suffix-len (vLLM's default: 256)
	// NumPrefixes is --prefix-repetition-num-prefixes (0: 10).
	NumPrefixes int
	OutputLen   int // --prefix-repetition-output-len (0: 128)
	// Seed is --seed: numpy's legacy global generator draws the tokens,
	// Python's random shuffles the prompts, both seeded with it.
	Seed int64
	// DisableShuffle is --disable-shuffle: prompts grouped by prefix.
	DisableShuffle bool
}

// PrefixRepetition builds vLLM's prefix_repetition dataset
// (PrefixRepetitionRandomDataset): NumPrefixes prefixes of PrefixLen
// random tokens, each followed by NumPrompts/NumPrefixes suffixes of
// SuffixLen random tokens; each part is drawn with
// np.random.randint(0, vocab_size) and made to decode and re-encode to
// its exact length (vLLM's gen_prompt_decode_to_target_len, padding from
// the same generator; past vLLM's 10 rounds we keep going until exact, as
// Random does). The prompt is decode(prefix + suffix), PromptLen their
// token count, and the list is shuffled with Python's random.shuffle.
// Prompts sharing a prefix share its first PrefixLen tokens: a server's
// prefix cache hits on all but the first of each group.
func PrefixRepetition(ctx context.Context, tok Tokenizer, cfg PrefixRepetitionConfig) ([]Sample, error) {
	def := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	def(&cfg.NumPrompts, 1000)
	def(&cfg.NumPrefixes, 10)
	def(&cfg.OutputLen, DefaultOutputLen)
	switch {
	case cfg.NumPrompts < 0 || cfg.PrefixLen < 0 || cfg.SuffixLen < 0 || cfg.NumPrefixes < 0 || cfg.OutputLen < 0:
		return nil, fmt.Errorf("dataset: prefix_repetition: --num-prompts %d, prefix len %d, suffix len %d, %d prefixes, output len %d: none may be negative",
			cfg.NumPrompts, cfg.PrefixLen, cfg.SuffixLen, cfg.NumPrefixes, cfg.OutputLen)
	case cfg.PrefixLen+cfg.SuffixLen == 0:
		return nil, fmt.Errorf("dataset: prefix_repetition: prefix and suffix lengths are both 0: the prompts would be empty")
	case cfg.NumPrompts/cfg.NumPrefixes == 0:
		return nil, fmt.Errorf("dataset: prefix_repetition: --num-prompts %d must be at least --prefix-repetition-num-prefixes %d", cfg.NumPrompts, cfg.NumPrefixes)
	case cfg.Seed < 0 || cfg.Seed > 1<<32-1:
		return nil, fmt.Errorf("dataset: prefix_repetition: seed %d: numpy takes 0 to 2**32-1", cfg.Seed)
	}
	vocab := tok.VocabSize()
	if vocab <= 0 {
		return nil, fmt.Errorf("dataset: prefix_repetition: %w (give --tokenizer PATH to a tokenizer.json)", errNoVocab)
	}
	allowed := allowedIDs(tok, vocab)
	rng := newNPLegacy(cfg.Seed)
	pad := func() int { return rng.randint(0, vocab) }
	part := func(n int, index uint64) ([]int, error) {
		seq := make([]int, n)
		for i := range seq {
			seq[i] = pad()
		}
		if n == 0 {
			return seq, nil
		}
		_, fitted, err := fitToLength(tok, seq, n, pad, allowed, uint64(cfg.Seed), index)
		return fitted, err
	}
	per := cfg.NumPrompts / cfg.NumPrefixes
	out := make([]Sample, 0, per*cfg.NumPrefixes)
	for p := range cfg.NumPrefixes {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("dataset: prefix_repetition: %w", err)
		}
		prefix, err := part(cfg.PrefixLen, uint64(len(out))<<1)
		if err != nil {
			return nil, fmt.Errorf("dataset: prefix_repetition: prefix %d: %w", p, err)
		}
		for range per {
			suffix, err := part(cfg.SuffixLen, uint64(len(out))<<1|1)
			if err != nil {
				return nil, fmt.Errorf("dataset: prefix_repetition: prompt %d: %w", len(out), err)
			}
			ids := append(append(make([]int, 0, len(prefix)+len(suffix)), prefix...), suffix...)
			prompt, err := tok.Decode(ids)
			if err != nil {
				return nil, fmt.Errorf("dataset: prefix_repetition: prompt %d: %w", len(out), err)
			}
			out = append(out, Sample{Prompt: prompt, PromptLen: len(ids), OutputLen: cfg.OutputLen})
		}
	}
	if !cfg.DisableShuffle {
		newPyRandom(cfg.Seed).shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	}
	return out, nil
}
