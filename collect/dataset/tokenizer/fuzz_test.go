package tokenizer

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzParse feeds tokenizer.json and tokenizer_config.json bytes to Parse
// and, when they load, a text to the tokenizer. A refused file gets an
// error naming it; a loaded tokenizer encodes any text to ids it can
// decode, counts what it encodes, and builds a chat prompt or says why not.
func FuzzParse(f *testing.F) {
	tiny, err := os.ReadFile(filepath.Join("testdata", "tiny", TokenizerFile))
	if err != nil {
		f.Fatal(err)
	}
	cfg, err := os.ReadFile(filepath.Join("testdata", "tiny", ConfigFile))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(tiny, cfg, "Hello, world! 12345 <|im_end|> café\n\n")
	f.Add(tiny, []byte(`{"chat_template": "{% for m in messages %}{{ m['content'] }}{% endfor %}", "bos_token": {"content": "<|im_start|>"}}`), " x")
	// The components of the tokenizers the tests install (make deps), on
	// the tiny model: real normalizers, pre-tokenizers, post-processors
	// and decoders, at a size the fuzzer can run many times a second.
	installed, _ := filepath.Glob(filepath.Join(repoRoot(f), ".cache", "tokenizers", "*", TokenizerFile))
	for _, p := range installed {
		if seed, cfg, ok := shrunk(f, tiny, p); ok {
			f.Add(seed, cfg, "The quick brown fox\t跳 42\u00e9")
		}
	}
	// A SentencePiece-style file (Llama 2): Prepend/Replace normalizer,
	// byte fallback, a Sequence decoder and a TemplateProcessing BOS.
	var m map[string]any
	if err := json.Unmarshal(tiny, &m); err != nil {
		f.Fatal(err)
	}
	m["normalizer"] = map[string]any{"type": "Sequence", "normalizers": []any{map[string]any{"type": "Prepend", "prepend": "▁"}, map[string]any{"type": "Replace", "pattern": map[string]any{"String": " "}, "content": "▁"}}}
	m["pre_tokenizer"] = nil
	m["decoder"] = map[string]any{"type": "Sequence", "decoders": []any{map[string]any{"type": "Replace", "pattern": map[string]any{"String": "▁"}, "content": " "}, map[string]any{"type": "ByteFallback"}, map[string]any{"type": "Fuse"}, map[string]any{"type": "Strip", "content": " ", "start": 1, "stop": 0}}}
	m["post_processor"] = map[string]any{"type": "TemplateProcessing", "single": []any{map[string]any{"SpecialToken": map[string]any{"id": "<|im_start|>", "type_id": 0}}, map[string]any{"Sequence": map[string]any{"id": "A", "type_id": 0}}}, "special_tokens": map[string]any{"<|im_start|>": map[string]any{"id": "<|im_start|>", "ids": []any{557}, "tokens": []any{"<|im_start|>"}}}}
	m["model"].(map[string]any)["byte_fallback"] = true
	sp, err := json.Marshal(m)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(sp, []byte(nil), "a b  c")
	f.Fuzz(func(t *testing.T, tokJSON, cfgJSON []byte, text string) {
		if len(cfgJSON) == 0 {
			cfgJSON = nil
		}
		tk, err := Parse(tokJSON, cfgJSON)
		if err != nil {
			if msg := err.Error(); !strings.HasPrefix(msg, "tokenizer.json: ") && !strings.HasPrefix(msg, "tokenizer_config.json: ") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		ids, err := tk.EncodeSpecial(text, true)
		if err != nil {
			return // a text the tokenizer cannot encode is an error, not a panic
		}
		for _, id := range ids {
			if id < 0 {
				t.Fatalf("encode %q: negative id %d in %v", text, id, ids)
			}
		}
		if _, err := tk.Decode(ids); err != nil {
			t.Fatalf("encode %q gave ids %v that do not decode: %v", text, ids, err)
		}
		plain, err := tk.Encode(text)
		if err != nil {
			t.Fatalf("encodes %q with special tokens, not without: %v", text, err)
		}
		if n, err := tk.Count(text); err != nil || n != len(plain) {
			t.Fatalf("count %q = %d, %v; encode gives %d ids", text, n, err, len(plain))
		}
		if utf8.ValidString(text) {
			_, _ = tk.ChatPrompt(text)
		}
	})
}

// shrunk returns the tiny tokenizer with the components of the
// tokenizer.json at path and that tokenizer's config, or false when path
// cannot be read.
func shrunk(f *testing.F, tiny []byte, path string) ([]byte, []byte, bool) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, false
	}
	var real, m map[string]json.RawMessage
	if json.Unmarshal(data, &real) != nil || json.Unmarshal(tiny, &m) != nil {
		return nil, nil, false
	}
	for _, k := range []string{"normalizer", "pre_tokenizer", "post_processor", "decoder"} {
		if v, ok := real[k]; ok {
			m[k] = v
		}
	}
	out, err := json.Marshal(m)
	if err != nil {
		f.Fatal(err)
	}
	cfg, _ := os.ReadFile(filepath.Join(filepath.Dir(path), ConfigFile))
	return out, cfg, true
}
