package main

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"

	"github.com/perflab/perflab/collect/benchrun"
	"github.com/perflab/perflab/collect/dataset"
)

// openTokenizer opens --tokenizer: "server" asks the server's /tokenize
// route; a path is a tokenizer.json file or a folder holding one; a
// Hugging Face id (org/name, not a path here) is looked up in the local
// Hugging Face cache.
func openTokenizer(spec, baseURL, model string, client *http.Client) (dataset.Tokenizer, error) {
	if spec == "server" || spec == "" {
		return dataset.NewServerTokenizer(baseURL, model, client), nil
	}
	if _, err := os.Stat(spec); err != nil && errors.Is(err, os.ErrNotExist) && looksLikeHFID(spec) {
		dir, tried := benchrun.HFCache(spec)
		if dir == "" {
			return nil, fmt.Errorf("bench: --tokenizer %s: not a file or folder here, and no tokenizer.json for it in the Hugging Face cache (looked in %s); download it (huggingface-cli download %s tokenizer.json tokenizer_config.json) or give a path", spec, strings.Join(tried, ", "), spec)
		}
		spec = dir
	}
	tok, err := dataset.Load(spec)
	if err != nil {
		return nil, fmt.Errorf("bench: --tokenizer %s: %w", spec, err)
	}
	return tok, nil
}

// looksLikeHFID: "org/name" (one slash, no leading dot or slash).
func looksLikeHFID(s string) bool {
	return strings.Count(s, "/") == 1 && !strings.HasPrefix(s, ".") && !strings.HasPrefix(s, "/") && !strings.HasSuffix(s, "/")
}

// writeDatasetStats prints --dry-run's dataset statistics: counts and the
// prompt and output lengths (min, mean, max) and totals.
func writeDatasetStats(w io.Writer, name string, s []dataset.Sample) {
	stat := func(get func(dataset.Sample) int) (lo, hi, sum int) {
		lo = get(s[0])
		for _, x := range s {
			v := get(x)
			lo, hi, sum = min(lo, v), max(hi, v), sum+v
		}
		return
	}
	n := float64(len(s))
	fmt.Fprintf(w, "%s\n", center(" Dataset (dry run) ", 50, '='))
	fmt.Fprintf(w, "%-40s%-10s\n", "Dataset:", name)
	fmt.Fprintf(w, "%-40s%-10d\n", "Requests:", len(s))
	pl, ph, ps := stat(func(x dataset.Sample) int { return x.PromptLen })
	ol, oh, os := stat(func(x dataset.Sample) int { return x.OutputLen })
	distinct := map[string]bool{}
	for _, x := range s {
		distinct[x.Prompt] = true
	}
	fmt.Fprintf(w, "%-40s%-10d\n", "Distinct prompts:", len(distinct))
	fmt.Fprintf(w, "%-40s%-10d\n", "Total input tokens:", ps)
	fmt.Fprintf(w, "%-40s%-10d\n", "Total output tokens (max_tokens):", os)
	fmt.Fprintf(w, "%-40s%d / %.2f / %d\n", "Input tokens min / mean / max:", pl, float64(ps)/n, ph)
	fmt.Fprintf(w, "%-40s%d / %.2f / %d\n", "Output tokens min / mean / max:", ol, float64(os)/n, oh)
	fmt.Fprintln(w, strings.Repeat("=", 50))
}

func center(s string, width int, fill byte) string {
	if len(s) >= width {
		return s
	}
	left := (width - len(s)) / 2
	return strings.Repeat(string(fill), left) + s + strings.Repeat(string(fill), width-len(s)-left)
}
