package mock

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func TestTokenizerPieces(t *testing.T) {
	var tok Tokenizer
	cases := []struct {
		text string
		want []string // pieces
	}{
		{"", nil},
		{"The quick brown fox", []string{"T", "he", " qui", "ck", " bro", "wn", " fox"}},
		// A lone lowercase letter has no piece without a space: it is a byte.
		{"a b", []string{"a", " b"}},
		// Two spaces: the first is a byte, the second starts " x".
		{"  x", []string{" ", " x"}},
		{"<|user|>hi<|assistant|>", []string{"<|user|>", "hi", "<|assistant|>"}},
		// Not a marker: bytes.
		{"<|usr|>", []string{"<", "|", "usr", "|", ">"}},
		// UTF-8 falls back to bytes, one per byte.
		{"é!", []string{"\xc3", "\xa9", "!"}},
	}
	for _, c := range cases {
		ids, _ := tok.Encode(c.text)
		var got []string
		for _, id := range ids {
			p, ok := tok.Piece(id)
			if !ok {
				t.Fatalf("%q: id %d has no piece", c.text, id)
			}
			got = append(got, p)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("Encode(%q) pieces = %q, want %q", c.text, got, c.want)
		}
		if n := tok.Count(c.text); n != len(ids) {
			t.Errorf("Count(%q) = %d, Encode gives %d", c.text, n, len(ids))
		}
	}
}

// TestTokenizerVocabulary checks that every id decodes to a distinct piece
// that encodes back to exactly that id.
func TestTokenizerVocabulary(t *testing.T) {
	var tok Tokenizer
	seen := make(map[string]int, BaseVocabSize)
	for id := 0; id < BaseVocabSize+len(chatMarkers); id++ {
		p, ok := tok.Piece(id)
		if !ok || p == "" {
			t.Fatalf("id %d: no piece", id)
		}
		if prev, dup := seen[p]; dup {
			t.Fatalf("ids %d and %d share piece %q", prev, id, p)
		}
		seen[p] = id
		if ids, _ := tok.Encode(p); len(ids) != 1 || ids[0] != id {
			t.Fatalf("Encode(Piece(%d) = %q) = %v", id, p, ids)
		}
	}
	for _, bad := range []int{-1, BaseVocabSize + len(chatMarkers)} {
		if _, err := tok.Decode([]int{bad}); err == nil {
			t.Errorf("Decode(%d) succeeded", bad)
		}
	}
	if tok.VocabSize() != 36786 {
		t.Errorf("VocabSize = %d", tok.VocabSize())
	}
}

// randomText mixes words, capitals, punctuation, spaces, markers and UTF-8.
func randomText(r *rand.Rand, n int) string {
	parts := []string{" the", " quick", "Brown", " fox", ",", "  ", "\n", "é", "日本", "<|user|>", "<|", "x", " a", "zz", "123", "\t", "\x00"}
	var b strings.Builder
	for range n {
		b.WriteString(parts[r.IntN(len(parts))])
	}
	return b.String()
}

// TestTokenizerRoundTrip: decode(encode(x)) == x, and truncating a token
// sequence survives re-encoding (what /tokenize + /detokenize sizing
// relies on).
func TestTokenizerRoundTrip(t *testing.T) {
	var tok Tokenizer
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 2000 {
		x := randomText(r, r.IntN(60))
		ids, _ := tok.Encode(x)
		back, err := tok.Decode(ids)
		if err != nil || back != x {
			t.Fatalf("case %d: Decode(Encode(%q)) = %q, %v", i, x, back, err)
		}
		if len(ids) == 0 {
			continue
		}
		k := r.IntN(len(ids) + 1)
		prefix, _ := tok.Decode(ids[:k])
		if again, _ := tok.Encode(prefix); !slices.Equal(again, ids[:k]) {
			t.Fatalf("case %d: re-encoding the first %d tokens of %q gives %v, want %v", i, k, x, again, ids[:k])
		}
	}
}

// TestTokenizerRandomIDs follows vLLM's random dataset: decode random ids,
// re-encode, pad or truncate. It must reach the exact length within its 10
// retries for every prompt.
func TestTokenizerRandomIDs(t *testing.T) {
	var tok Tokenizer
	r := rand.New(rand.NewPCG(3, 4))
	for i := range 200 {
		target := 1 + r.IntN(1500)
		ids := make([]int, target)
		for j := range ids {
			ids[j] = r.IntN(tok.VocabSize())
		}
		ok := false
		for range 10 {
			text, err := tok.Decode(ids)
			if err != nil {
				t.Fatal(err)
			}
			ids, _ = tok.Encode(text)
			if len(ids) == target {
				ok = true
				break
			}
			if len(ids) > target {
				ids = ids[:target]
			} else {
				for len(ids) < target {
					ids = append(ids, r.IntN(tok.VocabSize()))
				}
			}
		}
		if !ok {
			t.Fatalf("prompt %d: no exact length %d after 10 retries", i, target)
		}
	}
}

func TestChatPromptCount(t *testing.T) {
	msgs := []Message{{Role: "system", Content: "Be brief"}, {Role: "user", Content: "hi"}, {Role: "tool", Content: "x"}}
	got := ChatPrompt(msgs)
	if want := "<|system|>Be brief<|user|>hi<|user|>x<|assistant|>"; got != want {
		t.Fatalf("ChatPrompt = %q, want %q", got, want)
	}
	// markers 4 + "B","e"," bri","ef" + "hi" + "x" = 10
	if n := (Tokenizer{}).Count(got); n != 10 {
		t.Errorf("count = %d, want 10", n)
	}
}

func BenchmarkEncode(b *testing.B) {
	var tok Tokenizer
	text := strings.Repeat("The quick brown fox jumps over the lazy dog. ", 100)
	ids := make([]int, 0, len(text))
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		ids = tok.AppendEncode(ids[:0], text)
	}
}
