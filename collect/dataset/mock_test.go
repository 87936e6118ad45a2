package dataset

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/perflab/perflab/collect/dataset/tokenizer"
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

func TestChatPromptLen(t *testing.T) {
	r, err := mock.Start(context.Background(), mock.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	// The mock renders its own template server-side (vLLM's /tokenize
	// with "messages"); the count must exceed the bare prompt's.
	st := NewServerTokenizer(r.URL, "mock", nil)
	bare, _ := st.Encode("Hello there")
	n, err := ChatPromptLen(st, "Hello there")
	if err != nil || n <= len(bare) {
		t.Errorf("server chat count %d (bare %d), %v", n, len(bare), err)
	}
	// Our loader without a known template: unknown, never a guess.
	if _, err := ChatPromptLen(tiny(t), "Hello"); !errors.Is(err, tokenizer.ErrUnknownChatTemplate) {
		t.Errorf("tiny: %v, want ErrUnknownChatTemplate", err)
	}
	if _, err := ChatPromptLen(mock.Tokenizer{}, "Hello"); !errors.Is(err, tokenizer.ErrUnknownChatTemplate) {
		t.Errorf("mock tokenizer: %v, want ErrUnknownChatTemplate", err)
	}
}

// cancelTok cancels a context at its nth Encode: a Ctrl-C while the
// prompts are built.
type cancelTok struct {
	mock.Tokenizer
	n      int
	cancel context.CancelFunc
}

func (c *cancelTok) Encode(text string) ([]int, error) {
	if c.n--; c.n == 0 {
		c.cancel()
	}
	return c.Tokenizer.Encode(text)
}

// TestRandomContextStops: RandomContext stops between prompts once its
// context ends, instead of building all of them first.
func TestRandomContextStops(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	tok := &cancelTok{n: 5, cancel: cancel}
	_, err := RandomContext(ctx, tok, RandomConfig{NumPrompts: 1000, InputLen: 32, OutputLen: 4})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want context.Canceled", err)
	}
	if tok.n < -20 {
		t.Errorf("%d more encodes after the cancel: it did not stop between prompts", -tok.n)
	}
}
