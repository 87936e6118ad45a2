package mock

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"time"
)

// events formats one request's SSE events into a reused buffer, so a token
// costs no allocation. The shapes are vLLM's (bench-core.md §1.4, §6).
type events struct {
	j    *job
	head []byte // `data: {"id":…,"object":…,"created":…,"model":…,"choices":[`
	buf  []byte
}

func newEvents(j *job) *events {
	object := "text_completion"
	if j.chat {
		object = "chat.completion.chunk"
	}
	model, _ := json.Marshal(j.model)
	h := make([]byte, 0, 160)
	h = append(h, `data: {"id":"`...)
	h = append(h, j.id...)
	h = append(h, `","object":"`...)
	h = append(h, object...)
	h = append(h, `","created":`...)
	h = strconv.AppendInt(h, j.created, 10)
	h = append(h, `,"model":`...)
	h = append(h, model...)
	h = append(h, `,"choices":[`...)
	return &events{j: j, head: h, buf: make([]byte, 0, 512)}
}

// tail closes the choices list, adds usage when asked and ends the event.
func (e *events) tail(b []byte, withUsage bool, completion int) []byte {
	b = append(b, ']')
	if withUsage {
		b = append(b, `,"usage":{"prompt_tokens":`...)
		b = strconv.AppendInt(b, int64(e.j.promptLen), 10)
		b = append(b, `,"total_tokens":`...)
		b = strconv.AppendInt(b, int64(e.j.promptLen+completion), 10)
		b = append(b, `,"completion_tokens":`...)
		b = strconv.AppendInt(b, int64(completion), 10)
		b = append(b, '}')
	}
	return append(b, "}\n\n"...)
}

// role is the chat stream's opening chunk, sent with the first token.
func (e *events) role() []byte {
	b := append(e.buf[:0], e.head...)
	b = append(b, `{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}`...)
	e.buf = e.tail(b, e.j.contUsage, 0)
	return e.buf
}

// token is the event of generated token k; the last one carries the
// finish reason, as vLLM sends it.
func (e *events) token(k int) []byte {
	last := k == e.j.outLen-1
	b := append(e.buf[:0], e.head...)
	if e.j.chat {
		b = append(b, `{"index":0,"delta":{"content":"`...)
	} else {
		b = append(b, `{"index":0,"text":"`...)
	}
	b, _ = appendPiece(b, outputToken(mix(e.j.textSeed+uint64(k))))
	if e.j.chat {
		b = append(b, `"}`...)
	} else {
		b = append(b, '"')
	}
	b = append(b, `,"logprobs":null,"finish_reason":`...)
	switch {
	case last:
		b = append(b, '"')
		b = append(b, e.j.finish...)
		b = append(b, `","stop_reason":null}`...)
	case e.j.chat:
		b = append(b, `null}`...)
	default:
		b = append(b, `null,"stop_reason":null}`...)
	}
	e.buf = e.tail(b, e.j.contUsage, k+1)
	return e.buf
}

// usage is the final include_usage chunk: empty choices and usage.
func (e *events) usage() []byte {
	b := append(e.buf[:0], e.head...)
	e.buf = e.tail(b, true, e.j.outLen)
	return e.buf
}

// garbage is a malformed event: JSON cut in the middle of a choice.
func (e *events) garbage() []byte {
	b := append(e.buf[:0], e.head...)
	b = append(b, `{"index":0,"text":`...)
	e.buf = append(b, "\n\n"...)
	return e.buf
}

var doneEvent = []byte("data: [DONE]\n\n")

// pause waits d, or until the client leaves or the server closes when d
// is 0.
func (s *Server) pause(ctx context.Context, d time.Duration) error {
	var c <-chan time.Time
	if d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		c = t.C
	}
	select {
	case <-c:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-s.closing:
		return errClosed
	}
}

// abortIfCrashed drops the connection of a stream ended by a crash, so
// that the client sees a broken connection rather than a clean end.
func (s *Server) abortIfCrashed() {
	select {
	case <-s.crashed:
		panic(http.ErrAbortHandler)
	default:
	}
}

// stream writes a streamed answer: one event per token, flushed when it is
// due. Events due at the same moment (a lagging stream catching up) share
// one flush, as a real server's socket buffer would merge them. It returns
// early (no [DONE]) when the client leaves or the server closes.
func (s *Server) stream(ctx context.Context, w http.ResponseWriter, j *job, p pacer) {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream; charset=utf-8")
	h.Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	// Headers go out at once, as Starlette's StreamingResponse does.
	if rc.Flush() != nil {
		return
	}
	ev := newEvents(j)
	ok := true
	write := func(b []byte) {
		if ok {
			_, err := w.Write(b)
			ok = err == nil
		}
	}
	flush := func() bool {
		if ok {
			ok = rc.Flush() == nil
		}
		return ok
	}
	for k := 0; k < j.outLen; {
		avail, err := p.wait(ctx, k)
		if err != nil {
			s.abortIfCrashed()
			return
		}
		from := k
		for ; k < avail && k < j.outLen; k++ {
			if k == j.faultAt {
				switch j.fault {
				case faultStall:
					s.stats.stalls.Add(1)
					if !flush() || s.pause(ctx, s.cfg.Faults.Stall) != nil {
						s.abortIfCrashed()
						return
					}
					p.shift(s.cfg.Faults.Stall)
				case faultGarbage:
					s.stats.garbage.Add(1)
					write(ev.garbage())
				}
			}
			if k == 0 && j.chat {
				write(ev.role())
			}
			write(ev.token(k))
			if k == j.faultAt && j.fault == faultCut {
				if flush() {
					s.stats.outputTokens.Add(uint64(k + 1 - from))
				}
				panic(http.ErrAbortHandler) // closes the connection as is
			}
		}
		if !flush() {
			return
		}
		s.stats.outputTokens.Add(uint64(k - from))
	}
	if j.usage {
		write(ev.usage())
	}
	write(doneEvent)
	if ok {
		// Counted before the client can see [DONE], so that a client
		// reading Stats after its stream ended sees it.
		s.stats.completed.Add(1)
	}
	flush()
}

// respond writes a non-streamed answer once the last token is ready.
func (s *Server) respond(ctx context.Context, w http.ResponseWriter, j *job, p pacer) {
	switch j.fault {
	case faultStall:
		s.stats.stalls.Add(1)
		if s.pause(ctx, s.cfg.Faults.Stall) != nil {
			s.abortIfCrashed()
			return
		}
		p.shift(s.cfg.Faults.Stall)
	case faultCut:
		if _, err := p.wait(ctx, j.faultAt); err != nil {
			return
		}
		panic(http.ErrAbortHandler)
	}
	if _, err := p.wait(ctx, j.outLen-1); err != nil {
		s.abortIfCrashed()
		return
	}
	if j.fault == faultGarbage {
		s.stats.garbage.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"id":"` + j.id + `","choices":[{"index":0,"text":`))
		return
	}
	text := make([]byte, 0, 4*j.outLen)
	for k := 0; k < j.outLen; k++ {
		text, _ = appendPiece(text, outputToken(mix(j.textSeed+uint64(k))))
	}
	resp := genResponse{ID: j.id, Created: j.created, Model: j.model,
		Usage: usage{PromptTokens: j.promptLen, TotalTokens: j.promptLen + j.outLen, CompletionTokens: j.outLen}}
	if j.chat {
		c := chatChoice{FinishReason: j.finish}
		c.Message.Role, c.Message.Content = "assistant", string(text)
		resp.Object, resp.Choices = "chat.completion", []chatChoice{c}
	} else {
		resp.Object, resp.Choices = "text_completion", []completionChoice{{Text: string(text), FinishReason: j.finish}}
	}
	s.stats.outputTokens.Add(uint64(j.outLen))
	s.stats.completed.Add(1) // before the client can see the answer
	writeJSON(w, resp)
}
