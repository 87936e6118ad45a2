package tokenizer

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// decoder turns a token list into text, step by step (decode_chain).
type decoder interface {
	decodeChain(tokens []string) []string
}

func parseDecoder(raw json.RawMessage) (decoder, error) {
	if isNull(raw) {
		return nil, nil
	}
	var c component
	if err := json.Unmarshal(raw, &c); err != nil {
		return nil, err
	}
	switch c.Type {
	case "ByteLevel":
		return byteLevelDec{}, nil
	case "ByteFallback":
		return byteFallbackDec{}, nil
	case "Fuse":
		return fuseDec{}, nil
	case "Replace":
		r, err := parseReplace(raw)
		if err != nil {
			return nil, fmt.Errorf("Replace: %w", err)
		}
		return replaceDec{r}, nil
	case "Strip":
		var s struct {
			Content string `json:"content"`
			Start   int    `json:"start"`
			Stop    int    `json:"stop"`
		}
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, fmt.Errorf("Strip: %w", err)
		}
		if utf8.RuneCountInString(s.Content) != 1 {
			return nil, fmt.Errorf("Strip: content %q is not one character", s.Content)
		}
		r, _ := utf8.DecodeRuneInString(s.Content)
		return stripDec{content: r, start: s.Start, stop: s.Stop}, nil
	case "Metaspace":
		m, err := parseMetaspace(raw)
		if err != nil {
			return nil, fmt.Errorf("Metaspace: %w", err)
		}
		return metaspaceDec{m}, nil
	case "Sequence":
		var s struct {
			Decoders []json.RawMessage `json:"decoders"`
		}
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, fmt.Errorf("Sequence: %w", err)
		}
		seq, err := parseSequence(s.Decoders, parseDecoder)
		if err != nil {
			return nil, err
		}
		return decSequence(seq), nil
	default:
		return nil, fmt.Errorf("decoder %q is not supported", c.Type)
	}
}

type decSequence []decoder

func (seq decSequence) decodeChain(tokens []string) []string {
	for _, d := range seq {
		tokens = d.decodeChain(tokens)
	}
	return tokens
}

// byteLevelDec maps stand-in runes back to bytes. A token with a rune
// outside the table (an added token such as "你好") keeps its own bytes.
type byteLevelDec struct{}

func (byteLevelDec) decodeChain(tokens []string) []string {
	var buf []byte
	for _, t := range tokens {
		start := len(buf)
		ok := true
		for _, r := range t {
			b, in := runeByte[r]
			if !in {
				ok = false
				break
			}
			buf = append(buf, b)
		}
		if !ok {
			buf = append(buf[:start], t...)
		}
	}
	return []string{lossyUTF8(buf)}
}

// lossyUTF8 is Rust's String::from_utf8_lossy (and WHATWG's decoder):
// each maximal subpart of an ill-formed sequence becomes one U+FFFD, so a
// character cut after two of its three bytes is one U+FFFD, not two.
func lossyUTF8(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	var sb strings.Builder
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		if r != utf8.RuneError || n > 1 { // valid (an encoded U+FFFD is 3 bytes)
			sb.Write(b[:n])
			b = b[n:]
			continue
		}
		sb.WriteRune(utf8.RuneError)
		b = b[maximalSubpart(b):]
	}
	return sb.String()
}

// maximalSubpart is the length of the longest prefix of b that starts a
// well-formed UTF-8 sequence (at least 1), per Unicode's table of
// well-formed byte sequences.
func maximalSubpart(b []byte) int {
	c := b[0]
	need, lo, hi := 0, byte(0x80), byte(0xBF)
	switch {
	case c >= 0xC2 && c <= 0xDF:
		need = 1
	case c == 0xE0:
		need, lo = 2, 0xA0
	case c == 0xED:
		need, hi = 2, 0x9F
	case c >= 0xE1 && c <= 0xEF:
		need = 2
	case c == 0xF0:
		need, lo = 3, 0x90
	case c == 0xF4:
		need, hi = 3, 0x8F
	case c >= 0xF1 && c <= 0xF3:
		need = 3
	default:
		return 1
	}
	i := 1
	for ; i <= need && i < len(b); i++ {
		if i == 1 && (b[i] < lo || b[i] > hi) || i > 1 && (b[i] < 0x80 || b[i] > 0xBF) {
			break
		}
	}
	return i
}

// byteFallbackDec turns runs of <0xXX> tokens back into text; bytes that
// do not form valid UTF-8 become one U+FFFD each.
type byteFallbackDec struct{}

func byteToken(t string) (byte, bool) {
	if len(t) != 6 || !strings.HasPrefix(t, "<0x") || t[5] != '>' {
		return 0, false
	}
	v, err := strconv.ParseUint(t[3:5], 16, 8)
	return byte(v), err == nil
}

func (byteFallbackDec) decodeChain(tokens []string) []string {
	var out []string
	var pending []byte
	flush := func() {
		if len(pending) == 0 {
			return
		}
		if utf8.Valid(pending) {
			out = append(out, string(pending))
		} else {
			for range pending {
				out = append(out, "\uFFFD")
			}
		}
		pending = pending[:0]
	}
	for _, t := range tokens {
		if b, ok := byteToken(t); ok {
			pending = append(pending, b)
			continue
		}
		flush()
		out = append(out, t)
	}
	flush()
	return out
}

type fuseDec struct{}

func (fuseDec) decodeChain(tokens []string) []string { return []string{strings.Join(tokens, "")} }

type replaceDec struct{ r replace }

func (d replaceDec) decodeChain(tokens []string) []string {
	out := make([]string, len(tokens))
	for i, t := range tokens {
		s, err := d.r.normalize(t)
		if err != nil {
			s = t
		}
		out[i] = s
	}
	return out
}

// stripDec removes up to start leading and stop trailing content runes.
type stripDec struct {
	content     rune
	start, stop int
}

func (d stripDec) decodeChain(tokens []string) []string {
	out := make([]string, len(tokens))
	for i, t := range tokens {
		for k := 0; k < d.start; k++ {
			r, n := utf8.DecodeRuneInString(t)
			if n == 0 || r != d.content {
				break
			}
			t = t[n:]
		}
		for k := 0; k < d.stop; k++ {
			r, n := utf8.DecodeLastRuneInString(t)
			if n == 0 || r != d.content {
				break
			}
			t = t[:len(t)-n]
		}
		out[i] = t
	}
	return out
}

type metaspaceDec struct{ m metaspace }

func (d metaspaceDec) decodeChain(tokens []string) []string {
	out := make([]string, len(tokens))
	for i, t := range tokens {
		s := strings.ReplaceAll(t, d.m.replacement, " ")
		if i == 0 && d.m.scheme != "never" {
			s = strings.TrimPrefix(s, " ")
		}
		out[i] = s
	}
	return out
}

// parsePostProcessor returns the ids added before and after a single
// sequence when special tokens are requested.
func (t *Tokenizer) parsePostProcessor(raw json.RawMessage) (prefix, suffix []int32, err error) {
	if isNull(raw) {
		return nil, nil, nil
	}
	var c component
	if err := json.Unmarshal(raw, &c); err != nil {
		return nil, nil, err
	}
	switch c.Type {
	case "ByteLevel":
		return nil, nil, nil // offsets only
	case "Sequence":
		var s struct {
			Processors []json.RawMessage `json:"processors"`
		}
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, nil, fmt.Errorf("Sequence: %w", err)
		}
		for i, r := range s.Processors {
			p, q, err := t.parsePostProcessor(r)
			if err != nil {
				return nil, nil, fmt.Errorf("Sequence[%d]: %w", i, err)
			}
			if (len(p) > 0 || len(q) > 0) && (len(prefix) > 0 || len(suffix) > 0) {
				return nil, nil, fmt.Errorf("Sequence: more than one processor adds tokens")
			}
			if len(p) > 0 || len(q) > 0 {
				prefix, suffix = p, q
			}
		}
		return prefix, suffix, nil
	case "TemplateProcessing":
		var s struct {
			Single []struct {
				SpecialToken *struct {
					ID string `json:"id"`
				} `json:"SpecialToken"`
				Sequence *struct {
					ID string `json:"id"`
				} `json:"Sequence"`
			} `json:"single"`
			SpecialTokens map[string]struct {
				IDs []int `json:"ids"`
			} `json:"special_tokens"`
		}
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, nil, fmt.Errorf("TemplateProcessing: %w", err)
		}
		seen := false
		for i, item := range s.Single {
			switch {
			case item.Sequence != nil:
				if seen {
					return nil, nil, fmt.Errorf("TemplateProcessing: single[%d]: second sequence", i)
				}
				seen = true
			case item.SpecialToken != nil:
				st, ok := s.SpecialTokens[item.SpecialToken.ID]
				if !ok {
					return nil, nil, fmt.Errorf("TemplateProcessing: single[%d]: special token %q not in special_tokens", i, item.SpecialToken.ID)
				}
				for _, id := range st.IDs {
					if seen {
						suffix = append(suffix, int32(id))
					} else {
						prefix = append(prefix, int32(id))
					}
				}
			default:
				return nil, nil, fmt.Errorf("TemplateProcessing: single[%d]: neither SpecialToken nor Sequence", i)
			}
		}
		if !seen {
			return nil, nil, fmt.Errorf("TemplateProcessing: single has no sequence")
		}
		return prefix, suffix, nil
	default:
		return nil, nil, fmt.Errorf("post-processor %q is not supported", c.Type)
	}
}
