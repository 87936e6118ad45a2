package main

// Glue from perflab bench's flags to collect/dataset.

import (
	"context"

	"github.com/perflab/perflab/collect/dataset"
)

// openTokenizer resolves --tokenizer: "server" (or empty) uses the
// engine's /tokenize and /detokenize; anything else is a tokenizer.json
// file or model directory.
func openTokenizer(spec, baseURL, model string) (dataset.Tokenizer, error) {
	if spec == "" {
		spec = "server"
	}
	return dataset.OpenTokenizer(spec, baseURL, model, nil)
}

// loadShareGPT builds vLLM's ShareGPT dataset from the file at path.
func loadShareGPT(ctx context.Context, tok dataset.Tokenizer, path string, n, outLen int, seed int64) ([]dataset.Sample, error) {
	return dataset.ShareGPT(ctx, tok, path, dataset.ShareGPTConfig{NumPrompts: n, OutputLen: outLen, Seed: seed})
}
