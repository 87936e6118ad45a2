package tokenizer

import (
	"errors"
	"fmt"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// Loading the 11 MB Qwen3 file spent most of its time in encoding/json's
// reflection over the 151k-entry vocab and 151k merges, so these two
// fields have small dedicated readers. They run inside encoding/json's
// Unmarshal, which has already checked that the bytes are valid JSON, so
// they only need to follow the shapes they accept.

// vocabJSON reads {"token": id, ...}. Any other JSON value (Unigram's
// list) leaves it nil, so that the model check can name the model type.
type vocabJSON struct {
	entries map[string]int32
}

func (v *vocabJSON) UnmarshalJSON(b []byte) error {
	p := jsonReader{b: b}
	p.space()
	if !p.eat('{') {
		return nil
	}
	v.entries = make(map[string]int32, len(b)/16)
	p.space()
	if p.eat('}') {
		return nil
	}
	for {
		p.space()
		key, err := p.str()
		if err != nil {
			return fmt.Errorf("vocab: %w", err)
		}
		p.space()
		if !p.eat(':') {
			return errors.New("vocab: expected ':'")
		}
		p.space()
		n, err := p.int()
		if err != nil {
			return fmt.Errorf("vocab: %q: %w", key, err)
		}
		if n < 0 || n > 1<<30 {
			return fmt.Errorf("vocab: %q: id %d out of range", key, n)
		}
		v.entries[key] = int32(n)
		p.space()
		if p.eat('}') {
			return nil
		}
		if !p.eat(',') {
			return errors.New("vocab: expected ',' or '}'")
		}
	}
}

// mergesJSON reads ["a b", ...] or [["a", "b"], ...].
type mergesJSON struct {
	pairs [][2]string
	set   bool
}

func (m *mergesJSON) UnmarshalJSON(b []byte) error {
	p := jsonReader{b: b}
	p.space()
	if !p.eat('[') {
		return errors.New("merges: not a list")
	}
	m.set = true
	m.pairs = make([][2]string, 0, len(b)/16)
	p.space()
	if p.eat(']') {
		return nil
	}
	for i := 0; ; i++ {
		p.space()
		var a, c string
		if p.eat('[') {
			var err error
			p.space()
			if a, err = p.str(); err != nil {
				return fmt.Errorf("merges[%d]: %w", i, err)
			}
			p.space()
			if !p.eat(',') {
				return fmt.Errorf("merges[%d]: want two tokens", i)
			}
			p.space()
			if c, err = p.str(); err != nil {
				return fmt.Errorf("merges[%d]: %w", i, err)
			}
			p.space()
			if !p.eat(']') {
				return fmt.Errorf("merges[%d]: want two tokens", i)
			}
		} else {
			s, err := p.str()
			if err != nil {
				return fmt.Errorf("merges[%d]: %w", i, err)
			}
			var ok bool
			if a, c, ok = cutSpace(s); !ok {
				return fmt.Errorf("merges[%d]: %q is not two tokens separated by a space", i, s)
			}
		}
		m.pairs = append(m.pairs, [2]string{a, c})
		p.space()
		if p.eat(']') {
			return nil
		}
		if !p.eat(',') {
			return fmt.Errorf("merges[%d]: expected ',' or ']'", i)
		}
	}
}

// jsonReader walks valid JSON bytes.
type jsonReader struct {
	b []byte
	i int
}

func (p *jsonReader) space() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *jsonReader) eat(c byte) bool {
	if p.i < len(p.b) && p.b[p.i] == c {
		p.i++
		return true
	}
	return false
}

func (p *jsonReader) int() (int, error) {
	start := p.i
	for p.i < len(p.b) && (p.b[p.i] == '-' || (p.b[p.i] >= '0' && p.b[p.i] <= '9')) {
		p.i++
	}
	return strconv.Atoi(string(p.b[start:p.i]))
}

// str reads a JSON string, decoding escapes as encoding/json does
// (including surrogate pairs; a lone surrogate becomes U+FFFD).
func (p *jsonReader) str() (string, error) {
	if !p.eat('"') {
		return "", errors.New("expected a string")
	}
	start := p.i
	for p.i < len(p.b) {
		switch c := p.b[p.i]; {
		case c == '"':
			s := string(p.b[start:p.i])
			p.i++
			return s, nil
		case c == '\\':
			return p.escaped(start)
		case c >= utf8.RuneSelf:
			// Multi-byte UTF-8 is copied as is (invalid bytes become U+FFFD,
			// as encoding/json does, in escaped()).
			r, n := utf8.DecodeRune(p.b[p.i:])
			if r == utf8.RuneError && n == 1 {
				return p.escaped(start)
			}
			p.i += n
		default:
			p.i++
		}
	}
	return "", errors.New("unterminated string")
}

// escaped finishes a string that needs decoding, from its start.
func (p *jsonReader) escaped(start int) (string, error) {
	out := append([]byte(nil), p.b[start:p.i]...)
	for p.i < len(p.b) {
		c := p.b[p.i]
		switch {
		case c == '"':
			p.i++
			return string(out), nil
		case c == '\\':
			if p.i+1 >= len(p.b) {
				return "", errors.New("unterminated escape")
			}
			e := p.b[p.i+1]
			p.i += 2
			switch e {
			case '"', '\\', '/':
				out = append(out, e)
			case 'b':
				out = append(out, '\b')
			case 'f':
				out = append(out, '\f')
			case 'n':
				out = append(out, '\n')
			case 'r':
				out = append(out, '\r')
			case 't':
				out = append(out, '\t')
			case 'u':
				r, ok := p.hex4()
				if !ok {
					return "", errors.New("bad \\u escape")
				}
				if utf16.IsSurrogate(r) {
					r2 := utf8.RuneError
					if p.i+1 < len(p.b) && p.b[p.i] == '\\' && p.b[p.i+1] == 'u' {
						save := p.i
						p.i += 2
						if lo, ok := p.hex4(); ok {
							if d := utf16.DecodeRune(r, lo); d != utf8.RuneError {
								r2 = d
							} else {
								p.i = save
							}
						} else {
							p.i = save
						}
					}
					r = r2
				}
				out = utf8.AppendRune(out, r)
			default:
				return "", fmt.Errorf("bad escape \\%c", e)
			}
		case c >= utf8.RuneSelf:
			r, n := utf8.DecodeRune(p.b[p.i:])
			out = utf8.AppendRune(out, r) // RuneError for an invalid byte
			p.i += n
		default:
			out = append(out, c)
			p.i++
		}
	}
	return "", errors.New("unterminated string")
}

func (p *jsonReader) hex4() (rune, bool) {
	if p.i+4 > len(p.b) {
		return 0, false
	}
	v, err := strconv.ParseUint(string(p.b[p.i:p.i+4]), 16, 32)
	if err != nil {
		return 0, false
	}
	p.i += 4
	return rune(v), true
}
