package dataset

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/perflab/perflab/collect/dataset/tokenizer"
)

// Tokenizer turns text into token ids and back. Implementations: a
// tokenizer.json loader (*tokenizer.Tokenizer), and the server's
// /tokenize route (*ServerTokenizer).
//
// Encode does not add the special tokens a post-processor would (no BOS):
// Python's encode(text, add_special_tokens=False). VocabSize is the base
// vocabulary without added tokens (Python's tokenizer.vocab_size).
type Tokenizer interface {
	Encode(text string) ([]int, error)
	Decode(ids []int) (string, error)
	VocabSize() int
}

// SpecialEncoder is implemented by tokenizers that can also encode as
// Python's tokenizer(text) does by default, adding the post-processor's
// special tokens (such as Llama's BOS). ShareGPT counts with them, as vLLM
// does.
type SpecialEncoder interface {
	EncodeSpecial(text string, addSpecial bool) ([]int, error)
}

// SpecialIDer is implemented by tokenizers that know their special token
// ids (Python's all_special_ids); Random never draws them.
type SpecialIDer interface {
	SpecialIDs() []int
}

// ChatCounter is implemented by tokenizers that know exactly how many
// tokens the server sees when a prompt goes to /v1/chat/completions as one
// user message (the chat template's wrapper included).
type ChatCounter interface {
	CountChat(content string) (int, error)
}

// The loader implements every optional interface; the server tokenizer
// all but SpecialIDer.
var (
	_ Tokenizer      = (*tokenizer.Tokenizer)(nil)
	_ SpecialEncoder = (*tokenizer.Tokenizer)(nil)
	_ SpecialIDer    = (*tokenizer.Tokenizer)(nil)
	_ ChatCounter    = (*tokenizer.Tokenizer)(nil)
	_ SpecialEncoder = (*ServerTokenizer)(nil)
	_ ChatCounter    = (*ServerTokenizer)(nil)
)

// ChatPromptLen is the prompt token count for content sent to the chat
// endpoint. Where it cannot be known exactly (a chat template the loader
// does not render, a tokenizer without chat support) the error wraps
// tokenizer.ErrUnknownChatTemplate: report the overhead as unknown.
func ChatPromptLen(tok Tokenizer, content string) (int, error) {
	c, ok := tok.(ChatCounter)
	if !ok {
		return 0, fmt.Errorf("dataset: chat prompt length: %T: %w", tok, tokenizer.ErrUnknownChatTemplate)
	}
	n, err := c.CountChat(content)
	if err != nil {
		return 0, fmt.Errorf("dataset: chat prompt length: %w", err)
	}
	return n, nil
}

// Load reads a tokenizer.json file or a model directory holding one.
func Load(path string) (*tokenizer.Tokenizer, error) { return tokenizer.Load(path) }

// OpenTokenizer resolves perflab bench's --tokenizer value: "server" asks
// the engine at baseURL (its /tokenize and /detokenize routes, model sent
// as "model"); anything else is a tokenizer.json file or model directory.
func OpenTokenizer(spec, baseURL, model string, client *http.Client) (Tokenizer, error) {
	switch spec {
	case "":
		return nil, errors.New("dataset: no tokenizer given (a tokenizer.json path, or \"server\")")
	case "server":
		if baseURL == "" {
			return nil, errors.New("dataset: --tokenizer server needs the server's base URL")
		}
		return NewServerTokenizer(baseURL, model, client), nil
	}
	tk, err := tokenizer.Load(spec)
	if err != nil {
		return nil, fmt.Errorf("dataset: %w", err)
	}
	return tk, nil
}

// Sample is one benchmark request.
type Sample struct {
	Prompt string
	// PromptLen is the prompt's token count as vLLM's dataset reports it
	// (random: without special tokens; sharegpt: with them); OutputLen
	// the max_tokens to ask for.
	PromptLen int
	OutputLen int
}

// numSpecialTokens is Python's tokenizer.num_special_tokens_to_add(): how
// many ids encoding with special tokens adds (e.g. 1 for a BOS).
func numSpecialTokens(tok Tokenizer) (int, error) {
	if n, ok := tok.(interface{ NumSpecialTokensToAdd() int }); ok {
		return n.NumSpecialTokensToAdd(), nil
	}
	se, ok := tok.(SpecialEncoder)
	if !ok {
		return 0, nil
	}
	const probe = "a"
	with, err := se.EncodeSpecial(probe, true)
	if err != nil {
		return 0, fmt.Errorf("count special tokens: %w", err)
	}
	without, err := se.EncodeSpecial(probe, false)
	if err != nil {
		return 0, fmt.Errorf("count special tokens: %w", err)
	}
	return max(0, len(with)-len(without)), nil
}

// encodeSpecial encodes like Python's tokenizer(text).input_ids.
func encodeSpecial(tok Tokenizer, text string) ([]int, error) {
	if se, ok := tok.(SpecialEncoder); ok {
		return se.EncodeSpecial(text, true)
	}
	return tok.Encode(text)
}

var errNoVocab = errors.New("tokenizer vocabulary size unknown")

// FileError is a dataset file that cannot be read or holds what the
// dataset cannot take (bad JSON, a missing field, no usable line): the
// user's input, found before anything is sent (perflab bench exits 2 for
// it, as for other usage errors). Failures of the tokenizer or the server
// are not FileErrors.
type FileError struct{ Err error }

func (e *FileError) Error() string { return e.Err.Error() }
func (e *FileError) Unwrap() error { return e.Err }

func fileErr(err error) error { return &FileError{Err: err} }

// SettingsError is a dataset's settings that cannot build it, found only
// once the tokenizer counts its special tokens (vllm-bench's config
// errors, e.g. prefix ratios that leave the later turns no part of their
// own): the user's input too, found before anything is sent.
type SettingsError struct{ Err error }

func (e *SettingsError) Error() string { return e.Err.Error() }
func (e *SettingsError) Unwrap() error { return e.Err }
