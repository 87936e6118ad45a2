package dataset

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
)

// ShareGPTConfig mirrors vLLM's ShareGPT options. Zero values mean vLLM's
// defaults.
type ShareGPTConfig struct {
	// NumPrompts is --num-prompts (0: 1000).
	NumPrompts int
	// OutputLen is --sharegpt-output-len: a fixed max_tokens for every
	// request (0: the token count of the conversation's second turn).
	OutputLen int
	// Seed is --seed: it shuffles the conversations exactly as vLLM's
	// random.seed(seed); random.shuffle(data) does.
	Seed int64
	// DisableShuffle is --disable-shuffle: walk the file in order.
	DisableShuffle bool
	// NoOversample is --no-oversample: return fewer than NumPrompts
	// samples when too few pass the filters, instead of repeating some.
	NoOversample bool
}

// vLLM's is_valid_sequence defaults.
const (
	shareGPTMinLen       = 4
	shareGPTMaxPromptLen = 1024
	shareGPTMaxTotalLen  = 2048
)

// ShareGPT builds vLLM's ShareGPT dataset from the JSON file at path (a
// list of {"conversations": [{"from", "value"}, ...]} entries): entries
// with at least two turns, shuffled with the seed, prompt = first turn,
// reply = second turn, counted with special tokens as Python's
// tokenizer(text) does, and kept when the prompt has at least 4 tokens,
// the reply at least 4 (unless OutputLen is set), the prompt at most 1024
// and both together at most 2048. When too few pass, samples are repeated
// with random.choices as vLLM does (unless NoOversample).
//
// The file is streamed: the first pass keeps only the byte offset of each
// usable entry, the second reads just the entries it needs, so a 600 MB
// file costs a few megabytes of memory.
func ShareGPT(ctx context.Context, tok Tokenizer, path string, cfg ShareGPTConfig) ([]Sample, error) {
	if cfg.NumPrompts == 0 {
		cfg.NumPrompts = 1000
	}
	if cfg.NumPrompts < 0 || cfg.OutputLen < 0 {
		return nil, fmt.Errorf("dataset: sharegpt: negative num prompts %d or output len %d", cfg.NumPrompts, cfg.OutputLen)
	}
	f, offsets, err := openShareGPT(ctx, "sharegpt", path, !cfg.DisableShuffle, cfg.Seed)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []Sample
	for _, off := range offsets {
		if len(out) >= cfg.NumPrompts {
			break
		}
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("dataset: sharegpt: %w", err)
		}
		prompt, reply, err := readShareGPTEntry(f, off)
		if err != nil {
			return nil, fileErr(fmt.Errorf("dataset: sharegpt: %s: %w", path, withLine(f, err)))
		}
		p, err := encodeSpecial(tok, prompt)
		if err != nil {
			return nil, fmt.Errorf("dataset: sharegpt: %s: entry at byte %d: prompt: %w", path, off, err)
		}
		outLen := cfg.OutputLen
		if outLen == 0 {
			c, err := encodeSpecial(tok, reply)
			if err != nil {
				return nil, fmt.Errorf("dataset: sharegpt: %s: entry at byte %d: reply: %w", path, off, err)
			}
			outLen = len(c)
		}
		if !validSequence(len(p), outLen, cfg.OutputLen != 0) {
			continue
		}
		out = append(out, Sample{Prompt: prompt, PromptLen: len(p), OutputLen: outLen})
	}
	if n := len(out); n > 0 && n < cfg.NumPrompts && !cfg.NoOversample {
		rnd := newPyRandom(cfg.Seed)
		for len(out) < cfg.NumPrompts {
			out = append(out, out[rnd.choiceIndex(n)])
		}
	}
	if len(out) == 0 {
		return nil, fileErr(fmt.Errorf("dataset: sharegpt: %s: no conversation passes the length filters (prompt %d..%d tokens, prompt+reply <= %d)",
			path, shareGPTMinLen, shareGPTMaxPromptLen, shareGPTMaxTotalLen))
	}
	return out, nil
}

// validSequence is vLLM's is_valid_sequence with its defaults.
func validSequence(promptLen, outputLen int, fixedOutput bool) bool {
	return promptLen >= shareGPTMinLen &&
		(fixedOutput || outputLen >= shareGPTMinLen) &&
		promptLen <= shareGPTMaxPromptLen &&
		promptLen+outputLen <= shareGPTMaxTotalLen
}

// offsetError is a JSON problem at a byte offset of the file.
type offsetError struct {
	off int64
	err error
}

func (e *offsetError) Error() string { return fmt.Sprintf("byte %d: %v", e.off, e.err) }
func (e *offsetError) Unwrap() error { return e.err }

// withLine turns an offsetError into "line N: ..." by counting newlines.
func withLine(f *os.File, err error) error {
	var oe *offsetError
	if !errors.As(err, &oe) {
		return err
	}
	br := bufio.NewReaderSize(io.NewSectionReader(f, 0, oe.off), 1<<20)
	line := 1
	for {
		chunk, e := br.ReadSlice('\n')
		line += bytes.Count(chunk, []byte{'\n'})
		if e != nil && !errors.Is(e, bufio.ErrBufferFull) {
			break
		}
	}
	return fmt.Errorf("line %d (byte %d): %w", line, oe.off, oe.err)
}

// readShareGPTEntry decodes the entry starting at off (after skipping the
// separator) and returns its first two turns.
func readShareGPTEntry(f *os.File, off int64) (prompt, reply string, err error) {
	br := bufio.NewReader(io.NewSectionReader(f, off, 1<<62))
	skipped := int64(0)
	for {
		b, err := br.ReadByte()
		if err != nil {
			return "", "", &offsetError{off, err}
		}
		if b == ',' || b == ' ' || b == '\n' || b == '\r' || b == '\t' {
			skipped++
			continue
		}
		br.UnreadByte()
		break
	}
	var e struct {
		Conversations []struct {
			Value *string `json:"value"`
		} `json:"conversations"`
	}
	if err := json.NewDecoder(br).Decode(&e); err != nil {
		return "", "", &offsetError{off + skipped, err}
	}
	if len(e.Conversations) < 2 {
		return "", "", &offsetError{off + skipped, fmt.Errorf("conversations changed while reading")}
	}
	for k := 0; k < 2; k++ {
		if e.Conversations[k].Value == nil {
			return "", "", &offsetError{off + skipped, fmt.Errorf("conversations[%d] has no \"value\"", k)}
		}
	}
	return *e.Conversations[0].Value, *e.Conversations[1].Value, nil
}

// openShareGPT opens a ShareGPT file and returns it with the byte offsets
// of its entries of at least two turns, in file order or, with shuffle,
// in the order Python's random.shuffle seeded with seed gives (as vLLM
// shuffles). what names the dataset in errors, which are FileErrors.
func openShareGPT(ctx context.Context, what, path string, shuffle bool, seed int64) (*os.File, []int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fileErr(fmt.Errorf("dataset: %s: %w", what, err))
	}
	offsets, err := scanShareGPT(ctx, f)
	if err != nil {
		err = fileErr(fmt.Errorf("dataset: %s: %s: %w", what, path, withLine(f, err)))
		f.Close()
		return nil, nil, err
	}
	if shuffle {
		newPyRandom(seed).shuffle(len(offsets), func(i, j int) { offsets[i], offsets[j] = offsets[j], offsets[i] })
	}
	return f, offsets, nil
}
