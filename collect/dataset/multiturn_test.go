package dataset

import (
	"context"
	"strings"
	"testing"
)

// TestMultiTurnPrefixSharing: vllm-bench's prefix-sharing mode. With 40
// tokens of input (no special tokens in the tiny tokenizer), a global
// ratio 0.25 and a conversation ratio 0.5 (Qwen3: no special tokens), every turn starts with the same
// 10-token global part, the turns of one conversation continue with the
// same 20-token conversation part, and each turn ends with a part of its
// own: 10 tokens on the first turn, 6 on later turns of 36 tokens
// (--per-turn-input-len). No turn carries history.
func TestMultiTurnPrefixSharing(t *testing.T) {
	// a real vocabulary: the tiny one's byte tokens decode short texts to
	// the same replacement characters
	tok := installed(t, "qwen3")
	special, err := numSpecialTokens(tok)
	if err != nil {
		t.Fatal(err)
	}
	in, per := 40+special, 36+special
	convs, err := MultiTurnRandom(context.Background(), tok, MultiTurnRandomConfig{NumConversations: 3, MinTurns: 3, MaxTurns: 3,
		InputLen: in, PerTurnInputLen: per, OutputLen: 4, Seed: 7, GlobalRatio: 0.25, ConversationRatio: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	common := func(a, b string) string {
		n := 0
		for n < len(a) && n < len(b) && a[n] == b[n] {
			n++
		}
		return a[:n]
	}
	// the global part: what the first turns of two conversations share
	global := common(convs[0].Turns[0].Content, convs[1].Turns[0].Content)
	if g, _ := tok.Encode(global); len(g) < 9 || len(g) > 11 {
		t.Errorf("global part %q: %d tokens, want about 10", global, len(g))
	}
	for i, c := range convs {
		if !c.NoHistory || len(c.Turns) != 3 {
			t.Fatalf("conversation %d: NoHistory %v, %d turns", i, c.NoHistory, len(c.Turns))
		}
		conv := common(c.Turns[0].Content, c.Turns[1].Content)
		if ids, _ := tok.Encode(conv); len(ids) < 29 || len(ids) > 31 {
			t.Errorf("conversation %d: shared %q, %d tokens, want about 30 (global + conversation part)", i, conv, len(ids))
		}
		for k, turn := range c.Turns {
			if !strings.HasPrefix(turn.Content, global) || !strings.HasPrefix(turn.Content, conv) {
				t.Errorf("conversation %d turn %d does not start with the shared parts", i, k+1)
			}
			ids, _ := tok.Encode(turn.Content)
			if turn.ContentLen != len(ids) {
				t.Errorf("conversation %d turn %d: ContentLen %d, the text encodes to %d", i, k+1, turn.ContentLen, len(ids))
			}
			want := 36
			if k == 0 {
				want = 40
			}
			if d := turn.ContentLen - want; d < -2 || d > 2 { // joints may merge a token
				t.Errorf("conversation %d turn %d: %d tokens, want about %d", i, k+1, turn.ContentLen, want)
			}
		}
	}
	if convs[0].Turns[1].Content == convs[0].Turns[2].Content {
		t.Error("two turns are the same text: the own parts must differ")
	}
	// later turns of 30 tokens leave nothing of their own after 10 + 20
	_, err = MultiTurnRandom(context.Background(), tok, MultiTurnRandomConfig{NumConversations: 1, MinTurns: 2, MaxTurns: 2,
		InputLen: in, PerTurnInputLen: 30 + special, OutputLen: 4, GlobalRatio: 0.25, ConversationRatio: 0.5})
	if err == nil || !strings.Contains(err.Error(), "raise --per-turn-input-len") {
		t.Errorf("err %v", err)
	}
}
