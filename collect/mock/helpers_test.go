package mock

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// newTestServer serves cfg on 127.0.0.1 for the test's lifetime.
func newTestServer(t testing.TB, cfg Config) (*Server, string) {
	t.Helper()
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s)
	t.Cleanup(func() {
		s.Close()
		ts.Close()
	})
	return s, ts.URL
}

func post(t testing.TB, url, body string) *http.Response {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// sseEvent is one event as a client sees it.
type sseEvent struct {
	data string
	at   time.Time
}

// readSSE reads a stream to its end: the events (data payloads, [DONE]
// included) and the read error, nil at a clean EOF.
func readSSE(body io.Reader) ([]sseEvent, error) {
	br := bufio.NewReader(body)
	var evs []sseEvent
	var cur bytes.Buffer
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			if errors.Is(err, io.EOF) && line == "" && cur.Len() == 0 {
				return evs, nil
			}
			return evs, err
		}
		line = strings.TrimSuffix(line, "\n")
		if line == "" {
			evs = append(evs, sseEvent{strings.TrimPrefix(cur.String(), "data: "), time.Now()})
			cur.Reset()
			continue
		}
		cur.WriteString(line)
	}
}

// chunk is the part of a streamed chunk the tests look at.
type chunk struct {
	Object  string `json:"object"`
	Choices []struct {
		Text  string `json:"text"`
		Delta struct {
			Role    *string `json:"role"`
			Content *string `json:"content"`
		} `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *usage `json:"usage"`
}

func parseChunk(t testing.TB, data string) chunk {
	t.Helper()
	var c chunk
	if err := json.Unmarshal([]byte(data), &c); err != nil {
		t.Errorf("chunk %q: %v", data, err) // not Fatal: goroutines call this
	}
	return c
}

// summary of a stream: token events (choices non-empty), text, usage.
type streamSummary struct {
	tokenEvents []sseEvent
	text        string
	finish      string
	usage       *usage
	usageChunks int
	done        bool
}

func summarize(t testing.TB, evs []sseEvent) streamSummary {
	t.Helper()
	var s streamSummary
	for _, e := range evs {
		if e.data == "[DONE]" {
			s.done = true
			continue
		}
		c := parseChunk(t, e.data)
		if len(c.Choices) == 0 {
			s.usage = c.Usage
			s.usageChunks++
			continue
		}
		s.tokenEvents = append(s.tokenEvents, e)
		ch := c.Choices[0]
		s.text += ch.Text
		if ch.Delta.Content != nil {
			s.text += *ch.Delta.Content
		}
		if ch.FinishReason != nil {
			s.finish = *ch.FinishReason
		}
	}
	return s
}
