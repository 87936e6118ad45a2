package mock

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
)

// Message is one chat message. Content may be sent as a string or as a
// list of parts; the text parts are joined and other parts (images) are
// dropped, since the mock has no vision encoder.
type Message struct {
	Role    string
	Content string
}

// UnmarshalJSON accepts OpenAI's string and list-of-parts content.
func (m *Message) UnmarshalJSON(b []byte) error {
	var raw struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	m.Role = raw.Role
	c := bytes.TrimSpace(raw.Content)
	switch {
	case len(c) == 0 || string(c) == "null":
		m.Content = ""
	case c[0] == '"':
		return json.Unmarshal(c, &m.Content)
	case c[0] == '[':
		var parts []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		if err := json.Unmarshal(c, &parts); err != nil {
			return fmt.Errorf("content: %w", err)
		}
		var sb strings.Builder
		for _, p := range parts {
			if p.Type == "text" {
				sb.WriteString(p.Text)
			}
		}
		m.Content = sb.String()
	default:
		return errors.New("content: want a string or a list of parts")
	}
	return nil
}

// Text is the message's text.
func (m Message) Text() string { return m.Content }

// genRequest is the part of a completions or chat request the mock reads.
type genRequest struct {
	Model               *string         `json:"model"`
	Prompt              json.RawMessage `json:"prompt"`
	Messages            []Message       `json:"messages"`
	MaxTokens           *int            `json:"max_tokens"`
	MaxCompletionTokens *int            `json:"max_completion_tokens"`
	MinTokens           int             `json:"min_tokens"`
	N                   *int            `json:"n"`
	Stream              bool            `json:"stream"`
	StreamOptions       *struct {
		IncludeUsage         bool `json:"include_usage"`
		ContinuousUsageStats bool `json:"continuous_usage_stats"`
	} `json:"stream_options"`
	IgnoreEOS bool `json:"ignore_eos"`
}

// tokenizeRequest is vLLM's /tokenize and /detokenize body.
type tokenizeRequest struct {
	Model          *string         `json:"model"`
	Prompt         json.RawMessage `json:"prompt"`
	Messages       []Message       `json:"messages"`
	ReturnTokenStr bool            `json:"return_token_strs"`
	Tokens         []int           `json:"tokens"`
}

// promptText resolves a completions prompt: a string, a one-element list
// of strings, or a list of token ids (decoded, then counted as given).
func promptText(raw json.RawMessage, tok Tokenizer) (text string, ids []int, err error) {
	c := bytes.TrimSpace(raw)
	if len(c) == 0 || string(c) == "null" {
		return "", nil, errors.New("prompt is required")
	}
	switch c[0] {
	case '"':
		err = json.Unmarshal(c, &text)
		return text, nil, err
	case '[':
		var list []json.RawMessage
		if err := json.Unmarshal(c, &list); err != nil {
			return "", nil, fmt.Errorf("prompt: %w", err)
		}
		if len(list) == 0 {
			return "", nil, errors.New("prompt is an empty list")
		}
		if f := bytes.TrimSpace(list[0]); len(f) > 0 && f[0] == '"' {
			if len(list) != 1 {
				return "", nil, fmt.Errorf("prompt: %d prompts in one request; the mock serves one", len(list))
			}
			err = json.Unmarshal(f, &text)
			return text, nil, err
		}
		if err := json.Unmarshal(c, &ids); err != nil {
			return "", nil, fmt.Errorf("prompt: want a string or a list of token ids: %w", err)
		}
		text, err = tok.Decode(ids)
		return text, ids, err
	}
	return "", nil, errors.New("prompt: want a string or a list of token ids")
}

// apiError is an OpenAI-style error answer.
type apiError struct {
	status int
	typ    string
	msg    string
}

func (e *apiError) Error() string { return e.msg }

func badRequest(format string, a ...any) *apiError {
	return &apiError{http.StatusBadRequest, "BadRequestError", fmt.Sprintf(format, a...)}
}

// writeError writes OpenAI's error shape: {"error":{message,type,param,code}}.
func writeError(w http.ResponseWriter, e *apiError) {
	type detail struct {
		Message string  `json:"message"`
		Type    string  `json:"type"`
		Param   *string `json:"param"`
		Code    int     `json:"code"`
	}
	body, _ := json.Marshal(struct {
		Error detail `json:"error"`
	}{detail{e.msg, e.typ, nil, e.status}})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(e.status)
	w.Write(append(body, '\n'))
}

func writeJSON(w http.ResponseWriter, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		writeError(w, &apiError{http.StatusInternalServerError, "InternalServerError", err.Error()})
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(append(body, '\n'))
}

// decodeBody reads a JSON body strictly enough to call malformed JSON a 400.
func decodeBody(r *http.Request, v any) *apiError {
	dec := json.NewDecoder(http.MaxBytesReader(nil, r.Body, 64<<20))
	if err := dec.Decode(v); err != nil {
		return badRequest("malformed JSON body: %v", err)
	}
	if dec.More() {
		return badRequest("malformed JSON body: data after the JSON value")
	}
	return nil
}

// usage is OpenAI's usage object, in vLLM's key order.
type usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	TotalTokens      int `json:"total_tokens"`
	CompletionTokens int `json:"completion_tokens"`
}

type completionChoice struct {
	Index        int     `json:"index"`
	Text         string  `json:"text"`
	Logprobs     *string `json:"logprobs"`
	FinishReason string  `json:"finish_reason"`
	StopReason   *string `json:"stop_reason"`
}

type chatChoice struct {
	Index   int `json:"index"`
	Message struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	} `json:"message"`
	Logprobs     *string `json:"logprobs"`
	FinishReason string  `json:"finish_reason"`
	StopReason   *string `json:"stop_reason"`
}

type genResponse struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Created int64  `json:"created"`
	Model   string `json:"model"`
	Choices any    `json:"choices"`
	Usage   usage  `json:"usage"`
}
