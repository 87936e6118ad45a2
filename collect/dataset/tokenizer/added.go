package tokenizer

import (
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// addedToken is one entry of tokenizer.json's added_tokens.
type addedToken struct {
	content    string
	id         int32
	lstrip     bool
	rstrip     bool
	singleWord bool
	special    bool
}

// addedMatcher finds added tokens in text, leftmost first and longest at
// a position, as the Rust library's Aho-Corasick (LeftmostLongest) does.
type addedMatcher struct {
	byFirst [256][]addedToken // candidates by first byte, longest first
}

func newAddedMatcher(toks []addedToken) *addedMatcher {
	m := &addedMatcher{}
	for _, t := range toks {
		b := t.content[0]
		m.byFirst[b] = append(m.byFirst[b], t)
	}
	for b := range m.byFirst {
		c := m.byFirst[b]
		sort.SliceStable(c, func(i, j int) bool { return len(c[i].content) > len(c[j].content) })
	}
	return m
}

// segment is a piece of the input: either plain text (id < 0) to run
// through the normalizer, pre-tokenizer and model, or one added token.
type segment struct {
	text  string
	id    int32
	start int // byte offset in the input
}

// split cuts text at the added tokens it contains.
func (m *addedMatcher) split(text string) []segment {
	var segs []segment
	plainStart := 0
	for i := 0; i < len(text); {
		cands := m.byFirst[text[i]]
		var hit *addedToken
		for k := range cands {
			if strings.HasPrefix(text[i:], cands[k].content) &&
				(!cands[k].singleWord || isSingleWord(text, i, i+len(cands[k].content))) {
				hit = &cands[k]
				break
			}
		}
		if hit == nil {
			i++
			continue
		}
		start, end := i, i+len(hit.content)
		if hit.lstrip {
			for start > plainStart {
				r, n := utf8.DecodeLastRuneInString(text[plainStart:start])
				if !unicode.IsSpace(r) {
					break
				}
				start -= n
			}
		}
		if hit.rstrip {
			for end < len(text) {
				r, n := utf8.DecodeRuneInString(text[end:])
				if !unicode.IsSpace(r) {
					break
				}
				end += n
			}
		}
		if start > plainStart {
			segs = append(segs, segment{text: text[plainStart:start], id: -1, start: plainStart})
		}
		segs = append(segs, segment{text: text[start:end], id: hit.id, start: start})
		plainStart, i = end, end
	}
	if plainStart < len(text) {
		segs = append(segs, segment{text: text[plainStart:], id: -1, start: plainStart})
	}
	return segs
}

// isSingleWord reports whether text[start:end] is not glued to word
// characters on either side.
func isSingleWord(text string, start, end int) bool {
	if start > 0 {
		r, _ := utf8.DecodeLastRuneInString(text[:start])
		if isWordChar(r) {
			return false
		}
	}
	if end < len(text) {
		r, _ := utf8.DecodeRuneInString(text[end:])
		if isWordChar(r) {
			return false
		}
	}
	return true
}

func isWordChar(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }
