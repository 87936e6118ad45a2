// Command tinygguf writes a tiny random-weight qwen2 GGUF model around a
// Hugging Face tokenizer, for llama-server in tests:
//
//	go run ./collect/engine/llamacpp/tinymodel/cmd/tinygguf -tokenizer .cache/tokenizers/qwen3 -o .cache/llama/tiny-qwen.gguf
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/perflab/perflab/collect/engine/llamacpp/tinymodel"
)

func main() {
	dir := flag.String("tokenizer", ".cache/tokenizers/qwen3", "folder with tokenizer.json and tokenizer_config.json")
	out := flag.String("o", "tiny-qwen.gguf", "output file")
	ctx := flag.Int("ctx", 4096, "context length written into the model")
	seed := flag.Uint64("seed", 0, "weight seed")
	flag.Parse()
	tok, err := tinymodel.LoadTokenizer(*dir)
	if err == nil {
		err = tinymodel.WriteFile(*out, tok, tinymodel.Config{ContextLength: *ctx, Seed: *seed})
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "tinygguf:", err)
		os.Exit(1)
	}
	fmt.Printf("tinygguf: wrote %s (%d tokens)\n", *out, len(tok.Tokens))
}
