package dataset

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
)

// CustomConfig mirrors vLLM's custom dataset flags.
type CustomConfig struct {
	// NumPrompts is --num-prompts (0: every line).
	NumPrompts int
	// OutputLen is --custom-output-len (0: 256); -1 takes each line's
	// output_tokens.
	OutputLen int
	// SkipChatTemplate is --skip-chat-template: send each prompt as
	// written. Otherwise it is wrapped in the tokenizer's chat template
	// (one user message and the generation prompt), as vLLM does.
	SkipChatTemplate bool
	// Seed is --seed: the lines are shuffled as Python's
	// random.seed(seed); random.shuffle(lines).
	Seed           int64
	DisableShuffle bool // --disable-shuffle: file order
	NoOversample   bool // --no-oversample: fewer samples than NumPrompts when the file is short
}

// ChatRenderer renders one user message and the generation prompt with a
// tokenizer's chat template (apply_chat_template(..., tokenize=False,
// add_generation_prompt=True)). The tokenizer.json loader implements it
// for the templates it knows.
type ChatRenderer interface {
	ChatPrompt(content string) (string, error)
}

// customLine is one JSONL line: vLLM reads the prompt column, and with
// --custom-output-len -1 the output_tokens column.
type customLine struct {
	Prompt       *string `json:"prompt"`
	OutputTokens *int    `json:"output_tokens"`
}

// Custom builds vLLM's custom dataset (CustomDataset) from the JSONL file
// at path: one JSON object per line with a "prompt" string (and, with
// OutputLen -1, an "output_tokens" integer); lines shuffled with the seed;
// each prompt wrapped in the chat template unless SkipChatTemplate; its
// PromptLen counted with special tokens, as Python's
// len(tokenizer(prompt).input_ids); repeated to NumPrompts with
// random.choices when the file is short (unless NoOversample).
func Custom(ctx context.Context, tok Tokenizer, path string, cfg CustomConfig) ([]Sample, error) {
	if cfg.OutputLen == 0 {
		cfg.OutputLen = DefaultCustomOutputLen
	}
	if cfg.OutputLen < -1 {
		return nil, fmt.Errorf("dataset: custom: output len %d: want a positive number or -1 (each line's output_tokens)", cfg.OutputLen)
	}
	lines, err := readCustom(path, cfg.OutputLen == -1)
	if err != nil {
		return nil, err
	}
	var render ChatRenderer
	if !cfg.SkipChatTemplate {
		r, ok := tok.(ChatRenderer)
		if !ok {
			what := "this tokenizer"
			if _, server := tok.(*ServerTokenizer); server {
				what = "the server's /tokenize (--tokenizer server, the default)"
			}
			return nil, fmt.Errorf("dataset: custom: %s cannot render the chat template vLLM wraps custom prompts in: give --tokenizer PATH (a tokenizer.json with a known template) or --skip-chat-template", what)
		}
		render = r
	}
	if !cfg.DisableShuffle {
		newPyRandom(cfg.Seed).shuffle(len(lines), func(i, j int) { lines[i], lines[j] = lines[j], lines[i] })
	}
	n := cfg.NumPrompts
	if n <= 0 {
		n = len(lines)
	}
	var out []Sample
	for _, l := range lines {
		if len(out) >= n {
			break
		}
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("dataset: custom: %w", err)
		}
		prompt := l.prompt
		if render != nil {
			if prompt, err = render.ChatPrompt(prompt); err != nil {
				return nil, fmt.Errorf("dataset: custom: %s:%d: chat template (or give --skip-chat-template): %w", path, l.line, err)
			}
		}
		ids, err := encodeSpecial(tok, prompt)
		if err != nil {
			return nil, fmt.Errorf("dataset: custom: %s:%d: prompt: %w", path, l.line, err)
		}
		outLen := cfg.OutputLen
		if outLen == -1 {
			outLen = l.outputTokens
		}
		out = append(out, Sample{Prompt: prompt, PromptLen: len(ids), OutputLen: outLen})
	}
	if k := len(out); k > 0 && k < n && !cfg.NoOversample {
		rnd := newPyRandom(cfg.Seed)
		for len(out) < n {
			out = append(out, out[rnd.choiceIndex(k)])
		}
	}
	return out, nil
}

type customEntry struct {
	prompt       string
	outputTokens int
	line         int
}

func readCustom(path string, needOutput bool) ([]customEntry, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fileErr(fmt.Errorf("dataset: custom: %w", err))
	}
	var out []customEntry
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, len(data)+1)
	for line := 1; sc.Scan(); line++ {
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		var l customLine
		if err := json.Unmarshal(b, &l); err != nil {
			var te *json.UnmarshalTypeError
			if errors.As(err, &te) {
				return nil, fileErr(fmt.Errorf("dataset: custom: %s:%d: field %q: want %s, got a JSON %s", path, line, te.Field, wantOf(te.Field), te.Value))
			}
			return nil, fileErr(fmt.Errorf("dataset: custom: %s:%d: not a JSON object: %v", path, line, err))
		}
		if l.Prompt == nil {
			return nil, fileErr(fmt.Errorf("dataset: custom: %s:%d: no \"prompt\" field (each line must be {\"prompt\": \"…\"})", path, line))
		}
		e := customEntry{prompt: *l.Prompt, line: line}
		if needOutput {
			if l.OutputTokens == nil || *l.OutputTokens < 1 {
				return nil, fileErr(fmt.Errorf("dataset: custom: %s:%d: field \"output_tokens\": want a positive integer (--custom-output-len -1 reads it from each line)", path, line))
			}
			e.outputTokens = *l.OutputTokens
		}
		out = append(out, e)
	}
	if len(out) == 0 {
		return nil, fileErr(fmt.Errorf("dataset: custom: %s: no lines", path))
	}
	return out, nil
}

func wantOf(field string) string {
	if field == "output_tokens" {
		return "an integer"
	}
	return "a string"
}
