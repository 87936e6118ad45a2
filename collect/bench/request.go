package bench

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/perflab/perflab/collect/openai"
	"github.com/perflab/perflab/collect/schema"
	"github.com/perflab/perflab/collect/sse"
)

// maxErrorBody bounds how much of an HTTP error body goes into Error.
const maxErrorBody = 1024

// newClient returns an HTTP/1.1 client with a keep-alive pool of conns
// idle connections per host and at most limit open ones (0: unlimited),
// as vLLM's aiohttp connector (limit = max_concurrency, keep-alive 60 s),
// with no compression and no overall timeout (requests carry their own).
func newClient(conns, limit int) *http.Client {
	tr := &http.Transport{
		Proxy:               http.ProxyFromEnvironment,
		DialContext:         (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:        0,
		MaxIdleConnsPerHost: max(conns, 1),
		MaxConnsPerHost:     limit,
		IdleConnTimeout:     60 * time.Second,
		DisableCompression:  true,
		ForceAttemptHTTP2:   false,
		// An empty map turns HTTP/2 off for https too: one stream per
		// connection, as vLLM's client.
		TLSNextProto:    map[string]func(string, *tls.Conn) http.RoundTripper{},
		ReadBufferSize:  32 << 10,
		WriteBufferSize: 16 << 10,
	}
	return &http.Client{Transport: tr}
}

// stream is a request's reusable scratch: SSE reader, request body and
// header block.
type stream struct {
	rd   *sse.Reader
	body []byte
	hdr  []byte
	text []byte
}

func (r *runner) getStream() *stream {
	if s, ok := r.pool.Get().(*stream); ok {
		return s
	}
	return &stream{rd: sse.NewReader(nil, sse.DefaultBufferSize)}
}

// request sends sample i once and fills rec, after its ticket from the
// concurrency cap admits it (nil ticket: no cap). It reports aborted when
// the run was cancelled before the request could finish (the record is
// then dropped, not counted as a failure).
func (r *runner) request(ctx context.Context, i int, rec *schema.Request, ticket chan struct{}) (aborted bool) {
	smp := r.cfg.Samples[i]
	rec.Index = i
	rec.PromptTokens = smp.PromptLen
	rec.ExpectedOutputTokens = smp.OutputLen
	if ticket != nil {
		select {
		case <-ticket:
			defer r.sem.release()
		case <-ctx.Done():
			r.sem.abandon(ticket)
			return true
		}
	}
	if msg := r.engineStopped(); msg != "" {
		now := time.Since(r.base).Seconds()
		rec.SendS, rec.EndS, rec.Error = now, now, msg
		r.failed.Add(1)
		r.done.Add(1)
		return false
	}
	st := r.getStream()
	defer r.pool.Put(st)
	var history []string
	session := ""
	if r.sessions != nil { // a multi-turn run: this turn's history and session
		history, session = r.sessions.history[i], r.sessions.id[i]
		rec.Session, rec.Turn = session, r.sessions.turn[i]
	}
	keepText := r.cfg.KeepText || r.cfg.CountText != nil || session != ""
	st.body = openai.AppendBody(st.body[:0], r.cfg.Backend, openai.Request{
		Model: r.cfg.Model, Prompt: smp.Prompt, MaxTokens: smp.OutputLen, IgnoreEOS: r.cfg.IgnoreEOS,
		Extra: r.cfg.ExtraBody, History: history, PromptIDs: r.promptIDs(i),
	})
	rctx, cancel := context.WithTimeout(ctx, r.cfg.RequestTimeout)
	defer cancel()
	rctx, watch := r.watchStall(rctx)
	defer watch.stop()
	id := r.idPfx + strconv.Itoa(i)
	var req *http.Request
	if r.h1 == nil {
		var err error
		req, err = http.NewRequestWithContext(rctx, http.MethodPost, r.url, bytes.NewReader(st.body))
		if err != nil {
			rec.Error = err.Error()
			r.failed.Add(1)
			return false
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "text/event-stream")
		for k, v := range r.cfg.Headers {
			req.Header.Set(k, v)
		}
		// The request id comes after the extra headers, as in vLLM.
		req.Header.Set("x-request-id", id)
		if session != "" {
			req.Header.Set("X-Session-ID", session)
		}
		// An idempotency key lets net/http resend the request when the
		// server closed a kept-alive connection just as it was reused
		// (llama.cpp's server does): such a request never reached the
		// engine, and failing it would count a client artefact as a
		// server failure. (h1Client does the same.)
		req.Header.Set("X-Idempotency-Key", id)
	} else {
		st.hdr = append(st.hdr[:0], r.h1Header...)
		st.hdr = appendHeader(st.hdr, "X-Idempotency-Key", id)
		st.hdr = appendHeader(st.hdr, "X-Request-Id", id)
		if session != "" {
			st.hdr = appendHeader(st.hdr, "X-Session-Id", session)
		}
	}

	send := time.Since(r.base)
	rec.SendS = send.Seconds()
	fail := func(msg string) bool {
		rec.EndS = time.Since(r.base).Seconds()
		if ctx.Err() != nil {
			return true // the run was stopped: not a server failure
		}
		var stall *StallError
		if errors.As(context.Cause(rctx), &stall) {
			// what the stall did to the read (a closed connection) is
			// no news
			msg = stall.Error()
			if stall.Streaming {
				msg += fmt.Sprintf(", after %d token events", len(rec.EventS))
			}
		} else if rctx.Err() == context.DeadlineExceeded {
			msg = fmt.Sprintf("request timeout after %s (%s)", r.cfg.RequestTimeout, msg)
		}
		rec.Success = false
		rec.Error = msg
		r.failed.Add(1)
		r.done.Add(1)
		return false
	}
	var (
		resp *http.Response
		body io.Reader
		hc   *h1Conn
	)
	if r.h1 == nil {
		var err error
		resp, err = r.client.Do(req)
		if err != nil {
			return fail(err.Error())
		}
		defer resp.Body.Close()
		body = resp.Body
	} else {
		var err error
		resp, hc, err = r.h1.do(rctx, st.hdr, st.body)
		if err != nil {
			return fail(err.Error())
		}
		defer hc.release() // before cancel (deferred earlier) closes it
		body = hc
	}
	rec.HTTPStatus = resp.StatusCode
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(body, maxErrorBody+1))
		return fail(httpError(resp, b))
	}

	st.rd.Reset(body)
	defer func() { r.reads.Add(st.rd.Reads()) }()
	st.text = st.text[:0]
	if cap(rec.EventS) == 0 {
		rec.EventS = make([]float64, 0, smp.OutputLen+1)
	}
	var (
		c          openai.Chunk
		events     int64
		completion = -1
		serverErr  []byte
		escaped    bool   // some piece of st.text is JSON-escaped
		failMsg    string // a chunk that ends the request
	)
	// handle takes one event, stamped as soon as it is parsed; false
	// stops the stream with failMsg.
	handle := func(ev sse.Event) bool {
		now := time.Since(r.base)
		events++
		watch.event(now)
		if string(ev.Data) == "[DONE]" {
			return true // read on to EOF so the connection is reused
		}
		if string(ev.Type) == "error" { // an SSE error event, not a chunk
			serverErr = append(serverErr[:0], ev.Data...)
			return true
		}
		if err := openai.ParseChunk(ev.Data, &c); err != nil {
			failMsg = fmt.Sprintf("%v: %.200q", err, ev.Data)
			return false
		}
		if c.Choices > 0 {
			rec.EventS = append(rec.EventS, now.Seconds())
			if keepText {
				// raw (still escaped): decoded once at the end, if needed
				st.text = append(st.text, c.Text...)
				escaped = escaped || c.TextEscaped
			}
		}
		if c.HasUsage {
			if c.CompletionTokens >= 0 {
				completion = c.CompletionTokens
			}
			if c.PromptTokens >= 0 {
				p := c.PromptTokens
				rec.UsagePromptTokens = &p
			}
		}
		if c.Error != nil && c.Choices == 0 {
			serverErr = append(serverErr[:0], c.Error...)
		}
		return true
	}
	var streamErr error
	if hc != nil {
		streamErr = hc.stream(st.rd, handle)
	} else {
		for {
			ev, err := st.rd.Next()
			if err != nil {
				if err != io.EOF {
					streamErr = err
				}
				break
			}
			if !handle(ev) {
				break
			}
		}
	}
	r.events.Add(events)
	if failMsg != "" {
		return fail(failMsg)
	}
	if streamErr != nil {
		return fail(streamError(streamErr, len(rec.EventS)))
	}
	rec.EndS = time.Since(r.base).Seconds()
	if r.cfg.KeepText || (r.cfg.CountText != nil && completion <= 0) || session != "" {
		rec.GeneratedText = openai.DecodeText(st.text, escaped)
	}
	if len(rec.EventS) == 0 {
		msg := "never received a valid chunk to calculate TTFT"
		if serverErr != nil {
			msg += ": server error " + string(serverErr)
		} else if ct := resp.Header.Get("Content-Type"); !strings.Contains(ct, "event-stream") {
			msg += fmt.Sprintf(" (the response is %q, not a text/event-stream)", ct)
		}
		return fail(msg)
	}
	rec.Success = true
	if completion > 0 {
		rec.OutputTokens = completion
	} else {
		rec.OutputTokens = len(rec.EventS)
		rec.OutputCounted = true
	}
	r.done.Add(1)
	return false
}

// promptIDs is sample i's prompt as token ids, or nil to send its text.
func (r *runner) promptIDs(i int) []int {
	if i < len(r.cfg.PromptIDs) {
		return r.cfg.PromptIDs[i]
	}
	return nil
}

// httpError is "HTTP 500 Internal Server Error: <body>", the body cut to
// maxErrorBody bytes.
func httpError(resp *http.Response, body []byte) string {
	cut := len(body) > maxErrorBody
	if cut {
		body = body[:maxErrorBody]
		for len(body) > 0 && !utf8.Valid(body) {
			body = body[:len(body)-1]
		}
	}
	msg := "HTTP " + resp.Status
	if b := strings.TrimSpace(string(body)); b != "" {
		msg += ": " + b
		if cut {
			msg += " …"
		}
	}
	return msg
}

func streamError(err error, tokens int) string {
	what := "stream cut"
	if errors.Is(err, sse.ErrEventTooLong) {
		what = "stream broken"
	}
	return fmt.Sprintf("%s after %d token events: %v", what, tokens, err)
}
