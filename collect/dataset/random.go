package dataset

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
)

// RandomConfig mirrors vLLM's --random-* flags. Zero values mean vLLM's
// defaults where vLLM has one.
type RandomConfig struct {
	// NumPrompts is --num-prompts (0: 1000).
	NumPrompts int
	// InputLen is --random-input-len (0: 1024): the prompt length the
	// server should see, special tokens (BOS) included; the drawn prompt
	// itself is InputLen minus the special tokens the tokenizer adds.
	InputLen int
	// OutputLen is --random-output-len (0: 128).
	OutputLen int
	// RangeRatio is --random-range-ratio, in [0, 1): lengths are drawn
	// uniformly from [len*(1-r), len*(1+r)].
	RangeRatio float64
	// PrefixLen is --random-prefix-len: tokens shared by every prompt,
	// added in front of the drawn input length.
	PrefixLen int
	// Seed is --seed (>= 0, as numpy's default_rng requires); the same
	// seed gives the same prompts, and vLLM's token ids for the same
	// tokenizer.
	Seed int64
}

// vLLM gives gen_prompt_decode_to_target_len 10 retries and then accepts
// a mismatch; we keep going (padding only with stable ids) up to
// maxFitTries so every prompt has exactly its drawn length.
const (
	vllmRetries = 10
	maxFitTries = 200
)

// The lengths a zero field of RandomConfig, PrefixRepetitionConfig and
// CustomConfig stands for (vLLM's flag defaults), for a caller that
// records what was built.
const (
	DefaultInputLen        = 1024 // random: --random-input-len
	DefaultOutputLen       = 128  // --random-output-len, --prefix-repetition-output-len
	DefaultCustomOutputLen = 256  // --custom-output-len
)

func (c RandomConfig) withDefaults() RandomConfig {
	if c.NumPrompts == 0 {
		c.NumPrompts = 1000
	}
	if c.InputLen == 0 {
		c.InputLen = DefaultInputLen
	}
	if c.OutputLen == 0 {
		c.OutputLen = DefaultOutputLen
	}
	return c
}

// Random builds vLLM's random dataset: exact token counts, deterministic
// for a seed. PromptLen is the prompt's own token count (prefix included,
// special tokens excluded), as vLLM reports it.
func Random(tok Tokenizer, cfg RandomConfig) ([]Sample, error) {
	return RandomContext(context.Background(), tok, cfg)
}

// RandomContext is Random that stops between prompts when ctx ends (a
// Ctrl-C while the server tokenizer builds thousands of prompts).
func RandomContext(ctx context.Context, tok Tokenizer, cfg RandomConfig) ([]Sample, error) {
	cfg = cfg.withDefaults()
	switch {
	case cfg.NumPrompts < 0:
		return nil, fmt.Errorf("dataset: random: num prompts %d < 0", cfg.NumPrompts)
	case cfg.InputLen < 0 || cfg.OutputLen < 0 || cfg.PrefixLen < 0:
		return nil, fmt.Errorf("dataset: random: negative length (input %d, output %d, prefix %d)", cfg.InputLen, cfg.OutputLen, cfg.PrefixLen)
	case cfg.RangeRatio < 0 || cfg.RangeRatio >= 1 || math.IsNaN(cfg.RangeRatio):
		return nil, fmt.Errorf("dataset: random: range ratio %v not in [0, 1)", cfg.RangeRatio)
	case cfg.Seed < 0:
		return nil, fmt.Errorf("dataset: random: seed %d < 0 (numpy's default_rng takes non-negative seeds)", cfg.Seed)
	}
	vocab := tok.VocabSize()
	if vocab <= 0 {
		reason := ""
		if ve, ok := tok.(interface{ vocabError() error }); ok && ve.vocabError() != nil {
			reason = ": " + ve.vocabError().Error()
		}
		return nil, fmt.Errorf("dataset: random: %w%s (give --tokenizer PATH to a tokenizer.json)", errNoVocab, reason)
	}
	special, err := numSpecialTokens(tok)
	if err != nil {
		return nil, fmt.Errorf("dataset: random: %w", err)
	}
	allowed := allowedIDs(tok, vocab)
	if len(allowed) == 0 {
		return nil, fmt.Errorf("dataset: random: every id below the vocab size %d is special", vocab)
	}

	rng := newNPRandom(cfg.Seed)
	d, err := drawRandom(cfg, special, vocab, allowed, rng)
	if err != nil {
		return nil, fmt.Errorf("dataset: random: %w", err)
	}
	n := cfg.NumPrompts
	inLens, outLens, offsets, prefix := d.inLens, d.outLens, d.offsets, d.prefix

	out := make([]Sample, n)
	for i := range out {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("dataset: random: stopped at prompt %d of %d: %w", i, n, err)
		}
		seq := make([]int, 0, cfg.PrefixLen+inLens[i])
		seq = append(seq, prefix...)
		for j := 0; j < inLens[i]; j++ {
			seq = append(seq, allowed[(offsets[i]+i+j)%len(allowed)])
		}
		target := cfg.PrefixLen + inLens[i]
		pad := func() int { return int(rng.integers(0, int64(vocab))) } // as vLLM: the full vocabulary
		prompt, fitted, err := fitToLength(tok, seq, target, pad, allowed, uint64(cfg.Seed), uint64(i))
		if err != nil {
			return nil, fmt.Errorf("dataset: random: prompt %d: %w", i, err)
		}
		out[i] = Sample{Prompt: prompt, PromptLen: len(fitted), OutputLen: outLens[i]}
	}
	return out, nil
}

// randomDraws are the numbers vLLM's RandomDataset draws before building
// prompts, in its order: input lengths, output lengths, offsets, and the
// shared prefix (ids from the allowed list).
type randomDraws struct {
	inLens, outLens, offsets, prefix []int
}

func drawRandom(cfg RandomConfig, special, vocab int, allowed []int, rng *npRandom) (randomDraws, error) {
	r := cfg.RangeRatio
	realIn := max(0, cfg.InputLen-special)
	inLo, inHi := int(math.Floor(float64(realIn)*(1-r))), int(math.Ceil(float64(realIn)*(1+r)))
	outLo := max(1, int(math.Floor(float64(cfg.OutputLen)*(1-r))))
	outHi := max(1, int(math.Ceil(float64(cfg.OutputLen)*(1+r))))
	if cfg.PrefixLen+inLo < 1 {
		return randomDraws{}, fmt.Errorf("input length %d too small: with %d special tokens and range ratio %v a prompt could have %d tokens (prefix %d + %d); vLLM refuses this too",
			cfg.InputLen, special, r, cfg.PrefixLen+inLo, cfg.PrefixLen, inLo)
	}
	n := cfg.NumPrompts
	d := randomDraws{inLens: make([]int, n), outLens: make([]int, n), offsets: make([]int, n), prefix: make([]int, cfg.PrefixLen)}
	for i := range d.inLens {
		d.inLens[i] = int(rng.integers(int64(inLo), int64(inHi)+1))
	}
	for i := range d.outLens {
		d.outLens[i] = int(rng.integers(int64(outLo), int64(outHi)+1))
	}
	for i := range d.offsets {
		d.offsets[i] = int(rng.integers(0, int64(vocab)))
	}
	for i := range d.prefix {
		d.prefix[i] = allowed[rng.integers(0, int64(len(allowed)))]
	}
	return d, nil
}

// allowedIDs is range(vocab) without the special ids, ascending.
func allowedIDs(tok Tokenizer, vocab int) []int {
	var special []int
	if s, ok := tok.(SpecialIDer); ok {
		special = append(special, s.SpecialIDs()...)
		sort.Ints(special)
	}
	allowed := make([]int, 0, vocab)
	k := 0
	for id := 0; id < vocab; id++ {
		for k < len(special) && special[k] < id {
			k++
		}
		if k < len(special) && special[k] == id {
			continue
		}
		allowed = append(allowed, id)
	}
	return allowed
}

// fitToLength is vLLM's gen_prompt_decode_to_target_len made exact:
// decode, re-encode, pad with random ids or truncate, repeat until the
// re-encoded prompt has target tokens. The first vllmRetries rounds do
// what vLLM does. If they have not converged (a cut through a multi-byte
// character decodes to U+FFFD, which may re-encode to more tokens than it
// replaced, and so on), later rounds cut back to a prefix that re-encodes
// to itself and pad with "stable" tokens, ones that decode and re-encode
// to themselves even when repeated.
//
// The first rounds pad with pad() (vLLM's generator: the dataset's own
// for random, numpy's global one for prefix_repetition); the later rounds
// draw from their own generator (seeded with the seed and the prompt's
// index), so that the prompts after this one still get vLLM's draws. It
// returns the prompt and its token ids (re-encoded: exactly target).
func fitToLength(tok Tokenizer, seq []int, target int, pad func() int, allowed []int, seed, index uint64) (string, []int, error) {
	var stable []int
	var own *rand.Rand
	for try := 0; ; try++ {
		prompt, err := tok.Decode(seq)
		if err != nil {
			return "", nil, err
		}
		if seq, err = tok.Encode(prompt); err != nil {
			return "", nil, err
		}
		if len(seq) == target {
			return prompt, seq, nil
		}
		if try >= maxFitTries {
			return "", nil, fmt.Errorf("no prompt of exactly %d tokens after %d decode/encode rounds (last had %d)", target, maxFitTries, len(seq))
		}
		if try < vllmRetries {
			if len(seq) > target {
				seq = seq[:target]
			}
			for len(seq) < target {
				seq = append(seq, pad())
			}
			continue
		}
		if stable == nil {
			if stable, err = stableIDs(tok, allowed); err != nil {
				return "", nil, err
			}
			own = rand.New(rand.NewPCG(seed, index))
		}
		if len(seq) > target {
			if seq, err = selfEncodingPrefix(tok, seq, target); err != nil {
				return "", nil, err
			}
		}
		for len(seq) < target {
			seq = append(seq, stable[own.IntN(len(stable))])
		}
	}
}

// stableIDs returns up to 256 ids (from the allowed ones, in order) whose
// pair decodes and re-encodes to the same pair: padding made of them
// rarely merges with its neighbours. Falls back to allowed.
func stableIDs(tok Tokenizer, allowed []int) ([]int, error) {
	var out []int
	for _, id := range allowed {
		if len(out) == 256 {
			break
		}
		text, err := tok.Decode([]int{id, id})
		if err != nil {
			return nil, err
		}
		ids, err := tok.Encode(text)
		if err != nil {
			return nil, err
		}
		if len(ids) == 2 && ids[0] == id && ids[1] == id {
			out = append(out, id)
		}
	}
	if len(out) == 0 {
		return allowed, nil
	}
	return out, nil
}

// selfEncodingPrefix returns the longest seq[:k], k <= target, whose text
// re-encodes to exactly k tokens (a cut that splits no character),
// searching at most 32 tokens back; else seq[:target-32] (or empty).
func selfEncodingPrefix(tok Tokenizer, seq []int, target int) ([]int, error) {
	for k := target; k >= 0 && k >= target-32; k-- {
		text, err := tok.Decode(seq[:k])
		if err != nil {
			return nil, err
		}
		ids, err := tok.Encode(text)
		if err != nil {
			return nil, err
		}
		if len(ids) == k {
			return ids, nil
		}
	}
	return seq[:max(0, target-32)], nil
}
