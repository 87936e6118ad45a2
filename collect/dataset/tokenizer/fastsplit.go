package tokenizer

import (
	"unicode"
	"unicode/utf8"
)

// Profiling showed regexp2 taking about three quarters of encoding time
// for the Qwen2/Qwen3, Llama 3 and GPT-4o pre-tokenizer regexes, so these
// well-known patterns have a hand-written matcher. It is used only when
// the file's regex is exactly one of them; every other regex runs on
// regexp2. TestFastSplitMatchesRegexp2 checks both give the same matches
// on random text.
const (
	// qwenPattern is the Split regex of Qwen2, Qwen2.5 and Qwen3.
	qwenPattern = `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`
	// llama3Pattern is Llama 3's (and cl100k's): numbers in runs of up to three.
	llama3Pattern = `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`
	// gpt4oPattern is GPT-4o's (o200k): case-aware words with an optional
	// contraction, numbers in runs of up to three.
	gpt4oPattern = `[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+`
)

// fastSplitter returns a matcher for a known pattern, or nil.
func fastSplitter(re string) func(s string, out []span) []span {
	switch re {
	case qwenPattern:
		return func(s string, out []span) []span { return splitGPT4Style(s, 1, out) }
	case llama3Pattern:
		return func(s string, out []span) []span { return splitGPT4Style(s, 3, out) }
	case gpt4oPattern:
		return splitGPT4o
	}
	return nil
}

func isLetter(r rune) bool {
	if r < utf8.RuneSelf {
		return (r|0x20) >= 'a' && (r|0x20) <= 'z'
	}
	return unicode.IsLetter(r)
}

func isNumber(r rune) bool {
	if r < utf8.RuneSelf {
		return r >= '0' && r <= '9'
	}
	return unicode.IsNumber(r)
}

func isSpace(r rune) bool {
	if r < utf8.RuneSelf {
		return r == ' ' || (r >= '\t' && r <= '\r')
	}
	return unicode.IsSpace(r)
}

// isPunct is [^\s\p{L}\p{N}].
func isPunct(r rune) bool { return !isSpace(r) && !isLetter(r) && !isNumber(r) }

func isNewline(r rune) bool { return r == '\r' || r == '\n' }

// runeAt decodes the rune at byte i (utf8.RuneError, 0 at the end).
func runeAt(s string, i int) (rune, int) {
	if i >= len(s) {
		return utf8.RuneError, 0
	}
	if c := s[i]; c < utf8.RuneSelf {
		return rune(c), 1
	}
	return utf8.DecodeRuneInString(s[i:])
}

// contraction matches (?i:'s|'t|'re|'ve|'m|'ll|'d) at i, returning its
// length or 0. Like the JavaScript reference and regexp2, only ASCII
// letters count (not U+017F or U+212A, which Rust's case folding allows).
func contraction(s string, i int) int {
	if i >= len(s) || s[i] != '\'' || i+1 >= len(s) {
		return 0
	}
	lower := func(c byte) byte { return c | 0x20 }
	c := lower(s[i+1])
	switch c {
	case 's', 't', 'm', 'd':
		return 2
	}
	if i+2 < len(s) {
		d := lower(s[i+2])
		if (c == 'r' && d == 'e') || (c == 'v' && d == 'e') || (c == 'l' && d == 'l') {
			return 3
		}
	}
	return 0
}

// splitGPT4Style returns the matches of qwenPattern (maxDigits 1) or
// llama3Pattern (maxDigits 3) in s: alternatives tried in order at each
// position, as a backtracking engine does.
func splitGPT4Style(s string, maxDigits int, out []span) []span {
	for i := 0; i < len(s); {
		end := matchGPT4Style(s, i, maxDigits)
		if end <= i { // cannot happen: every rune matches some alternative
			_, n := runeAt(s, i)
			i += n
			continue
		}
		out = append(out, span{i, end})
		i = end
	}
	return out
}

func matchGPT4Style(s string, i, maxDigits int) int {
	// (?i:'s|'t|'re|'ve|'m|'ll|'d)
	if n := contraction(s, i); n > 0 {
		return i + n
	}
	r, n := runeAt(s, i)
	// [^\r\n\p{L}\p{N}]?\p{L}+
	if isLetter(r) {
		return letterRun(s, i)
	}
	if !isNewline(r) && !isNumber(r) {
		if r2, _ := runeAt(s, i+n); isLetter(r2) {
			return letterRun(s, i+n)
		}
	}
	// \p{N}{1,maxDigits}
	if isNumber(r) {
		j := i
		for k := 0; k < maxDigits; k++ {
			rr, m := runeAt(s, j)
			if m == 0 || !isNumber(rr) {
				break
			}
			j += m
		}
		return j
	}
	// ' '?[^\s\p{L}\p{N}]+[\r\n]*
	start := -1
	if isPunct(r) {
		start = i
	} else if r == ' ' {
		if r2, _ := runeAt(s, i+1); isPunct(r2) {
			start = i + 1
		}
	}
	if start >= 0 {
		j := start
		for {
			rr, m := runeAt(s, j)
			if m == 0 || !isPunct(rr) {
				break
			}
			j += m
		}
		for j < len(s) && (s[j] == '\r' || s[j] == '\n') {
			j++
		}
		return j
	}
	return matchSpaces(s, i)
}

// matchSpaces matches \s*[\r\n]+ | \s+(?!\S) | \s+ at i (or returns i).
func matchSpaces(s string, i int) int {
	if r, _ := runeAt(s, i); !isSpace(r) {
		return i
	}
	// The whitespace run [i, j) and the end of its last newline.
	j, lastNL, prevStart := i, -1, i
	for {
		rr, m := runeAt(s, j)
		if m == 0 || !isSpace(rr) {
			break
		}
		if isNewline(rr) {
			lastNL = j + m
		}
		prevStart = j
		j += m
	}
	// \s*[\r\n]+ : greedy \s* backs off to the last newline.
	if lastNL >= 0 {
		return lastNL
	}
	// \s+(?!\S): the whole run at the end of text, else all but its last rune.
	if j == len(s) {
		return j
	}
	if prevStart > i {
		return prevStart
	}
	// \s+
	return j
}

func letterRun(s string, j int) int {
	for {
		r, m := runeAt(s, j)
		if m == 0 || !isLetter(r) {
			return j
		}
		j += m
	}
}

// isUpperish is [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}].
func isUpperish(r rune) bool {
	if r < utf8.RuneSelf {
		return r >= 'A' && r <= 'Z'
	}
	return unicode.In(r, unicode.Lu, unicode.Lt, unicode.Lm, unicode.Lo, unicode.M)
}

// isLowerish is [\p{Ll}\p{Lm}\p{Lo}\p{M}].
func isLowerish(r rune) bool {
	if r < utf8.RuneSelf {
		return r >= 'a' && r <= 'z'
	}
	return unicode.In(r, unicode.Ll, unicode.Lm, unicode.Lo, unicode.M)
}

// isPrefix is [^\r\n\p{L}\p{N}].
func isPrefix(r rune) bool { return !isNewline(r) && !isLetter(r) && !isNumber(r) }

// splitGPT4o returns the matches of gpt4oPattern in s.
func splitGPT4o(s string, out []span) []span {
	for i := 0; i < len(s); {
		end := matchGPT4o(s, i)
		if end <= i { // cannot happen: every rune matches some alternative
			_, n := runeAt(s, i)
			i += n
			continue
		}
		out = append(out, span{i, end})
		i = end
	}
	return out
}

// run returns the end of the longest run of runes from j for which in holds.
func run(s string, j int, in func(rune) bool) int {
	for {
		r, m := runeAt(s, j)
		if m == 0 || !in(r) {
			return j
		}
		j += m
	}
}

// withContraction adds an optional (?i:'s|'t|'re|'ve|'m|'ll|'d) at j.
func withContraction(s string, j int) int { return j + contraction(s, j) }

func matchGPT4o(s string, i int) int {
	r, n := runeAt(s, i)
	// Start positions after the optional prefix: taken first, as a
	// backtracking engine tries it.
	starts := [2]int{-1, i}
	if isPrefix(r) {
		starts[0] = i + n
	}
	// [prefix]?[U]*[L]+('s...)? : U* backs off until L+ can start.
	for _, p0 := range starts {
		if p0 < 0 {
			continue
		}
		uEnd := run(s, p0, isUpperish)
		for q := uEnd; q >= p0; {
			if rr, _ := runeAt(s, q); isLowerish(rr) {
				return withContraction(s, run(s, q, isLowerish))
			}
			if q == p0 {
				break
			}
			_, m := utf8.DecodeLastRuneInString(s[:q])
			q -= m
		}
	}
	// [prefix]?[U]+[L]*('s...)?
	for _, p0 := range starts {
		if p0 < 0 {
			continue
		}
		if uEnd := run(s, p0, isUpperish); uEnd > p0 {
			return withContraction(s, run(s, uEnd, isLowerish))
		}
	}
	// \p{N}{1,3}
	if isNumber(r) {
		j := i
		for k := 0; k < 3; k++ {
			rr, m := runeAt(s, j)
			if m == 0 || !isNumber(rr) {
				break
			}
			j += m
		}
		return j
	}
	// ' '?[^\s\p{L}\p{N}]+[\r\n/]*
	start := -1
	if isPunct(r) {
		start = i
	} else if r == ' ' {
		if r2, _ := runeAt(s, i+1); isPunct(r2) {
			start = i + 1
		}
	}
	if start >= 0 {
		j := run(s, start, isPunct)
		for j < len(s) && (s[j] == '\r' || s[j] == '\n' || s[j] == '/') {
			j++
		}
		return j
	}
	return matchSpaces(s, i)
}
