package mock

import (
	"fmt"
	"strings"
)

// Tokenizer is the mock's built-in tokenizer: deterministic, dependency
// free, and self-consistent between /tokenize, /detokenize and the
// prompt_tokens the engine reports. We write our own because the mock must
// not need a model's tokenizer.json; any real BPE would tie it to one model.
//
// The vocabulary (BaseVocabSize ids, plus the chat markers) is regular:
//
//	ids 0..255        single raw bytes (the fallback: any text encodes)
//	ids 256..18533    " " + 1 to 3 lowercase letters (" a", " ab", " abc")
//	ids 18534..36785  2 or 3 lowercase letters without a space ("ab", "abc")
//	ids 36786..36788  the chat markers <|system|>, <|user|>, <|assistant|>
//
// Encode is greedy longest match over those pieces: at each position a chat
// marker if one starts there, else a space followed by up to three letters,
// else two or three letters, else one byte. So English prose costs about one
// token per 3 bytes, and:
//
//   - Decode(Encode(x)) == x for every string x (pieces concatenate back);
//   - Encode(Decode(Encode(x)[:k])) == Encode(x)[:k] (truncating a token
//     sequence and re-encoding keeps it), which is what a client that
//     sizes prompts with /tokenize and /detokenize relies on;
//   - Encode(Decode(ids)) may merge neighbours for arbitrary ids (" ab" then
//     "c" re-encodes as " abc"), just as real BPE tokenizers do; vLLM's
//     random dataset re-encodes and pads or truncates until lengths match.
//
// The tokenizer adds no special tokens (no BOS), so add_special_tokens
// changes nothing. Generated output uses only the " abc" pieces, so output
// text re-encodes to exactly completion_tokens.
//
// The zero value is ready to use; it has no state.
type Tokenizer struct{}

// Vocabulary layout.
const (
	numByteTokens  = 256
	numSpace1      = 26
	numSpace2      = 26 * 26
	numSpace3      = 26 * 26 * 26
	firstSpaceID   = numByteTokens
	firstSpace3ID  = firstSpaceID + numSpace1 + numSpace2
	firstLettersID = firstSpaceID + numSpace1 + numSpace2 + numSpace3 // 18534
	numLetters     = numSpace2 + numSpace3
	// BaseVocabSize is the number of ordinary token ids, [0, BaseVocabSize).
	// It is what VocabSize reports (as Hugging Face's vocab_size leaves out
	// added special tokens), so random prompts never contain chat markers.
	BaseVocabSize = firstLettersID + numLetters // 36786
)

// chatMarkers are special tokens: ids BaseVocabSize+i.
var chatMarkers = [...]string{"<|system|>", "<|user|>", "<|assistant|>"}

// VocabSize is the number of ordinary token ids, BaseVocabSize.
func (Tokenizer) VocabSize() int { return BaseVocabSize }

func isLower(b byte) bool { return b >= 'a' && b <= 'z' }

// letterRun is the number of lowercase letters at the start of s, at most 3.
func letterRun(s string) int {
	n := 0
	for n < len(s) && n < 3 && isLower(s[n]) {
		n++
	}
	return n
}

// lettersIndex numbers a 1..3 letter string within its length class.
func lettersIndex(s string) int {
	i := 0
	for j := 0; j < len(s); j++ {
		i = i*26 + int(s[j]-'a')
	}
	return i
}

// Encode returns the token ids of text. It never fails; the error is there
// to satisfy dataset.Tokenizer.
func (t Tokenizer) Encode(text string) ([]int, error) {
	return t.AppendEncode(make([]int, 0, len(text)/3+1), text), nil
}

// Count is len(Encode(text)) without allocating.
func (Tokenizer) Count(text string) int {
	n := 0
	for p := 0; p < len(text); n++ {
		_, w := nextToken(text[p:])
		p += w
	}
	return n
}

// AppendEncode appends the token ids of text to ids.
func (Tokenizer) AppendEncode(ids []int, text string) []int {
	for p := 0; p < len(text); {
		id, w := nextToken(text[p:])
		ids = append(ids, id)
		p += w
	}
	return ids
}

// nextToken is the greedy longest match at the start of s (non-empty).
func nextToken(s string) (id, width int) {
	switch c := s[0]; {
	case c == '<':
		for i, m := range chatMarkers {
			if strings.HasPrefix(s, m) {
				return BaseVocabSize + i, len(m)
			}
		}
	case c == ' ':
		switch n := letterRun(s[1:]); n {
		case 1:
			return firstSpaceID + lettersIndex(s[1:2]), 2
		case 2:
			return firstSpaceID + numSpace1 + lettersIndex(s[1:3]), 3
		case 3:
			return firstSpace3ID + lettersIndex(s[1:4]), 4
		}
	case isLower(c):
		switch n := letterRun(s); n {
		case 2:
			return firstLettersID + lettersIndex(s[:2]), 2
		case 3:
			return firstLettersID + numSpace2 + lettersIndex(s[:3]), 3
		}
	}
	return int(s[0]), 1
}

// Decode returns the text of ids. An id outside the vocabulary (chat
// markers included) is an error naming it.
func (t Tokenizer) Decode(ids []int) (string, error) {
	var b []byte
	for i, id := range ids {
		var ok bool
		if b, ok = appendPiece(b, id); !ok {
			return "", fmt.Errorf("token %d: id %d outside the vocabulary [0, %d)", i, id, BaseVocabSize+len(chatMarkers))
		}
	}
	return string(b), nil
}

// Piece is the text of one id ("" and false when out of range).
func (Tokenizer) Piece(id int) (string, bool) {
	b, ok := appendPiece(nil, id)
	return string(b), ok
}

// appendPiece appends the text of id to b.
func appendPiece(b []byte, id int) ([]byte, bool) {
	letters := func(b []byte, idx, n int) []byte {
		var buf [3]byte
		for j := n - 1; j >= 0; j-- {
			buf[j] = byte('a' + idx%26)
			idx /= 26
		}
		return append(b, buf[:n]...)
	}
	switch {
	case id < 0:
		return b, false
	case id < numByteTokens:
		return append(b, byte(id)), true
	case id < firstSpaceID+numSpace1:
		return letters(append(b, ' '), id-firstSpaceID, 1), true
	case id < firstSpace3ID:
		return letters(append(b, ' '), id-firstSpaceID-numSpace1, 2), true
	case id < firstLettersID:
		return letters(append(b, ' '), id-firstSpace3ID, 3), true
	case id < firstLettersID+numSpace2:
		return letters(b, id-firstLettersID, 2), true
	case id < BaseVocabSize:
		return letters(b, id-firstLettersID-numSpace2, 3), true
	case id < BaseVocabSize+len(chatMarkers):
		return append(b, chatMarkers[id-BaseVocabSize]...), true
	}
	return b, false
}

// outputPieces is the number of " abc" pieces generated text draws from.
const outputPieces = numSpace3

// outputToken maps a pseudo-random number to a generated token id.
func outputToken(r uint64) int { return firstSpace3ID + int(r%outputPieces) }

// ChatPrompt renders chat messages through the mock's chat template: each
// message as its role marker followed by its text, then the assistant
// marker the reply follows: one user message "hi" is 3 tokens (<|user|>,
// "hi", <|assistant|>), so prompt_tokens on chat includes the template, as
// on a real engine.
func ChatPrompt(msgs []Message) string {
	var b strings.Builder
	for _, m := range msgs {
		switch m.Role {
		case "system", "user", "assistant":
			b.WriteString("<|" + m.Role + "|>")
		default:
			// Tool and developer messages have no marker of their own.
			b.WriteString("<|user|>")
		}
		b.WriteString(m.Text())
	}
	b.WriteString("<|assistant|>")
	return b.String()
}
