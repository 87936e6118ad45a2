package dataset

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/perflab/perflab/collect/dataset/tokenizer"
)

// The CPython order in testdata/sharegpt-sample-order.json was written by:
//
//	python3 -c "import json, random
//	data = [e for e in json.load(open('sharegpt-sample.json')) if 'conversations' in e and len(e['conversations']) >= 2]
//	random.seed(SEED); random.shuffle(data); print([e['id'] for e in data])"

const samplePath = "testdata/sharegpt-sample.json"

// tiny is the small committed tokenizer (no download needed).
func tiny(t testing.TB) *tokenizer.Tokenizer {
	t.Helper()
	tk, err := tokenizer.Load(filepath.Join("tokenizer", "testdata", "tiny"))
	if err != nil {
		t.Fatal(err)
	}
	return tk
}

// installed loads a tokenizer from .cache/tokenizers or skips loudly.
func installed(t testing.TB, family string) *tokenizer.Tokenizer {
	t.Helper()
	dir := filepath.Join("..", "..", ".cache", "tokenizers", family)
	if _, err := os.Stat(filepath.Join(dir, tokenizer.TokenizerFile)); err != nil {
		t.Skipf("SKIP: %s tokenizer not installed (%v); run `make deps`", family, err)
	}
	tk, err := tokenizer.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	return tk
}

type sampleEntry struct {
	ID            string `json:"id"`
	Conversations []struct {
		Value string `json:"value"`
	} `json:"conversations"`
}

func readSample(t *testing.T) map[string]sampleEntry {
	t.Helper()
	data, err := os.ReadFile(samplePath)
	if err != nil {
		t.Fatal(err)
	}
	var entries []sampleEntry
	if err := json.Unmarshal(data, &entries); err != nil {
		t.Fatal(err)
	}
	byID := map[string]sampleEntry{}
	for _, e := range entries {
		byID[e.ID] = e
	}
	return byID
}

func cpythonOrder(t *testing.T, seed string) []string {
	t.Helper()
	data, err := os.ReadFile("testdata/sharegpt-sample-order.json")
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	var ids []string
	if err := json.Unmarshal(m[seed], &ids); err != nil {
		t.Fatal(err)
	}
	return ids
}

// TestShareGPTShuffleMatchesCPython checks the streamed scan and the
// shuffle pick the same entries in the same order as vLLM's Python code.
func TestShareGPTShuffleMatchesCPython(t *testing.T) {
	for _, seed := range []int64{0, 42} {
		f, err := os.Open(samplePath)
		if err != nil {
			t.Fatal(err)
		}
		offsets, err := scanShareGPT(context.Background(), f)
		if err != nil {
			t.Fatal(err)
		}
		newPyRandom(seed).shuffle(len(offsets), func(i, j int) { offsets[i], offsets[j] = offsets[j], offsets[i] })
		var got []string
		for _, off := range offsets {
			// Read the id the same way, by offset, to check the offsets too.
			var e sampleEntry
			if err := decodeAt(f, off, &e); err != nil {
				t.Fatal(err)
			}
			got = append(got, e.ID)
		}
		f.Close()
		if want := cpythonOrder(t, strings.TrimSpace(itoa(seed))); !slices.Equal(got, want) {
			t.Errorf("seed %d:\n got %v\nwant %v", seed, got, want)
		}
	}
}

func itoa(n int64) string { b, _ := json.Marshal(n); return string(b) }

// decodeAt decodes the JSON value at off (after separators) into v.
func decodeAt(f *os.File, off int64, v any) error {
	data, err := os.ReadFile(f.Name())
	if err != nil {
		return err
	}
	rest := strings.TrimLeft(string(data[off:]), ", \n\r\t")
	return json.NewDecoder(strings.NewReader(rest)).Decode(v)
}

// TestShareGPTSamples builds the expected samples from the CPython order
// and vLLM's rules, and compares.
func TestShareGPTSamples(t *testing.T) {
	byID := readSample(t)
	order := cpythonOrder(t, "0")
	for _, c := range []struct {
		name string
		tok  func(testing.TB) *tokenizer.Tokenizer
		cfg  ShareGPTConfig
	}{
		{"tiny, reply length", tiny, ShareGPTConfig{NumPrompts: 20}},
		{"tiny, fixed output length", tiny, ShareGPTConfig{NumPrompts: 20, OutputLen: 77}},
		{"qwen3, reply length", func(t testing.TB) *tokenizer.Tokenizer { return installed(t, "qwen3") }, ShareGPTConfig{NumPrompts: 30}},
		{"llama2 (BOS counted)", func(t testing.TB) *tokenizer.Tokenizer { return installed(t, "llama2") }, ShareGPTConfig{NumPrompts: 30}},
	} {
		t.Run(c.name, func(t *testing.T) {
			tk := c.tok(t)
			got, err := ShareGPT(context.Background(), tk, samplePath, c.cfg)
			if err != nil {
				t.Fatal(err)
			}
			var want []Sample
			filtered := map[string]bool{}
			for _, id := range order {
				if len(want) == c.cfg.NumPrompts {
					break
				}
				e := byID[id]
				p, _ := tk.EncodeSpecial(e.Conversations[0].Value, true)
				r, _ := tk.EncodeSpecial(e.Conversations[1].Value, true)
				out := len(r)
				if c.cfg.OutputLen > 0 {
					out = c.cfg.OutputLen
				}
				if len(p) < 4 || (c.cfg.OutputLen == 0 && out < 4) || len(p) > 1024 || len(p)+out > 2048 {
					filtered[id] = true
					continue
				}
				want = append(want, Sample{Prompt: e.Conversations[0].Value, PromptLen: len(p), OutputLen: out})
			}
			if !slices.Equal(got, want) {
				t.Errorf("got %d samples, want %d; first difference at %d", len(got), len(want), firstDiff(got, want))
			}
			// The edge-case entries among the walked ones were dropped.
			for _, id := range []string{"long_prompt", "short_prompt"} {
				if !filtered[id] {
					t.Errorf("%s was not filtered", id)
				}
			}
		})
	}
}

func firstDiff(a, b []Sample) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

func TestShareGPTOversample(t *testing.T) {
	tk := tiny(t)
	all, err := ShareGPT(context.Background(), tk, samplePath, ShareGPTConfig{NumPrompts: 10_000, NoOversample: true})
	if err != nil {
		t.Fatal(err)
	}
	n := len(all)
	if n == 0 || n > 64 {
		t.Fatalf("%d usable samples", n)
	}
	more, err := ShareGPT(context.Background(), tk, samplePath, ShareGPTConfig{NumPrompts: n + 25, Seed: 0})
	if err != nil {
		t.Fatal(err)
	}
	if len(more) != n+25 || !slices.Equal(more[:n], all) {
		t.Fatalf("oversampled to %d, prefix equal %v", len(more), slices.Equal(more[:n], all))
	}
	// The extra ones are random.choices(samples, k=25) after random.seed(0).
	r := newPyRandom(0)
	for k := n; k < n+25; k++ {
		if want := all[r.choiceIndex(n)]; more[k] != want {
			t.Fatalf("extra sample %d is not CPython's choice", k)
		}
	}
}

func TestShareGPTDisableShuffle(t *testing.T) {
	tk := tiny(t)
	got, err := ShareGPT(context.Background(), tk, samplePath, ShareGPTConfig{NumPrompts: 3, DisableShuffle: true})
	if err != nil {
		t.Fatal(err)
	}
	byID := readSample(t)
	for i, id := range []string{"perflab_0", "perflab_1", "perflab_2"} {
		if got[i].Prompt != byID[id].Conversations[0].Value {
			t.Errorf("sample %d is not %s, the file's order", i, id)
		}
	}
}

func TestShareGPTBadFiles(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name, content, want string
	}{
		{"not a list", `{"conversations": []}`, "not a JSON list"},
		{"syntax error on line 3", "[\n{\"conversations\": [{\"value\": \"a\"}, {\"value\": \"b\"}]},\n{\"conversations\": [}\n]", "line 3"},
		{"no value", `[{"conversations": [{"from": "human"}, {"value": "b"}]}]`, `conversations[0] has no "value"`},
		{"conversations not a list", `[{"conversations": {"a": 1}}]`, "conversations is not a list"},
		{"nothing usable", `[{"conversations": [{"value": "a"}]}]`, "no conversation passes"},
	}
	for _, c := range cases {
		p := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "_")+".json")
		if err := os.WriteFile(p, []byte(c.content), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := ShareGPT(context.Background(), tiny(t), p, ShareGPTConfig{NumPrompts: 1})
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), p) {
			t.Errorf("%s: error %v, want it to name the file and contain %q", c.name, err, c.want)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ShareGPT(ctx, tiny(t), samplePath, ShareGPTConfig{}); err == nil {
		t.Error("cancelled context: no error")
	}
}

func TestConversationTurns(t *testing.T) {
	cases := []struct {
		in   string
		want int
		err  bool
	}{
		{`{"conversations": []}`, 0, false},
		{`{"id": "x", "conversations": [ ] }`, 0, false},
		{`{"conversations": [{"value": "a, b"}]}`, 1, false}, // comma inside a string
		{`{"conversations": [{"value": "x"}, {"value": "[y, z]"}, {"a": [1, 2]}], "z": 1}`, 3, false},
		{`{"conversations": ["\", ", 2]}`, 2, false},                          // escaped quote inside a string
		{`{"a": {"conversations": [1, 2]}, "b": "conversations"}`, -1, false}, // nested key is not the entry's
		{`{"conversation\u0073": [1, 2]}`, 2, false},                          // escaped key
		{`{"conversations": null}`, -1, false},
		{`[1, 2]`, -1, false}, // not an object
		{`{"conversations": {"a": 1}}`, 0, true},
		{`{"x": -1.5e3, "conversations": [true, false, null]}`, 3, false},
	}
	for _, c := range cases {
		n, err := conversationTurns([]byte(c.in))
		if n != c.want || (err != nil) != c.err {
			t.Errorf("%s: %d, %v; want %d (error %v)", c.in, n, err, c.want, c.err)
		}
	}
}
