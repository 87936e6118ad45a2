package dataset

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
)

// Conversation is one multi-turn chat session: its user messages in
// order. The replies are the server's, so they exist only at run time.
type Conversation struct {
	// ID names the session ("conv-N"; bench sends it after the run's
	// request-id prefix as X-Session-ID).
	ID    string
	Turns []Turn
	// NoHistory: each turn sends its own message only, not the
	// conversation so far (vllm-bench's prefix-sharing mode, where the
	// turns share prefixes instead).
	NoHistory bool
}

// Turn is one user message of a conversation.
type Turn struct {
	Content string
	// ContentLen is the message's own token count (without the history
	// or the chat template); OutputLen the max_tokens to ask for.
	ContentLen int
	OutputLen  int
}

// MultiTurnRandomConfig mirrors vllm-bench's --multi-turn flags with the
// random dataset.
type MultiTurnRandomConfig struct {
	// NumConversations is --num-prompts.
	NumConversations int
	// MinTurns and MaxTurns bound each conversation's turn count, drawn
	// uniformly (equal: fixed). vllm-bench: --multi-turn-min-turns,
	// --multi-turn-max-turns, both defaulting to --multi-turn-num-turns.
	MinTurns, MaxTurns int
	// InputLen is the first turn's length (--random-input-len, special
	// tokens included as Random counts them), PerTurnInputLen the later
	// turns' (--per-turn-input-len; 0: InputLen), OutputLen every turn's
	// max_tokens (--random-output-len), PrefixLen a prefix shared by every
	// conversation's first turn (--random-prefix-len).
	InputLen, PerTurnInputLen, OutputLen, PrefixLen int
	Seed                                            int64
	// GlobalRatio and ConversationRatio are vllm-bench's
	// --multi-turn-prefix-global-ratio and
	// --multi-turn-prefix-conversation-ratio: when either is above 0,
	// every turn's message is [the --random-prefix-len prefix][a part
	// shared by all conversations][a part shared within the
	// conversation][its own part], the first two parts GlobalRatio and
	// ConversationRatio of the first turn's input length, and no history
	// is sent (see multiTurnPrefixSharing). Each in [0, 1], their sum
	// below 1.
	GlobalRatio, ConversationRatio float64
}

// MultiTurnRandom builds synthetic conversations as vllm-bench does: each
// turn a random prompt of exact length (built by Random), the first turns
// with the shared prefix. The turn counts are drawn from our own generator
// seeded with Seed (vllm-bench's is Rust's StdRng: the same seed gives
// different counts there), so runs are reproducible here, not across.
func MultiTurnRandom(ctx context.Context, tok Tokenizer, cfg MultiTurnRandomConfig) ([]Conversation, error) {
	if cfg.NumConversations < 1 || cfg.MinTurns < 1 || cfg.MaxTurns < cfg.MinTurns {
		return nil, fmt.Errorf("dataset: multi-turn: %d conversations of %d to %d turns: want at least 1 conversation and 1 <= min <= max", cfg.NumConversations, cfg.MinTurns, cfg.MaxTurns)
	}
	if cfg.PerTurnInputLen == 0 {
		cfg.PerTurnInputLen = cfg.InputLen
	}
	rng := rand.New(rand.NewPCG(uint64(cfg.Seed), 0x6d756c7469)) // "multi"
	counts := make([]int, cfg.NumConversations)
	later := 0
	for i := range counts {
		counts[i] = cfg.MinTurns + rng.IntN(cfg.MaxTurns-cfg.MinTurns+1)
		later += counts[i] - 1
	}
	if cfg.GlobalRatio != 0 || cfg.ConversationRatio != 0 {
		return multiTurnPrefixSharing(ctx, tok, cfg, counts, later)
	}
	first, err := RandomContext(ctx, tok, RandomConfig{NumPrompts: cfg.NumConversations, InputLen: cfg.InputLen,
		OutputLen: cfg.OutputLen, PrefixLen: cfg.PrefixLen, Seed: cfg.Seed})
	if err != nil {
		return nil, fmt.Errorf("dataset: multi-turn: first turns: %w", err)
	}
	var rest []Sample
	if later > 0 {
		if rest, err = RandomContext(ctx, tok, RandomConfig{NumPrompts: later, InputLen: cfg.PerTurnInputLen,
			OutputLen: cfg.OutputLen, Seed: cfg.Seed + 1}); err != nil {
			return nil, fmt.Errorf("dataset: multi-turn: later turns: %w", err)
		}
	}
	out := make([]Conversation, cfg.NumConversations)
	k := 0
	for i := range out {
		c := Conversation{ID: fmt.Sprintf("conv-%d", i)}
		c.Turns = append(c.Turns, Turn{Content: first[i].Prompt, ContentLen: first[i].PromptLen, OutputLen: cfg.OutputLen})
		for range counts[i] - 1 {
			c.Turns = append(c.Turns, Turn{Content: rest[k].Prompt, ContentLen: rest[k].PromptLen, OutputLen: cfg.OutputLen})
			k++
		}
		out[i] = c
	}
	return out, nil
}

// multiTurnPrefixSharing builds vllm-bench's prefix-sharing conversations
// (generate_prefix_sharing_conversations): with real lengths counted
// without the special tokens, as Random counts them, the global part is
// floor(in·GlobalRatio) tokens, one text for every conversation; the
// conversation part floor(in·ConversationRatio), one text per
// conversation; the own part fills the rest of the first turn's input
// length, or of --per-turn-input-len on later turns (an error when that
// leaves it no token). Every turn is [prefix][global][conversation][own]
// (the --random-prefix-len prefix on every turn, as vllm-bench: nothing
// else carries it), its length the concatenation re-encoded. The texts
// are Random's prompts from seeds of our own, as the rest of the
// multi-turn dataset.
func multiTurnPrefixSharing(ctx context.Context, tok Tokenizer, cfg MultiTurnRandomConfig, counts []int, later int) ([]Conversation, error) {
	g, c := cfg.GlobalRatio, cfg.ConversationRatio
	if !(g >= 0 && g <= 1) || !(c >= 0 && c <= 1) || g+c >= 1 {
		return nil, fmt.Errorf("dataset: multi-turn: prefix ratios %v (global) and %v (conversation): want each in [0, 1] and their sum below 1 (each turn needs a part of its own)", g, c)
	}
	special, err := numSpecialTokens(tok)
	if err != nil {
		return nil, fmt.Errorf("dataset: multi-turn: %w", err)
	}
	realIn := max(0, cfg.InputLen-special)
	realPer := max(0, cfg.PerTurnInputLen-special)
	gLen := int(math.Floor(float64(realIn) * g))
	cLen := int(math.Floor(float64(realIn) * c))
	own0 := realIn - gLen - cLen
	if realPer <= gLen+cLen {
		return nil, &SettingsError{fmt.Errorf("dataset: multi-turn: the later turns' input length (%d tokens without special tokens) leaves no part of their own after the global %d and conversation %d tokens: raise --per-turn-input-len or lower the prefix ratios", realPer, gLen, cLen)}
	}
	ownLater := realPer - gLen - cLen
	// texts of exactly n tokens each (Random's InputLen counts the
	// special tokens it then leaves out)
	texts := func(n, tokens int, seed int64) ([]string, error) {
		out := make([]string, n)
		if tokens == 0 || n == 0 {
			return out, nil
		}
		s, err := RandomContext(ctx, tok, RandomConfig{NumPrompts: n, InputLen: tokens + special, OutputLen: 1, Seed: seed})
		if err != nil {
			return nil, err
		}
		for i := range s {
			out[i] = s[i].Prompt
		}
		return out, nil
	}
	n := cfg.NumConversations
	prefix, err := texts(1, cfg.PrefixLen, cfg.Seed+4)
	if err != nil {
		return nil, fmt.Errorf("dataset: multi-turn: prefix: %w", err)
	}
	global, err := texts(1, gLen, cfg.Seed+2)
	if err != nil {
		return nil, fmt.Errorf("dataset: multi-turn: global part: %w", err)
	}
	conv, err := texts(n, cLen, cfg.Seed+3)
	if err != nil {
		return nil, fmt.Errorf("dataset: multi-turn: conversation parts: %w", err)
	}
	first, err := texts(n, own0, cfg.Seed)
	if err != nil {
		return nil, fmt.Errorf("dataset: multi-turn: first turns: %w", err)
	}
	rest, err := texts(later, ownLater, cfg.Seed+1)
	if err != nil {
		return nil, fmt.Errorf("dataset: multi-turn: later turns: %w", err)
	}
	out := make([]Conversation, n)
	k := 0
	for i := range out {
		out[i] = Conversation{ID: fmt.Sprintf("conv-%d", i), NoHistory: true}
		for t := range counts[i] {
			own := first[i]
			if t > 0 {
				own, k = rest[k], k+1
			}
			msg := prefix[0] + global[0] + conv[i] + own
			ids, err := tok.Encode(msg)
			if err != nil {
				return nil, fmt.Errorf("dataset: multi-turn: conversation %d turn %d: %w", i, t+1, err)
			}
			out[i].Turns = append(out[i].Turns, Turn{Content: msg, ContentLen: len(ids), OutputLen: cfg.OutputLen})
		}
	}
	return out, nil
}

// MultiTurnShareGPTConfig mirrors vllm-bench's ShareGPT multi-turn mode.
type MultiTurnShareGPTConfig struct {
	NumConversations int
	// MaxTurns caps the turns taken from a conversation (0: all).
	MaxTurns int
	// OutputLen is --sharegpt-output-len (0: each reply's token count).
	OutputLen int
	Seed      int64
	// DisableShuffle walks the file in order.
	DisableShuffle bool
}

// MultiTurnShareGPT takes ShareGPT's full conversations: entries with at
// least 4 messages, shuffled with Python's random as the single-turn
// dataset is; each "human" message followed by a reply is a turn, its
// max_tokens the reply's token count (at least 1) unless OutputLen is set;
// conversations keeping fewer than 2 turns are skipped.
func MultiTurnShareGPT(ctx context.Context, tok Tokenizer, path string, cfg MultiTurnShareGPTConfig) ([]Conversation, error) {
	if cfg.NumConversations < 1 {
		return nil, fmt.Errorf("dataset: multi-turn sharegpt: %d conversations: want at least 1", cfg.NumConversations)
	}
	f, offsets, err := openShareGPT(ctx, "multi-turn sharegpt", path, !cfg.DisableShuffle, cfg.Seed)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []Conversation
	for _, off := range offsets {
		if len(out) >= cfg.NumConversations {
			break
		}
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("dataset: multi-turn sharegpt: %w", err)
		}
		msgs, err := readShareGPTMessages(f, off)
		if err != nil {
			return nil, fileErr(fmt.Errorf("dataset: multi-turn sharegpt: %s: %w", path, withLine(f, err)))
		}
		if len(msgs) < 4 {
			continue
		}
		c := Conversation{ID: fmt.Sprintf("conv-%d", len(out))}
		for i := 0; i+1 < len(msgs); {
			if cfg.MaxTurns > 0 && len(c.Turns) >= cfg.MaxTurns {
				break
			}
			if msgs[i].From != "human" || msgs[i].Value == "" {
				i++
				continue
			}
			ids, err := tok.Encode(msgs[i].Value)
			if err != nil {
				return nil, fmt.Errorf("dataset: multi-turn sharegpt: %s: entry at byte %d: %w", path, off, err)
			}
			outLen := cfg.OutputLen
			if outLen == 0 {
				r, err := tok.Encode(msgs[i+1].Value)
				if err != nil {
					return nil, fmt.Errorf("dataset: multi-turn sharegpt: %s: entry at byte %d: %w", path, off, err)
				}
				outLen = max(1, len(r))
			}
			c.Turns = append(c.Turns, Turn{Content: msgs[i].Value, ContentLen: len(ids), OutputLen: outLen})
			i += 2
		}
		if len(c.Turns) >= 2 {
			out = append(out, c)
		}
	}
	if len(out) == 0 {
		return nil, fileErr(fmt.Errorf("dataset: multi-turn sharegpt: %s: no conversation with 2 or more human turns", path))
	}
	return out, nil
}

type shareGPTMessage struct {
	From  string `json:"from"`
	Value string `json:"value"`
}

// readShareGPTMessages decodes the entry at off and returns all its
// messages.
func readShareGPTMessages(f *os.File, off int64) ([]shareGPTMessage, error) {
	br := bufio.NewReader(io.NewSectionReader(f, off, 1<<62))
	skipped := int64(0)
	for {
		b, err := br.ReadByte()
		if err != nil {
			return nil, &offsetError{off, err}
		}
		if b == ',' || b == ' ' || b == '\n' || b == '\r' || b == '\t' {
			skipped++
			continue
		}
		br.UnreadByte()
		break
	}
	var e struct {
		Conversations []shareGPTMessage `json:"conversations"`
	}
	if err := json.NewDecoder(br).Decode(&e); err != nil {
		return nil, &offsetError{off + skipped, err}
	}
	return e.Conversations, nil
}
