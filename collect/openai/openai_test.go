package openai

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"
)

// Chunks as real servers send them.
const (
	llamaCompletion = `{"choices":[{"text":" happy","index":0,"logprobs":null,"finish_reason":null}],"object":"text_completion","model":"tiny-qwen","system_fingerprint":"b11669-Debian","id":"chatcmpl-abc"}`
	llamaFinal      = `{"choices":[{"text":"","index":0,"logprobs":null,"finish_reason":"length"}],"created":1,"model":"tiny-qwen","object":"text_completion","usage":{"completion_tokens":16,"prompt_tokens":33,"total_tokens":49,"prompt_tokens_details":{"cached_tokens":0}},"timings":{"prompt_n":33,"predicted_per_second":361.2}}`
	vllmChatRole    = `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]}`
	vllmUsage       = `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":12,"total_tokens":140,"completion_tokens":128}}`
	llamaChatNull   = `{"choices":[{"finish_reason":null,"index":0,"delta":{"role":"assistant","content":null}}],"created":1,"id":"x","model":"m","object":"chat.completion.chunk"}`
)

func TestParseChunk(t *testing.T) {
	tests := []struct {
		name     string
		in       string
		choices  int
		text     string
		usage    bool
		pt, ct   int
		hasError bool
	}{
		{"llama completion token", llamaCompletion, 1, " happy", false, -1, -1, false},
		// llama.cpp puts usage on the last choices-bearing chunk
		{"llama final with usage", llamaFinal, 1, "", true, 33, 16, false},
		// vLLM's role-only first chat chunk still has choices: a TTFT event
		{"vllm chat role chunk", vllmChatRole, 1, "", false, -1, -1, false},
		{"vllm usage-only chunk", vllmUsage, 0, "", true, 12, 128, false},
		{"llama chat null content", llamaChatNull, 1, "", false, -1, -1, false},
		{"escaped text", `{"choices":[{"text":"a\"b\\n\u00e9\n"}]}`, 1, "a\"b\\n\u00e9\n", false, -1, -1, false},
		{"chat delta", `{"choices":[{"delta":{"content":"hi"}},{"delta":{"content":"second"}}]}`, 2, "hi", false, -1, -1, false},
		{"null choices", `{"choices":null,"usage":null}`, 0, "", false, -1, -1, false},
		{"error event", `{"error":{"message":"boom","code":500}}`, 0, "", false, -1, -1, true},
		{"usage float count", `{"usage":{"completion_tokens":16.0}}`, 0, "", true, -1, 16, false},
		{"whitespace", " { \"choices\" : [ { \"text\" : \"x\" } ] } \n", 1, "x", false, -1, -1, false},
		{"escaped key", `{"choic\u0065s":[{"text":"x"}]}`, 1, "x", false, -1, -1, false},
	}
	for _, tc := range tests {
		var c Chunk
		if err := ParseChunk([]byte(tc.in), &c); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		text := string(AppendText(nil, &c))
		if c.Choices != tc.choices || text != tc.text || c.HasUsage != tc.usage ||
			c.PromptTokens != tc.pt || c.CompletionTokens != tc.ct || (c.Error != nil) != tc.hasError {
			t.Errorf("%s: got choices %d text %q usage %v %d/%d error %s", tc.name,
				c.Choices, text, c.HasUsage, c.PromptTokens, c.CompletionTokens, c.Error)
		}
	}
}

func TestParseChunkMalformed(t *testing.T) {
	for _, in := range []string{
		``, `{`, `{"choices":[{"text":"unterminated}]}`,
		`{"a":1,}`, `{"a":[1,]}`, `{"a":01}`, `{"a":1.}`, `{"a":-}`, `{"a":1e}`,
		`{"a":tru}`, `{"a":"\x"}`, `{"a":"\u12"}`, "{\"a\":\"\x01\"}",
		`{"a":1}{"b":2}`, `{"a" 1}`, `{1:2}`, `{"choices":[{"text":"x"}`,
		`data: {"a":1}`, `{"usage":{"completion_tokens":-}}`,
	} {
		var c Chunk
		err := ParseChunk([]byte(in), &c)
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("%q: err %v, want a SyntaxError", in, err)
		}
		if json.Valid([]byte(in)) {
			t.Errorf("%q: encoding/json calls it valid", in)
		}
	}
	// Valid JSON, but not a chunk.
	for _, in := range []string{`[]`, `"x"`, `null`, `1`} {
		var c Chunk
		if err := ParseChunk([]byte(in), &c); err == nil {
			t.Errorf("%q: no error for a chunk that is not an object", in)
		}
	}
}

// differential checks ParseChunk against encoding/json on one input.
func differential(t *testing.T, in []byte) {
	var c Chunk
	err := ParseChunk(in, &c)
	var m map[string]any
	jerr := json.Unmarshal(in, &m)
	if (err == nil) != (jerr == nil) {
		if jerr != nil && json.Valid(in) {
			return // valid JSON that is not an object: both reject differently
		}
		if jerr == nil && m == nil {
			return // null: encoding/json leaves the map nil, ParseChunk rejects it (a chunk is an object)
		}
		t.Fatalf("%q: ParseChunk err %v, encoding/json err %v", in, err, jerr)
	}
	if err != nil {
		return
	}
	wantChoices, wantText := 0, ""
	if ch, ok := m["choices"].([]any); ok {
		wantChoices = len(ch)
		if len(ch) > 0 {
			if c0, ok := ch[0].(map[string]any); ok {
				if s, ok := c0["text"].(string); ok {
					wantText = s
				}
				if d, ok := c0["delta"].(map[string]any); ok {
					if s, ok := d["content"].(string); ok {
						wantText = s
					}
				}
			}
		}
	}
	if got := string(AppendText(nil, &c)); c.Choices != wantChoices || got != wantText {
		// encoding/json keeps the last duplicate key; so do we for choices
		t.Fatalf("%q: choices %d text %q, encoding/json %d %q", in, c.Choices, got, wantChoices, wantText)
	}
	u, isObj := m["usage"].(map[string]any)
	if c.HasUsage != isObj {
		t.Fatalf("%q: HasUsage %v, encoding/json %v", in, c.HasUsage, isObj)
	}
	if isObj {
		if f, ok := u["completion_tokens"].(float64); ok && f == float64(int(f)) && f >= 0 && f < 1e9 && c.CompletionTokens != int(f) {
			t.Fatalf("%q: completion_tokens %d, encoding/json %v", in, c.CompletionTokens, f)
		}
	}
}

func TestParseChunkDifferential(t *testing.T) {
	for _, in := range []string{llamaCompletion, llamaFinal, vllmChatRole, vllmUsage, llamaChatNull,
		`{"choices":[1,2,3]}`, `{"choices":"x"}`, `{"choices":[{"text":null}]}`, `{"usage":[1]}`,
		`{"a":{"b":[{"c":[true,false,null,-0.5e+3]}]}}`} {
		differential(t, []byte(in))
	}
}

func FuzzParseChunk(f *testing.F) {
	for _, s := range []string{llamaCompletion, llamaFinal, vllmChatRole, vllmUsage, llamaChatNull, `{"a":[1,{"b":"\u00e9"}]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(differential)
}

func TestBodies(t *testing.T) {
	r := Request{Model: "qwen", Prompt: "hi \"there\"", MaxTokens: 16, IgnoreEOS: true}
	got := string(AppendCompletionBody(nil, r))
	want := `{"model":"qwen","prompt":"hi \"there\"","repetition_penalty":1.0,"max_tokens":16,"logprobs":null,"stream":true,"stream_options":{"include_usage":true},"ignore_eos":true}`
	if got != want {
		t.Errorf("completion body\n got %s\nwant %s", got, want)
	}
	r.IgnoreEOS = false
	got = string(AppendBody(nil, Chat, r))
	want = `{"model":"qwen","messages":[{"role":"user","content":[{"type":"text","text":"hi \"there\""}]}],"max_completion_tokens":16,"stream":true,"stream_options":{"include_usage":true}}`
	if got != want {
		t.Errorf("chat body\n got %s\nwant %s", got, want)
	}
	for _, b := range []string{Completions, Chat} {
		if !json.Valid(AppendBody(nil, b, r)) {
			t.Errorf("%s body is not valid JSON", b)
		}
	}
}

// TestBodiesExtra: sampling flags and --extra-body merge into the body as
// vLLM's payload.update(extra_body): an existing key takes the new value in
// its place (never a duplicate key), new keys follow in order.
func TestBodiesExtra(t *testing.T) {
	extra, err := ParseObject(`{"temperature": 0.0, "max_tokens": 5, "chat_template_kwargs": {"enable_thinking": false}, "top_k": 1, "top_k": 20}`)
	if err != nil {
		t.Fatal(err)
	}
	r := Request{Model: "m", Prompt: "p", MaxTokens: 16, IgnoreEOS: true, Extra: extra}
	tests := []struct{ backend, want string }{
		// max_tokens keeps its place with the new value; top_k's last value wins
		{Completions, `{"model":"m","prompt":"p","repetition_penalty":1.0,"max_tokens":5,"logprobs":null,"stream":true,"stream_options":{"include_usage":true},"ignore_eos":true,"temperature":0.0,"chat_template_kwargs":{"enable_thinking":false},"top_k":20}`},
		// chat has max_completion_tokens: the extra max_tokens is one more member
		{Chat, `{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"p"}]}],"max_completion_tokens":16,"stream":true,"stream_options":{"include_usage":true},"ignore_eos":true,"temperature":0.0,"max_tokens":5,"chat_template_kwargs":{"enable_thinking":false},"top_k":20}`},
	}
	for _, tc := range tests {
		if got := string(AppendBody(nil, tc.backend, r)); got != tc.want {
			t.Errorf("%s body\n got %s\nwant %s", tc.backend, got, tc.want)
		}
	}
	// the slow path without extras builds the same bytes as the fast path
	r.Extra = nil
	for _, b := range []string{Completions, Chat} {
		fast := string(AppendBody(nil, b, r))
		slow := string(appendMembers(nil, baseMembers(b, r), nil))
		if fast != slow {
			t.Errorf("%s: fast %s\nslow %s", b, fast, slow)
		}
	}
}

// TestDecodeText: raw pieces decoded at once equal the pieces decoded one
// by one (AppendText), escapes and a surrogate pair split over two events
// included.
func TestDecodeText(t *testing.T) {
	chunks := []string{`{"choices":[{"text":"a\n\"b"}]}`, `{"choices":[{"text":"plain"}]}`, `{"choices":[{"text":"\u00e9\t"}]}`}
	var raw, each []byte
	escaped := false
	for _, ch := range chunks {
		var c Chunk
		if err := ParseChunk([]byte(ch), &c); err != nil {
			t.Fatal(err)
		}
		raw = append(raw, c.Text...)
		escaped = escaped || c.TextEscaped
		each = AppendText(each, &c)
	}
	if got := DecodeText(raw, escaped); got != string(each) || got != "a\n\"bplain\u00e9\t" {
		t.Errorf("DecodeText %q, AppendText %q", got, each)
	}
	if got := DecodeText([]byte(`x\ud83d`+`\ude00`), true); got != "x\U0001F600" {
		t.Errorf("split surrogate pair: %q", got)
	}
	if got := DecodeText([]byte("no escapes"), false); got != "no escapes" {
		t.Errorf("%q", got)
	}
}

func TestParseObjectErrors(t *testing.T) {
	for _, in := range []string{``, `[1]`, `{"a":}`, `{"a":1} x`, `{"a":1`, `"s"`} {
		if _, err := ParseObject(in); err == nil {
			t.Errorf("%q: no error", in)
		}
	}
	fs, err := ParseObject(` { } `)
	if err != nil || len(fs) != 0 {
		t.Errorf("empty object: %v %v", fs, err)
	}
}

func BenchmarkParseChunk(b *testing.B) {
	in := []byte(llamaCompletion)
	var c Chunk
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		if err := ParseChunk(in, &c); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEncodingJSONChunk(b *testing.B) {
	// The alternative ParseChunk replaces, for comparison.
	in := []byte(llamaCompletion)
	type choice struct {
		Text  *string `json:"text"`
		Delta struct {
			Content *string `json:"content"`
		} `json:"delta"`
	}
	var c struct {
		Choices []choice `json:"choices"`
		Usage   *struct {
			PromptTokens     int `json:"prompt_tokens"`
			CompletionTokens int `json:"completion_tokens"`
		} `json:"usage"`
	}
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		if err := json.Unmarshal(in, &c); err != nil {
			b.Fatal(err)
		}
	}
}

// TestDecodeTextInvalidUTF8: invalid bytes become U+FFFD one by one, as
// encoding/json decodes them, and a character split over two chunks is
// whole after concatenation (found by FuzzParseChunk).
func TestDecodeTextInvalidUTF8(t *testing.T) {
	var c Chunk
	if err := ParseChunk([]byte("{\"choices\":[{\"text\":\"a\xd2\xffb\"}]}"), &c); err != nil {
		t.Fatal(err)
	}
	if got, want := string(AppendText(nil, &c)), "a\uFFFD\uFFFDb"; got != want {
		t.Errorf("AppendText = %q, want %q", got, want)
	}
	if got, want := DecodeText([]byte("x\xe4\xbd"), false), "x\uFFFD\uFFFD"; got != want {
		t.Errorf("DecodeText(cut) = %q, want %q", got, want)
	}
	if got, want := DecodeText([]byte("x\xe4\xbd\xa0"), false), "x你"; got != want {
		t.Errorf("DecodeText(joined) = %q, want %q", got, want)
	}
}

// TestBodyHistoryAndTokenIDs: a multi-turn chat body carries the history
// as alternating user and assistant messages before the new user message;
// a completions body with PromptIDs sends the ids in place of the text.
func TestBodyHistoryAndTokenIDs(t *testing.T) {
	b := AppendChatBody(nil, Request{Model: "m", Prompt: "q2", MaxTokens: 3, History: []string{"q1", "a \"1\""}})
	var chat struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
		Max int `json:"max_completion_tokens"`
	}
	if err := json.Unmarshal(b, &chat); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	if len(chat.Messages) != 3 || chat.Messages[0].Role != "user" || chat.Messages[1].Role != "assistant" ||
		string(chat.Messages[1].Content) != `"a \"1\""` || chat.Messages[2].Role != "user" ||
		string(chat.Messages[2].Content) != `[{"type":"text","text":"q2"}]` || chat.Max != 3 {
		t.Fatalf("%s", b)
	}
	c := AppendCompletionBody(nil, Request{Model: "m", Prompt: "ignored", MaxTokens: 2, PromptIDs: []int{5, 0, 17}})
	if !bytes.Contains(c, []byte(`"prompt":[5,0,17],"repetition_penalty":1.0`)) {
		t.Fatalf("%s", c)
	}
	// the slow path (extra members) agrees
	c = AppendCompletionBody(nil, Request{Model: "m", MaxTokens: 2, PromptIDs: []int{5}, Extra: []Field{{"logprobs", json.RawMessage("3")}}})
	if !bytes.Contains(c, []byte(`"prompt":[5]`)) || !bytes.Contains(c, []byte(`"logprobs":3`)) || bytes.Contains(c, []byte(`"logprobs":null`)) {
		t.Fatalf("%s", c)
	}
}
