package tokenizer

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/dlclark/regexp2"
)

// preTokenizer splits pieces of normalized text into smaller pieces (and
// may rewrite them, as ByteLevel does). first says that the first piece
// starts at offset 0 of the input (Metaspace's prepend_scheme "first").
type preTokenizer interface {
	split(pieces []string, first bool) ([]string, error)
}

// gpt2Pattern is the regex ByteLevel uses when use_regex is true.
const gpt2Pattern = `'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+`

func parsePreTokenizer(raw json.RawMessage) (preTokenizer, error) {
	if isNull(raw) {
		return nil, nil
	}
	var c component
	if err := json.Unmarshal(raw, &c); err != nil {
		return nil, err
	}
	switch c.Type {
	case "Sequence":
		var s struct {
			PreTokenizers []json.RawMessage `json:"pretokenizers"`
		}
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, fmt.Errorf("Sequence: %w", err)
		}
		seq, err := parseSequence(s.PreTokenizers, parsePreTokenizer)
		if err != nil {
			return nil, err
		}
		return preSequence(seq), nil
	case "Split":
		var s struct {
			Pattern  patternJSON `json:"pattern"`
			Behavior string      `json:"behavior"`
			Invert   bool        `json:"invert"`
		}
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, fmt.Errorf("Split: %w", err)
		}
		p, err := parsePattern(s.Pattern)
		if err != nil {
			return nil, fmt.Errorf("Split: %w", err)
		}
		if err := checkBehavior(s.Behavior); err != nil {
			return nil, fmt.Errorf("Split: %w", err)
		}
		return splitPre{pat: p, behavior: s.Behavior, invert: s.Invert}, nil
	case "ByteLevel":
		var s struct {
			AddPrefixSpace bool  `json:"add_prefix_space"`
			UseRegex       *bool `json:"use_regex"`
		}
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, fmt.Errorf("ByteLevel: %w", err)
		}
		b := byteLevelPre{addPrefixSpace: s.AddPrefixSpace}
		if s.UseRegex == nil || *s.UseRegex { // the Rust default is true
			b.re = regexp2.MustCompile(gpt2Pattern, regexp2.None)
		}
		return b, nil
	case "Metaspace":
		m, err := parseMetaspace(raw)
		if err != nil {
			return nil, fmt.Errorf("Metaspace: %w", err)
		}
		return m, nil
	case "Digits":
		var s struct {
			IndividualDigits bool `json:"individual_digits"`
		}
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, fmt.Errorf("Digits: %w", err)
		}
		return digitsPre{individual: s.IndividualDigits}, nil
	case "WhitespaceSplit":
		return whitespaceSplit{}, nil
	default:
		return nil, fmt.Errorf("pre-tokenizer %q is not supported", c.Type)
	}
}

func checkBehavior(b string) error {
	switch b {
	case "Removed", "Isolated", "MergedWithPrevious", "MergedWithNext", "Contiguous":
		return nil
	}
	return fmt.Errorf("behavior %q is not supported", b)
}

type preSequence []preTokenizer

func (seq preSequence) split(pieces []string, first bool) ([]string, error) {
	var err error
	for _, p := range seq {
		if pieces, err = p.split(pieces, first); err != nil {
			return nil, err
		}
	}
	return pieces, nil
}

// splitPre is the Split pre-tokenizer.
type splitPre struct {
	pat      pattern
	behavior string
	invert   bool
}

func (p splitPre) split(pieces []string, _ bool) ([]string, error) {
	var out []string
	for _, s := range pieces {
		ms, err := p.pat.matches(s)
		if err != nil {
			return nil, err
		}
		out = applyBehavior(out, s, ms, p.behavior, p.invert)
	}
	return out, nil
}

// part is a byte range of a piece and whether it is a delimiter.
type part struct {
	span
	delim bool
}

// applyBehavior cuts s at the matches ms the way the Rust library's
// NormalizedString::split does for the behavior, appending the non-empty
// results to out.
func applyBehavior(out []string, s string, ms []span, behavior string, invert bool) []string {
	if s == "" {
		return out
	}
	if behavior == "Isolated" {
		// Every match and every gap is a piece of its own: no need to
		// build the parts list.
		prev := 0
		for _, m := range ms {
			if prev != m.start {
				out = append(out, s[prev:m.start])
			}
			out = append(out, s[m.start:m.end])
			prev = m.end
		}
		if prev != len(s) {
			out = append(out, s[prev:])
		}
		return out
	}
	parts := make([]part, 0, 2*len(ms)+1)
	prev := 0
	for _, m := range ms {
		if prev != m.start {
			parts = append(parts, part{span{prev, m.start}, invert})
		}
		parts = append(parts, part{m, !invert})
		prev = m.end
	}
	if prev != len(s) {
		parts = append(parts, part{span{prev, len(s)}, invert})
	}
	var res []span
	switch behavior {
	case "Removed":
		for _, p := range parts {
			if !p.delim {
				res = append(res, p.span)
			}
		}
	case "Isolated":
		for _, p := range parts {
			res = append(res, p.span)
		}
	case "MergedWithPrevious":
		prevDelim := false
		for _, p := range parts {
			if p.delim && !prevDelim && len(res) > 0 {
				res[len(res)-1].end = p.end
			} else {
				res = append(res, p.span)
			}
			prevDelim = p.delim
		}
	case "MergedWithNext":
		prevDelim := false
		for i := len(parts) - 1; i >= 0; i-- {
			p := parts[i]
			if p.delim && !prevDelim && len(res) > 0 {
				res[len(res)-1].start = p.start
			} else {
				res = append(res, p.span)
			}
			prevDelim = p.delim
		}
		for i, j := 0, len(res)-1; i < j; i, j = i+1, j-1 {
			res[i], res[j] = res[j], res[i]
		}
	case "Contiguous":
		prevDelim := false
		for i, p := range parts {
			if i > 0 && p.delim == prevDelim {
				res[len(res)-1].end = p.end
			} else {
				res = append(res, p.span)
			}
			prevDelim = p.delim
		}
	}
	for _, r := range res {
		if r.end > r.start {
			out = append(out, s[r.start:r.end])
		}
	}
	return out
}

// byteLevelPre is the ByteLevel pre-tokenizer: optionally splits with the
// GPT-2 regex, then maps every byte to its printable stand-in rune.
type byteLevelPre struct {
	addPrefixSpace bool
	re             *regexp2.Regexp
}

func (b byteLevelPre) split(pieces []string, _ bool) ([]string, error) {
	if b.re == nil && !b.addPrefixSpace {
		for i, s := range pieces { // map in place: no new list
			pieces[i] = byteLevelString(s)
		}
		return pieces, nil
	}
	out := make([]string, 0, len(pieces))
	for _, s := range pieces {
		if b.addPrefixSpace && !strings.HasPrefix(s, " ") {
			s = " " + s
		}
		if b.re == nil {
			out = append(out, byteLevelString(s))
			continue
		}
		ms, err := regexSpans(b.re, s, nil)
		if err != nil {
			return nil, err
		}
		start := len(out)
		out = applyBehavior(out, s, ms, "Isolated", false)
		for i := start; i < len(out); i++ {
			out[i] = byteLevelString(out[i])
		}
	}
	return out, nil
}

// metaspace is the Metaspace pre-tokenizer (SentencePiece style).
type metaspace struct {
	replacement string
	scheme      string // always, first, never
	splitWords  bool
}

func parseMetaspace(raw json.RawMessage) (metaspace, error) {
	var s struct {
		Replacement    string  `json:"replacement"`
		PrependScheme  *string `json:"prepend_scheme"`
		AddPrefixSpace *bool   `json:"add_prefix_space"`
		Split          *bool   `json:"split"`
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		return metaspace{}, err
	}
	if utf8.RuneCountInString(s.Replacement) != 1 {
		return metaspace{}, fmt.Errorf("replacement %q is not one character", s.Replacement)
	}
	m := metaspace{replacement: s.Replacement, scheme: "always", splitWords: true}
	switch {
	case s.PrependScheme != nil:
		m.scheme = *s.PrependScheme
	case s.AddPrefixSpace != nil && !*s.AddPrefixSpace:
		m.scheme = "never"
	}
	switch m.scheme {
	case "always", "first", "never":
	default:
		return metaspace{}, fmt.Errorf("prepend_scheme %q is not supported", m.scheme)
	}
	if s.Split != nil {
		m.splitWords = *s.Split
	}
	return m, nil
}

func (m metaspace) split(pieces []string, first bool) ([]string, error) {
	var out []string
	for i, s := range pieces {
		s = strings.ReplaceAll(s, " ", m.replacement)
		if !strings.HasPrefix(s, m.replacement) &&
			(m.scheme == "always" || (m.scheme == "first" && first && i == 0)) {
			s = m.replacement + s
		}
		if !m.splitWords {
			if s != "" {
				out = append(out, s)
			}
			continue
		}
		lit := pattern{literal: m.replacement}
		ms, _ := lit.matches(s)
		out = applyBehavior(out, s, ms, "MergedWithNext", false)
	}
	return out, nil
}

// charSpans returns one span per rune of s for which pred holds.
func charSpans(s string, pred func(rune) bool) []span {
	var out []span
	for i, r := range s {
		if pred(r) {
			out = append(out, span{i, i + utf8.RuneLen(r)})
		}
	}
	return out
}

type digitsPre struct{ individual bool }

func (d digitsPre) split(pieces []string, _ bool) ([]string, error) {
	behavior := "Contiguous"
	if d.individual {
		behavior = "Isolated"
	}
	var out []string
	for _, s := range pieces {
		out = applyBehavior(out, s, charSpans(s, isNumeric), behavior, false)
	}
	return out, nil
}

// isNumeric is Rust's char::is_numeric: general categories Nd, Nl, No.
func isNumeric(r rune) bool { return unicode.IsNumber(r) }

type whitespaceSplit struct{}

func (whitespaceSplit) split(pieces []string, _ bool) ([]string, error) {
	var out []string
	for _, s := range pieces {
		out = append(out, strings.FieldsFunc(s, unicode.IsSpace)...)
	}
	return out, nil
}
