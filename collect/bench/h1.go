package bench

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/textproto"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/perflab/perflab/collect/sse"
)

// h1Client is the bench's own HTTP/1.1 client for plain-http servers: one
// request at a time per kept-alive connection, written in one writev by the
// request's goroutine, the answer's body read straight from the socket
// into the SSE reader's buffer, chunk framing removed in place.
//
// Why not net/http: its client hands each request to a write loop and a
// read loop goroutine per connection and reads a body through its EOF
// signal, body lock, chunked reader and bufio layers; measured in user
// space (BenchmarkReadPath) that is twice h1Client's cost per request and
// 9 % more per event, and the per-request part is what delays TTFT when a
// thousand requests leave together. No maintained library does less (the
// alternatives wrap net/http or are HTTP/2-first). This client does what
// the bench needs and no more: POST with a Content-Length body, chunked,
// sized or close-delimited answers, keep-alive with net/http's retry of a
// request that met a connection the server had just closed. https, a
// proxy or a caller's http.Client go through net/http (leanClient).
type h1Client struct {
	addr    string // host:port to dial
	host    string // Host header
	path    string // request target
	url     string // for error messages, as net/http's url.Error
	dial    func(ctx context.Context, network, addr string) (net.Conn, error)
	maxIdle int
	poll    bool // TCP connections become fdConns read by the pollers (Linux)

	mu   sync.Mutex
	idle []*h1Conn
}

// h1IdleTimeout drops kept-alive connections idle longer (aiohttp's and
// newClient's keep-alive).
const h1IdleTimeout = 60 * time.Second

// newH1Client returns a client for u (an http URL), keeping up to maxIdle
// idle connections.
func newH1Client(u *url.URL, maxIdle int) *h1Client {
	addr := u.Host
	if u.Port() == "" {
		addr = net.JoinHostPort(u.Hostname(), "80")
	}
	return &h1Client{
		addr: addr, host: u.Host, path: u.RequestURI(), url: u.String(),
		dial:    (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		maxIdle: max(maxIdle, 1), poll: h1Poll,
	}
}

// h1Conn is one connection and the reading state of its current answer.
type h1Conn struct {
	c      net.Conn
	raw    syscall.RawConn // nil: not a TCP connection (tests), read with c.Read
	cl     *h1Client
	idleAt time.Time
	hdr    []byte // the header block being read, and body bytes after it

	// the body being read
	pending []byte // body bytes read with the header, not yet returned
	mode    int    // bodyChunked, bodySized, bodyClose
	left    int64  // bytes left in the current chunk (chunked) or body (sized)
	state   int    // chunked: what the next bytes are
	line    []byte // a chunk-size or trailer line split across reads
	done    bool   // the body ended cleanly
	reuse   bool   // the answer allows keeping the connection
	err     error  // sticky read error
	stop    func() bool

	// stream's state: Read does its own read(2) of fd, and drained says
	// the last one emptied the socket (see stream)
	push    bool
	fd      int
	drained bool
	skipped bool // pushRead returned ErrWouldBlock without reading
	reads   int  // read(2) calls made by stream (tests)
}

const (
	bodyChunked = iota
	bodySized
	bodyClose
)

const (
	chSize     = iota // reading a chunk-size line
	chData            // reading chunk data (left bytes)
	chDataEnd         // reading the CRLF after chunk data
	chTrailer         // reading trailer lines up to the empty one
	chFinished        // the zero chunk and trailers are read
)

// errRetry marks a failure on a reused connection before any byte of the
// answer: the server closed it as it was reused, so the request never
// reached it and is sent again on a fresh connection (net/http does the
// same for requests with an idempotency key).
var errRetry = errors.New("kept-alive connection closed by the server")

// do sends the request and reads the answer's header. header is the
// request's extra header block (each line ending in CRLF). On success the
// returned conn reads the body (Read) and must be released.
func (cl *h1Client) do(ctx context.Context, header, body []byte) (*http.Response, *h1Conn, error) {
	for {
		hc, reused, err := cl.get(ctx)
		if err != nil {
			return nil, nil, &url.Error{Op: "Post", URL: cl.url, Err: err}
		}
		resp, err := hc.roundTrip(ctx, header, body, reused)
		if err == nil {
			return resp, hc, nil
		}
		hc.close()
		if errors.Is(err, errRetry) && ctx.Err() == nil {
			continue
		}
		if ctx.Err() != nil {
			err = ctx.Err()
		}
		return nil, nil, &url.Error{Op: "Post", URL: cl.url, Err: err}
	}
}

// get takes an idle connection or dials one.
func (cl *h1Client) get(ctx context.Context) (hc *h1Conn, reused bool, err error) {
	cl.mu.Lock()
	for len(cl.idle) > 0 {
		hc = cl.idle[len(cl.idle)-1]
		cl.idle = cl.idle[:len(cl.idle)-1]
		if time.Since(hc.idleAt) < h1IdleTimeout {
			cl.mu.Unlock()
			return hc, true, nil
		}
		hc.c.Close()
	}
	cl.mu.Unlock()
	c, err := cl.dial(ctx, "tcp", cl.addr)
	if err != nil {
		return nil, false, err
	}
	if cl.poll {
		if c, err = detach(c); err != nil {
			return nil, false, err
		}
	}
	hc = &h1Conn{c: c, cl: cl, hdr: make([]byte, 0, 4096)}
	if tc, ok := c.(*net.TCPConn); ok {
		hc.raw, _ = tc.SyscallConn()
	}
	return hc, false, nil
}

// closeIdle closes the idle connections.
func (cl *h1Client) closeIdle() {
	cl.mu.Lock()
	defer cl.mu.Unlock()
	for _, hc := range cl.idle {
		hc.c.Close()
	}
	cl.idle = nil
}

// roundTrip writes the request and reads the answer's header block.
func (hc *h1Conn) roundTrip(ctx context.Context, header, body []byte, reused bool) (*http.Response, error) {
	// Cancelling closes the connection, which ends a blocked read or write.
	hc.stop = context.AfterFunc(ctx, func() {
		if a, ok := hc.c.(interface{ abort() }); ok {
			a.abort() // an fdConn is closed by its owner only
		} else {
			hc.c.Close()
		}
	})
	req := hc.hdr[:0]
	req = append(req, "POST "...)
	req = append(req, hc.cl.path...)
	req = append(req, " HTTP/1.1\r\nHost: "...)
	req = append(req, hc.cl.host...)
	req = append(req, "\r\nUser-Agent: Go-http-client/1.1\r\nContent-Length: "...)
	req = strconv.AppendInt(req, int64(len(body)), 10)
	req = append(req, "\r\n"...)
	req = append(req, header...)
	req = append(req, "\r\n"...)
	// one system call for the head and the body: writev(2), without
	// copying the body, or for an fdConn one send(2) of both (the buffer
	// kept for the next request)
	var err error
	if _, ok := hc.c.(polledConn); ok {
		req = append(req, body...)
		_, err = hc.c.Write(req)
	} else {
		bufs := net.Buffers{req, body}
		_, err = bufs.WriteTo(hc.c)
	}
	hc.hdr = req[:0]
	if err != nil {
		if reused {
			return nil, errRetry
		}
		return nil, err
	}
	// Read up to the blank line that ends the header block.
	var end int
	for {
		if i := bytes.Index(hc.hdr, []byte("\r\n\r\n")); i >= 0 {
			end = i + 4
			break
		}
		if len(hc.hdr) >= 1<<20 {
			return nil, errors.New("malformed HTTP response: header longer than 1 MiB")
		}
		if len(hc.hdr) == cap(hc.hdr) {
			hc.hdr = append(hc.hdr, make([]byte, cap(hc.hdr))...)[:len(hc.hdr)]
		}
		n, err := hc.c.Read(hc.hdr[len(hc.hdr):cap(hc.hdr)])
		hc.hdr = hc.hdr[:len(hc.hdr)+n]
		if err != nil {
			if reused && len(hc.hdr) == 0 && (err == io.EOF || isReset(err)) {
				return nil, errRetry
			}
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return nil, err
		}
	}
	resp, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(hc.hdr[:end])), nil)
	if err != nil {
		return nil, err
	}
	resp.Body = http.NoBody
	hc.pending = hc.hdr[end:]
	hc.line, hc.err, hc.done = hc.line[:0], nil, false
	hc.reuse = !resp.Close
	switch {
	case len(resp.TransferEncoding) > 0:
		if !strings.EqualFold(resp.TransferEncoding[0], "chunked") || len(resp.TransferEncoding) > 1 {
			return nil, fmt.Errorf("unsupported transfer encoding %q", resp.TransferEncoding)
		}
		hc.mode, hc.state = bodyChunked, chSize
	case resp.ContentLength >= 0:
		hc.mode, hc.left = bodySized, resp.ContentLength
		hc.done = resp.ContentLength == 0
	default:
		hc.mode, hc.reuse = bodyClose, false
	}
	return resp, nil
}

func isReset(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && strings.Contains(op.Err.Error(), "reset")
}

// Read returns body bytes (chunk framing removed).
func (hc *h1Conn) Read(p []byte) (int, error) {
	for {
		if hc.err != nil {
			return 0, hc.err
		}
		if hc.done {
			return 0, io.EOF
		}
		if len(p) == 0 {
			return 0, nil
		}
		var n int
		if len(hc.pending) > 0 {
			n = copy(p, hc.pending)
			hc.pending = hc.pending[n:]
		} else {
			if hc.mode == bodySized && int64(len(p)) > hc.left {
				p = p[:hc.left] // never read past the body
			}
			var err error
			if hc.push {
				if n, err = hc.pushRead(p); err == sse.ErrWouldBlock {
					return 0, err
				}
			} else {
				n, err = hc.c.Read(p)
			}
			if err != nil {
				if err == io.EOF && hc.mode == bodyClose {
					hc.done = true
					return n, nil
				}
				if err == io.EOF {
					err = io.ErrUnexpectedEOF
				}
				hc.err = err
				if n == 0 {
					return 0, err
				}
				// the bytes before the error are delivered first
			}
		}
		switch hc.mode {
		case bodySized:
			hc.left -= int64(n)
			hc.done = hc.left <= 0
			return n, nil
		case bodyClose:
			return n, nil
		}
		m, err := hc.dechunk(p[:n])
		if err != nil {
			hc.err = err
			return m, nil
		}
		if m > 0 || hc.done {
			return m, nil
		}
		// only framing in this read: read on
	}
}

// stream reads the body and hands each event to fn (false: stop) from
// inside one RawConn.Read, so that a stream costs one read(2) per arrival.
//
// Go's Read tries read(2) first and parks only on EAGAIN: for events that
// come one at a time, an ITL apart, every event costs a second read that
// fails. Skipping it is only safe while the poller keeps the readiness
// edges that come in meanwhile, and each Read or RawConn.Read clears them
// when it starts; inside one RawConn.Read nothing clears them. So the
// callback reads, hands out every whole event, and, when the last read
// returned less than it asked for (the socket was empty then), returns
// "not done" without reading again: the poller resumes it at once if data
// came in since, or when data comes. The one thing a short read can leave
// behind without a new edge is the end of the stream (a FIN or RST that
// arrived with the data): after h1Recheck without data, stream reads for
// real once, so a cut stream is seen at most that late.
//
// On Linux a connection is an fdConn, and its poller reads the stream
// instead (h1_linux.go).
func (hc *h1Conn) stream(rd *sse.Reader, fn func(sse.Event) bool) error {
	if pc, ok := hc.c.(polledConn); ok {
		return pc.stream(hc, rd, fn)
	}
	if hc.raw == nil {
		for {
			ev, err := rd.Next()
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return err
			}
			if !fn(ev) {
				return nil
			}
		}
	}
	var serr error
	hc.push, hc.drained, hc.skipped = true, false, false
	defer func() { hc.push = false }()
	for {
		armed := false
		err := hc.raw.Read(func(fd uintptr) bool {
			hc.fd = int(fd)
			for {
				ev, err := rd.Next()
				if err == sse.ErrWouldBlock {
					if hc.skipped {
						// A FIN or RST that came in with the data just
						// read raises no edge of its own: if nothing
						// comes for a while, look with a real read.
						hc.skipped = false
						hc.c.SetReadDeadline(time.Now().Add(h1Recheck))
						armed = true
					}
					return false // wait until readable
				}
				if err != nil {
					if err != io.EOF {
						serr = err
					}
					return true
				}
				if !fn(ev) {
					return true
				}
			}
		})
		if armed {
			hc.c.SetReadDeadline(time.Time{})
		}
		if errors.Is(err, os.ErrDeadlineExceeded) {
			hc.drained = false // read for real this time
			continue
		}
		if err != nil { // closed (cancelled, timed out)
			var op *net.OpError
			if errors.As(err, &op) {
				op.Op = "read"
			}
			hc.err = err
			return err
		}
		return serr
	}
}

// polledConn is a connection read by a poller loop (Linux: fdConn in
// h1_linux.go): stream hands the body's events to fn from there.
type polledConn interface {
	net.Conn
	stream(hc *h1Conn, rd *sse.Reader, fn func(sse.Event) bool) error
}

// errNoDeadline: an fdConn's timeouts are its request context's.
var errNoDeadline = errors.New("deadlines are not supported: cancel the request's context")

// h1Recheck bounds how long stream trusts that a short read left nothing
// behind: a stream cut right after its last data is seen within it.
const h1Recheck = 100 * time.Millisecond

// pushRead is Read's read(2) inside stream: sse.ErrWouldBlock without a
// call when the last one emptied the socket, io.EOF at the end.
func (hc *h1Conn) pushRead(p []byte) (int, error) {
	if hc.drained {
		hc.drained, hc.skipped = false, true
		return 0, sse.ErrWouldBlock
	}
	n, err := rawRead(hc.fd, p)
	hc.reads++
	if err != nil {
		return 0, err
	}
	if n == 0 {
		return 0, io.EOF
	}
	hc.drained = n < len(p)
	return n, nil
}

// dechunk removes chunk framing from b in place and returns how many data
// bytes are left at its front.
func (hc *h1Conn) dechunk(b []byte) (int, error) {
	out := 0
	for i := 0; i < len(b); {
		switch hc.state {
		case chData:
			k := min(int64(len(b)-i), hc.left)
			out += copy(b[out:], b[i:i+int(k)])
			i += int(k)
			hc.left -= k
			if hc.left == 0 {
				hc.state = chDataEnd
			}
		case chSize, chDataEnd, chTrailer:
			lf := bytes.IndexByte(b[i:], '\n')
			if lf < 0 {
				hc.line = append(hc.line, b[i:]...)
				if len(hc.line) > 4096 {
					return out, errors.New("malformed chunked encoding: line too long")
				}
				i = len(b)
				continue
			}
			line := b[i : i+lf]
			if len(hc.line) > 0 {
				hc.line = append(hc.line, line...)
				line = hc.line
			}
			i += lf + 1
			line = bytes.TrimSuffix(line, []byte("\r"))
			if err := hc.chunkLine(line); err != nil {
				return out, err
			}
			hc.line = hc.line[:0]
		case chFinished:
			// bytes after the body: the connection's state is unknown
			hc.reuse = false
			return out, nil
		}
	}
	return out, nil
}

// chunkLine handles one framing line.
func (hc *h1Conn) chunkLine(line []byte) error {
	switch hc.state {
	case chDataEnd:
		if len(line) != 0 {
			return errors.New("malformed chunked encoding: no CRLF after chunk data")
		}
		hc.state = chSize
	case chSize:
		if i := bytes.IndexByte(line, ';'); i >= 0 {
			line = line[:i] // chunk extensions
		}
		size, err := strconv.ParseUint(string(bytes.TrimSpace(line)), 16, 62)
		if err != nil {
			return fmt.Errorf("malformed chunked encoding: chunk size %.20q", line)
		}
		if size == 0 {
			hc.state = chTrailer
		} else {
			hc.state, hc.left = chData, int64(size)
		}
	case chTrailer:
		if len(line) == 0 {
			hc.state, hc.done = chFinished, true
		}
	}
	return nil
}

// release ends the answer: the connection goes back to the idle pool when
// its body was read to the end and the server keeps it, else it is closed.
func (hc *h1Conn) release() {
	if hc.stop != nil && !hc.stop() {
		// the context was cancelled: the connection is (being) closed
		hc.reuse = false
	}
	hc.stop = nil
	if !hc.done || hc.err != nil || !hc.reuse || len(hc.pending) > 0 {
		hc.c.Close()
		return
	}
	cl := hc.cl
	hc.idleAt = time.Now()
	cl.mu.Lock()
	if len(cl.idle) < cl.maxIdle {
		cl.idle = append(cl.idle, hc)
		hc = nil
	}
	cl.mu.Unlock()
	if hc != nil {
		hc.c.Close()
	}
}

func (hc *h1Conn) close() {
	if hc.stop != nil {
		hc.stop()
		hc.stop = nil
	}
	hc.c.Close()
}

// appendHeader appends "Key: value\r\n" with the key in canonical form, as
// net/http writes it.
func appendHeader(b []byte, k, v string) []byte {
	b = append(b, textproto.CanonicalMIMEHeaderKey(k)...)
	b = append(b, ": "...)
	b = append(b, v...)
	return append(b, "\r\n"...)
}

// leanClient returns an h1Client for rawURL and its fixed header block
// (all but the per-request ids), or nil when net/http must send: not plain
// http, a proxy set for it, or extra headers that h1Client does not
// write as net/http would (framing and connection headers, invalid
// names or values), so that those keep net/http's behaviour and errors.
func leanClient(rawURL string, extra map[string]string, maxIdle int) (*h1Client, []byte) {
	if !h1Supported {
		return nil, nil
	}
	u, err := url.Parse(rawURL)
	if err != nil || u.Scheme != "http" || u.User != nil || u.Host == "" {
		return nil, nil
	}
	if p, err := http.ProxyFromEnvironment(&http.Request{URL: u}); err != nil || p != nil {
		return nil, nil
	}
	h := http.Header{}
	h.Set("User-Agent", "Go-http-client/1.1")
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "text/event-stream")
	for k, v := range extra {
		ck := textproto.CanonicalMIMEHeaderKey(k)
		switch ck {
		case "Host", "Content-Length", "Transfer-Encoding", "Connection", "Trailer", "Te", "Upgrade":
			return nil, nil
		}
		if !validHeader(k, v) {
			return nil, nil
		}
		h.Set(k, v)
	}
	h.Del("X-Request-Id") // per request, after the extra headers (vLLM's order)
	h.Del("X-Idempotency-Key")
	var b bytes.Buffer
	h.Write(&b)
	return newH1Client(u, maxIdle), b.Bytes()
}

// validHeader: a token name and a value without control characters
// other than tab.
func validHeader(k, v string) bool {
	if k == "" {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte(`"(),/:;<=>?@[\]{}`, c) >= 0 {
			return false
		}
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; (c < ' ' && c != '\t') || c == 0x7f {
			return false
		}
	}
	return true
}
