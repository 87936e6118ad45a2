package main

// Interim glue to collect/dataset. The dataset package on main has only
// the Tokenizer interface and Random; its owner's branch adds
// dataset.Load (tokenizer.json), dataset.NewServerTokenizer and
// dataset.ShareGPT. Until it is merged these return a clear error; after
// the merge this file becomes:
//
//	openTokenizer: "server" -> dataset.NewServerTokenizer(base, model, nil)
//	               path     -> dataset.Load(path)
//	loadShareGPT:  dataset.ShareGPT(ctx, tok, path, dataset.ShareGPTConfig{...})

import (
	"context"
	"fmt"

	"github.com/perflab/perflab/collect/dataset"
)

func openTokenizer(spec, baseURL, model string) (dataset.Tokenizer, error) {
	if spec == "server" || spec == "" {
		return nil, fmt.Errorf("bench: --tokenizer server: the server tokenizer is not in collect/dataset yet")
	}
	return nil, fmt.Errorf("bench: --tokenizer %s: the tokenizer.json loader is not in collect/dataset yet", spec)
}

func loadShareGPT(ctx context.Context, tok dataset.Tokenizer, path string, n, outLen int, seed int64) ([]dataset.Sample, error) {
	return nil, fmt.Errorf("%s: the ShareGPT loader is not in collect/dataset yet", path)
}
