package openai

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
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
	// Extra are members merged into the body last, as vLLM's
	// payload.update(extra_body) (its sampling flags and --extra-body):
	// a key the body already has takes the Extra value in its place, the
	// others follow in order. Nil: the body is exactly vLLM's default.
	Extra []Field
	// History, for the chat backend, are the conversation's earlier
	// messages, alternating user and assistant contents from a user one;
	// Prompt is the new user message after them (multi-turn sessions).
	History []string
	// PromptIDs, for the completions backend, replace Prompt with its
	// token ids ("prompt": [ids]), as vllm-bench's --prompt-token-ids.
	PromptIDs []int
}

// Field is one member of a JSON object: Key and its compact JSON Value.
type Field struct {
	Key   string
	Value json.RawMessage
}

// ParseObject parses a JSON object (vLLM's --extra-body) into its members
// in order. A repeated key keeps its first position and takes the last
// value, as Python's json.loads does.
func ParseObject(data string) ([]Field, error) {
	dec := json.NewDecoder(strings.NewReader(data))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, fmt.Errorf("want a JSON object, like {\"top_k\": 20}")
	}
	var fs []Field
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("malformed JSON: %w", err)
		}
		key, _ := t.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, fmt.Errorf("member %q: malformed JSON: %w", key, err)
		}
		var buf bytes.Buffer
		if err := json.Compact(&buf, raw); err != nil {
			return nil, fmt.Errorf("member %q: %w", key, err)
		}
		fs = MergeFields(fs, []Field{{Key: key, Value: buf.Bytes()}})
	}
	if _, err := dec.Token(); err != nil {
		return nil, fmt.Errorf("malformed JSON: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("data after the JSON object")
	}
	return fs, nil
}

// MergeFields returns a updated with b, as Python's {**a, **b}: a key of
// both keeps a's position and takes b's value; b's new keys follow.
func MergeFields(a, b []Field) []Field {
	out := append([]Field(nil), a...)
	for _, f := range b {
		if i := fieldIndex(out, f.Key); i >= 0 {
			out[i].Value = f.Value
		} else {
			out = append(out, f)
		}
	}
	return out
}

// AppendObject appends fs as one JSON object.
func AppendObject(dst []byte, fs []Field) []byte {
	dst = append(dst, '{')
	for i, f := range fs {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendString(dst, f.Key)
		dst = append(dst, ':')
		dst = append(dst, f.Value...)
	}
	return append(dst, '}')
}

func fieldIndex(fs []Field, key string) int {
	for i := range fs {
		if fs[i].Key == key {
			return i
		}
	}
	return -1
}

// appendMembers appends the object of the base members updated with
// extra, in Python's dict-update order.
func appendMembers(dst []byte, base, extra []Field) []byte {
	for i := range base {
		if j := fieldIndex(extra, base[i].Key); j >= 0 {
			base[i].Value = extra[j].Value
		}
	}
	dst = append(dst, '{')
	n := 0
	add := func(f Field) {
		if n > 0 {
			dst = append(dst, ',')
		}
		n++
		dst = appendString(dst, f.Key)
		dst = append(dst, ':')
		dst = append(dst, f.Value...)
	}
	for _, f := range base {
		add(f)
	}
	for _, f := range extra {
		if fieldIndex(base, f.Key) < 0 {
			add(f)
		}
	}
	return append(dst, '}')
}

// baseMembers are the body's members before Extra, for the slow path.
func baseMembers(backend string, r Request) []Field {
	str := func(s string) json.RawMessage { return appendString(nil, s) }
	num := func(n int) json.RawMessage { return strconv.AppendInt(nil, int64(n), 10) }
	var fs []Field
	if backend == Chat {
		msg := []byte{'['}
		for i, h := range r.History {
			if i%2 == 0 {
				msg = append(append(append(msg, `{"role":"user","content":[{"type":"text","text":`...), str(h)...), "}]},"...)
			} else {
				msg = append(append(append(msg, `{"role":"assistant","content":`...), str(h)...), "},"...)
			}
		}
		msg = append(append(msg, `{"role":"user","content":[{"type":"text","text":`...), str(r.Prompt)...)
		fs = []Field{{"model", str(r.Model)}, {"messages", append(msg, "}]}]"...)},
			{"max_completion_tokens", num(r.MaxTokens)}}
	} else {
		prompt := str(r.Prompt)
		if r.PromptIDs != nil {
			prompt = appendIDs(nil, r.PromptIDs)
		}
		fs = []Field{{"model", str(r.Model)}, {"prompt", prompt}, {"repetition_penalty", json.RawMessage("1.0")},
			{"max_tokens", num(r.MaxTokens)}, {"logprobs", json.RawMessage("null")}}
	}
	fs = append(fs, Field{"stream", json.RawMessage("true")}, Field{"stream_options", json.RawMessage(`{"include_usage":true}`)})
	if r.IgnoreEOS {
		fs = append(fs, Field{"ignore_eos", json.RawMessage("true")})
	}
	return fs
}

// AppendCompletionBody appends the JSON body vLLM's
// async_request_openai_completions sends, fields in its order:
//
//	{"model":M,"prompt":P,"repetition_penalty":1.0,"max_tokens":N,
//	 "logprobs":null,"stream":true,"stream_options":{"include_usage":true}
//	 [,"ignore_eos":true]}
func AppendCompletionBody(dst []byte, r Request) []byte {
	if len(r.Extra) > 0 {
		return appendMembers(dst, baseMembers(Completions, r), r.Extra)
	}
	dst = append(dst, `{"model":`...)
	dst = appendString(dst, r.Model)
	dst = append(dst, `,"prompt":`...)
	if r.PromptIDs != nil {
		dst = appendIDs(dst, r.PromptIDs)
	} else {
		dst = appendString(dst, r.Prompt)
	}
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
	if len(r.Extra) > 0 || len(r.History) > 0 {
		return appendMembers(dst, baseMembers(Chat, r), r.Extra)
	}
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

// appendIDs appends token ids as a JSON array.
func appendIDs(dst []byte, ids []int) []byte {
	dst = append(dst, '[')
	for i, id := range ids {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = strconv.AppendInt(dst, int64(id), 10)
	}
	return append(dst, ']')
}
