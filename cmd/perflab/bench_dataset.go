package main

import (
	"fmt"
	"net/http"

	"github.com/perflab/perflab/collect/dataset"
)

// openTokenizer opens --tokenizer: "server" asks the server's /tokenize
// route, anything else is a tokenizer.json file or a folder holding one.
func openTokenizer(spec, baseURL, model string, client *http.Client) (dataset.Tokenizer, error) {
	if spec == "server" || spec == "" {
		return dataset.NewServerTokenizer(baseURL, model, client), nil
	}
	tok, err := dataset.Load(spec)
	if err != nil {
		return nil, fmt.Errorf("bench: --tokenizer %s: %w", spec, err)
	}
	return tok, nil
}
