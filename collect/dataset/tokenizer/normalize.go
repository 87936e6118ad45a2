package tokenizer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode"

	"github.com/dlclark/regexp2"
	"golang.org/x/text/unicode/norm"
)

// normalizer rewrites a piece of text before pre-tokenization.
type normalizer interface {
	normalize(s string) (string, error)
}

// component is the common head of every tokenizer.json component.
type component struct {
	Type string `json:"type"`
}

func isNull(raw json.RawMessage) bool {
	return len(raw) == 0 || bytes.Equal(bytes.TrimSpace(raw), []byte("null"))
}

// parseSequence parses the members of a "Sequence" component (of
// normalizers, pre-tokenizers or decoders) with parse, leaving out null
// members; an error names the member's index.
func parseSequence[T any](raws []json.RawMessage, parse func(json.RawMessage) (T, error)) ([]T, error) {
	var seq []T
	for i, r := range raws {
		p, err := parse(r)
		if err != nil {
			return nil, fmt.Errorf("Sequence[%d]: %w", i, err)
		}
		if any(p) != nil { // a null member parses to a nil interface
			seq = append(seq, p)
		}
	}
	return seq, nil
}

func parseNormalizer(raw json.RawMessage) (normalizer, error) {
	if isNull(raw) {
		return nil, nil
	}
	var c component
	if err := json.Unmarshal(raw, &c); err != nil {
		return nil, err
	}
	switch c.Type {
	case "NFC":
		return unicodeNorm{norm.NFC}, nil
	case "NFD":
		return unicodeNorm{norm.NFD}, nil
	case "NFKC":
		return unicodeNorm{norm.NFKC}, nil
	case "NFKD":
		return unicodeNorm{norm.NFKD}, nil
	case "Lowercase":
		return lowercase{}, nil
	case "StripAccents":
		return stripAccents{}, nil
	case "Strip":
		var s struct {
			Left  bool `json:"strip_left"`
			Right bool `json:"strip_right"`
		}
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, fmt.Errorf("Strip: %w", err)
		}
		return strip{left: s.Left, right: s.Right}, nil
	case "Prepend":
		var p struct {
			Prepend string `json:"prepend"`
		}
		if err := json.Unmarshal(raw, &p); err != nil {
			return nil, fmt.Errorf("Prepend: %w", err)
		}
		return prepend{p.Prepend}, nil
	case "Replace":
		r, err := parseReplace(raw)
		if err != nil {
			return nil, fmt.Errorf("Replace: %w", err)
		}
		return r, nil
	case "Sequence":
		var s struct {
			Normalizers []json.RawMessage `json:"normalizers"`
		}
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, fmt.Errorf("Sequence: %w", err)
		}
		seq, err := parseSequence(s.Normalizers, parseNormalizer)
		if err != nil {
			return nil, err
		}
		return normSequence(seq), nil
	default:
		return nil, fmt.Errorf("normalizer %q is not supported", c.Type)
	}
}

type unicodeNorm struct{ form norm.Form }

func (u unicodeNorm) normalize(s string) (string, error) { return u.form.String(s), nil }

type lowercase struct{}

func (lowercase) normalize(s string) (string, error) { return strings.ToLower(s), nil }

// stripAccents removes combining marks (Unicode Mn), as the Rust library's
// StripAccents does; it is meant to follow an NFD normalizer.
type stripAccents struct{}

func (stripAccents) normalize(s string) (string, error) {
	return strings.Map(func(r rune) rune {
		if unicode.Is(unicode.Mn, r) {
			return -1
		}
		return r
	}, s), nil
}

type strip struct{ left, right bool }

func (s strip) normalize(in string) (string, error) {
	if s.left {
		in = strings.TrimLeftFunc(in, unicode.IsSpace)
	}
	if s.right {
		in = strings.TrimRightFunc(in, unicode.IsSpace)
	}
	return in, nil
}

// prepend adds its text in front of a non-empty piece.
type prepend struct{ text string }

func (p prepend) normalize(s string) (string, error) {
	if s == "" {
		return s, nil
	}
	return p.text + s, nil
}

type normSequence []normalizer

func (seq normSequence) normalize(s string) (string, error) {
	var err error
	for _, n := range seq {
		if s, err = n.normalize(s); err != nil {
			return "", err
		}
	}
	return s, nil
}

// pattern is a tokenizer.json {"String": ...} or {"Regex": ...} pattern.
type pattern struct {
	literal string
	re      *regexp2.Regexp
	// fast is a hand-written matcher equivalent to re (see fastsplit.go),
	// or nil.
	fast func(s string, out []span) []span
}

type patternJSON struct {
	String *string `json:"String"`
	Regex  *string `json:"Regex"`
}

func parsePattern(p patternJSON) (pattern, error) {
	switch {
	case p.String != nil:
		if *p.String == "" {
			return pattern{}, fmt.Errorf("empty String pattern")
		}
		return pattern{literal: *p.String}, nil
	case p.Regex != nil:
		re, err := regexp2.Compile(*p.Regex, regexp2.None)
		if err != nil {
			return pattern{}, fmt.Errorf("regex %q: %w", *p.Regex, err)
		}
		return pattern{re: re, fast: fastSplitter(*p.Regex)}, nil
	default:
		return pattern{}, fmt.Errorf("pattern has neither String nor Regex")
	}
}

// span is a half-open byte range of a string.
type span struct{ start, end int }

// matches returns the non-empty matches of p in s as byte ranges.
func (p pattern) matches(s string) ([]span, error) {
	var out []span
	if p.re == nil {
		for off := 0; ; {
			i := strings.Index(s[off:], p.literal)
			if i < 0 {
				return out, nil
			}
			out = append(out, span{off + i, off + i + len(p.literal)})
			off += i + len(p.literal)
		}
	}
	if p.fast != nil {
		return p.fast(s, out), nil
	}
	return regexSpans(p.re, s, out)
}

// regexSpans runs re over s and converts its rune positions to byte
// offsets. Empty matches are skipped.
func regexSpans(re *regexp2.Regexp, s string, out []span) ([]span, error) {
	runes := []rune(s)
	m, err := re.FindRunesMatch(runes)
	// Walk the runes once, converting rune indexes to byte offsets.
	ri, bi := 0, 0
	toByte := func(r int) int {
		for ri < r {
			bi += runeLen(runes[ri])
			ri++
		}
		return bi
	}
	for ; m != nil && err == nil; m, err = re.FindNextMatch(m) {
		if m.Length == 0 {
			continue
		}
		a := toByte(m.Index)
		b := toByte(m.Index + m.Length)
		out = append(out, span{a, b})
	}
	if err != nil {
		return nil, fmt.Errorf("regex: %w", err)
	}
	return out, nil
}

func runeLen(r rune) int {
	switch {
	case r < 0x80:
		return 1
	case r < 0x800:
		return 2
	case r < 0x10000:
		return 3
	default:
		return 4
	}
}

type replace struct {
	pat     pattern
	content string
}

func parseReplace(raw json.RawMessage) (replace, error) {
	var r struct {
		Pattern patternJSON `json:"pattern"`
		Content string      `json:"content"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return replace{}, err
	}
	p, err := parsePattern(r.Pattern)
	if err != nil {
		return replace{}, err
	}
	return replace{pat: p, content: r.Content}, nil
}

func (r replace) normalize(s string) (string, error) {
	if r.pat.re == nil {
		return strings.ReplaceAll(s, r.pat.literal, r.content), nil
	}
	ms, err := r.pat.matches(s)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	prev := 0
	for _, m := range ms {
		b.WriteString(s[prev:m.start])
		b.WriteString(r.content)
		prev = m.end
	}
	b.WriteString(s[prev:])
	return b.String(), nil
}
