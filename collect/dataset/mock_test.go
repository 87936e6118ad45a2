package dataset

import (
	"context"
	"slices"
	"testing"

	"github.com/perflab/perflab/collect/mock"
)

// TestServerTokenizerWithMock runs the server tokenizer against the
// project's mock engine (vLLM's /tokenize shape, its own tokenizer).
func TestServerTokenizerWithMock(t *testing.T) {
	ctx := context.Background()
	r, err := mock.Start(ctx, mock.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	st := NewServerTokenizer(r.URL, "mock", nil)
	text := "Benchmarks measure time to first token."
	want, _ := mock.Tokenizer{}.Encode(text)
	got, err := st.Encode(text)
	if err != nil || !slices.Equal(got, want) {
		t.Fatalf("Encode = %v, %v; want %v", got, err, want)
	}
	st.Vocab = mock.Tokenizer{}.VocabSize()
	samples, err := Random(st, RandomConfig{NumPrompts: 3, InputLen: 64, OutputLen: 8, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range samples {
		ids, err := st.Encode(s.Prompt)
		if err != nil || len(ids) != s.PromptLen || s.PromptLen != 64 {
			t.Errorf("prompt %d: server counts %d, PromptLen %d, want 64 (%v)", i, len(ids), s.PromptLen, err)
		}
	}
}
