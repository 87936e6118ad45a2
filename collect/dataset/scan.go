package dataset

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// The first ShareGPT pass must look at every byte of a 600+ MB file.
// encoding/json's Decoder does that at about 60-100 MB/s here, so this is
// a small validating JSON scanner specialised for the file's shape: a
// list of entries, of which it only needs each entry's offset and the
// length of its "conversations" list. It checks the whole grammar (as
// Python's json.load would, so a damaged file is an error, not a smaller
// dataset) but decodes nothing. The decoder-based scanner in the tests
// is the reference it is compared with.

// errShort says the window ended inside a value: read more and retry.
var errShort = errors.New("short buffer")

// syntaxError is a grammar error at an absolute byte offset.
type syntaxError struct {
	off int64
	msg string
}

func (e *syntaxError) Error() string { return e.msg }

// jsonScan walks a window of the file; base is the window's offset.
type jsonScan struct {
	b    []byte
	i    int
	base int64
	eof  bool // the window ends at the end of the file
}

func (s *jsonScan) fail(format string, a ...any) error {
	if s.i >= len(s.b) && !s.eof {
		return errShort
	}
	return &syntaxError{s.base + int64(s.i), fmt.Sprintf(format, a...)}
}

func (s *jsonScan) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

func (s *jsonScan) peek() (byte, error) {
	if s.i < len(s.b) {
		return s.b[s.i], nil
	}
	return 0, s.fail("unexpected end of JSON input")
}

func describe(c byte) string {
	if c < 0x20 || c >= 0x7f {
		return fmt.Sprintf("byte 0x%02x", c)
	}
	return fmt.Sprintf("character %q", c)
}

// str steps over a string and returns its raw bytes, quotes included.
func (s *jsonScan) str() ([]byte, error) {
	start := s.i
	s.i++ // the opening quote, checked by the caller
	for {
		// Fast path: plain bytes.
		for s.i < len(s.b) {
			c := s.b[s.i]
			if c == '"' || c == '\\' || c < 0x20 {
				break
			}
			s.i++
		}
		if s.i >= len(s.b) {
			return nil, s.fail("unexpected end of JSON input in string")
		}
		switch c := s.b[s.i]; {
		case c == '"':
			s.i++
			return s.b[start:s.i], nil
		case c < 0x20:
			return nil, s.fail("invalid %s in string literal", describe(c))
		default: // backslash
			if s.i+1 >= len(s.b) {
				s.i = len(s.b)
				return nil, s.fail("unexpected end of JSON input in string escape")
			}
			switch e := s.b[s.i+1]; e {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				s.i += 2
			case 'u':
				if s.i+6 > len(s.b) {
					s.i = len(s.b)
					return nil, s.fail("unexpected end of JSON input in \\u escape")
				}
				for k := 2; k < 6; k++ {
					if !isHex(s.b[s.i+k]) {
						s.i += k
						return nil, s.fail("invalid %s in \\u hexadecimal character escape", describe(s.b[s.i]))
					}
				}
				s.i += 6
			default:
				s.i++
				return nil, s.fail("invalid %s in string escape code", describe(e))
			}
		}
	}
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// number steps over -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (s *jsonScan) number() error {
	if s.i < len(s.b) && s.b[s.i] == '-' {
		s.i++
	}
	c, err := s.peek()
	if err != nil {
		return err
	}
	switch {
	case c == '0':
		s.i++
	case c >= '1' && c <= '9':
		for s.i < len(s.b) && isDigit(s.b[s.i]) {
			s.i++
		}
	default:
		return s.fail("invalid %s in numeric literal", describe(c))
	}
	if s.i < len(s.b) && s.b[s.i] == '.' {
		s.i++
		if c, err := s.peek(); err != nil || !isDigit(c) {
			if err != nil {
				return err
			}
			return s.fail("invalid %s after decimal point in numeric literal", describe(c))
		}
		for s.i < len(s.b) && isDigit(s.b[s.i]) {
			s.i++
		}
	}
	if s.i < len(s.b) && (s.b[s.i] == 'e' || s.b[s.i] == 'E') {
		s.i++
		if s.i < len(s.b) && (s.b[s.i] == '+' || s.b[s.i] == '-') {
			s.i++
		}
		if c, err := s.peek(); err != nil || !isDigit(c) {
			if err != nil {
				return err
			}
			return s.fail("invalid %s in exponent of numeric literal", describe(c))
		}
		for s.i < len(s.b) && isDigit(s.b[s.i]) {
			s.i++
		}
	}
	if s.i >= len(s.b) && !s.eof {
		return errShort // the number may go on in the next window
	}
	return nil
}

func (s *jsonScan) literal(word string) error {
	for k := 0; k < len(word); k++ {
		if s.i >= len(s.b) {
			return s.fail("unexpected end of JSON input in literal %s", word)
		}
		if s.b[s.i] != word[k] {
			return s.fail("invalid %s in literal %s (expecting %q)", describe(s.b[s.i]), word, word[k])
		}
		s.i++
	}
	return nil
}

// value steps over any value.
func (s *jsonScan) value(depth int) error {
	if depth > 10000 {
		return s.fail("exceeded max depth")
	}
	c, err := s.peek()
	if err != nil {
		return err
	}
	switch {
	case c == '"':
		_, err := s.str()
		return err
	case c == '{':
		return s.object(depth, nil)
	case c == '[':
		_, err := s.array(depth)
		return err
	case c == '-' || isDigit(c):
		return s.number()
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == 'n':
		return s.literal("null")
	}
	return s.fail("invalid %s looking for beginning of value", describe(c))
}

// array steps over a list and returns its length.
func (s *jsonScan) array(depth int) (int, error) {
	s.i++ // '['
	s.ws()
	c, err := s.peek()
	if err != nil {
		return 0, err
	}
	if c == ']' {
		s.i++
		return 0, nil
	}
	for n := 1; ; n++ {
		if err := s.value(depth + 1); err != nil {
			return 0, err
		}
		s.ws()
		c, err := s.peek()
		if err != nil {
			return 0, err
		}
		switch c {
		case ',':
			s.i++
			s.ws()
		case ']':
			s.i++
			return n, nil
		default:
			return 0, s.fail("invalid %s after array element", describe(c))
		}
	}
}

// object steps over an object. turns, when not nil, receives the length of
// its "conversations" list (-1 if absent or null; the last one counts if
// the key repeats, as with Python's json).
func (s *jsonScan) object(depth int, turns *int) error {
	s.i++ // '{'
	s.ws()
	c, err := s.peek()
	if err != nil {
		return err
	}
	if c == '}' {
		s.i++
		return nil
	}
	for {
		if c != '"' {
			return s.fail("invalid %s looking for beginning of object key string", describe(c))
		}
		key, err := s.str()
		if err != nil {
			return err
		}
		s.ws()
		if c, err = s.peek(); err != nil {
			return err
		}
		if c != ':' {
			return s.fail("invalid %s after object key", describe(c))
		}
		s.i++
		s.ws()
		if turns != nil && isConversationsKey(key) {
			if c, err = s.peek(); err != nil {
				return err
			}
			switch c {
			case '[':
				n, err := s.array(depth + 1)
				if err != nil {
					return err
				}
				*turns = n
			case 'n':
				if err := s.literal("null"); err != nil {
					return err
				}
				*turns = -1
			default:
				return s.fail("conversations is not a list")
			}
		} else if err := s.value(depth + 1); err != nil {
			return err
		}
		s.ws()
		if c, err = s.peek(); err != nil {
			return err
		}
		switch c {
		case ',':
			s.i++
			s.ws()
			if c, err = s.peek(); err != nil {
				return err
			}
		case '}':
			s.i++
			return nil
		default:
			return s.fail("invalid %s after object key:value pair", describe(c))
		}
	}
}

// entry steps over one entry of the list and returns its turn count (-1
// when it is not an object with a conversations list).
func (s *jsonScan) entry() (int, error) {
	c, err := s.peek()
	if err != nil {
		return 0, err
	}
	turns := -1
	if c == '{' {
		err = s.object(1, &turns)
	} else {
		err = s.value(1)
	}
	return turns, err
}

// scanShareGPT streams the file once and returns the byte offsets of the
// entries that have at least two turns, in file order.
func scanShareGPT(ctx context.Context, r io.Reader) ([]int64, error) {
	return scanShareGPTWindow(ctx, r, 4<<20)
}

// scanShareGPTWindow is scanShareGPT with a first window of size bytes
// (tests use tiny ones to exercise the sliding).
func scanShareGPTWindow(ctx context.Context, r io.Reader, size int) ([]int64, error) {
	w := window{r: r, buf: make([]byte, 0, size)}
	if err := w.fill(); err != nil {
		return nil, err
	}
	s := &jsonScan{b: w.buf, eof: w.eof}
	for {
		s.ws()
		c, err := s.peek()
		if errors.Is(err, errShort) {
			if err := w.slide(s, s.i); err != nil {
				return nil, err
			}
			continue
		}
		if err != nil || c != '[' {
			return nil, &offsetError{s.base + int64(s.i), fmt.Errorf("not a JSON list of conversations")}
		}
		s.i++
		break
	}
	var offsets []int64
	first := true
	for n := 0; ; n++ {
		if n%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		// Each step (separator, entry) restarts from mark when the window
		// ends inside it, after sliding the window forward.
		mark := s.i
		s.ws()
		c, err := s.peek()
		if err == nil {
			switch {
			case c == ']':
				s.i++
				return offsets, s.end(&w)
			case !first && c != ',':
				err = s.fail("invalid %s after array element", describe(c))
			case !first:
				s.i++
				s.ws()
			}
		}
		var turns int
		off := s.base + int64(s.i)
		if err == nil {
			turns, err = s.entry()
		}
		if errors.Is(err, errShort) {
			if err := w.slide(s, mark); err != nil {
				return nil, err
			}
			n--
			continue
		}
		if err != nil {
			var se *syntaxError
			if errors.As(err, &se) {
				return nil, &offsetError{se.off, fmt.Errorf("entry %d: %s", n, se.msg)}
			}
			return nil, err
		}
		first = false
		if turns >= 2 {
			offsets = append(offsets, off)
		}
	}
}

// end checks that only whitespace follows the list.
func (s *jsonScan) end(w *window) error {
	for {
		s.ws()
		if s.i < len(s.b) {
			return &offsetError{s.base + int64(s.i), fmt.Errorf("invalid %s after the top-level list", describe(s.b[s.i]))}
		}
		if s.eof {
			return nil
		}
		if err := w.slide(s, s.i); err != nil {
			return err
		}
	}
}

// window is a sliding view of the file.
type window struct {
	r    io.Reader
	buf  []byte
	base int64
	eof  bool
}

// fill reads until the buffer is full or the file ends.
func (w *window) fill() error {
	for len(w.buf) < cap(w.buf) && !w.eof {
		n, err := w.r.Read(w.buf[len(w.buf):cap(w.buf)])
		w.buf = w.buf[:len(w.buf)+n]
		if err == io.EOF {
			w.eof = true
		} else if err != nil {
			return err
		}
	}
	return nil
}

// slide drops the bytes before mark, reads more (growing the buffer when
// one entry fills it), and points s at the new window, at mark.
func (w *window) slide(s *jsonScan, mark int) error {
	if w.eof {
		return &offsetError{s.base + int64(len(s.b)), errors.New("unexpected end of JSON input")}
	}
	kept := copy(w.buf, w.buf[mark:])
	w.base += int64(mark)
	w.buf = w.buf[:kept]
	if kept > cap(w.buf)/2 {
		grown := make([]byte, kept, 2*cap(w.buf))
		copy(grown, w.buf)
		w.buf = grown
	}
	if err := w.fill(); err != nil {
		return err
	}
	*s = jsonScan{b: w.buf, base: w.base, eof: w.eof}
	return nil
}

// isConversationsKey reports whether the raw key string is
// "conversations", escapes decoded.
func isConversationsKey(raw []byte) bool {
	if string(raw) == `"conversations"` {
		return true
	}
	if bytes.IndexByte(raw, '\\') < 0 {
		return false
	}
	var k string
	return json.Unmarshal(raw, &k) == nil && k == "conversations"
}
