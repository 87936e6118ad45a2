package tokenizer

import (
	"strings"
	"unicode/utf8"
)

// byteRune and runeByte are GPT-2's bytes_to_unicode table: printable
// bytes stand for themselves, the others are shifted to U+0100 and up, so
// every byte has a visible, vocabulary-friendly rune.
var byteRune, runeByte = byteLevelTables()

func byteLevelTables() ([256]rune, map[rune]byte) {
	var br [256]rune
	rb := make(map[rune]byte, 256)
	n := 0
	for b := 0; b < 256; b++ {
		if (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF) {
			br[b] = rune(b)
		} else {
			br[b] = rune(256 + n)
			n++
		}
		rb[br[b]] = byte(b)
	}
	return br, rb
}

// byteLevelString maps every byte of s to its stand-in rune.
func byteLevelString(s string) string {
	var b strings.Builder
	b.Grow(2 * len(s))
	for i := 0; i < len(s); i++ {
		b.WriteRune(byteRune[s[i]])
	}
	return b.String()
}

// singleRune reports whether s is exactly one rune.
func singleRune(s string) (rune, bool) {
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 || n != len(s) || (r == utf8.RuneError && n == 1) {
		return 0, false
	}
	return r, true
}
