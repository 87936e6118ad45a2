package tinymodel

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
)

// Config shapes the model. Zero values mean the defaults in brackets.
type Config struct {
	Name          string  // general.name [tiny-qwen]
	Layers        int     // [2]
	Embd          int     // embedding width [64]
	Heads         int     // attention heads [4]
	KVHeads       int     // key/value heads [2]
	FFN           int     // feed-forward width [128]
	ContextLength int     // qwen2.context_length [4096]
	Seed          uint64  // weight RNG seed [0]
	Std           float64 // weight standard deviation [0.05]
}

func (c Config) withDefaults() Config {
	def := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	if c.Name == "" {
		c.Name = "tiny-qwen"
	}
	def(&c.Layers, 2)
	def(&c.Embd, 64)
	def(&c.Heads, 4)
	def(&c.KVHeads, 2)
	def(&c.FFN, 128)
	def(&c.ContextLength, 4096)
	if c.Std == 0 {
		c.Std = 0.05
	}
	return c
}

// Tokenizer is what the model file needs from a Hugging Face tokenizer.
type Tokenizer struct {
	Tokens       []string // by id
	Types        []int32  // GGUF token types by id
	Merges       []string // "a b"
	EOS, PAD     int
	ChatTemplate string
}

// GGUF token types.
const (
	tokNormal      = 1
	tokControl     = 3
	tokUserDefined = 4
	tokUnused      = 5
)

// LoadTokenizer reads dir/tokenizer.json and dir/tokenizer_config.json
// (a byte-level BPE tokenizer such as Qwen's).
func LoadTokenizer(dir string) (*Tokenizer, error) {
	var tj struct {
		AddedTokens []struct {
			ID      int    `json:"id"`
			Content string `json:"content"`
			Special bool   `json:"special"`
		} `json:"added_tokens"`
		Model struct {
			Type   string          `json:"type"`
			Vocab  map[string]int  `json:"vocab"`
			Merges json.RawMessage `json:"merges"`
		} `json:"model"`
	}
	if err := readJSON(filepath.Join(dir, "tokenizer.json"), &tj); err != nil {
		return nil, err
	}
	if tj.Model.Type != "BPE" {
		return nil, fmt.Errorf("tinymodel: %s: field model.type: %q, want BPE", filepath.Join(dir, "tokenizer.json"), tj.Model.Type)
	}
	var cfg struct {
		ChatTemplate string          `json:"chat_template"`
		EOS          json.RawMessage `json:"eos_token"`
		PAD          json.RawMessage `json:"pad_token"`
	}
	if err := readJSON(filepath.Join(dir, "tokenizer_config.json"), &cfg); err != nil {
		return nil, err
	}
	n := 0
	for _, id := range tj.Model.Vocab {
		n = max(n, id+1)
	}
	for _, a := range tj.AddedTokens {
		n = max(n, a.ID+1)
	}
	t := &Tokenizer{Tokens: make([]string, n), Types: make([]int32, n), ChatTemplate: cfg.ChatTemplate}
	for i := range t.Tokens {
		t.Tokens[i] = fmt.Sprintf("[PAD%d]", i)
		t.Types[i] = tokUnused
	}
	for s, id := range tj.Model.Vocab {
		if id < 0 {
			return nil, fmt.Errorf("tinymodel: tokenizer.json: field model.vocab: negative id %d for %q", id, s)
		}
		t.Tokens[id], t.Types[id] = s, tokNormal
	}
	ids := map[string]int{}
	for _, a := range tj.AddedTokens {
		typ := int32(tokUserDefined)
		if a.Special {
			typ = tokControl
		}
		t.Tokens[a.ID], t.Types[a.ID] = a.Content, typ
		ids[a.Content] = a.ID
	}
	// merges: ["a b", ...] (older files) or [["a","b"], ...]
	var pairs [][2]string
	var flat []string
	if err := json.Unmarshal(tj.Model.Merges, &flat); err == nil {
		t.Merges = flat
	} else if err := json.Unmarshal(tj.Model.Merges, &pairs); err == nil {
		t.Merges = make([]string, len(pairs))
		for i, p := range pairs {
			t.Merges[i] = p[0] + " " + p[1]
		}
	} else {
		return nil, fmt.Errorf("tinymodel: tokenizer.json: field model.merges: %w", err)
	}
	var err error
	if t.EOS, err = specialID(cfg.EOS, ids, "eos_token"); err != nil {
		return nil, err
	}
	if t.PAD, err = specialID(cfg.PAD, ids, "pad_token"); err != nil {
		t.PAD = t.EOS
	}
	return t, nil
}

// specialID resolves a tokenizer_config token ("<|im_end|>" or
// {"content": "<|im_end|>"}) to its id.
func specialID(raw json.RawMessage, ids map[string]int, field string) (int, error) {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		var o struct {
			Content string `json:"content"`
		}
		if json.Unmarshal(raw, &o) == nil {
			s = o.Content
		}
	}
	id, ok := ids[s]
	if !ok {
		return 0, fmt.Errorf("tinymodel: tokenizer_config.json: field %s: %q is not an added token", field, s)
	}
	return id, nil
}

func readJSON(path string, v any) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("tinymodel: %w", err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("tinymodel: %s: %w", path, err)
	}
	return nil
}

// GGUF value types.
const (
	ggufU32    = 4
	ggufI32    = 5
	ggufF32    = 6
	ggufBool   = 7
	ggufString = 8
	ggufArray  = 9
)

const alignment = 32

type tensor struct {
	name string
	dims []uint64 // ggml order: dims[0] is the innermost
	init float64  // 0: random; otherwise the constant value
}

func (t tensor) elems() uint64 {
	n := uint64(1)
	for _, d := range t.dims {
		n *= d
	}
	return n
}

// Write writes the model as GGUF to w.
func Write(w io.Writer, tok *Tokenizer, cfg Config) error {
	cfg = cfg.withDefaults()
	if cfg.Embd%cfg.Heads != 0 || cfg.Heads%cfg.KVHeads != 0 {
		return fmt.Errorf("tinymodel: embd %d, heads %d, kv heads %d: widths must divide", cfg.Embd, cfg.Heads, cfg.KVHeads)
	}
	e, v, f := uint64(cfg.Embd), uint64(len(tok.Tokens)), uint64(cfg.FFN)
	kv := e / uint64(cfg.Heads) * uint64(cfg.KVHeads)
	tensors := []tensor{{name: "token_embd.weight", dims: []uint64{e, v}}, {name: "output_norm.weight", dims: []uint64{e}, init: 1}}
	for l := range cfg.Layers {
		p := fmt.Sprintf("blk.%d.", l)
		tensors = append(tensors,
			tensor{name: p + "attn_norm.weight", dims: []uint64{e}, init: 1},
			tensor{name: p + "attn_q.weight", dims: []uint64{e, e}},
			tensor{name: p + "attn_q.bias", dims: []uint64{e}},
			tensor{name: p + "attn_k.weight", dims: []uint64{e, kv}},
			tensor{name: p + "attn_k.bias", dims: []uint64{kv}},
			tensor{name: p + "attn_v.weight", dims: []uint64{e, kv}},
			tensor{name: p + "attn_v.bias", dims: []uint64{kv}},
			tensor{name: p + "attn_output.weight", dims: []uint64{e, e}},
			tensor{name: p + "ffn_norm.weight", dims: []uint64{e}, init: 1},
			tensor{name: p + "ffn_gate.weight", dims: []uint64{e, f}},
			tensor{name: p + "ffn_up.weight", dims: []uint64{e, f}},
			tensor{name: p + "ffn_down.weight", dims: []uint64{f, e}},
		)
	}

	// The key/values go to a buffer first: the header counts them.
	var kvs bytes.Buffer
	g := &gguf{w: bufio.NewWriter(&kvs)}
	a := "qwen2."
	g.kvString("general.architecture", "qwen2")
	g.kvString("general.name", cfg.Name)
	g.kvU32("general.file_type", 0) // all F32
	g.kvU32("general.alignment", alignment)
	g.kvU32(a+"block_count", uint32(cfg.Layers))
	g.kvU32(a+"context_length", uint32(cfg.ContextLength))
	g.kvU32(a+"embedding_length", uint32(cfg.Embd))
	g.kvU32(a+"feed_forward_length", uint32(cfg.FFN))
	g.kvU32(a+"attention.head_count", uint32(cfg.Heads))
	g.kvU32(a+"attention.head_count_kv", uint32(cfg.KVHeads))
	g.kvF32(a+"rope.freq_base", 1e6)
	g.kvF32(a+"attention.layer_norm_rms_epsilon", 1e-6)
	g.kvString("tokenizer.ggml.model", "gpt2")
	g.kvString("tokenizer.ggml.pre", "qwen2")
	g.kvStrings("tokenizer.ggml.tokens", tok.Tokens)
	g.kvI32s("tokenizer.ggml.token_type", tok.Types)
	g.kvStrings("tokenizer.ggml.merges", tok.Merges)
	g.kvU32("tokenizer.ggml.eos_token_id", uint32(tok.EOS))
	g.kvU32("tokenizer.ggml.padding_token_id", uint32(tok.PAD))
	g.kvU32("tokenizer.ggml.bos_token_id", uint32(tok.PAD))
	g.kvBool("tokenizer.ggml.add_bos_token", false)
	g.kvString("tokenizer.chat_template", tok.ChatTemplate)
	if err := g.w.Flush(); err != nil {
		return fmt.Errorf("tinymodel: write: %w", err)
	}
	nkv := g.nkv

	g = &gguf{w: bufio.NewWriterSize(w, 1<<20)}
	g.raw([]byte("GGUF"))
	g.u32(3)
	g.u64(uint64(len(tensors)))
	g.u64(uint64(nkv))
	g.raw(kvs.Bytes())

	off := uint64(0)
	for _, t := range tensors {
		g.str(t.name)
		g.u32(uint32(len(t.dims)))
		for _, d := range t.dims {
			g.u64(d)
		}
		g.u32(0) // GGML_TYPE_F32
		g.u64(off)
		off += pad(t.elems() * 4)
	}
	g.pad()
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x9e3779b97f4a7c15))
	buf := make([]byte, 0, 1<<16)
	for _, t := range tensors {
		n := t.elems()
		for i := uint64(0); i < n; i++ {
			x := t.init
			if x == 0 {
				x = rng.NormFloat64() * cfg.Std
			}
			buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(float32(x)))
			if len(buf) == cap(buf) {
				g.raw(buf)
				buf = buf[:0]
			}
		}
		g.raw(buf)
		buf = buf[:0]
		g.pad()
	}
	if g.err != nil {
		return fmt.Errorf("tinymodel: write: %w", g.err)
	}
	if err := g.w.Flush(); err != nil {
		return fmt.Errorf("tinymodel: write: %w", err)
	}
	return nil
}

func pad(n uint64) uint64 { return (n + alignment - 1) / alignment * alignment }

// gguf writes GGUF primitives, keeping the first error.
type gguf struct {
	w   *bufio.Writer
	n   uint64
	nkv int // key/values written
	err error
	b   [8]byte
}

func (g *gguf) raw(p []byte) {
	if g.err == nil {
		_, g.err = g.w.Write(p)
		g.n += uint64(len(p))
	}
}
func (g *gguf) u32(v uint32) { binary.LittleEndian.PutUint32(g.b[:4], v); g.raw(g.b[:4]) }
func (g *gguf) u64(v uint64) { binary.LittleEndian.PutUint64(g.b[:8], v); g.raw(g.b[:8]) }
func (g *gguf) str(s string) { g.u64(uint64(len(s))); g.raw([]byte(s)) }
func (g *gguf) pad() {
	if r := g.n % alignment; r != 0 {
		g.raw(make([]byte, alignment-r))
	}
}
func (g *gguf) kvString(k, v string) { g.key(k); g.u32(ggufString); g.str(v) }
func (g *gguf) key(k string)         { g.nkv++; g.str(k) }
func (g *gguf) kvU32(k string, v uint32) {
	g.key(k)
	g.u32(ggufU32)
	g.u32(v)
}
func (g *gguf) kvF32(k string, v float32) {
	g.key(k)
	g.u32(ggufF32)
	g.u32(math.Float32bits(v))
}
func (g *gguf) kvBool(k string, v bool) {
	g.key(k)
	g.u32(ggufBool)
	b := byte(0)
	if v {
		b = 1
	}
	g.raw([]byte{b})
}
func (g *gguf) kvStrings(k string, v []string) {
	g.key(k)
	g.u32(ggufArray)
	g.u32(ggufString)
	g.u64(uint64(len(v)))
	for _, s := range v {
		g.str(s)
	}
}
func (g *gguf) kvI32s(k string, v []int32) {
	g.key(k)
	g.u32(ggufArray)
	g.u32(ggufI32)
	g.u64(uint64(len(v)))
	for _, x := range v {
		g.u32(uint32(x))
	}
}

// WriteFile writes the model to path atomically (temp file + rename).
func WriteFile(path string, tok *Tokenizer, cfg Config) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("tinymodel: %w", err)
	}
	defer os.Remove(tmp.Name())
	if err := Write(tmp, tok, cfg); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return fmt.Errorf("tinymodel: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("tinymodel: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("tinymodel: %w", err)
	}
	return nil
}
