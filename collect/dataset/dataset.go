// Package dataset builds benchmark prompts as `vllm bench serve` does
// (random, sharegpt) and holds the tokenizers that size them. (API
// contract; the implementation is being written.)
package dataset

import "errors"

// Tokenizer turns text into token ids and back. Implementations: a
// tokenizer.json loader, and the server's /tokenize route.
type Tokenizer interface {
	Encode(text string) ([]int, error)
	Decode(ids []int) (string, error)
	VocabSize() int
}

// Sample is one benchmark request.
type Sample struct {
	Prompt string
	// PromptLen is the prompt's token count; OutputLen the max_tokens to ask for.
	PromptLen int
	OutputLen int
}

// RandomConfig mirrors vLLM's --random-* flags.
type RandomConfig struct {
	NumPrompts int
	InputLen   int
	OutputLen  int
	RangeRatio float64
	PrefixLen  int
	Seed       int64
}

// Random builds vLLM's random dataset: exact token counts, deterministic for a seed.
func Random(tok Tokenizer, cfg RandomConfig) ([]Sample, error) {
	return nil, errors.New("dataset: random: not implemented")
}
