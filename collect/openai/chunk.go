package openai

import (
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf8"
)

// Chunk is what one streamed chunk ("data:" JSON of an SSE event) says
// that a measurement uses. ParseChunk fills it; its slices alias the
// parsed data.
type Chunk struct {
	// Choices is the length of the "choices" array; 0 when it is absent,
	// null or empty. vLLM counts an event as a token event when it is > 0,
	// even if the text is empty (the role-only first chat chunk).
	Choices int
	// Text is choices[0].text (completions) or choices[0].delta.content
	// (chat): the raw contents of the JSON string, still escaped when
	// TextEscaped. AppendText decodes it.
	Text        []byte
	TextEscaped bool
	// HasUsage is true when a non-null "usage" object was present.
	// PromptTokens and CompletionTokens are its counts, -1 when absent.
	HasUsage         bool
	PromptTokens     int
	CompletionTokens int
	// Error is the raw JSON of a top-level "error" member (an error event
	// some servers send mid-stream), nil when absent.
	Error []byte
}

// SyntaxError is a malformed chunk.
type SyntaxError struct {
	Offset int // byte offset in the chunk
	Msg    string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("malformed JSON chunk at byte %d: %s", e.Offset, e.Msg)
}

// maxDepth bounds nesting, so that a hostile chunk cannot exhaust the stack.
const maxDepth = 512

// ParseChunk parses one chunk into c. The whole chunk is validated as JSON
// (RFC 8259 syntax, as encoding/json accepts it); only the members a
// measurement uses are decoded.
//
// Why not encoding/json: this runs once per streamed token on the client's
// hot path; a full decode costs microseconds and allocations per event,
// while this scanner validates and extracts in one pass with none. A
// differential test checks it against encoding/json.
func ParseChunk(data []byte, c *Chunk) error {
	*c = Chunk{PromptTokens: -1, CompletionTokens: -1}
	s := scanner{b: data}
	s.ws()
	if err := s.open('{', "chunk is not a JSON object"); err != nil {
		return err
	}
	for first := true; ; {
		key, done, err := s.member(&first, '}')
		if err != nil {
			return err
		}
		if done {
			break
		}
		switch key {
		case "choices":
			err = s.choices(c)
		case "usage":
			err = s.usage(c)
		case "error":
			start := s.i
			err = s.skip()
			c.Error = data[start:s.i]
		default:
			err = s.skip()
		}
		if err != nil {
			return err
		}
	}
	s.ws()
	if s.i != len(s.b) {
		return s.errf("data after the JSON object")
	}
	return nil
}

// AppendText appends c's text, decoded, to dst.
func AppendText(dst []byte, c *Chunk) []byte {
	if !c.TextEscaped && utf8.Valid(c.Text) {
		return append(dst, c.Text...)
	}
	return append(dst, DecodeText(c.Text, c.TextEscaped)...)
}

// DecodeText decodes the concatenated raw Text of several chunks (appended
// as they are, still escaped): the contents of JSON strings concatenate
// into the contents of one, so one decode at the end replaces one per
// event. escaped says whether any piece had TextEscaped set.
//
// Invalid UTF-8 becomes U+FFFD byte by byte, as encoding/json decodes it;
// a character split across two chunks is whole again after concatenation
// and is kept.
func DecodeText(raw []byte, escaped bool) string {
	if !escaped && utf8.Valid(raw) {
		return string(raw)
	}
	q := make([]byte, 0, len(raw)+2)
	q = append(append(append(q, '"'), raw...), '"')
	var str string
	if json.Unmarshal(q, &str) != nil {
		return string(raw) // cannot happen: each piece was validated
	}
	return str
}

type scanner struct {
	b     []byte
	i     int
	depth int
}

func (s *scanner) errf(msg string) error { return &SyntaxError{Offset: s.i, Msg: msg} }

func (s *scanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

func (s *scanner) peek() byte {
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

func (s *scanner) open(c byte, msg string) error {
	if s.peek() != c {
		if s.i >= len(s.b) {
			return s.errf("unexpected end")
		}
		return s.errf(msg)
	}
	s.i++
	return nil
}

// member advances to the next object member and returns its key, with s
// at the value; done is true at the closing brace. first tracks whether a
// comma is needed. The key is returned as a string: comparing it with
// constants in a switch does not allocate.
func (s *scanner) member(first *bool, close byte) (key string, done bool, err error) {
	s.ws()
	if s.peek() == close {
		s.i++
		return "", true, nil
	}
	if !*first {
		if s.peek() != ',' {
			return "", false, s.errf("expected , or }")
		}
		s.i++
		s.ws()
	}
	*first = false
	if s.peek() != '"' {
		return "", false, s.errf("expected member name")
	}
	raw, esc, err := s.str()
	if err != nil {
		return "", false, err
	}
	s.ws()
	if s.peek() != ':' {
		return "", false, s.errf("expected :")
	}
	s.i++
	s.ws()
	if esc {
		return decodeKey(raw), false, nil
	}
	switch string(raw) { // no allocation: compared, not kept
	case "choices":
		return "choices", false, nil
	case "usage":
		return "usage", false, nil
	case "error":
		return "error", false, nil
	case "text":
		return "text", false, nil
	case "delta":
		return "delta", false, nil
	case "content":
		return "content", false, nil
	case "prompt_tokens":
		return "prompt_tokens", false, nil
	case "completion_tokens":
		return "completion_tokens", false, nil
	}
	return "", false, nil // a member we skip
}

func decodeKey(raw []byte) string {
	var k string
	q := append(append([]byte{'"'}, raw...), '"')
	if json.Unmarshal(q, &k) != nil {
		return ""
	}
	return k
}

// element advances to the next array element; done at ']'.
func (s *scanner) element(first *bool) (done bool, err error) {
	s.ws()
	if s.peek() == ']' {
		s.i++
		return true, nil
	}
	if !*first {
		if s.peek() != ',' {
			return false, s.errf("expected , or ]")
		}
		s.i++
		s.ws()
	}
	*first = false
	return false, nil
}

func (s *scanner) choices(c *Chunk) error {
	switch s.peek() {
	case 'n':
		c.Choices = 0
		return s.lit("null")
	case '[':
	default:
		return s.skip() // not a list: no choices
	}
	s.i++
	n := 0
	for first := true; ; {
		done, err := s.element(&first)
		if err != nil {
			return err
		}
		if done {
			break
		}
		if n == 0 && s.peek() == '{' {
			err = s.choice(c)
		} else {
			err = s.skip()
		}
		if err != nil {
			return err
		}
		n++
	}
	c.Choices = n
	return nil
}

// choice reads choices[0]: its "text" or "delta":{"content"}.
func (s *scanner) choice(c *Chunk) error {
	s.i++ // {
	for first := true; ; {
		key, done, err := s.member(&first, '}')
		if err != nil {
			return err
		}
		if done {
			return nil
		}
		switch {
		case key == "text" && s.peek() == '"':
			c.Text, c.TextEscaped, err = s.str()
		case key == "delta" && s.peek() == '{':
			err = s.delta(c)
		default:
			err = s.skip()
		}
		if err != nil {
			return err
		}
	}
}

func (s *scanner) delta(c *Chunk) error {
	s.i++ // {
	for first := true; ; {
		key, done, err := s.member(&first, '}')
		if err != nil {
			return err
		}
		if done {
			return nil
		}
		if key == "content" && s.peek() == '"' {
			c.Text, c.TextEscaped, err = s.str()
		} else {
			err = s.skip()
		}
		if err != nil {
			return err
		}
	}
}

func (s *scanner) usage(c *Chunk) error {
	if s.peek() != '{' {
		return s.skip() // null or not an object: no usage
	}
	s.i++
	c.HasUsage = true
	for first := true; ; {
		key, done, err := s.member(&first, '}')
		if err != nil {
			return err
		}
		if done {
			return nil
		}
		var dst *int
		switch key {
		case "prompt_tokens":
			dst = &c.PromptTokens
		case "completion_tokens":
			dst = &c.CompletionTokens
		}
		if dst != nil && (s.peek() == '-' || isDigit(s.peek())) {
			raw, err := s.num()
			if err != nil {
				return err
			}
			*dst = atoi(raw)
			continue
		}
		if err := s.skip(); err != nil {
			return err
		}
	}
}

// atoi converts a validated JSON number to an int; a fraction or exponent
// goes through strconv (a count is an integer in practice).
func atoi(raw []byte) int {
	n, neg := 0, false
	for i, c := range raw {
		switch {
		case i == 0 && c == '-':
			neg = true
		case isDigit(c) && n < 1<<53:
			n = n*10 + int(c-'0')
		default:
			f, err := strconv.ParseFloat(string(raw), 64)
			if err != nil {
				return -1
			}
			return int(f)
		}
	}
	if neg {
		return -n
	}
	return n
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// skip validates and passes over one value.
func (s *scanner) skip() error {
	s.ws()
	switch c := s.peek(); {
	case c == '{':
		return s.container('}')
	case c == '[':
		return s.container(']')
	case c == '"':
		_, _, err := s.str()
		return err
	case c == 't':
		return s.lit("true")
	case c == 'f':
		return s.lit("false")
	case c == 'n':
		return s.lit("null")
	case c == '-' || isDigit(c):
		_, err := s.num()
		return err
	case s.i >= len(s.b):
		return s.errf("unexpected end")
	default:
		return s.errf("invalid character " + strconv.QuoteRune(rune(c)))
	}
}

func (s *scanner) container(close byte) error {
	s.depth++
	if s.depth > maxDepth {
		return s.errf("nested too deeply")
	}
	s.i++
	for first := true; ; {
		var done bool
		var err error
		if close == '}' {
			_, done, err = s.member(&first, '}')
		} else {
			done, err = s.element(&first)
		}
		if err != nil {
			return err
		}
		if done {
			s.depth--
			return nil
		}
		if err := s.skip(); err != nil {
			return err
		}
	}
}

func (s *scanner) lit(w string) error {
	if len(s.b)-s.i < len(w) || string(s.b[s.i:s.i+len(w)]) != w {
		return s.errf("invalid literal")
	}
	s.i += len(w)
	return nil
}

// str scans a string and returns its raw contents and whether it holds
// escapes.
func (s *scanner) str() (raw []byte, esc bool, err error) {
	s.i++ // opening quote
	start := s.i
	for s.i < len(s.b) {
		for s.i < len(s.b) && strPlain[s.b[s.i]] {
			s.i++ // most of a string: one table look-up per byte
		}
		if s.i == len(s.b) {
			break
		}
		c := s.b[s.i]
		switch {
		case c == '"':
			raw = s.b[start:s.i]
			s.i++
			return raw, esc, nil
		case c == '\\':
			esc = true
			if s.i+1 >= len(s.b) {
				return nil, false, s.errf("unterminated string")
			}
			switch s.b[s.i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				s.i += 2
			case 'u':
				if s.i+6 > len(s.b) || !isHex4(s.b[s.i+2:s.i+6]) {
					return nil, false, s.errf("invalid \\u escape")
				}
				s.i += 6
			default:
				return nil, false, s.errf("invalid escape")
			}
		case c < 0x20:
			return nil, false, s.errf("control character in string")
		default:
			s.i++
		}
	}
	return nil, false, s.errf("unterminated string")
}

// strPlain marks the bytes that stand for themselves in a JSON string:
// all but the quote, the backslash and control characters.
var strPlain = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

func isHex4(b []byte) bool {
	for _, c := range b {
		if !isDigit(c) && (c|0x20 < 'a' || c|0x20 > 'f') {
			return false
		}
	}
	return true
}

// num scans a number with JSON's grammar: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
func (s *scanner) num() ([]byte, error) {
	start := s.i
	if s.peek() == '-' {
		s.i++
	}
	switch {
	case s.peek() == '0':
		s.i++
	case isDigit(s.peek()):
		for isDigit(s.peek()) {
			s.i++
		}
	default:
		return nil, s.errf("invalid number")
	}
	if s.peek() == '.' {
		s.i++
		if !isDigit(s.peek()) {
			return nil, s.errf("invalid number")
		}
		for isDigit(s.peek()) {
			s.i++
		}
	}
	if c := s.peek(); c == 'e' || c == 'E' {
		s.i++
		if c := s.peek(); c == '+' || c == '-' {
			s.i++
		}
		if !isDigit(s.peek()) {
			return nil, s.errf("invalid number")
		}
		for isDigit(s.peek()) {
			s.i++
		}
	}
	return s.b[start:s.i], nil
}
