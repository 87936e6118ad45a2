package dataset

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"
)

// ServerTokenizer counts tokens with the engine's own tokenizer through
// its POST /tokenize and /detokenize routes (--tokenizer server).
//
// One request body serves every engine: vLLM and SGLang read
// {"model", "prompt", "add_special_tokens"}, llama.cpp's llama-server
// reads {"content", "add_special"}; each ignores the other's fields, and
// all answer {"tokens": [...]}. /detokenize answers {"prompt"} (vLLM),
// {"content"} (llama.cpp) or {"text"}.
type ServerTokenizer struct {
	// BaseURL is the server's root, e.g. http://127.0.0.1:8000.
	BaseURL string
	// Model is sent as "model" (vLLM and SGLang need it).
	Model string
	// Client makes the requests (nil: a client with a 60 s timeout).
	Client *http.Client
	// Vocab is the base vocabulary size Random draws from. 0: ask the
	// server once (llama.cpp's /v1/models meta.n_vocab); vLLM and SGLang
	// do not publish it, so it is probed through /detokenize (ProbeVocab).
	Vocab int

	once     sync.Once
	vocab    int
	vocabErr error
}

// NewServerTokenizer returns a tokenizer that asks the server at baseURL.
func NewServerTokenizer(baseURL, model string, client *http.Client) *ServerTokenizer {
	return &ServerTokenizer{BaseURL: strings.TrimRight(baseURL, "/"), Model: model, Client: client}
}

func (s *ServerTokenizer) client() *http.Client {
	if s.Client != nil {
		return s.Client
	}
	return &http.Client{Timeout: 60 * time.Second}
}

func (s *ServerTokenizer) post(ctx context.Context, route string, body, reply any) error {
	b, err := json.Marshal(body)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.BaseURL+route, bytes.NewReader(b))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := s.client().Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("HTTP %d: %s", resp.StatusCode, truncate(string(data), 200))
	}
	if err := json.Unmarshal(data, reply); err != nil {
		return fmt.Errorf("reply %q: %w", truncate(string(data), 200), err)
	}
	return nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// EncodeContext is EncodeSpecial with a context.
func (s *ServerTokenizer) EncodeContext(ctx context.Context, text string, addSpecial bool) ([]int, error) {
	body := map[string]any{
		"model": s.Model, "prompt": text, "add_special_tokens": addSpecial, // vLLM, SGLang
		"content": text, "add_special": addSpecial, "parse_special": true, // llama.cpp
	}
	var reply struct {
		Tokens *[]json.RawMessage `json:"tokens"`
	}
	if err := s.post(ctx, "/tokenize", body, &reply); err != nil {
		return nil, fmt.Errorf("server tokenizer: %s/tokenize: %w", s.BaseURL, err)
	}
	if reply.Tokens == nil {
		return nil, fmt.Errorf("server tokenizer: %s/tokenize: reply has no \"tokens\"", s.BaseURL)
	}
	ids := make([]int, len(*reply.Tokens))
	for i, raw := range *reply.Tokens {
		// llama.cpp with with_pieces answers {"id", "piece"} objects.
		var id int
		if err := json.Unmarshal(raw, &id); err != nil {
			var obj struct {
				ID *int `json:"id"`
			}
			if json.Unmarshal(raw, &obj) != nil || obj.ID == nil {
				return nil, fmt.Errorf("server tokenizer: %s/tokenize: tokens[%d] = %s is not an id", s.BaseURL, i, raw)
			}
			id = *obj.ID
		}
		ids[i] = id
	}
	return ids, nil
}

// Encode returns the server's ids for text without added special tokens.
func (s *ServerTokenizer) Encode(text string) ([]int, error) {
	return s.EncodeContext(context.Background(), text, false)
}

// EncodeSpecial returns the server's ids, with the special tokens (BOS)
// the server's tokenizer adds when addSpecial is true.
func (s *ServerTokenizer) EncodeSpecial(text string, addSpecial bool) ([]int, error) {
	return s.EncodeContext(context.Background(), text, addSpecial)
}

// DecodeContext is Decode with a context.
func (s *ServerTokenizer) DecodeContext(ctx context.Context, ids []int) (string, error) {
	if ids == nil {
		ids = []int{}
	}
	var reply struct {
		Prompt  *string `json:"prompt"`
		Content *string `json:"content"`
		Text    *string `json:"text"`
	}
	if err := s.post(ctx, "/detokenize", map[string]any{"model": s.Model, "tokens": ids}, &reply); err != nil {
		return "", fmt.Errorf("server tokenizer: %s/detokenize: %w", s.BaseURL, err)
	}
	switch {
	case reply.Prompt != nil:
		return *reply.Prompt, nil
	case reply.Content != nil:
		return *reply.Content, nil
	case reply.Text != nil:
		return *reply.Text, nil
	}
	return "", fmt.Errorf("server tokenizer: %s/detokenize: reply has none of \"prompt\", \"content\", \"text\"", s.BaseURL)
}

// Decode asks the server for the text of ids.
func (s *ServerTokenizer) Decode(ids []int) (string, error) {
	return s.DecodeContext(context.Background(), ids)
}

// CountChat is the prompt token count the server sees when content is
// sent to /v1/chat/completions as one user message, rendered by the
// server's own chat template: llama.cpp's /apply-template and /tokenize,
// or vLLM's and SGLang's /tokenize with "messages".
func (s *ServerTokenizer) CountChat(content string) (int, error) {
	return s.CountChatContext(context.Background(), content)
}

// CountChatContext is CountChat with a context.
func (s *ServerTokenizer) CountChatContext(ctx context.Context, content string) (int, error) {
	msgs := []map[string]string{{"role": "user", "content": content}}
	var tmpl struct {
		Prompt *string `json:"prompt"`
	}
	if err := s.post(ctx, "/apply-template", map[string]any{"messages": msgs}, &tmpl); err == nil && tmpl.Prompt != nil {
		ids, err := s.EncodeContext(ctx, *tmpl.Prompt, false)
		return len(ids), err
	}
	var reply struct {
		Tokens *[]json.RawMessage `json:"tokens"`
	}
	body := map[string]any{"model": s.Model, "messages": msgs, "add_generation_prompt": true}
	if err := s.post(ctx, "/tokenize", body, &reply); err != nil {
		return 0, fmt.Errorf("server tokenizer: %s: chat prompt: no /apply-template, and /tokenize with messages: %w", s.BaseURL, err)
	}
	if reply.Tokens == nil {
		return 0, fmt.Errorf("server tokenizer: %s/tokenize with messages: reply has no \"tokens\"", s.BaseURL)
	}
	return len(*reply.Tokens), nil
}

// VocabSize is Vocab, or llama.cpp's n_vocab from /v1/models, or else the
// base size ProbeVocab finds, or 0 when neither works (Random then fails
// with a clear error).
func (s *ServerTokenizer) VocabSize() int {
	if s.Vocab > 0 {
		return s.Vocab
	}
	s.once.Do(func() { s.vocab, s.vocabErr = s.discoverVocab(context.Background()) })
	return s.vocab
}

// vocabError says why VocabSize is 0 (nil if it is not).
func (s *ServerTokenizer) vocabError() error {
	if s.VocabSize() > 0 {
		return nil
	}
	return s.vocabErr
}

func (s *ServerTokenizer) fetchVocab(ctx context.Context) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.BaseURL+"/v1/models", nil)
	if err != nil {
		return 0, err
	}
	resp, err := s.client().Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	var reply struct {
		Data []struct {
			ID   string `json:"id"`
			Meta *struct {
				NVocab int `json:"n_vocab"`
			} `json:"meta"`
		} `json:"data"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&reply); err != nil {
		return 0, err
	}
	for _, d := range reply.Data {
		if d.Meta != nil && d.Meta.NVocab > 0 && (s.Model == "" || d.ID == s.Model || len(reply.Data) == 1) {
			return d.Meta.NVocab, nil
		}
	}
	return 0, fmt.Errorf("%s/v1/models has no n_vocab (only llama.cpp publishes it)", s.BaseURL)
}
