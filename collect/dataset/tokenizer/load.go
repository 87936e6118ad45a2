package tokenizer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
)

// File names looked for in a model directory.
const (
	TokenizerFile = "tokenizer.json"
	ConfigFile    = "tokenizer_config.json"
)

// Load reads a tokenizer from path: either a tokenizer.json file or a model
// directory holding one. tokenizer_config.json beside it is read when
// present (chat template, special tokens, clean-up flag).
func Load(path string) (*Tokenizer, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("tokenizer: load: %w", err)
	}
	file := path
	if st.IsDir() {
		file = filepath.Join(path, TokenizerFile)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("tokenizer: load: %w", err)
	}
	var cfg []byte
	cfgPath := filepath.Join(filepath.Dir(file), ConfigFile)
	if c, err := os.ReadFile(cfgPath); err == nil {
		cfg = c
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("tokenizer: load: %w", err)
	}
	t, err := Parse(data, cfg)
	if err != nil {
		return nil, fmt.Errorf("tokenizer: %s: %w", file, err)
	}
	t.name = file
	return t, nil
}

// fileJSON is the part of tokenizer.json we read.
type fileJSON struct {
	AddedTokens   []addedTokenJSON `json:"added_tokens"`
	Normalizer    json.RawMessage  `json:"normalizer"`
	PreTokenizer  json.RawMessage  `json:"pre_tokenizer"`
	PostProcessor json.RawMessage  `json:"post_processor"`
	Decoder       json.RawMessage  `json:"decoder"`
	Model         *modelJSON       `json:"model"`
}

type addedTokenJSON struct {
	ID         int    `json:"id"`
	Content    string `json:"content"`
	SingleWord bool   `json:"single_word"`
	LStrip     bool   `json:"lstrip"`
	RStrip     bool   `json:"rstrip"`
	Normalized bool   `json:"normalized"`
	Special    bool   `json:"special"`
}

type modelJSON struct {
	Type                    string     `json:"type"`
	Dropout                 *float64   `json:"dropout"`
	UnkToken                *string    `json:"unk_token"`
	ContinuingSubwordPrefix *string    `json:"continuing_subword_prefix"`
	EndOfWordSuffix         *string    `json:"end_of_word_suffix"`
	FuseUnk                 bool       `json:"fuse_unk"`
	ByteFallback            bool       `json:"byte_fallback"`
	IgnoreMerges            bool       `json:"ignore_merges"`
	Vocab                   vocabJSON  `json:"vocab"`
	Merges                  mergesJSON `json:"merges"`
}

// configJSON is the part of tokenizer_config.json we read. Token fields are
// either a string or an AddedToken object {"content": ...}.
type configJSON struct {
	ChatTemplate             json.RawMessage   `json:"chat_template"`
	BOSToken                 json.RawMessage   `json:"bos_token"`
	EOSToken                 json.RawMessage   `json:"eos_token"`
	UNKToken                 json.RawMessage   `json:"unk_token"`
	PADToken                 json.RawMessage   `json:"pad_token"`
	SEPToken                 json.RawMessage   `json:"sep_token"`
	CLSToken                 json.RawMessage   `json:"cls_token"`
	MaskToken                json.RawMessage   `json:"mask_token"`
	AdditionalSpecialTokens  []json.RawMessage `json:"additional_special_tokens"`
	CleanUpTokenizationSpace *bool             `json:"clean_up_tokenization_spaces"`
	TokenizerClass           string            `json:"tokenizer_class"`
}

// Parse builds a tokenizer from the bytes of tokenizer.json and, if not
// nil, tokenizer_config.json.
func Parse(tokenizerJSON, configJSONBytes []byte) (*Tokenizer, error) {
	var f fileJSON
	if err := json.Unmarshal(tokenizerJSON, &f); err != nil {
		return nil, fmt.Errorf("tokenizer.json: %w", err)
	}
	t := &Tokenizer{unkID: -1, cache: make(map[string][]int32)}
	if err := t.loadModel(f.Model); err != nil {
		return nil, fmt.Errorf("tokenizer.json: model: %w", err)
	}
	var err error
	if t.normalizer, err = parseNormalizer(f.Normalizer); err != nil {
		return nil, fmt.Errorf("tokenizer.json: normalizer: %w", err)
	}
	if t.preTokenizer, err = parsePreTokenizer(f.PreTokenizer); err != nil {
		return nil, fmt.Errorf("tokenizer.json: pre_tokenizer: %w", err)
	}
	if t.decoder, err = parseDecoder(f.Decoder); err != nil {
		return nil, fmt.Errorf("tokenizer.json: decoder: %w", err)
	}
	if err := t.loadAdded(f.AddedTokens); err != nil {
		return nil, fmt.Errorf("tokenizer.json: added_tokens: %w", err)
	}
	if t.prefix, t.suffix, err = t.parsePostProcessor(f.PostProcessor); err != nil {
		return nil, fmt.Errorf("tokenizer.json: post_processor: %w", err)
	}
	if configJSONBytes != nil {
		if err := t.loadConfig(configJSONBytes); err != nil {
			return nil, fmt.Errorf("tokenizer_config.json: %w", err)
		}
	}
	t.collectSpecialIDs(f.AddedTokens)
	t.chunkRune = t.findChunkRune()
	return t, nil
}

func (t *Tokenizer) loadModel(m *modelJSON) error {
	if m == nil {
		return errors.New("missing")
	}
	if m.Type != "BPE" && !(m.Type == "" && m.Merges.set) {
		return fmt.Errorf("type %q is not supported (only BPE)", m.Type)
	}
	if m.Dropout != nil && *m.Dropout != 0 {
		return fmt.Errorf("dropout %v is not supported", *m.Dropout)
	}
	if m.ContinuingSubwordPrefix != nil && *m.ContinuingSubwordPrefix != "" {
		return fmt.Errorf("continuing_subword_prefix %q is not supported", *m.ContinuingSubwordPrefix)
	}
	if m.EndOfWordSuffix != nil && *m.EndOfWordSuffix != "" {
		return fmt.Errorf("end_of_word_suffix %q is not supported", *m.EndOfWordSuffix)
	}
	vocab := m.Vocab.entries
	if vocab == nil {
		return errors.New("vocab is not an object of token: id")
	}
	maxID := int32(-1)
	for tok, id := range vocab {
		if id < 0 || id > maxTokenID {
			return fmt.Errorf("vocab %q: id %d out of range (0 to %d)", tok, id, maxTokenID)
		}
		maxID = max(maxID, id)
	}
	t.vocab = vocab
	t.idToToken = make([]string, maxID+1)
	t.charIDs = make(map[rune]int32)
	for s, id := range vocab {
		t.idToToken[id] = s
		if r, ok := singleRune(s); ok {
			t.charIDs[r] = id
		}
	}
	t.baseVocabSize = len(vocab)
	if m.UnkToken != nil {
		id, ok := t.vocab[*m.UnkToken]
		if !ok {
			return fmt.Errorf("unk_token %q is not in the vocab", *m.UnkToken)
		}
		t.unkID = id
	}
	t.fuseUnk = m.FuseUnk
	t.byteFallback = m.ByteFallback
	t.ignoreMerges = m.IgnoreMerges
	if t.byteFallback {
		// A missing byte token is allowed: a character needing it falls
		// back to unk_token, as in the Rust library.
		for b := 0; b < 256; b++ {
			t.byteIDs[b] = -1
			if id, ok := t.vocab[fmt.Sprintf("<0x%02X>", b)]; ok {
				t.byteIDs[b] = id
			}
		}
	}
	return t.loadMerges(m.Merges)
}

func (t *Tokenizer) loadMerges(m mergesJSON) error {
	if !m.set {
		return errors.New("merges: missing")
	}
	pairs := m.pairs
	t.merges = make(map[uint64]merge, len(pairs))
	var buf []byte
	for rank, p := range pairs {
		a, okA := t.vocab[p[0]]
		b, okB := t.vocab[p[1]]
		if !okA || !okB {
			return fmt.Errorf("merges[%d]: %q or %q is not in the vocab", rank, p[0], p[1])
		}
		buf = append(append(buf[:0], p[0]...), p[1]...)
		n, ok := t.vocab[string(buf)] // no allocation for the lookup
		if !ok {
			return fmt.Errorf("merges[%d]: merged token %q is not in the vocab", rank, p[0]+p[1])
		}
		k := pairKey(a, b)
		if _, dup := t.merges[k]; !dup { // the first (lowest) rank wins, as in the Rust library
			t.merges[k] = merge{rank: int32(rank), id: n}
		}
	}
	return nil
}

// cutSpace splits "a b" at its first space, as the Rust library does.
func cutSpace(s string) (string, string, bool) {
	for i := 0; i < len(s); i++ {
		if s[i] == ' ' {
			return s[:i], s[i+1:], true
		}
	}
	return "", "", false
}

// maxTokenID bounds the ids a tokenizer.json may give (the largest real
// vocabularies hold a few hundred thousand tokens): ids size the id →
// token table, so a file saying 2000000000 (or a negative id) must be an
// error, not a 32 GB allocation or a panic (found by FuzzParse).
const maxTokenID = 1<<24 - 1

func (t *Tokenizer) loadAdded(list []addedTokenJSON) error {
	var toks []addedToken
	maxID := len(t.idToToken) - 1
	for i, a := range list {
		if a.ID < 0 || a.ID > maxTokenID {
			return fmt.Errorf("[%d] %q: id %d out of range (0 to %d)", i, a.Content, a.ID, maxTokenID)
		}
		maxID = max(maxID, a.ID)
	}
	if maxID >= len(t.idToToken) {
		grown := make([]string, maxID+1)
		copy(grown, t.idToToken)
		t.idToToken = grown
	}
	for i, a := range list {
		if a.Content == "" {
			return fmt.Errorf("[%d]: empty content", i)
		}
		if a.Normalized && t.normalizer != nil {
			n, err := t.normalizer.normalize(a.Content)
			if err != nil || n != a.Content {
				return fmt.Errorf("[%d] %q: normalized added token under a normalizer that changes it is not supported", i, a.Content)
			}
		}
		t.idToToken[a.ID] = a.Content
		if _, inBase := t.vocab[a.Content]; !inBase {
			t.addedIDs = append(t.addedIDs, int32(a.ID))
		}
		toks = append(toks, addedToken{
			content: a.Content, id: int32(a.ID), lstrip: a.LStrip, rstrip: a.RStrip,
			singleWord: a.SingleWord, special: a.Special,
		})
	}
	t.added = newAddedMatcher(toks)
	return nil
}

// tokenString reads a config token field: "tok" or {"content": "tok"}.
func tokenString(raw json.RawMessage) (string, bool) {
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return "", false
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, s != ""
	}
	var obj struct {
		Content string `json:"content"`
	}
	if json.Unmarshal(raw, &obj) == nil {
		return obj.Content, obj.Content != ""
	}
	return "", false
}

func (t *Tokenizer) loadConfig(data []byte) error {
	var c configJSON
	if err := json.Unmarshal(data, &c); err != nil {
		return err
	}
	if len(c.ChatTemplate) > 0 && !bytes.Equal(c.ChatTemplate, []byte("null")) {
		var s string
		if err := json.Unmarshal(c.ChatTemplate, &s); err == nil {
			t.chatTemplate = s
		} else {
			// A list of named templates: keep the "default" one.
			var named []struct {
				Name     string `json:"name"`
				Template string `json:"template"`
			}
			if err := json.Unmarshal(c.ChatTemplate, &named); err != nil {
				return fmt.Errorf("chat_template: neither a string nor a list of {name, template}: %w", err)
			}
			for _, n := range named {
				if n.Name == "default" {
					t.chatTemplate = n.Template
				}
			}
		}
	}
	t.bosToken, _ = tokenString(c.BOSToken)
	t.eosToken, _ = tokenString(c.EOSToken)
	for _, raw := range []json.RawMessage{c.BOSToken, c.EOSToken, c.UNKToken, c.PADToken, c.SEPToken, c.CLSToken, c.MaskToken} {
		if s, ok := tokenString(raw); ok {
			t.configSpecial = append(t.configSpecial, s)
		}
	}
	for _, raw := range c.AdditionalSpecialTokens {
		if s, ok := tokenString(raw); ok {
			t.configSpecial = append(t.configSpecial, s)
		}
	}
	if c.CleanUpTokenizationSpace != nil {
		t.cleanUp = *c.CleanUpTokenizationSpace
	}
	return nil
}

// collectSpecialIDs gathers all_special_ids: the added tokens marked
// special plus the special tokens named in tokenizer_config.json.
func (t *Tokenizer) collectSpecialIDs(added []addedTokenJSON) {
	seen := map[int]bool{}
	for _, a := range added {
		if a.Special {
			seen[a.ID] = true
		}
	}
	for _, s := range t.configSpecial {
		if id, ok := t.TokenID(s); ok {
			seen[id] = true
		}
	}
	for id := range seen {
		t.specialIDs = append(t.specialIDs, id)
	}
	sort.Ints(t.specialIDs)
}
