package dataset

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestAlignToServer: a server counting one token per character; prompts
// counted as words. The first prompt's count differs, so every prompt the
// server finds longer is cut to its length (the server's detokenize of
// the first ids) and kept at its PromptLen; a server without /tokenize
// leaves them alone.
func TestAlignToServer(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Prompt string `json:"prompt"`
			Tokens []int  `json:"tokens"`
		}
		_ = json.NewDecoder(r.Body).Decode(&body)
		switch r.URL.Path {
		case "/tokenize": // one id per byte
			ids := make([]int, len(body.Prompt))
			for i := range body.Prompt {
				ids[i] = int(body.Prompt[i])
			}
			_ = json.NewEncoder(w).Encode(map[string]any{"tokens": ids})
		case "/detokenize":
			b := make([]byte, len(body.Tokens))
			for i, id := range body.Tokens {
				b[i] = byte(id)
			}
			_ = json.NewEncoder(w).Encode(map[string]any{"prompt": string(b)})
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	in := []Sample{{Prompt: "ab cd", PromptLen: 2}, {Prompt: "xy", PromptLen: 2}, {Prompt: "hello world", PromptLen: 2}}
	var log bytes.Buffer
	out, n := AlignToServer(context.Background(), NewServerTokenizer(srv.URL, "m", nil), in, &log)
	if n != 2 || out[0].Prompt != "ab" || out[1].Prompt != "xy" || out[2].Prompt != "he" || out[2].PromptLen != 2 {
		t.Fatalf("%d changed: %+v", n, out)
	}
	if in[0].Prompt != "ab cd" {
		t.Error("the input samples were changed in place")
	}
	if !strings.Contains(log.String(), "tokenizer mismatch (server=5, expected=2), re-aligning prompts.") {
		t.Errorf("log %q", log.String())
	}
	log.Reset()
	none := httptest.NewServer(http.NotFoundHandler())
	defer none.Close()
	out, n = AlignToServer(context.Background(), NewServerTokenizer(none.URL, "m", nil), in, &log)
	if n != 0 || out[0].Prompt != "ab cd" || !strings.Contains(log.String(), "/tokenize unavailable, skipping alignment.") {
		t.Fatalf("%d changed, log %q", n, log.String())
	}
}
