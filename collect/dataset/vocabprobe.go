package dataset

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
)

// Vocabulary discovery for servers that do not publish their vocabulary
// size. llama.cpp's /v1/models has meta.n_vocab; vLLM, SGLang and the mock
// publish nothing, so the server tokenizer asks /detokenize which ids it
// knows.
//
// What the servers answer for an id outside the vocabulary:
//
//   - the mock (and a vLLM whose tokenizer raises): HTTP 400;
//   - vLLM and SGLang with a Hugging Face fast tokenizer: HTTP 200 and the
//     id silently left out of the text (tokenizers' decode skips ids it
//     does not know), so [id, id, id] decodes to "";
//   - llama.cpp (which publishes n_vocab, so is not probed unless asked):
//     HTTP 500 "vector::_M_range_check: __n (which is N) >= this->size()".
//
// So an id "decodes" when /detokenize of [id, id, id] answers 200 with a
// non-empty text; it does not when the answer is 400 or 422, llama.cpp's
// 500 range check, or 200 with an empty text; any other answer stops the
// probe with an error. Three copies,
// not one: SentencePiece decoders drop the leading space of the first
// piece, so a lone "▁" would decode to "".
//
// The probe finds D, the number of ids that decode (ids 0..D-1; Python's
// len(tokenizer): base vocabulary plus added tokens), by doubling from
// 2^15 until an id does not decode (at most 2^24) and then bisecting: at
// most 1+10+23 requests; 18 for the mock's 36789 ids, 22 for Qwen2.5's
// 151665. vLLM's random
// dataset draws from tokenizer.vocab_size, the base vocabulary without
// the added tokens, which most models append at the top (Qwen2.5's 22
// from <|endoftext|> = 151643, Llama 3's 256 from <|begin_of_text|> =
// 128000, the mock's 3 chat markers). The probe therefore also bisects
// for the lowest B in [D-1024, D) such that ids B..D-1 decode to nothing
// but B-D markers of the form <...> (one /detokenize of the whole range
// per step: 1 request when the top id is no marker, else 12), and reports
// B as the base size. The result is cached with the tokenizer (VocabSize
// probes once).
//
// Limits: the probe assumes the ids that decode are one range 0..D-1 and
// that an id's text is non-empty (a real id decoding to "" where the
// bisection looks makes D too small). A server that decodes every id it
// is given (an id-to-text mapping without a vocabulary) cannot be probed:
// that is an error, not a guess. An added-token block larger than 1024 ids
// is trimmed by 1024 only; added tokens whose text is not <...> (rare) and
// special tokens inside the base range (a BOS at id 1) are kept, where
// vLLM excludes all_special_ids; and a base vocabulary whose own last ids
// look like <...> loses them (GPT-2's <|endoftext|> = 50256 is in its base
// vocabulary of 50257, so the probe says 50256). Those ids only shift
// where random prompts start in the vocabulary; prompt lengths are still
// fitted exactly by re-encoding. For vLLM's exact vocabulary give
// --tokenizer PATH to the model's tokenizer.json.

// Probe bounds.
const (
	probeFirstGuess = 1 << 15 // first upper bound tried
	probeMaxID      = 1 << 24 // a server decoding this id does not check ids
	probeTopWindow  = 1024    // the deepest added-token block looked for
)

// VocabProbe is what ProbeVocab found.
type VocabProbe struct {
	// Decodable is the number of ids the server decodes: 0..Decodable-1.
	Decodable int
	// Base is Decodable without the block of <...> tokens at the top:
	// the base vocabulary size random prompts draw from.
	Base int
	// Requests is the number of /detokenize requests the probe made.
	Requests int
}

// discoverVocab is llama.cpp's n_vocab from /v1/models, or else the size
// ProbeVocab finds.
func (s *ServerTokenizer) discoverVocab(ctx context.Context) (int, error) {
	n, err := s.fetchVocab(ctx)
	if err == nil {
		return n, nil
	}
	p, perr := s.ProbeVocab(ctx)
	if perr != nil {
		return 0, fmt.Errorf("%v; %w", err, perr)
	}
	return p.Base, nil
}

// ProbeVocab finds the vocabulary size by asking /detokenize which ids
// the server decodes (see the comment at the top of vocabprobe.go for the
// method and its limits).
func (s *ServerTokenizer) ProbeVocab(ctx context.Context) (VocabProbe, error) {
	var p VocabProbe
	fail := func(format string, a ...any) (VocabProbe, error) {
		return VocabProbe{}, fmt.Errorf("server tokenizer: probe vocabulary size with %s/detokenize: "+format, append([]any{s.BaseURL}, a...)...)
	}
	decodes := func(id int) (bool, error) {
		p.Requests++
		text, ok, err := s.probeDecode(ctx, []int{id, id, id})
		return ok && text != "", err
	}
	ok, err := decodes(0)
	switch {
	case err != nil:
		return fail("%w", err)
	case !ok:
		why := "it decodes to an empty text"
		if _, err := s.DecodeContext(ctx, []int{0, 0, 0}); err != nil {
			why = err.Error()
		}
		return fail("id 0 does not decode (%s), so valid ids cannot be told from invalid ones", why)
	}
	lo, hi := 0, probeFirstGuess // lo decodes, hi is tried next
	for {
		ok, err := decodes(hi)
		if err != nil {
			return fail("id %d: %w", hi, err)
		}
		if !ok {
			break
		}
		if hi == probeMaxID {
			return fail("id %d decodes: the server does not check ids, so the vocabulary size cannot be found this way", hi)
		}
		lo, hi = hi, hi*2
	}
	for hi-lo > 1 { // lo decodes, hi does not
		mid := lo + (hi-lo)/2
		ok, err := decodes(mid)
		if err != nil {
			return fail("id %d: %w", mid, err)
		}
		if ok {
			lo = mid
		} else {
			hi = mid
		}
	}
	p.Decodable = hi

	// The added-token block at the top: the lowest b with ids b..D-1 all
	// <...> markers. allMarkers(b) is monotone in b by construction.
	allMarkers := func(b int) (bool, error) {
		ids := make([]int, 0, p.Decodable-b)
		for id := b; id < p.Decodable; id++ {
			ids = append(ids, id)
		}
		p.Requests++
		text, ok, err := s.probeDecode(ctx, ids)
		if err != nil || !ok {
			return false, err
		}
		return isMarkers(text, len(ids)), nil
	}
	top, err := allMarkers(p.Decodable - 1)
	if err != nil {
		return fail("added tokens: %w", err)
	}
	p.Base = p.Decodable
	if !top {
		return p, nil
	}
	lo, hi = max(0, p.Decodable-probeTopWindow), p.Decodable-1 // hi is all markers
	if all, err := allMarkers(lo); err != nil {
		return fail("added tokens: %w", err)
	} else if all && lo == 0 {
		return fail("all %d ids decode to <...> markers", p.Decodable)
	} else if all {
		p.Base = lo // a deeper block: trimmed by probeTopWindow only
		return p, nil
	}
	for hi-lo > 1 { // lo is not all markers, hi is
		mid := lo + (hi-lo)/2
		all, err := allMarkers(mid)
		if err != nil {
			return fail("added tokens: %w", err)
		}
		if all {
			hi = mid
		} else {
			lo = mid
		}
	}
	p.Base = hi
	return p, nil
}

// markerRE is one added-token marker: <|im_end|>, </tool_call>, <s>.
var markerRE = regexp.MustCompile(`<[^<>\s]+>`)

// isMarkers reports whether text is exactly n markers (whitespace between
// them allowed: some decoders put spaces between special tokens).
func isMarkers(text string, n int) bool {
	count := 0
	for _, f := range strings.Fields(text) {
		end := 0
		for _, m := range markerRE.FindAllStringIndex(f, -1) {
			if m[0] != end {
				return false
			}
			end = m[1]
			count++
		}
		if end != len(f) {
			return false
		}
	}
	return count == n
}

// probeDecode posts ids to /detokenize. ok is true with the text for HTTP
// 200, false when the ids are refused (HTTP 400 or 422, llama.cpp's range
// check); other answers are errors.
func (s *ServerTokenizer) probeDecode(ctx context.Context, ids []int) (text string, ok bool, err error) {
	b, err := json.Marshal(map[string]any{"model": s.Model, "tokens": ids})
	if err != nil {
		return "", false, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.BaseURL+"/detokenize", bytes.NewReader(b))
	if err != nil {
		return "", false, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := s.client().Do(req)
	if err != nil {
		return "", false, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return "", false, err
	}
	switch {
	case resp.StatusCode == http.StatusOK:
	case resp.StatusCode == http.StatusBadRequest || resp.StatusCode == http.StatusUnprocessableEntity:
		return "", false, nil
	case resp.StatusCode == http.StatusInternalServerError && bytes.Contains(data, []byte("_M_range_check")):
		return "", false, nil // llama.cpp: std::vector::at's out_of_range
	default:
		return "", false, fmt.Errorf("HTTP %d: %s", resp.StatusCode, truncate(string(data), 200))
	}
	var reply struct {
		Prompt  *string `json:"prompt"`
		Content *string `json:"content"`
		Text    *string `json:"text"`
	}
	if err := json.Unmarshal(data, &reply); err != nil {
		return "", false, fmt.Errorf("reply %q: %w", truncate(string(data), 200), err)
	}
	for _, t := range []*string{reply.Prompt, reply.Content, reply.Text} {
		if t != nil {
			return *t, true, nil
		}
	}
	return "", false, fmt.Errorf("reply %q has none of \"prompt\", \"content\", \"text\"", truncate(string(data), 200))
}
