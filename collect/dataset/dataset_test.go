package dataset

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
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
		{`{"conversations": [1, 2], "conversations": [1]}`, 1, false},         // the last one counts, as in Python
		{`{"conversations": null}`, -1, false},
		{`[1, 2]`, -1, false}, // not an object
		{`{"conversations": {"a": 1}}`, 0, true},
		{`{"x": -1.5e3, "conversations": [true, false, null]}`, 3, false},
	}
	for _, c := range cases {
		s := &jsonScan{b: []byte(c.in), eof: true}
		n, err := s.entry()
		if (err != nil) != c.err || (!c.err && n != c.want) {
			t.Errorf("%s: %d, %v; want %d (error %v)", c.in, n, err, c.want, c.err)
		}
	}
}

// scanWithDecoder is the reference for scanShareGPT: encoding/json's
// Decoder, entry by entry, and the same rules.
func scanWithDecoder(r io.Reader) ([]int64, error) {
	dec := json.NewDecoder(r)
	if t, err := dec.Token(); err != nil || t != json.Delim('[') {
		return nil, fmt.Errorf("not a list: %v", err)
	}
	var offsets []int64
	for dec.More() {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, err
		}
		// The offset of the value itself, after the separator.
		off := dec.InputOffset() - int64(len(raw))
		var e map[string]json.RawMessage
		if json.Unmarshal(raw, &e) != nil {
			continue // not an object
		}
		conv, ok := e["conversations"]
		if !ok || string(conv) == "null" {
			continue
		}
		var list []json.RawMessage
		if err := json.Unmarshal(conv, &list); err != nil {
			return nil, fmt.Errorf("conversations is not a list")
		}
		if len(list) >= 2 {
			offsets = append(offsets, off)
		}
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("data after the list: %v", err)
	}
	return offsets, nil
}

// randomShareGPT writes a random ShareGPT-shaped document exercising the
// grammar: whitespace, escapes, numbers, literals, nesting, entries that
// are not objects, missing or null conversations, repeated keys.
func randomShareGPT(rng *rand.Rand) string {
	ws := func() string { return []string{"", " ", "\n", "\t ", "\r\n  "}[rng.IntN(5)] }
	str := func() string {
		parts := []string{"a", "你好", `\"`, `\\`, `\/`, `\n`, `\u00e9`, `\ud83d\ude00`, " ", ",", "[", "}", ":"}
		out := `"`
		for n := rng.IntN(6); n > 0; n-- {
			out += parts[rng.IntN(len(parts))]
		}
		return out + `"`
	}
	var value func(depth int) string
	value = func(depth int) string {
		k := rng.IntN(9)
		if depth > 2 && k >= 7 {
			k = 0
		}
		switch k {
		case 0, 1:
			return str()
		case 2:
			return []string{"0", "-1", "12.5", "1e9", "-0.25E-3", "3E+2"}[rng.IntN(6)]
		case 3:
			return []string{"true", "false", "null"}[rng.IntN(3)]
		case 4, 5, 6:
			return "{" + ws() + str() + ws() + ":" + ws() + value(depth+1) + ws() + "}"
		default:
			out := "["
			for n := rng.IntN(4); n > 0; n-- {
				if out != "[" {
					out += "," + ws()
				}
				out += value(depth + 1)
			}
			return out + "]"
		}
	}
	doc := ws() + "[" + ws()
	for e := rng.IntN(12); e > 0; e-- {
		var entry string
		switch rng.IntN(8) {
		case 0:
			entry = value(1) // anything
		default:
			fields := []string{}
			for f := rng.IntN(3); f > 0; f-- {
				fields = append(fields, str()+":"+ws()+value(1))
			}
			switch rng.IntN(6) {
			case 0: // no conversations
			case 1:
				fields = append(fields, `"conversations":null`)
			default:
				turns := "["
				for n := rng.IntN(5); n > 0; n-- {
					if turns != "[" {
						turns += "," + ws()
					}
					turns += `{"from":"human",` + ws() + `"value":` + str() + "}"
				}
				fields = append(fields, `"conversations"`+ws()+":"+ws()+turns+"]")
			}
			rng.Shuffle(len(fields), func(i, j int) { fields[i], fields[j] = fields[j], fields[i] })
			entry = "{" + ws() + strings.Join(fields, ","+ws()) + ws() + "}"
		}
		if strings.TrimSpace(doc) != "[" {
			doc += "," + ws()
		}
		doc += entry + ws()
	}
	return doc + "]" + ws()
}

// TestScanMatchesDecoder compares the scanner with the decoder-based
// reference on random valid documents (with windows small enough to
// slide inside every kind of token) and on random one-byte corruptions
// of them (both must reject the same ones).
func TestScanMatchesDecoder(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	ctx := context.Background()
	mutated, rejected := 0, 0
	for k := 0; k < 3000; k++ {
		doc := randomShareGPT(rng)
		want, err := scanWithDecoder(strings.NewReader(doc))
		if err != nil {
			t.Fatalf("reference rejects its own document: %v\n%s", err, doc)
		}
		for _, size := range []int{1, 7, 64, 4096} {
			got, err := scanShareGPTWindow(ctx, strings.NewReader(doc), size)
			if err != nil || !slices.Equal(got, want) {
				t.Fatalf("window %d: %v, %v; want %v\n%s", size, got, err, want, doc)
			}
		}
		// One corruption: delete, insert or replace a byte.
		b := []byte(doc)
		i := rng.IntN(len(b))
		c := "{}[],:\"\\ a0-.eE+tfnu\x01"[rng.IntN(21)]
		switch rng.IntN(3) {
		case 0:
			b = append(b[:i], b[i+1:]...)
		case 1:
			b = append(b[:i], append([]byte{c}, b[i:]...)...)
		default:
			b[i] = c
		}
		bad := string(b)
		_, refErr := scanWithDecoder(strings.NewReader(bad))
		got, err := scanShareGPTWindow(ctx, strings.NewReader(bad), 16)
		if (err != nil) != (refErr != nil) {
			t.Fatalf("corrupted document: scanner %v, reference %v\n%q", err, refErr, bad)
		}
		if err == nil {
			want, _ := scanWithDecoder(strings.NewReader(bad))
			if !slices.Equal(got, want) {
				t.Fatalf("corrupted but valid document: %v, want %v\n%q", got, want, bad)
			}
		} else {
			rejected++
		}
		mutated++
	}
	t.Logf("%d random documents agree; %d corruptions, %d rejected by both", 3000, mutated, rejected)
}
