package bench

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/perflab/perflab/collect/sse"
)

// splitConn is a net.Conn reading data in the given pieces.
type splitConn struct {
	net.Conn
	pieces [][]byte
}

func (s *splitConn) Read(p []byte) (int, error) {
	if len(s.pieces) == 0 {
		return 0, io.EOF
	}
	n := copy(p, s.pieces[0])
	if n == len(s.pieces[0]) {
		s.pieces = s.pieces[1:]
	} else {
		s.pieces[0] = s.pieces[0][n:]
	}
	return n, nil
}

// split cuts b at random places.
func split(b []byte, rng *rand.Rand) [][]byte {
	var out [][]byte
	for len(b) > 0 {
		n := 1 + rng.IntN(min(len(b), 40))
		out = append(out, b[:n])
		b = b[n:]
	}
	return out
}

func chunked(parts ...string) string {
	var b strings.Builder
	for _, p := range parts {
		fmt.Fprintf(&b, "%x\r\n%s\r\n", len(p), p)
	}
	return b.String()
}

// TestH1BodyFraming: whatever the read boundaries, the body comes out as
// sent, and only a cleanly ended body leaves the connection reusable.
func TestH1BodyFraming(t *testing.T) {
	data := "data: {\"choices\":[{\"text\":\"a\"}]}\n\ndata: [DONE]\n\n"
	tests := []struct {
		name      string
		mode      int
		left      int64
		wire      string
		want      string
		wantErr   string // substring; "" = clean end
		reuseable bool
		anyReuse  bool // depends on where the reads cut
	}{
		{name: "chunked", mode: bodyChunked, wire: chunked(data[:10], data[10:]) + "0\r\n\r\n", want: data, reuseable: true},
		{name: "chunked, extensions and trailers", mode: bodyChunked,
			wire: "5;ext=1\r\nhello\r\n1 \r\n!\r\n0\r\nX-Trailer: t\r\n\r\n", want: "hello!", reuseable: true},
		{name: "chunked, bare LF lines", mode: bodyChunked, wire: "5\nhello\n0\n\n", want: "hello", reuseable: true},
		{name: "chunked, cut", mode: bodyChunked, wire: chunked(data) + "5\r\nhel", want: data + "hel", wantErr: "unexpected EOF"},
		{name: "chunked, bad size", mode: bodyChunked, wire: chunked("ab") + "zz\r\nhello\r\n", want: "ab", wantErr: "malformed chunked encoding"},
		{name: "chunked, no CRLF after data", mode: bodyChunked, wire: "2\r\nabXY0\r\n\r\n", want: "ab", wantErr: "no CRLF"},
		// bytes after the end seen in the same read make the connection
		// unusable; in a later read they fail the next request instead
		{name: "chunked, bytes after the end", mode: bodyChunked, wire: chunked("ab") + "0\r\n\r\nHTTP/1.1", want: "ab", anyReuse: true},
		{name: "sized", mode: bodySized, left: int64(len(data)), wire: data, want: data, reuseable: true},
		{name: "sized, cut", mode: bodySized, left: int64(len(data)) + 5, wire: data, want: data, wantErr: "unexpected EOF"},
		{name: "until close", mode: bodyClose, wire: data, want: data},
	}
	for _, tc := range tests {
		for seed := range uint64(20) {
			rng := rand.New(rand.NewPCG(seed, 1))
			hc := &h1Conn{c: &splitConn{pieces: split([]byte(tc.wire), rng)}, mode: tc.mode, left: tc.left, reuse: tc.mode != bodyClose} // as roundTrip sets it
			var got []byte
			var err error
			buf := make([]byte, 1+rng.IntN(64))
			for {
				var n int
				n, err = hc.Read(buf)
				got = append(got, buf[:n]...)
				if err != nil {
					break
				}
			}
			if string(got) != tc.want {
				t.Fatalf("%s (seed %d): body %q, want %q", tc.name, seed, got, tc.want)
			}
			switch {
			case tc.wantErr == "" && err != io.EOF:
				t.Fatalf("%s (seed %d): error %v, want a clean end", tc.name, seed, err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Fatalf("%s (seed %d): error %v, want %q", tc.name, seed, err, tc.wantErr)
			}
			if reusable := hc.done && hc.err == nil && hc.reuse; reusable != tc.reuseable && !tc.anyReuse {
				t.Fatalf("%s (seed %d): reusable %v, want %v", tc.name, seed, reusable, tc.reuseable)
			}
		}
	}
}

// TestH1Requests: what h1Client sends (line, headers, body), that
// connections are kept and reused, and that error answers come back.
func TestH1Requests(t *testing.T) {
	var conns atomic.Int64
	type seen struct {
		method, path, host, ua, ct, accept, auth, rid, idem, body string
		length                                                    int64
	}
	got := make(chan seen, 10)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got <- seen{r.Method, r.URL.RequestURI(), r.Host, r.UserAgent(), r.Header.Get("Content-Type"), r.Header.Get("Accept"),
			r.Header.Get("Authorization"), r.Header.Get("X-Request-Id"), r.Header.Get("X-Idempotency-Key"), string(b), r.ContentLength}
		if r.Header.Get("X-Fail") != "" {
			http.Error(w, "no", http.StatusTeapot)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "data: {\"choices\":[{\"text\":\"a\"}]}\n\n")
		w.(http.Flusher).Flush()
		fmt.Fprint(w, "data: [DONE]\n\n")
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()

	cl, hdr := leanClient(srv.URL+"/v1/completions?x=1", map[string]string{"authorization": "Bearer k", "x-request-id": "ignored"}, 4)
	if cl == nil {
		t.Fatal("no h1 client for a plain http URL")
	}
	defer cl.closeIdle()
	for i := range 3 {
		id := fmt.Sprint("id-", i)
		h := appendHeader(appendHeader(append([]byte(nil), hdr...), "X-Idempotency-Key", id), "X-Request-Id", id)
		resp, hc, err := cl.do(context.Background(), h, []byte(`{"prompt":"p"}`))
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(hc)
		hc.release()
		if err != nil || resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" ||
			string(body) != "data: {\"choices\":[{\"text\":\"a\"}]}\n\ndata: [DONE]\n\n" {
			t.Fatalf("request %d: status %d, %q, err %v", i, resp.StatusCode, body, err)
		}
		s := <-got
		want := seen{"POST", "/v1/completions?x=1", strings.TrimPrefix(srv.URL, "http://"), "Go-http-client/1.1", "application/json",
			"text/event-stream", "Bearer k", id, id, `{"prompt":"p"}`, 14}
		if s != want {
			t.Fatalf("request %d: server saw %+v, want %+v", i, s, want)
		}
	}
	if n := conns.Load(); n != 1 {
		t.Fatalf("%d connections for 3 requests in a row, want 1 (kept alive)", n)
	}

	// an error answer: status and body come back
	resp, hc, err := cl.do(context.Background(), appendHeader(append([]byte(nil), hdr...), "X-Fail", "1"), nil)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(hc)
	hc.release()
	<-got
	if resp.StatusCode != http.StatusTeapot || resp.Status != "418 I'm a teapot" || string(body) != "no\n" {
		t.Fatalf("error answer: %q %q", resp.Status, body)
	}
}

// TestH1RetriesStaleConnection: a kept-alive connection the server closed
// is replaced and the request sent again; a fresh connection that fails is
// an error, not retried.
func TestH1RetriesStaleConnection(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var accepted, served atomic.Int64
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			go func() {
				defer c.Close()
				br := bufio.NewReader(c)
				req, err := http.ReadRequest(br)
				if err != nil {
					return
				}
				io.Copy(io.Discard, req.Body)
				served.Add(1)
				// answers one request, says keep-alive, then hangs up
				io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
				time.Sleep(20 * time.Millisecond)
			}()
		}
	}()
	cl, hdr := leanClient("http://"+l.Addr().String()+"/v1/completions", nil, 2)
	for i := range 3 {
		resp, hc, err := cl.do(context.Background(), hdr, []byte("{}"))
		if err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
		body, _ := io.ReadAll(hc)
		hc.release()
		if resp.StatusCode != 200 || string(body) != "ok" {
			t.Fatalf("request %d: %d %q", i, resp.StatusCode, body)
		}
		time.Sleep(50 * time.Millisecond) // the server has closed it by now
	}
	if a, s := accepted.Load(), served.Load(); a != 3 || s != 3 {
		t.Fatalf("%d connections, %d requests served; want 3 and 3", a, s)
	}

	// a fresh connection cut before the answer: an error
	l2, _ := net.Listen("tcp", "127.0.0.1:0")
	defer l2.Close()
	go func() {
		for {
			c, err := l2.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	cl2, hdr2 := leanClient("http://"+l2.Addr().String()+"/v1/completions", nil, 2)
	if _, _, err := cl2.do(context.Background(), hdr2, []byte("{}")); err == nil || !strings.Contains(err.Error(), `Post "http://`) {
		t.Fatalf("cut fresh connection: %v, want a Post error", err)
	}
}

// TestH1Cancel: cancelling the context ends a blocked read at once.
func TestH1Cancel(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "data: {\"choices\":[{\"text\":\"a\"}]}\n\n")
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	defer srv.Close()
	cl, hdr := leanClient(srv.URL+"/v1/completions", nil, 1)
	ctx, cancel := context.WithCancel(context.Background())
	_, hc, err := cl.do(ctx, hdr, nil)
	if err != nil {
		t.Fatal(err)
	}
	time.AfterFunc(20*time.Millisecond, cancel)
	start := time.Now()
	_, err = io.ReadAll(hc)
	hc.release()
	if err == nil || time.Since(start) > 5*time.Second {
		t.Fatalf("read after cancel: %v after %v", err, time.Since(start))
	}
	if len(cl.idle) != 0 {
		t.Fatal("a cancelled connection went back to the pool")
	}
}

// TestLeanClientFallsBack: https, a proxy, or headers net/http handles
// specially keep the run on net/http.
func TestLeanClientFallsBack(t *testing.T) {
	t.Setenv("HTTP_PROXY", "")
	t.Setenv("NO_PROXY", "")
	for _, tc := range []struct {
		url     string
		headers map[string]string
		lean    bool
	}{
		{"http://127.0.0.1:8000/v1/completions", nil, true},
		{"http://127.0.0.1:8000/v1/completions", map[string]string{"Authorization": "Bearer x"}, true},
		{"https://127.0.0.1:8000/v1/completions", nil, false},
		{"http://user:pw@127.0.0.1:8000/v1/completions", nil, false},
		{"http://127.0.0.1:8000/v1/completions", map[string]string{"Host": "other"}, false},
		{"http://127.0.0.1:8000/v1/completions", map[string]string{"connection": "close"}, false},
		{"http://127.0.0.1:8000/v1/completions", map[string]string{"X-Bad": "a\r\nInjected: 1"}, false},
		{"http://127.0.0.1:8000/v1/completions", map[string]string{"Bad Name": "v"}, false},
	} {
		cl, _ := leanClient(tc.url, tc.headers, 1)
		if (cl != nil) != tc.lean {
			t.Fatalf("%s %v: lean %v, want %v", tc.url, tc.headers, cl != nil, tc.lean)
		}
	}
	// (the proxy variables are read once per process by net/http, so a
	// proxy is not tested here with a changed environment)
}

// streamModes runs f with the pollers (Linux) and with RawConn.Read
// (elsewhere, and on Linux too so that the fallback stays tested).
func streamModes(t *testing.T, f func(t *testing.T, poll bool)) {
	if !h1Supported {
		t.Skip("h1Client is unix-only")
	}
	modes := []bool{false}
	if h1Poll {
		modes = []bool{true, false}
	}
	for _, poll := range modes {
		t.Run(fmt.Sprintf("poll=%v", poll), func(t *testing.T) { f(t, poll) })
	}
}

// TestH1StreamOneReadPerArrival: events written one at a time, a few ms
// apart, cost one read(2) each, not two (the second failing with EAGAIN),
// and all of them arrive.
func TestH1StreamOneReadPerArrival(t *testing.T) { streamModes(t, testH1StreamOneReadPerArrival) }

func testH1StreamOneReadPerArrival(t *testing.T, poll bool) {
	const n = 20
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for i := range n {
			fmt.Fprintf(w, "data: {\"choices\":[{\"text\":\"t%d\"}]}\n\n", i)
			w.(http.Flusher).Flush() // one write each
			time.Sleep(3 * time.Millisecond)
		}
	}))
	defer srv.Close()
	cl, hdr := leanClient(srv.URL+"/v1/completions", nil, 1)
	cl.poll = poll
	defer cl.closeIdle()
	_, hc, err := cl.do(context.Background(), hdr, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer hc.release()
	if _, polled := hc.c.(polledConn); polled != poll || (!polled && hc.raw == nil) {
		t.Fatalf("connection %T (poller: %v): stream's one-read path would not be tested", hc.c, poll)
	}
	rd := sse.NewReader(hc, 0)
	var got []string
	if err := hc.stream(rd, func(ev sse.Event) bool { got = append(got, string(ev.Data)); return true }); err != nil {
		t.Fatal(err)
	}
	if len(got) != n || got[n-1] != fmt.Sprintf("{\"choices\":[{\"text\":\"t%d\"}]}", n-1) {
		t.Fatalf("%d events, last %q", len(got), got[len(got)-1])
	}
	// n writes, the last chunk with the end of the body, maybe apart:
	// each read takes at least one; a read that fails after a read that
	// emptied the socket happens only after a wakeup for data already read
	if hc.reads > n+2 {
		t.Fatalf("%d read(2) calls for %d events, want at most %d", hc.reads, n, n+2)
	}
}

// TestH1StreamCutWithData: a server that writes an event and closes the
// connection at once (the FIN arriving with the data, one wakeup for both)
// is seen as a cut stream, not waited on until the request's timeout.
func TestH1StreamCutWithData(t *testing.T) { streamModes(t, testH1StreamCutWithData) }

func testH1StreamCutWithData(t *testing.T, poll bool) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				req, err := http.ReadRequest(bufio.NewReader(c))
				if err != nil {
					return
				}
				io.Copy(io.Discard, req.Body)
				io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n")
				time.Sleep(30 * time.Millisecond) // the client waits in stream by now
				ev := "data: {\"choices\":[{\"text\":\"a\"}]}\n\n"
				fmt.Fprintf(c, "%x\r\n%s\r\n", len(ev), ev) // then close: cut
			}()
		}
	}()
	cl, hdr := leanClient("http://"+l.Addr().String()+"/v1/completions", nil, 1)
	cl.poll = poll
	for i := range 5 {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		_, hc, err := cl.do(ctx, hdr, nil)
		if err != nil {
			t.Fatal(err)
		}
		events := 0
		err = hc.stream(sse.NewReader(hc, 0), func(sse.Event) bool { events++; return true })
		hc.release()
		timedOut := ctx.Err() != nil
		cancel()
		if events != 1 || !errors.Is(err, io.ErrUnexpectedEOF) || timedOut {
			t.Fatalf("round %d: %d events, error %v (timed out: %v), want 1 event and unexpected EOF", i, events, err, timedOut)
		}
	}
}

// TestH1StreamCancel: cancelling a request whose stream is being read
// (by the poller, on Linux) ends it at once with an error, and the
// connection is not reused.
func TestH1StreamCancel(t *testing.T) { streamModes(t, testH1StreamCancel) }

func testH1StreamCancel(t *testing.T, poll bool) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "data: {\"choices\":[{\"text\":\"a\"}]}\n\n")
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	defer srv.Close()
	cl, hdr := leanClient(srv.URL+"/v1/completions", nil, 1)
	cl.poll = poll
	defer cl.closeIdle()
	ctx, cancel := context.WithCancel(context.Background())
	_, hc, err := cl.do(ctx, hdr, nil)
	if err != nil {
		t.Fatal(err)
	}
	time.AfterFunc(30*time.Millisecond, cancel)
	start := time.Now()
	events := 0
	err = hc.stream(sse.NewReader(hc, 0), func(sse.Event) bool { events++; return true })
	hc.release()
	if events != 1 || err == nil || !errors.Is(err, net.ErrClosed) || time.Since(start) > 5*time.Second {
		t.Fatalf("stream after cancel: %d events, error %v after %v; want 1 event and a closed-connection error", events, err, time.Since(start))
	}
	if len(cl.idle) != 0 {
		t.Fatal("a cancelled connection went back to the pool")
	}
}

// TestH1ManyStreams: many streams at once, interleaved on the pollers,
// each gets its own events in order, and the connections are reused.
func TestH1ManyStreams(t *testing.T) { streamModes(t, testH1ManyStreams) }

func testH1ManyStreams(t *testing.T, poll bool) {
	const streams, events = 64, 30
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		id := r.Header.Get("X-Request-Id")
		for i := range events {
			fmt.Fprintf(w, "data: %s-%d\n\n", id, i)
			w.(http.Flusher).Flush()
			time.Sleep(time.Millisecond)
		}
	}))
	defer srv.Close()
	cl, hdr := leanClient(srv.URL+"/v1/completions", nil, streams)
	cl.poll = poll
	defer cl.closeIdle()
	for round := range 2 {
		errs := make(chan error, streams)
		for s := range streams {
			go func() {
				id := fmt.Sprintf("r%d-s%d", round, s)
				_, hc, err := cl.do(context.Background(), appendHeader(slices.Clone(hdr), "X-Request-Id", id), nil)
				if err != nil {
					errs <- err
					return
				}
				i := 0
				err = hc.stream(sse.NewReader(hc, 0), func(ev sse.Event) bool {
					if want := fmt.Sprintf("%s-%d", id, i); string(ev.Data) != want {
						err = fmt.Errorf("event %q, want %q", ev.Data, want)
						return false
					}
					i++
					return true
				})
				hc.release() // before the test reads the pool
				if err == nil && i != events {
					err = fmt.Errorf("%s: %d events, want %d", id, i, events)
				}
				errs <- err
			}()
		}
		for range streams {
			if err := <-errs; err != nil {
				t.Fatal(err)
			}
		}
	}
	cl.mu.Lock()
	defer cl.mu.Unlock()
	if len(cl.idle) != streams {
		t.Fatalf("%d idle connections after two rounds, want %d (reused)", len(cl.idle), streams)
	}
}
