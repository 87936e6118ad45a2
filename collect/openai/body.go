package openai

import (
	"encoding/json"
	"strconv"
)

// Backend names, as vLLM's --backend.
const (
	// Completions is vLLM's "openai" backend: POST /v1/completions.
	Completions = "openai"
	// Chat is vLLM's "openai-chat" backend: POST /v1/chat/completions.
	Chat = "openai-chat"
)

// Request is what varies between the requests of a run.
type Request struct {
	Model     string
	Prompt    string
	MaxTokens int
	IgnoreEOS bool
}

// AppendCompletionBody appends the JSON body vLLM's
// async_request_openai_completions sends, fields in its order:
//
//	{"model":M,"prompt":P,"repetition_penalty":1.0,"max_tokens":N,
//	 "logprobs":null,"stream":true,"stream_options":{"include_usage":true}
//	 [,"ignore_eos":true]}
func AppendCompletionBody(dst []byte, r Request) []byte {
	dst = append(dst, `{"model":`...)
	dst = appendString(dst, r.Model)
	dst = append(dst, `,"prompt":`...)
	dst = appendString(dst, r.Prompt)
	dst = append(dst, `,"repetition_penalty":1.0,"max_tokens":`...)
	dst = strconv.AppendInt(dst, int64(r.MaxTokens), 10)
	dst = append(dst, `,"logprobs":null,"stream":true,"stream_options":{"include_usage":true}`...)
	if r.IgnoreEOS {
		dst = append(dst, `,"ignore_eos":true`...)
	}
	return append(dst, '}')
}

// AppendChatBody appends the JSON body vLLM's
// async_request_openai_chat_completions sends (the prompt as one text
// content part; max_completion_tokens, not max_tokens):
//
//	{"model":M,"messages":[{"role":"user","content":[{"type":"text","text":P}]}],
//	 "max_completion_tokens":N,"stream":true,"stream_options":{"include_usage":true}
//	 [,"ignore_eos":true]}
func AppendChatBody(dst []byte, r Request) []byte {
	dst = append(dst, `{"model":`...)
	dst = appendString(dst, r.Model)
	dst = append(dst, `,"messages":[{"role":"user","content":[{"type":"text","text":`...)
	dst = appendString(dst, r.Prompt)
	dst = append(dst, `}]}],"max_completion_tokens":`...)
	dst = strconv.AppendInt(dst, int64(r.MaxTokens), 10)
	dst = append(dst, `,"stream":true,"stream_options":{"include_usage":true}`...)
	if r.IgnoreEOS {
		dst = append(dst, `,"ignore_eos":true`...)
	}
	return append(dst, '}')
}

// AppendBody appends the body for backend (Completions or Chat).
func AppendBody(dst []byte, backend string, r Request) []byte {
	if backend == Chat {
		return AppendChatBody(dst, r)
	}
	return AppendCompletionBody(dst, r)
}

// appendString appends s as a JSON string. encoding/json cannot fail on a
// string; HTML characters are escaped as vLLM's json.dumps does not, which
// only changes the bytes, not the value.
func appendString(dst []byte, s string) []byte {
	b, _ := json.Marshal(s)
	return append(dst, b...)
}
