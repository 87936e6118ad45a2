package tokenizer

import (
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"
)

// cacheLimit bounds the per-tokenizer cache of encoded words; when full it
// is emptied (simple, and words repeat enough that it refills quickly).
const cacheLimit = 200_000

// cacheMaxWord is the longest word (in bytes) worth caching.
const cacheMaxWord = 256

// Tokenizer is a loaded tokenizer.json. It is safe for concurrent use.
type Tokenizer struct {
	name string

	vocab         map[string]int32
	idToToken     []string // base vocab and added tokens
	baseVocabSize int
	charIDs       map[rune]int32
	merges        map[uint64]merge
	unkID         int32
	fuseUnk       bool
	byteFallback  bool
	byteIDs       [256]int32
	ignoreMerges  bool

	added        *addedMatcher
	addedIDs     []int32 // added tokens outside the base vocab
	normalizer   normalizer
	preTokenizer preTokenizer
	decoder      decoder
	prefix       []int32 // post-processor, single sequence
	suffix       []int32
	// chunkRune, when not 0, lets a file without pre-tokenizer (Llama 2
	// style, where a whole paragraph is one BPE word) be cut before each
	// chunkRune that follows another rune: no vocabulary token holds
	// chunkRune after a different rune, so no merge can cross the cut and
	// the ids are the same, but the pieces are short and cacheable.
	chunkRune rune

	// from tokenizer_config.json
	chatTemplate  string
	bosToken      string
	eosToken      string
	configSpecial []string
	cleanUp       bool
	specialIDs    []int

	mu    sync.Mutex
	cache map[string][]int32
}

// Name is the file the tokenizer was loaded from ("" when parsed from
// bytes).
func (t *Tokenizer) Name() string { return t.name }

// VocabSize is the size of the model's base vocabulary without the added
// tokens: Hugging Face's tokenizer.vocab_size, which vLLM's random dataset
// samples from.
func (t *Tokenizer) VocabSize() int { return t.baseVocabSize }

// TotalVocabSize counts the added tokens too (len(tokenizer) in Python).
func (t *Tokenizer) TotalVocabSize() int { return t.baseVocabSize + len(t.addedIDs) }

// SpecialIDs are Hugging Face's all_special_ids: the added tokens marked
// special and the special tokens named in tokenizer_config.json, sorted.
func (t *Tokenizer) SpecialIDs() []int { return append([]int(nil), t.specialIDs...) }

// NumSpecialTokensToAdd is how many ids EncodeSpecial(text, true) adds to
// Encode(text) (e.g. 1 for a BOS token).
func (t *Tokenizer) NumSpecialTokensToAdd() int { return len(t.prefix) + len(t.suffix) }

// TokenID looks a token up in the added tokens and the vocabulary.
func (t *Tokenizer) TokenID(token string) (int, bool) {
	for _, c := range t.added.byFirst[firstByte(token)] {
		if c.content == token {
			return int(c.id), true
		}
	}
	id, ok := t.vocab[token]
	return int(id), ok
}

func firstByte(s string) byte {
	if s == "" {
		return 0
	}
	return s[0]
}

// Encode returns the ids of text without special tokens added by the
// post-processor (add_special_tokens=False). Special-token text in the
// input, such as "<|im_start|>", is recognised as that token, as the
// Python tokenizers do by default.
func (t *Tokenizer) Encode(text string) ([]int, error) { return t.EncodeSpecial(text, false) }

// Count returns len(Encode(text)).
func (t *Tokenizer) Count(text string) (int, error) {
	ids, err := t.encode(text)
	return len(ids), err
}

// EncodeSpecial is Encode with the post-processor's special tokens (such
// as Llama's BOS) added when addSpecial is true.
func (t *Tokenizer) EncodeSpecial(text string, addSpecial bool) ([]int, error) {
	ids, err := t.encode(text)
	if err != nil {
		return nil, err
	}
	n := len(ids)
	if addSpecial {
		n += len(t.prefix) + len(t.suffix)
	}
	out := make([]int, 0, n)
	if addSpecial {
		out = appendInts(out, t.prefix)
	}
	out = appendInts(out, ids)
	if addSpecial {
		out = appendInts(out, t.suffix)
	}
	return out, nil
}

func appendInts(dst []int, src []int32) []int {
	for _, v := range src {
		dst = append(dst, int(v))
	}
	return dst
}

func (t *Tokenizer) encode(text string) ([]int32, error) {
	if !utf8.ValidString(text) {
		return nil, fmt.Errorf("tokenizer: encode: text is not valid UTF-8")
	}
	var out []int32
	for _, seg := range t.added.split(text) {
		if seg.id >= 0 {
			out = append(out, seg.id)
			continue
		}
		var err error
		if out, err = t.encodePlain(seg.text, seg.start == 0, out); err != nil {
			return nil, fmt.Errorf("tokenizer: encode: %w", err)
		}
	}
	return out, nil
}

// encodePlain runs text without added tokens through the normalizer, the
// pre-tokenizer and the model.
func (t *Tokenizer) encodePlain(text string, first bool, out []int32) ([]int32, error) {
	var err error
	if t.normalizer != nil {
		if text, err = t.normalizer.normalize(text); err != nil {
			return nil, err
		}
	}
	if text == "" {
		return out, nil
	}
	words := []string{text}
	switch {
	case t.preTokenizer != nil:
		if words, err = t.preTokenizer.split(words, first); err != nil {
			return nil, err
		}
	case t.chunkRune != 0:
		words = chunks(text, t.chunkRune)
	}
	for _, w := range words {
		if out, err = t.encodeWord(w, out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (t *Tokenizer) encodeWord(w string, out []int32) ([]int32, error) {
	if len(w) > cacheMaxWord {
		return t.bpeWord(w, out)
	}
	t.mu.Lock()
	ids, ok := t.cache[w]
	t.mu.Unlock()
	if ok {
		return append(out, ids...), nil
	}
	start := len(out)
	out, err := t.bpeWord(w, out)
	if err != nil {
		return nil, err
	}
	ids = append([]int32(nil), out[start:]...)
	t.mu.Lock()
	if len(t.cache) >= cacheLimit {
		clear(t.cache)
	}
	t.cache[w] = ids
	t.mu.Unlock()
	return out, nil
}

// Decode turns ids back into text (skip_special_tokens=False), applying
// clean_up_tokenization_spaces when tokenizer_config.json asks for it, as
// Python's decode does.
func (t *Tokenizer) Decode(ids []int) (string, error) {
	s, err := t.decodeNoCleanUp(ids)
	if err == nil && t.cleanUp {
		s = cleanUpTokenization(s)
	}
	return s, err
}

// decodeNoCleanUp is Decode with clean_up_tokenization_spaces off.
func (t *Tokenizer) decodeNoCleanUp(ids []int) (string, error) {
	toks := make([]string, len(ids))
	for i, id := range ids {
		if id < 0 || id >= len(t.idToToken) || t.idToToken[id] == "" {
			return "", fmt.Errorf("tokenizer: decode: id %d is not in the vocabulary", id)
		}
		toks[i] = t.idToToken[id]
	}
	var s string
	if t.decoder != nil {
		s = strings.Join(t.decoder.decodeChain(toks), "")
	} else {
		s = strings.Join(toks, " ")
	}
	return s, nil
}

// cleanUpTokenization is transformers' clean_up_tokenization.
// The replacements run one after the other over the whole string, as the
// Python code's chained str.replace calls do.
func cleanUpTokenization(s string) string {
	for _, r := range [...][2]string{
		{" .", "."}, {" ?", "?"}, {" !", "!"}, {" ,", ","}, {" ' ", "'"},
		{" n't", "n't"}, {" 'm", "'m"}, {" 's", "'s"}, {" 've", "'ve"}, {" 're", "'re"},
	} {
		s = strings.ReplaceAll(s, r[0], r[1])
	}
	return s
}

// chunks cuts s before each c that follows a rune other than c.
func chunks(s string, c rune) []string {
	var out []string
	start := 0
	prev := c
	for i, r := range s {
		if r == c && prev != c && i > start {
			out = append(out, s[start:i])
			start = i
		}
		prev = r
	}
	return append(out, s[start:])
}

// findChunkRune returns the SentencePiece word marker U+2581 if it is safe
// to cut words before it (see chunkRune), else 0.
func (t *Tokenizer) findChunkRune() rune {
	const c = '\u2581'
	if t.preTokenizer != nil || t.ignoreMerges {
		return 0
	}
	seen := false
	for tok := range t.vocab {
		prev := c
		for _, r := range tok {
			if r == c {
				seen = true
				if prev != c {
					return 0
				}
			}
			prev = r
		}
	}
	if !seen {
		return 0
	}
	return c
}
