package tinymodel

import (
	"bytes"
	"encoding/binary"
	"math"
	"reflect"
	"testing"
)

func TestLoadTokenizer(t *testing.T) {
	tok, err := LoadTokenizer("testdata/tok")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(tok.Tokens, []string{"a", "b", "ab", "Ġ", "Ġab", "<|endoftext|>", "<|im_end|>", "<think>"}) {
		t.Fatalf("tokens %q", tok.Tokens)
	}
	// special added tokens are CONTROL, others USER_DEFINED
	if !reflect.DeepEqual(tok.Types, []int32{1, 1, 1, 1, 1, 3, 3, 4}) {
		t.Fatalf("types %v", tok.Types)
	}
	if !reflect.DeepEqual(tok.Merges, []string{"a b", "Ġ ab"}) || tok.EOS != 6 || tok.PAD != 5 {
		t.Fatalf("merges %q eos %d pad %d", tok.Merges, tok.EOS, tok.PAD)
	}
	if _, err := LoadTokenizer("testdata/missing"); err == nil {
		t.Fatal("no error for a missing folder")
	}
}

// ggufReader reads back what Write wrote.
type ggufReader struct {
	b   []byte
	off int
}

func (r *ggufReader) u32() uint32 { v := binary.LittleEndian.Uint32(r.b[r.off:]); r.off += 4; return v }
func (r *ggufReader) u64() uint64 { v := binary.LittleEndian.Uint64(r.b[r.off:]); r.off += 8; return v }
func (r *ggufReader) str() string {
	n := int(r.u64())
	s := string(r.b[r.off : r.off+n])
	r.off += n
	return s
}

func (r *ggufReader) value(typ uint32) any {
	switch typ {
	case ggufU32:
		return r.u32()
	case ggufI32:
		return int32(r.u32())
	case ggufF32:
		return math.Float32frombits(r.u32())
	case ggufBool:
		r.off++
		return r.b[r.off-1] == 1
	case ggufString:
		return r.str()
	case ggufArray:
		et, n := r.u32(), r.u64()
		out := make([]any, n)
		for i := range out {
			out[i] = r.value(et)
		}
		return out
	}
	panic("unknown type")
}

func TestWriteGGUF(t *testing.T) {
	tok, err := LoadTokenizer("testdata/tok")
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := Write(&buf, tok, Config{Layers: 1, Embd: 8, Heads: 2, KVHeads: 1, FFN: 16, Seed: 3}); err != nil {
		t.Fatal(err)
	}
	r := &ggufReader{b: buf.Bytes()}
	if string(r.b[:4]) != "GGUF" {
		t.Fatal("no magic")
	}
	r.off = 4
	if v := r.u32(); v != 3 {
		t.Fatalf("version %d", v)
	}
	nt, nkv := r.u64(), r.u64()
	kv := map[string]any{}
	for range nkv {
		k := r.str()
		kv[k] = r.value(r.u32())
	}
	for k, want := range map[string]any{
		"general.architecture": "qwen2", "qwen2.block_count": uint32(1), "qwen2.embedding_length": uint32(8),
		"qwen2.attention.head_count_kv": uint32(1), "tokenizer.ggml.model": "gpt2", "tokenizer.ggml.pre": "qwen2",
		"tokenizer.ggml.eos_token_id": uint32(6), "tokenizer.ggml.add_bos_token": false,
		"tokenizer.chat_template": "{{ messages[0]['content'] }}",
	} {
		if !reflect.DeepEqual(kv[k], want) {
			t.Errorf("%s = %v, want %v", k, kv[k], want)
		}
	}
	if n := len(kv["tokenizer.ggml.tokens"].([]any)); n != 8 {
		t.Errorf("%d tokens", n)
	}
	// 2 + 12 per layer tensors; offsets aligned and contiguous; the data
	// section (aligned) ends the file exactly.
	if nt != 14 {
		t.Fatalf("%d tensors", nt)
	}
	var next uint64
	for range nt {
		name := r.str()
		nd := r.u32()
		elems := uint64(1)
		for range nd {
			elems *= r.u64()
		}
		if typ := r.u32(); typ != 0 {
			t.Fatalf("%s: type %d", name, typ)
		}
		if off := r.u64(); off != next {
			t.Fatalf("%s: offset %d, want %d", name, off, next)
		}
		next += pad(elems * 4)
	}
	data := pad(uint64(r.off))
	if uint64(buf.Len()) != data+next {
		t.Fatalf("file %d bytes, header+data %d", buf.Len(), data+next)
	}
	// deterministic for a seed
	var again bytes.Buffer
	Write(&again, tok, Config{Layers: 1, Embd: 8, Heads: 2, KVHeads: 1, FFN: 16, Seed: 3})
	if !bytes.Equal(buf.Bytes(), again.Bytes()) {
		t.Fatal("two writes with one seed differ")
	}
}
