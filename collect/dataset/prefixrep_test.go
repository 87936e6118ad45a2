package dataset

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestNPLegacyRandint: np.random.seed(s); np.random.randint(0, n, size=k),
// numpy's legacy generator, as its documentation and countless tutorials
// print it.
func TestNPLegacyRandint(t *testing.T) {
	for _, c := range []struct {
		seed int64
		n    int
		want []int
	}{
		{0, 10, []int{5, 0, 3, 3, 7, 9, 3, 5, 2, 4}},
		{0, 100, []int{44, 47, 64, 67, 67, 9, 83, 21, 36, 87}},
		{42, 100, []int{51, 92, 14, 71, 60}},
	} {
		r := newNPLegacy(c.seed)
		got := make([]int, len(c.want))
		for i := range got {
			got[i] = r.randint(0, c.n)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("seed %d randint(0, %d) = %v, want %v", c.seed, c.n, got, c.want)
		}
	}
}

// idTok is a tokenizer whose text spells its ids: id i is "<i>", so every
// sequence decodes and re-encodes to itself and expected prompts can be
// written from vLLM's definitions by hand. Encoding with special tokens
// adds a BOS "<0>"; its chat template wraps content in "<8>" … "<9>".
type idTok struct{ vocab int }

func (k idTok) VocabSize() int { return k.vocab }
func (k idTok) Decode(ids []int) (string, error) {
	var b strings.Builder
	for _, id := range ids {
		fmt.Fprintf(&b, "<%d>", id)
	}
	return b.String(), nil
}
func (k idTok) Encode(s string) ([]int, error) {
	var ids []int
	for s != "" {
		end := strings.IndexByte(s, '>')
		if !strings.HasPrefix(s, "<") || end < 0 {
			return nil, fmt.Errorf("idTok: cannot encode %q", s)
		}
		n, err := strconv.Atoi(s[1:end])
		if err != nil {
			return nil, err
		}
		ids = append(ids, n)
		s = s[end+1:]
	}
	return ids, nil
}
func (k idTok) EncodeSpecial(s string, add bool) ([]int, error) {
	ids, err := k.Encode(s)
	if add {
		ids = append([]int{0}, ids...)
	}
	return ids, err
}
func (k idTok) ChatPrompt(c string) (string, error) { return "<8>" + c + "<9>", nil }

// TestPrefixRepetitionGolden: the prompts vLLM's PrefixRepetitionRandomDataset
// builds for --seed 0, vocab 10, 2 prefixes of 2 tokens, suffixes of 1,
// 4 prompts. np.random.seed(0); np.random.randint(0, 10, ...) draws
// 5 0 | 3 | 3 | 7 9 | 3 | 5 (prefix, suffix, suffix, prefix, suffix,
// suffix), giving <5><0><3>, <5><0><3>, <7><9><3>, <7><9><5>; then
// random.seed(0); random.shuffle(4 items) puts items 2, 0, 1, 3 in order.
func TestPrefixRepetitionGolden(t *testing.T) {
	cfg := PrefixRepetitionConfig{NumPrompts: 4, PrefixLen: 2, SuffixLen: 1, NumPrefixes: 2, OutputLen: 9, Seed: 0}
	got, err := PrefixRepetition(context.Background(), idTok{10}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	want := []Sample{
		{"<7><9><3>", 3, 9}, {"<5><0><3>", 3, 9}, {"<5><0><3>", 3, 9}, {"<7><9><5>", 3, 9},
	}
	if !slices.Equal(got, want) {
		t.Fatalf("got %v\nwant %v", got, want)
	}
	cfg.DisableShuffle = true
	got, _ = PrefixRepetition(context.Background(), idTok{10}, cfg)
	if want := []Sample{{"<5><0><3>", 3, 9}, {"<5><0><3>", 3, 9}, {"<7><9><3>", 3, 9}, {"<7><9><5>", 3, 9}}; !slices.Equal(got, want) {
		t.Fatalf("--disable-shuffle: got %v", got)
	}
	// 5 prompts over 2 prefixes: 2 each, the remainder not built (vLLM)
	cfg.NumPrompts = 5
	if got, _ = PrefixRepetition(context.Background(), idTok{10}, cfg); len(got) != 4 {
		t.Fatalf("5 prompts / 2 prefixes: %d samples, want 4", len(got))
	}
	cfg.NumPrompts = 1
	if _, err := PrefixRepetition(context.Background(), idTok{10}, cfg); err == nil || !strings.Contains(err.Error(), "at least --prefix-repetition-num-prefixes") {
		t.Fatalf("fewer prompts than prefixes: %v", err)
	}
}

// TestPrefixRepetitionZeroLengths: a length of 0 is 0 tokens, not the
// default 256. A suffix of 0: np.random.randint(0, 10, size=0) draws
// nothing, so the prefixes take 5 0 and 3 3 and each group's prompts are
// the same; a prefix of 0: the suffixes take 5, 0, 3, 3. The shuffle is
// the one above (2, 0, 1, 3).
func TestPrefixRepetitionZeroLengths(t *testing.T) {
	for _, tc := range []struct {
		prefix, suffix int
		want           []Sample
	}{
		{2, 0, []Sample{{"<3><3>", 2, 9}, {"<5><0>", 2, 9}, {"<5><0>", 2, 9}, {"<3><3>", 2, 9}}},
		{0, 1, []Sample{{"<3>", 1, 9}, {"<5>", 1, 9}, {"<0>", 1, 9}, {"<3>", 1, 9}}},
	} {
		cfg := PrefixRepetitionConfig{NumPrompts: 4, PrefixLen: tc.prefix, SuffixLen: tc.suffix, NumPrefixes: 2, OutputLen: 9}
		got, err := PrefixRepetition(context.Background(), idTok{10}, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("prefix %d suffix %d: got %v\nwant %v", tc.prefix, tc.suffix, got, tc.want)
		}
	}
	cfg := PrefixRepetitionConfig{NumPrompts: 4, NumPrefixes: 2, OutputLen: 9}
	if _, err := PrefixRepetition(context.Background(), idTok{10}, cfg); err == nil || !strings.Contains(err.Error(), "both 0") {
		t.Errorf("prefix and suffix 0: %v", err)
	}
}

// TestPrefixRepetitionSharesPrefixes: with a real tokenizer every prompt
// has exactly prefix+suffix tokens and the prompts of a group start with
// the same PrefixLen tokens.
func TestPrefixRepetitionSharesPrefixes(t *testing.T) {
	tk := installed(t, "qwen3")
	cfg := PrefixRepetitionConfig{NumPrompts: 12, PrefixLen: 40, SuffixLen: 17, NumPrefixes: 3, OutputLen: 5, Seed: 3, DisableShuffle: true}
	got, err := PrefixRepetition(context.Background(), tk, cfg)
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range got {
		if s.PromptLen != 57 {
			t.Fatalf("prompt %d: PromptLen %d, want 57", i, s.PromptLen)
		}
	}
	for g := range 3 {
		a, b := got[4*g].Prompt, got[4*g+3].Prompt
		if a == b {
			t.Fatalf("group %d: same prompt twice", g)
		}
		ia, _ := tk.Encode(a)
		ib, _ := tk.Encode(b)
		if !slices.Equal(ia[:35], ib[:35]) {
			t.Fatalf("group %d: prompts do not share their prefix", g)
		}
	}
	if got[0].Prompt[:20] == got[4].Prompt[:20] {
		t.Fatalf("groups 0 and 1 share a prefix")
	}
}

// TestCustomGolden: vLLM's CustomDataset on a 5-line file, --seed 1:
// random.seed(1); random.shuffle(5 lines) gives lines 2 3 4 0 1; each
// prompt wrapped in the chat template (<8> … <9>) and counted with
// special tokens (BOS <0>): 1 + 2 + its own tokens.
func TestCustomGolden(t *testing.T) {
	path := filepath.Join(t.TempDir(), "p.jsonl")
	data := `{"prompt": "<1>", "output_tokens": 11}
{"prompt": "<2><2>", "output_tokens": 12}

{"prompt": "<3><3><3>", "output_tokens": 13, "other": "ignored"}
{"prompt": "<4>", "output_tokens": 14}
{"prompt": "<5><5>", "output_tokens": 15}
`
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	got, err := Custom(ctx, idTok{10}, path, CustomConfig{NumPrompts: 3, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	want := []Sample{{"<8><3><3><3><9>", 6, 256}, {"<8><4><9>", 4, 256}, {"<8><5><5><9>", 5, 256}}
	if !slices.Equal(got, want) {
		t.Fatalf("got %v\nwant %v", got, want)
	}
	// -1: each line's output_tokens; skip the template; file order
	got, err = Custom(ctx, idTok{10}, path, CustomConfig{NumPrompts: 2, OutputLen: -1, SkipChatTemplate: true, DisableShuffle: true})
	if err != nil {
		t.Fatal(err)
	}
	if want := []Sample{{"<1>", 2, 11}, {"<2><2>", 3, 12}}; !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	// more prompts than lines: repeated (vLLM's oversampling), or not
	all5, _ := Custom(ctx, idTok{10}, path, CustomConfig{NumPrompts: 5, Seed: 1})
	got, _ = Custom(ctx, idTok{10}, path, CustomConfig{NumPrompts: 8, Seed: 1})
	if len(got) != 8 || !slices.Equal(got[:5], all5) {
		t.Fatalf("oversampled: %v", got)
	}
	for _, s := range got[5:] {
		if !slices.Contains(all5, s) {
			t.Fatalf("oversampled %v is not one of the file's", s)
		}
	}
	if got, _ = Custom(ctx, idTok{10}, path, CustomConfig{NumPrompts: 8, NoOversample: true}); len(got) != 5 {
		t.Fatalf("--no-oversample: %d samples, want 5", len(got))
	}
}

func TestCustomErrors(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name, data string
		cfg        CustomConfig
		want       string
	}{
		{"noprompt", "{\"prompt\": \"<1>\"}\n{\"text\": \"x\"}\n", CustomConfig{}, "noprompt.jsonl:2: no \"prompt\" field"},
		{"notjson", "{\"prompt\": \"<1>\"}\nnot json\n", CustomConfig{}, "notjson.jsonl:2: not a JSON object"},
		{"numprompt", "{\"prompt\": 5}\n", CustomConfig{}, "numprompt.jsonl:1: field \"prompt\": want a string"},
		{"nooutput", "{\"prompt\": \"<1>\", \"output_tokens\": 3}\n{\"prompt\": \"<1>\"}\n", CustomConfig{OutputLen: -1}, "nooutput.jsonl:2: field \"output_tokens\": want a positive integer"},
		{"empty", "\n\n", CustomConfig{}, "no lines"},
	} {
		path := filepath.Join(dir, c.name+".jsonl")
		if err := os.WriteFile(path, []byte(c.data), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Custom(context.Background(), idTok{10}, path, c.cfg)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
	// a tokenizer that cannot render a chat template needs --skip-chat-template
	path := filepath.Join(dir, "ok.jsonl")
	os.WriteFile(path, []byte("{\"prompt\": \"hi\"}\n"), 0o644)
	if _, err := Custom(context.Background(), NewServerTokenizer("http://127.0.0.1:1", "m", nil), path, CustomConfig{}); err == nil || !strings.Contains(err.Error(), "the server's /tokenize (--tokenizer server, the default) cannot render") || !strings.Contains(err.Error(), "--skip-chat-template") {
		t.Errorf("server tokenizer without --skip-chat-template: %v", err)
	}
}

// TestTimedTrace: each hash id is a fixed block, shared hash ids give
// shared leading tokens, the last block is cut to input_length, too few
// hashes give a shorter prompt (as vLLM), timestamps are scaled and made
// relative to the first row, field names remap.
func TestTimedTrace(t *testing.T) {
	path := filepath.Join(t.TempDir(), "trace.jsonl")
	os.WriteFile(path, []byte(`{"ts": 1000, "in": 10, "out": 3, "h": [7, 8, 9]}
{"ts": 1500, "in": 8, "out": 4, "h": [7, 5]}
{"ts": 2250, "in": 12, "out": 5, "h": [1]}
`), 0o644)
	cfg := TimedTraceConfig{BlockTokens: 4, SecMultiplier: 0.001, KeyTimestamp: "ts", KeyInput: "in", KeyOutput: "out", KeyHashIDs: "h"}
	tr, err := TimedTrace(context.Background(), idTok{1000}, path, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Samples) != 3 || !slices.Equal(tr.AtS, []float64{0, 0.5, 1.25}) {
		t.Fatalf("%+v", tr)
	}
	if l := []int{len(tr.IDs[0]), len(tr.IDs[1]), len(tr.IDs[2])}; !slices.Equal(l, []int{10, 8, 4}) {
		t.Fatalf("prompt lengths %v, want 10 8 4 (4+4+2; 4+4; one block only)", l)
	}
	if !slices.Equal(tr.IDs[0][:4], tr.IDs[1][:4]) || slices.Equal(tr.IDs[0][4:8], tr.IDs[1][4:8]) {
		t.Fatalf("hash 7 must expand alike, 8 and 5 differently: %v %v", tr.IDs[0], tr.IDs[1])
	}
	for i, s := range tr.Samples {
		if want, _ := (idTok{}).Decode(tr.IDs[i]); s.Prompt != want || s.PromptLen != len(tr.IDs[i]) {
			t.Fatalf("sample %d %+v", i, s)
		}
	}
	again, _ := TimedTrace(context.Background(), idTok{1000}, path, cfg)
	if !slices.Equal(again.IDs[2], tr.IDs[2]) {
		t.Fatal("not reproducible")
	}
	cfg.KeyInput = "input_length"
	if _, err := TimedTrace(context.Background(), idTok{1000}, path, cfg); err == nil || !strings.Contains(err.Error(), "trace.jsonl:1: no field \"input_length\"") || !strings.Contains(err.Error(), "--timed-trace-label-input-length") {
		t.Fatalf("missing field: %v", err)
	}
}
