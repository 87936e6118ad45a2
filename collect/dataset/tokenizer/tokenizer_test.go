package tokenizer

import (
	"encoding/json"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

func TestApplyBehavior(t *testing.T) {
	// The Rust library's documented example: splitting "the-final--countdown"
	// on "-" with each behavior.
	const s = "the-final--countdown"
	ms, _ := pattern{literal: "-"}.matches(s)
	cases := []struct {
		behavior string
		invert   bool
		want     []string
	}{
		{"Removed", false, []string{"the", "final", "countdown"}},
		{"Isolated", false, []string{"the", "-", "final", "-", "-", "countdown"}},
		{"MergedWithPrevious", false, []string{"the-", "final-", "-", "countdown"}},
		{"MergedWithNext", false, []string{"the", "-final", "-", "-countdown"}},
		{"Contiguous", false, []string{"the", "-", "final", "--", "countdown"}},
		// invert: the words are the delimiters, so Removed keeps only "-".
		{"Removed", true, []string{"-", "-", "-"}},
		// invert: each word merges with the dash after it.
		{"MergedWithNext", true, []string{"the-", "final-", "-", "countdown"}},
	}
	for _, c := range cases {
		got := applyBehavior(nil, s, ms, c.behavior, c.invert)
		if !slices.Equal(got, c.want) {
			t.Errorf("%s invert=%v: got %q, want %q", c.behavior, c.invert, got, c.want)
		}
	}
}

// TestMergeHeapEqualsLinear checks the two BPE merge loops agree on
// random words of a real vocabulary (they pick by rank, then leftmost).
func TestMergeHeapEqualsLinear(t *testing.T) {
	tk := family(t, "tiny")
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []rune("the quick brown fox, THE LAZY dog 你好 12345 \n\t'")
	for range 300 {
		n := 1 + rng.IntN(120)
		var b strings.Builder
		for range n {
			b.WriteRune(alphabet[rng.IntN(len(alphabet))])
		}
		w := byteLevelString(b.String())
		var syms []int32
		for _, r := range w {
			syms = append(syms, tk.charIDs[r])
		}
		lin := tk.mergeLinear(slices.Clone(syms))
		hp := tk.mergeHeap(slices.Clone(syms))
		if !slices.Equal(lin, hp) {
			t.Fatalf("word %q: linear %v, heap %v", b.String(), lin, hp)
		}
	}
}

// tinyJSON returns the tiny tokenizer.json as a map for editing.
func tinyJSON(t *testing.T) map[string]any {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "tiny", TokenizerFile))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func parseMap(t *testing.T, m map[string]any, config []byte) (*Tokenizer, error) {
	t.Helper()
	data, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return Parse(data, config)
}

func TestUnsupportedComponentsAreNamed(t *testing.T) {
	cases := []struct {
		field string
		value any
		want  string
	}{
		{"normalizer", map[string]any{"type": "BertNormalizer"}, `normalizer: normalizer "BertNormalizer" is not supported`},
		{"normalizer", map[string]any{"type": "Sequence", "normalizers": []any{map[string]any{"type": "NFC"}, map[string]any{"type": "Precompiled"}}}, `Sequence[1]: normalizer "Precompiled" is not supported`},
		{"pre_tokenizer", map[string]any{"type": "BertPreTokenizer"}, `pre_tokenizer: pre-tokenizer "BertPreTokenizer" is not supported`},
		{"pre_tokenizer", map[string]any{"type": "Split", "pattern": map[string]any{"Regex": "a"}, "behavior": "Sideways"}, `behavior "Sideways" is not supported`},
		{"pre_tokenizer", map[string]any{"type": "Split", "pattern": map[string]any{"Regex": "(unclosed"}, "behavior": "Isolated"}, `regex "(unclosed"`},
		{"post_processor", map[string]any{"type": "RobertaProcessing"}, `post_processor: post-processor "RobertaProcessing" is not supported`},
		{"decoder", map[string]any{"type": "WordPiece"}, `decoder: decoder "WordPiece" is not supported`},
		{"model", map[string]any{"type": "Unigram", "vocab": []any{}}, `model: type "Unigram" is not supported (only BPE)`},
		{"model", map[string]any{"type": "WordPiece", "vocab": map[string]any{}}, `model: type "WordPiece" is not supported`},
	}
	for _, c := range cases {
		m := tinyJSON(t)
		m[c.field] = c.value
		_, err := parseMap(t, m, nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s = %v: error %v, want it to contain %q", c.field, c.value, err, c.want)
		}
	}
}

func TestBadModelFiles(t *testing.T) {
	m := tinyJSON(t)
	model := m["model"].(map[string]any)
	model["merges"] = []any{"Ġ"} // no space: not a pair
	if _, err := parseMap(t, m, nil); err == nil || !strings.Contains(err.Error(), "merges[0]") {
		t.Errorf("bad merge: %v", err)
	}
	m = tinyJSON(t)
	m["model"].(map[string]any)["merges"] = []any{[]any{"zz-not-a-token", "t"}}
	if _, err := parseMap(t, m, nil); err == nil || !strings.Contains(err.Error(), "not in the vocab") {
		t.Errorf("merge of unknown token: %v", err)
	}
	if _, err := Parse([]byte("{"), nil); err == nil || !strings.Contains(err.Error(), "tokenizer.json") {
		t.Errorf("truncated JSON: %v", err)
	}
	if _, err := Load(filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Error("missing file: no error")
	}
}

func TestLoadFileOrDirectory(t *testing.T) {
	dir := filepath.Join("testdata", "tiny")
	a, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Load(filepath.Join(dir, TokenizerFile))
	if err != nil {
		t.Fatal(err)
	}
	if a.Name() != b.Name() || !strings.HasSuffix(a.Name(), TokenizerFile) {
		t.Errorf("names %q and %q", a.Name(), b.Name())
	}
	// The config beside the file was read in both cases: pad and eos are special.
	for _, tk := range []*Tokenizer{a, b} {
		if got := tk.SpecialIDs(); len(got) != 3 {
			t.Errorf("special ids %v, want the three added tokens", got)
		}
	}
}

func TestAddedTokenOptions(t *testing.T) {
	m := tinyJSON(t)
	size := len(m["model"].(map[string]any)["vocab"].(map[string]any))
	m["added_tokens"] = []any{
		map[string]any{"id": size, "content": "<L>", "lstrip": true, "special": true},
		map[string]any{"id": size + 1, "content": "<R>", "rstrip": true, "special": true},
		map[string]any{"id": size + 2, "content": "cat", "single_word": true},
		map[string]any{"id": size + 3, "content": "<L><R>", "special": true},
	}
	tk, err := parseMap(t, m, nil)
	if err != nil {
		t.Fatal(err)
	}
	plain := func(s string) []int {
		ids, err := tk.encodePlain(s, true, nil)
		if err != nil {
			t.Fatal(err)
		}
		return appendInts(nil, ids)
	}
	cat := size + 2
	cases := []struct {
		name, text string
		want       []int
	}{
		{"lstrip eats spaces on the left", "a  <L>b", concat(plain("a"), []int{size}, plain("b"))},
		{"rstrip eats spaces on the right", "a<R>  b", concat(plain("a"), []int{size + 1}, plain("b"))},
		{"longest match wins", "<L><R>", []int{size + 3}},
		{"single word alone", "a cat b", concat(plain("a "), []int{cat}, plain(" b"))},
		{"single word inside a word is not the token", "concatenate", plain("concatenate")},
	}
	for _, c := range cases {
		got, err := tk.Encode(c.text)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("%s: Encode(%q) = %v, %v; want %v", c.name, c.text, got, err, c.want)
		}
	}
}

func concat(parts ...[]int) []int {
	var out []int
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

func TestMetaspaceFile(t *testing.T) {
	// A Mistral-style SentencePiece BPE file: Metaspace pre-tokenizer and
	// decoder, byte fallback. Vocabulary written for the test.
	vocab := map[string]any{"<unk>": 0, "<s>": 1, "</s>": 2, "▁": 3, "a": 4, "b": 5, "▁a": 6, "ab": 7, "▁ab": 8}
	for b := 0; b < 256; b++ {
		vocab["<0x"+hex2(b)+">"] = 9 + b
	}
	m := map[string]any{
		"added_tokens":  []any{map[string]any{"id": 1, "content": "<s>", "special": true}},
		"normalizer":    nil,
		"pre_tokenizer": map[string]any{"type": "Metaspace", "replacement": "▁", "prepend_scheme": "first", "split": false},
		"decoder": map[string]any{"type": "Sequence", "decoders": []any{
			map[string]any{"type": "Metaspace", "replacement": "▁", "prepend_scheme": "first", "split": false},
			map[string]any{"type": "ByteFallback"},
			map[string]any{"type": "Fuse"},
		}},
		"post_processor": map[string]any{"type": "TemplateProcessing",
			"single":         []any{map[string]any{"SpecialToken": map[string]any{"id": "<s>"}}, map[string]any{"Sequence": map[string]any{"id": "A"}}},
			"special_tokens": map[string]any{"<s>": map[string]any{"ids": []any{1}}}},
		"model": map[string]any{"type": "BPE", "unk_token": "<unk>", "byte_fallback": true, "fuse_unk": true,
			"vocab": vocab, "merges": []any{"▁ a", "▁a b", "a b"}},
	}
	tk, err := parseMap(t, m, nil)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		text string
		want []int
	}{
		{"ab", []int{8}},                    // "▁ab" after the first-segment prefix
		{"ab ab", []int{8, 8}},              // spaces become ▁
		{"<s>ab", []int{1, 7}},              // after a special token: no prefix ("first")
		{"é", []int{3, 9 + 0xC3, 9 + 0xA9}}, // byte fallback for an unknown character
	}
	for _, c := range cases {
		got, err := tk.Encode(c.text)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("Encode(%q) = %v, %v; want %v", c.text, got, err, c.want)
		}
		dec, err := tk.Decode(got)
		if err != nil || dec != c.text {
			t.Errorf("Decode(%v) = %q, %v; want %q", got, dec, err, c.text)
		}
	}
	if n := tk.NumSpecialTokensToAdd(); n != 1 {
		t.Errorf("NumSpecialTokensToAdd = %d, want 1 (BOS)", n)
	}

	// Without the token <0xA9>, "é" (C3 A9) cannot fall back to bytes: it
	// becomes unk, as in the Rust library (Gemini's file lacks <0x09>).
	delete(vocab, "<0xA9>")
	if tk, err = parseMap(t, m, nil); err != nil {
		t.Fatal(err)
	}
	if got, err := tk.Encode("é"); err != nil || !slices.Equal(got, []int{3, 0}) {
		t.Errorf("missing byte token: %v, %v; want [3 0] (▁, <unk>)", got, err)
	}
}

func hex2(b int) string {
	const digits = "0123456789ABCDEF"
	return string([]byte{digits[b>>4], digits[b&15]})
}

func TestErrors(t *testing.T) {
	tk := family(t, "tiny")
	if _, err := tk.Encode("bad \xff byte"); err == nil || !strings.Contains(err.Error(), "UTF-8") {
		t.Errorf("invalid UTF-8: %v", err)
	}
	if _, err := tk.Decode([]int{-1}); err == nil || !strings.Contains(err.Error(), "id -1") {
		t.Errorf("negative id: %v", err)
	}
	if _, err := tk.Decode([]int{1 << 30}); err == nil {
		t.Error("huge id: no error")
	}
	if _, err := tk.ChatPrompt("hi"); !errors.Is(err, ErrUnknownChatTemplate) {
		t.Errorf("no template: %v, want ErrUnknownChatTemplate", err)
	}
	m := tinyJSON(t)
	other, err := parseMap(t, m, []byte(`{"chat_template": "{{ messages[0]['content'] }}"}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.CountChat("hi"); !errors.Is(err, ErrUnknownChatTemplate) || !strings.Contains(err.Error(), other.ChatTemplateSHA256()) {
		t.Errorf("unknown template: %v", err)
	}
}

func TestChatPromptQwen3(t *testing.T) {
	tk := family(t, "qwen3")
	if tk.ChatTemplateName() != "qwen3-chatml" {
		t.Fatalf("template %q not recognised", tk.ChatTemplateSHA256())
	}
	n, err := tk.CountChat("Hello!")
	if err != nil {
		t.Fatal(err)
	}
	plain, _ := tk.Count("Hello!")
	// <|im_start|> user \n ... <|im_end|> \n <|im_start|> assistant \n
	if n-plain != 8 {
		t.Errorf("ChatML overhead for %q = %d tokens, want 8", "Hello!", n-plain)
	}
}

func TestConcurrentEncode(t *testing.T) {
	tk := family(t, "tiny")
	texts := []string{"the quick brown fox", "你好，世界", "a  b   c", "<|im_start|>user\nhi<|im_end|>"}
	want := make([][]int, len(texts))
	for i, s := range texts {
		want[i], _ = tk.Encode(s)
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range 200 {
				i := (g + k) % len(texts)
				got, err := tk.Encode(texts[i])
				if err != nil || !slices.Equal(got, want[i]) {
					t.Errorf("goroutine %d: %q = %v, %v", g, texts[i], got, err)
					return
				}
			}
		}()
	}
	wg.Wait()
}

func TestCleanUpTokenization(t *testing.T) {
	cases := []struct{ in, want string }{
		{"Hello , world !", "Hello, world!"},
		{"I 'm sure it 's fine , is n't it ?", "I'm sure it's fine, isn't it?"},
		{"a ' b", "a'b"},
	}
	for _, c := range cases {
		if got := cleanUpTokenization(c.in); got != c.want {
			t.Errorf("cleanUp(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestChunksKeepIDs checks that cutting Llama 2 words before "▁" gives the
// same ids as BPE over the whole word.
func TestChunksKeepIDs(t *testing.T) {
	tk := family(t, "llama2")
	if tk.chunkRune != '▁' {
		t.Fatalf("llama2 chunk rune %q, want ▁", tk.chunkRune)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	alphabet := []rune("▁▁▁the quick brown fox jumps 你好世界 123 éü\n\t.,!😀")
	for range 300 {
		var b strings.Builder
		for n := rng.IntN(200); n >= 0; n-- {
			b.WriteRune(alphabet[rng.IntN(len(alphabet))])
		}
		w := b.String()
		whole, err := tk.bpeWord(w, nil)
		if err != nil {
			t.Fatal(err)
		}
		var parts []int32
		for _, c := range chunks(w, tk.chunkRune) {
			if parts, err = tk.bpeWord(c, parts); err != nil {
				t.Fatal(err)
			}
		}
		if !slices.Equal(whole, parts) {
			t.Fatalf("%q: whole %v, chunked %v", w, whole, parts)
		}
	}
	if got := chunks("▁a▁▁b▁", '▁'); !slices.Equal(got, []string{"▁a", "▁▁b", "▁"}) {
		t.Errorf("chunks = %q", got)
	}
}

func TestLossyUTF8(t *testing.T) {
	// Expected strings are what Rust's String::from_utf8_lossy and the
	// WHATWG TextDecoder give (one U+FFFD per maximal subpart).
	cases := []struct {
		in   []byte
		want string
	}{
		{[]byte("ok"), "ok"},
		{[]byte{0xE4, 0xBD}, "\uFFFD"},                   // "你" cut after two bytes
		{[]byte{0xE4, 0xBD, 'a'}, "\uFFFDa"},             // ... then ASCII
		{[]byte{0x80, 0x80}, "\uFFFD\uFFFD"},             // lone continuation bytes: one each
		{[]byte{0xF0, 0x9F, 0x98}, "\uFFFD"},             // emoji cut after three bytes
		{[]byte{0xE0, 0x80, 0x80}, "\uFFFD\uFFFD\uFFFD"}, // overlong: E0 needs A0..BF next
		{[]byte{0xED, 0xA0, 0x80}, "\uFFFD\uFFFD\uFFFD"}, // surrogate: ED needs 80..9F next
		{[]byte{0xF5, 0x80}, "\uFFFD\uFFFD"},             // F5 is never a lead byte
		{[]byte{0xEF, 0xBF, 0xBD}, "\uFFFD"},             // a real U+FFFD stays one
	}
	for _, c := range cases {
		if got := lossyUTF8(c.in); got != c.want {
			t.Errorf("% x: %q, want %q", c.in, got, c.want)
		}
	}
}
