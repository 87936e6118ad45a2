package sse

import (
	"bytes"
	"errors"
	"fmt"
	"io"
)

// DefaultBufferSize is the initial buffer of a Reader made with size 0.
// The buffer grows for longer events, up to MaxEventSize.
const DefaultBufferSize = 16 << 10

// MaxEventSize bounds one event (all its lines); a longer one is an error,
// so a server that never ends an event cannot make the client grow without
// limit.
const MaxEventSize = 64 << 20

// ErrEventTooLong is returned when one event exceeds MaxEventSize.
var ErrEventTooLong = errors.New("sse: event longer than 64 MiB")

// ErrWouldBlock is what a non-blocking source returns (with 0 bytes) when
// it has no data yet. Next passes it on and keeps its state: call Next
// again once the source has data. Any other error ends the stream.
var ErrWouldBlock = errors.New("sse: no data yet")

// Event is one dispatched event. Data and Type alias the Reader's buffer
// and stay valid only until the next call to Next.
type Event struct {
	// Data is the event's data: the "data:" lines joined with LF.
	Data []byte
	// Type is the "event:" field; empty means the default "message".
	Type []byte
	// Read is the sequence number (from 1) of the network read that
	// completed the event. Two events with the same Read arrived
	// coalesced in one read.
	Read int64
}

// Reader reads events from a stream. The zero value is not usable; make
// one with NewReader. A Reader is not safe for concurrent use.
type Reader struct {
	r   io.Reader
	buf []byte
	// buf[evStart:end] holds the bytes not yet consumed; lines before pos
	// belong to the event being built.
	evStart, pos, end int
	// skipLF: the previous line ended in CR, so a LF right after it is
	// part of the same line end (CRLF split across reads).
	skipLF bool
	// lastEOL is the terminator length of the line last taken.
	lastEOL int
	eof     bool
	err     error
	reads   int64

	// The event being built. A single data line stays in buf as
	// [dataOff, dataOff+dataLen); more lines are joined in multi.
	hasData bool
	dataOff int
	dataLen int
	multi   []byte
	useMult bool
	typeOff int
	typeLen int
}

// NewReader returns a Reader reading from r with an initial buffer of size
// bytes (0 means DefaultBufferSize).
func NewReader(r io.Reader, size int) *Reader {
	if size <= 0 {
		size = DefaultBufferSize
	}
	return &Reader{r: r, buf: make([]byte, size)}
}

// Reset makes the Reader read from r, keeping its buffers, so that one
// Reader can serve many streams one after the other.
func (rd *Reader) Reset(r io.Reader) {
	buf, multi := rd.buf, rd.multi[:0]
	*rd = Reader{r: r, buf: buf, multi: multi}
}

// Reads returns how many network reads returned data so far.
func (rd *Reader) Reads() int64 { return rd.reads }

// Next returns the next event. At the end of the stream it returns io.EOF;
// a read error ends the stream with that error, and an event cut by it is
// not delivered.
func (rd *Reader) Next() (Event, error) {
	for {
		line, ok, err := rd.line()
		if err != nil {
			if err == io.EOF && rd.hasData {
				// The stream ended without the blank line: deliver the
				// pending event (vLLM accepts a trailing data line).
				return rd.dispatch(), nil
			}
			return Event{}, err
		}
		if !ok {
			continue
		}
		if len(line) == 0 { // blank line: end of event
			if rd.hasData {
				return rd.dispatch(), nil
			}
			rd.clearEvent()
			continue
		}
		rd.field(line)
	}
}

// dispatch returns the built event and clears it; consumed bytes are
// released at the next fill.
func (rd *Reader) dispatch() Event {
	ev := Event{Read: rd.reads}
	if rd.useMult {
		ev.Data = rd.multi
	} else {
		ev.Data = rd.buf[rd.dataOff : rd.dataOff+rd.dataLen : rd.dataOff+rd.dataLen]
	}
	if rd.typeLen > 0 {
		ev.Type = rd.buf[rd.typeOff : rd.typeOff+rd.typeLen : rd.typeOff+rd.typeLen]
	}
	rd.clearEvent()
	return ev
}

func (rd *Reader) clearEvent() {
	rd.hasData, rd.useMult = false, false
	rd.dataOff, rd.dataLen, rd.typeOff, rd.typeLen = 0, 0, 0, 0
	rd.multi = rd.multi[:0]
	rd.evStart = rd.pos
}

// field handles one non-blank line (its offsets are inside buf).
func (rd *Reader) field(line []byte) {
	if line[0] == ':' {
		return // comment
	}
	off := rd.pos - len(line) - rd.lastEOL
	name, value, valOff := line, line[:0], off+len(line)
	if i := bytes.IndexByte(line, ':'); i >= 0 {
		name, value, valOff = line[:i], line[i+1:], off+i+1
		if len(value) > 0 && value[0] == ' ' {
			value, valOff = value[1:], valOff+1
		}
	}
	switch string(name) {
	case "data":
		switch {
		case !rd.hasData:
			rd.hasData, rd.dataOff, rd.dataLen = true, valOff, len(value)
		case !rd.useMult:
			rd.useMult = true
			rd.multi = append(rd.multi[:0], rd.buf[rd.dataOff:rd.dataOff+rd.dataLen]...)
			fallthrough
		default:
			rd.multi = append(append(rd.multi, '\n'), value...)
		}
	case "event":
		rd.typeOff, rd.typeLen = valOff, len(value)
	}
}

// line returns the next line without its terminator. ok is false when the
// caller should call again (a lone LF of a split CRLF was skipped).
func (rd *Reader) line() (line []byte, ok bool, err error) {
	for {
		if rd.skipLF && rd.pos < rd.end {
			rd.skipLF = false
			if rd.buf[rd.pos] == '\n' {
				rd.pos++
			}
		}
		win := rd.buf[rd.pos:rd.end]
		lf := bytes.IndexByte(win, '\n')
		scan := win
		if lf >= 0 {
			scan = win[:lf]
		}
		if cr := bytes.IndexByte(scan, '\r'); cr >= 0 {
			switch {
			case cr+1 < len(win) && win[cr+1] == '\n': // CRLF
				return rd.take(cr, 2), true, nil
			case cr+1 < len(win) || rd.eof: // lone CR
				return rd.take(cr, 1), true, nil
			default: // CR at the end of the window: LF may follow
				rd.skipLF = true
				return rd.take(cr, 1), true, nil
			}
		}
		if lf >= 0 {
			return rd.take(lf, 1), true, nil
		}
		if rd.eof {
			if len(win) > 0 && rd.err == nil { // last line without terminator
				return rd.take(len(win), 0), true, nil
			}
			return nil, false, rd.errOrEOF()
		}
		if err := rd.fill(); err != nil {
			return nil, false, err
		}
	}
}

// take consumes n bytes of line plus eol bytes of terminator.
func (rd *Reader) take(n, eol int) []byte {
	line := rd.buf[rd.pos : rd.pos+n]
	rd.pos += n + eol
	rd.lastEOL = eol
	return line
}

func (rd *Reader) errOrEOF() error {
	if rd.err != nil {
		return rd.err
	}
	return io.EOF
}

// fill reads more data, first moving the unconsumed bytes (the event being
// built) to the front of the buffer, growing it when it is full.
func (rd *Reader) fill() error {
	if rd.evStart > 0 {
		shift := rd.evStart
		copy(rd.buf, rd.buf[shift:rd.end])
		rd.end -= shift
		rd.pos -= shift
		rd.evStart = 0
		if rd.hasData && !rd.useMult {
			rd.dataOff -= shift
		}
		if rd.typeLen > 0 {
			rd.typeOff -= shift
		}
	}
	if rd.end == len(rd.buf) {
		if len(rd.buf) >= MaxEventSize {
			return ErrEventTooLong
		}
		nb := make([]byte, min(2*len(rd.buf), MaxEventSize))
		copy(nb, rd.buf[:rd.end])
		rd.buf = nb
	}
	for empty := 0; ; empty++ {
		n, err := rd.r.Read(rd.buf[rd.end:])
		if n > 0 {
			rd.end += n
			rd.reads++
		}
		if err == ErrWouldBlock {
			if n > 0 {
				return nil
			}
			return err // not sticky: the next fill reads again
		}
		if err != nil {
			rd.eof = true
			if err != io.EOF {
				rd.err = err
				if n == 0 {
					return err
				}
				// Deliver the lines already complete; the cut event
				// itself fails at the next fill.
			}
			return nil
		}
		if n > 0 {
			return nil
		}
		if empty > 100 {
			return fmt.Errorf("sse: %w", io.ErrNoProgress)
		}
	}
}
