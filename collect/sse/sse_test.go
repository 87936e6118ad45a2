package sse

import (
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
)

// chunks is a reader that returns its parts one per Read, then err (io.EOF
// when nil).
type chunks struct {
	parts []string
	err   error
}

func (c *chunks) Read(p []byte) (int, error) {
	if len(c.parts) == 0 {
		if c.err != nil {
			return 0, c.err
		}
		return 0, io.EOF
	}
	n := copy(p, c.parts[0])
	c.parts[0] = c.parts[0][n:]
	if c.parts[0] == "" {
		c.parts = c.parts[1:]
	}
	return n, nil
}

type got struct {
	data []string
	typ  []string
	err  error
}

// wouldBlock says ErrWouldBlock before every read of r, as a
// non-blocking source with nothing ready yet.
type wouldBlock struct {
	r       io.Reader
	blocked bool
}

func (w *wouldBlock) Read(p []byte) (int, error) {
	if w.blocked = !w.blocked; w.blocked {
		return 0, ErrWouldBlock
	}
	return w.r.Read(p)
}

func readAll(r io.Reader, size int) got {
	rd := NewReader(r, size)
	var g got
	for {
		ev, err := rd.Next()
		if err == ErrWouldBlock {
			continue // the source has data again at the next call
		}
		if err != nil {
			if err != io.EOF {
				g.err = err
			}
			return g
		}
		g.data = append(g.data, string(ev.Data))
		g.typ = append(g.typ, string(ev.Type))
	}
}

func TestReaderFraming(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
		typ  []string // nil: all default
	}{
		{"two events", "data: a\n\ndata: b\n\n", []string{"a", "b"}, nil},
		{"no space after colon", "data:a\n\n", []string{"a"}, nil},
		// only one leading space is removed
		{"two spaces", "data:  a\n\n", []string{" a"}, nil},
		{"crlf", "data: a\r\n\r\ndata: b\r\n\r\n", []string{"a", "b"}, nil},
		{"lone cr", "data: a\r\rdata: b\r\r", []string{"a", "b"}, nil},
		{"comment and ping skipped", ": ping\n\ndata: a\n: mid comment\n\n", []string{"a"}, nil},
		// vLLM accepts a last data line the server ended without a blank line
		{"trailing line no terminator", "data: a\n\ndata: [DONE]", []string{"a", "[DONE]"}, nil},
		{"trailing line with one newline", "data: a\n\ndata: [DONE]\n", []string{"a", "[DONE]"}, nil},
		{"multi-line data joined", "data: a\ndata: b\ndata: c\n\n", []string{"a\nb\nc"}, nil},
		{"empty data value kept", "data:\n\n", []string{""}, nil},
		// an event with no data field (id only) is a keep-alive, not delivered
		{"no data field", "id: 1\n\nretry: 5\n\ndata: x\n\n", []string{"x"}, nil},
		{"event type", "event: error\ndata: boom\n\ndata: ok\n\n", []string{"boom", "ok"}, []string{"error", ""}},
		// a line that is only a field name sets that field to the empty value
		{"field name without colon", "data\ndata: a\n\n", []string{"\na"}, nil},
		{"many blank lines", "\n\n\ndata: a\n\n\n\n", []string{"a"}, nil},
		{"empty stream", "", nil, nil},
		{"utf8", "data: {\"text\":\"你好\"}\n\n", []string{`{"text":"你好"}`}, nil},
	}
	for _, tc := range tests {
		// Every split point and one byte at a time must give the same events.
		readers := map[string]func() io.Reader{
			"whole":    func() io.Reader { return strings.NewReader(tc.in) },
			"onebyte":  func() io.Reader { return iotest.OneByteReader(strings.NewReader(tc.in)) },
			"dataerr":  func() io.Reader { return iotest.DataErrReader(strings.NewReader(tc.in)) },
			"halfread": func() io.Reader { return iotest.HalfReader(strings.NewReader(tc.in)) },
			// a non-blocking source: Next says ErrWouldBlock between
			// bytes and picks up where it was
			"wouldblock": func() io.Reader { return &wouldBlock{r: iotest.OneByteReader(strings.NewReader(tc.in))} },
		}
		for i := 0; i <= len(tc.in); i++ {
			i := i
			readers["split"+string(rune('0'+i%10))+"_"+itoa(i)] = func() io.Reader {
				return &chunks{parts: []string{tc.in[:i], tc.in[i:]}}
			}
		}
		for rname, mk := range readers {
			for _, size := range []int{0, 1, 3} { // tiny buffers force growth
				g := readAll(mk(), size)
				if g.err != nil {
					t.Fatalf("%s/%s/%d: error %v", tc.name, rname, size, g.err)
				}
				if !reflect.DeepEqual(g.data, tc.want) {
					t.Fatalf("%s/%s/%d: data %q, want %q", tc.name, rname, size, g.data, tc.want)
				}
				if tc.typ != nil && !reflect.DeepEqual(g.typ, tc.typ) {
					t.Fatalf("%s/%s/%d: types %q, want %q", tc.name, rname, size, g.typ, tc.typ)
				}
			}
		}
	}
}

func itoa(i int) string {
	if i < 10 {
		return string(rune('0' + i))
	}
	return itoa(i/10) + string(rune('0'+i%10))
}

func TestReaderCutStream(t *testing.T) {
	cut := errors.New("connection reset")
	// The complete event is delivered; the cut one is not, and the read
	// error comes back.
	g := readAll(&chunks{parts: []string{"data: a\n\ndata: {\"par"}, err: cut}, 0)
	if !reflect.DeepEqual(g.data, []string{"a"}) || !errors.Is(g.err, cut) {
		t.Fatalf("got %q, %v", g.data, g.err)
	}
	// A cut right after a complete line but before the blank line: still cut.
	g = readAll(&chunks{parts: []string{"data: a\n"}, err: io.ErrUnexpectedEOF}, 0)
	if len(g.data) != 0 || !errors.Is(g.err, io.ErrUnexpectedEOF) {
		t.Fatalf("got %q, %v", g.data, g.err)
	}
}

func TestReaderReadSequence(t *testing.T) {
	// Events 1 and 2 arrive in one read (coalesced), 3 in the next.
	rd := NewReader(&chunks{parts: []string{"data: 1\n\ndata: 2\n\n", "data: 3\n\n"}}, 0)
	var reads []int64
	for {
		ev, err := rd.Next()
		if err != nil {
			break
		}
		reads = append(reads, ev.Read)
	}
	if !reflect.DeepEqual(reads, []int64{1, 1, 2}) {
		t.Fatalf("reads %v, want [1 1 2]", reads)
	}
}

func TestReaderTooLong(t *testing.T) {
	// An event that never ends must not grow the buffer without limit.
	r := io.MultiReader(strings.NewReader("data: "), infinite{})
	g := readAll(r, 0)
	if !errors.Is(g.err, ErrEventTooLong) {
		t.Fatalf("err %v, want ErrEventTooLong", g.err)
	}
}

type infinite struct{}

func (infinite) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'x'
	}
	return len(p), nil
}

func TestReaderReset(t *testing.T) {
	rd := NewReader(strings.NewReader("data: a\n\ndata: partial"), 4)
	if ev, err := rd.Next(); err != nil || string(ev.Data) != "a" {
		t.Fatalf("%q %v", ev.Data, err)
	}
	rd.Reset(strings.NewReader("data: b\n\n"))
	ev, err := rd.Next()
	if err != nil || string(ev.Data) != "b" || ev.Read != 1 {
		t.Fatalf("after reset: %q read %d %v", ev.Data, ev.Read, err)
	}
}

// reference is a slow, obviously correct reading of the same framing
// rules, for the fuzz test.
func reference(in string) []string {
	s := strings.ReplaceAll(strings.ReplaceAll(in, "\r\n", "\n"), "\r", "\n")
	var out []string
	var data []string
	has := false
	for _, line := range strings.Split(s, "\n") {
		switch {
		case line == "":
			if has {
				out = append(out, strings.Join(data, "\n"))
			}
			data, has = nil, false
		case line[0] == ':':
		default:
			name, value, ok := strings.Cut(line, ":")
			if ok {
				value = strings.TrimPrefix(value, " ")
			}
			if name == "data" {
				data, has = append(data, value), true
			}
		}
	}
	if has {
		out = append(out, strings.Join(data, "\n"))
	}
	return out
}

func FuzzReader(f *testing.F) {
	for _, s := range []string{"data: a\n\n", "data: a\r\n\r\ndata: b", ": c\n\ndata:x\rdata: y\r\r", "event: e\ndata: 1\n\n\n"} {
		f.Add(s, uint(3), uint(1))
	}
	f.Fuzz(func(t *testing.T, in string, split, size uint) {
		at := int(split % uint(len(in)+1))
		g := readAll(&chunks{parts: []string{in[:at], in[at:]}}, int(size%8))
		want := reference(in)
		if g.err != nil || !reflect.DeepEqual(g.data, want) && !(len(g.data) == 0 && len(want) == 0) {
			t.Fatalf("%q split %d: got %q (%v), want %q", in, at, g.data, g.err, want)
		}
	})
}
