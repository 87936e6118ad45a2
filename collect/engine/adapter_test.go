package engine

import (
	"slices"
	"testing"
)

// TestDefaultArgvModelGivenInArgs: an experiment whose args name the model
// (llama-server -m ./tiny.gguf, the way a llama.cpp user writes it) gets no
// second model flag from the campaign's model id; without one in args the
// default launch names the campaign's model.
func TestDefaultArgvModelGivenInArgs(t *testing.T) {
	cases := []struct {
		engine string
		args   []string
		want   []string
	}{
		{"llamacpp", []string{"-m", "/m/tiny.gguf", "-np", "4"}, []string{"llama-server", "-m", "/m/tiny.gguf", "-np", "4"}},
		{"llamacpp", []string{"--model=/m/tiny.gguf"}, []string{"llama-server", "--model=/m/tiny.gguf"}},
		{"llamacpp", []string{"-hf", "ggml-org/tiny-GGUF"}, []string{"llama-server", "-hf", "ggml-org/tiny-GGUF"}},
		{"llamacpp", []string{"-np", "4"}, []string{"llama-server", "-m", "tiny-qwen", "-np", "4"}},
		{"sglang", []string{"--model", "/m/q"}, []string{"python3", "-m", "sglang.launch_server", "--model", "/m/q"}},
		{"mock", []string{"--preset", "vllm"}, []string{"perflab", "mock", "--model", "tiny-qwen", "--preset", "vllm"}},
		{"vllm", []string{"--max-num-seqs", "8"}, []string{"vllm", "serve", "tiny-qwen", "--max-num-seqs", "8"}},
	}
	for _, c := range cases {
		a, ok := Lookup(c.engine)
		if !ok {
			t.Fatalf("no adapter %s", c.engine)
		}
		if got := a.DefaultArgv("tiny-qwen", c.args); !slices.Equal(got, c.want) {
			t.Errorf("%s %q: argv %q, want %q", c.engine, c.args, got, c.want)
		}
	}
}
