package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/perflab/perflab/collect/dataset"
	"github.com/perflab/perflab/collect/metrics"
	"github.com/perflab/perflab/collect/schema"
)

// fakeServer is an OpenAI-compatible streaming server with fixed delays.
type fakeServer struct {
	ttft, itl time.Duration
	// usage: send a usage chunk (vLLM style, choices:[]); usageOnLast puts
	// it on the last token chunk instead (llama.cpp style).
	usage, usageOnLast bool
	// chatRole sends a role-only first chunk on the chat endpoint.
	chatRole bool
	// hold keeps each request open this long before answering.
	hold time.Duration

	inflight, maxInflight atomic.Int64
	mu                    sync.Mutex
	bodies                []map[string]any
}

func (f *fakeServer) start(t testing.TB) *httptest.Server { return startServer(t, f) }

// startServer serves h on 127.0.0.1 until the test ends.
func startServer(t testing.TB, h http.Handler) *httptest.Server {
	srv := httptest.NewUnstartedServer(h)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv.Listener = l
	srv.Start()
	t.Cleanup(srv.Close)
	return srv
}

func (f *fakeServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n := f.inflight.Add(1)
	defer f.inflight.Add(-1)
	for {
		m := f.maxInflight.Load()
		if n <= m || f.maxInflight.CompareAndSwap(m, n) {
			break
		}
	}
	var body map[string]any
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		http.Error(w, "bad json", 400)
		return
	}
	f.mu.Lock()
	f.bodies = append(f.bodies, body)
	f.mu.Unlock()
	chat := strings.HasSuffix(r.URL.Path, "chat/completions")
	maxTok, _ := body["max_tokens"].(float64)
	if chat {
		maxTok, _ = body["max_completion_tokens"].(float64)
	}
	time.Sleep(f.hold)
	w.Header().Set("Content-Type", "text/event-stream")
	fl := w.(http.Flusher)
	tok := func(i int) string {
		if chat {
			return fmt.Sprintf(`{"choices":[{"index":0,"delta":{"content":"t%d"}}]}`, i)
		}
		return fmt.Sprintf(`{"choices":[{"index":0,"text":"t%d"}]}`, i)
	}
	usage := fmt.Sprintf(`"usage":{"prompt_tokens":7,"completion_tokens":%d}`, int(maxTok))
	time.Sleep(f.ttft)
	if chat && f.chatRole {
		fmt.Fprint(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"}}]}\n\n")
		fl.Flush()
	}
	for i := 0; i < int(maxTok); i++ {
		if i > 0 || (chat && f.chatRole) {
			time.Sleep(f.itl)
		}
		ev := tok(i)
		if f.usageOnLast && i == int(maxTok)-1 {
			ev = strings.TrimSuffix(ev, "}") + "," + usage + "}"
		}
		fmt.Fprintf(w, "data: %s\n\n", ev)
		fl.Flush()
	}
	if f.usage {
		fmt.Fprintf(w, "data: {\"choices\":[],%s}\n\n", usage)
	}
	fmt.Fprint(w, "data: [DONE]\n\n")
}

func samples(n, out int) []dataset.Sample {
	s := make([]dataset.Sample, n)
	for i := range s {
		s[i] = dataset.Sample{Prompt: fmt.Sprintf("prompt %d", i), PromptLen: 5, OutputLen: out}
	}
	return s
}

func TestMeasureCompletions(t *testing.T) {
	f := &fakeServer{ttft: 3 * time.Millisecond, itl: time.Millisecond, usage: true}
	srv := f.start(t)
	res, dur, err := measure(context.Background(), Config{
		BaseURL: srv.URL, Model: "m", Samples: samples(6, 5), IgnoreEOS: true, MaxConcurrency: 2, KeepText: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Requests) != 6 || res.Status != schema.StatusOK || dur <= 0 {
		t.Fatalf("%d requests, status %s, duration %v", len(res.Requests), res.Status, dur)
	}
	for _, r := range res.Requests {
		if !r.Success || r.OutputTokens != 5 || r.OutputCounted || len(r.EventS) != 5 {
			t.Fatalf("request %d: %+v", r.Index, r)
		}
		if r.UsagePromptTokens == nil || *r.UsagePromptTokens != 7 || r.PromptTokens != 5 || r.ExpectedOutputTokens != 5 {
			t.Fatalf("request %d token counts: %+v", r.Index, r)
		}
		// arrival <= send < first event <= ... <= last event <= end
		if !(r.ArrivalS <= r.SendS && r.SendS < r.EventS[0] && r.EventS[4] <= r.EndS) {
			t.Fatalf("request %d: times out of order: %+v", r.Index, r)
		}
		if ttft := r.EventS[0] - r.SendS; ttft < 0.003 {
			t.Fatalf("request %d: TTFT %v below the server's 3 ms", r.Index, ttft)
		}
		if r.GeneratedText != "t0t1t2t3t4" {
			t.Fatalf("request %d: text %q", r.Index, r.GeneratedText)
		}
	}
	b := f.bodies[0]
	if b["model"] != "m" || b["max_tokens"] != 5.0 || b["stream"] != true || b["ignore_eos"] != true ||
		b["stream_options"].(map[string]any)["include_usage"] != true {
		t.Fatalf("body %v", b)
	}
	if res.Client.EventsPerS <= 0 || len(res.Warnings) != 0 {
		t.Fatalf("client %+v warnings %q", res.Client, res.Warnings)
	}
}

func TestMeasureChatAndUsageRules(t *testing.T) {
	tests := []struct {
		name    string
		srv     *fakeServer
		events  int // token events per request
		out     int
		counted bool
	}{
		// vLLM's newest rule: the role-only chunk is the TTFT event
		{"chat role chunk counts", &fakeServer{chatRole: true, usage: true}, 5, 4, false},
		// llama.cpp sends usage on the last token chunk, not in a separate one
		{"usage on last chunk", &fakeServer{usageOnLast: true}, 4, 4, false},
		// no usage at all: count events, flag it
		{"no usage", &fakeServer{chatRole: true}, 5, 5, true},
	}
	for _, tc := range tests {
		srv := tc.srv.start(t)
		res, _, err := measure(context.Background(), Config{
			BaseURL: srv.URL, Backend: "openai-chat", Model: "m", Samples: samples(3, 4),
		})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range res.Requests {
			if !r.Success || len(r.EventS) != tc.events || r.OutputTokens != tc.out || r.OutputCounted != tc.counted {
				t.Fatalf("%s: %+v", tc.name, r)
			}
		}
		if tc.counted != (len(res.Warnings) > 0 && strings.Contains(res.Warnings[0], "usage")) {
			t.Fatalf("%s: warnings %q", tc.name, res.Warnings)
		}
		if _, ok := tc.srv.bodies[0]["max_completion_tokens"]; !ok {
			t.Fatalf("%s: chat body without max_completion_tokens: %v", tc.name, tc.srv.bodies[0])
		}
	}
}

// TestConcurrencyCap checks that at most MaxConcurrency requests are ever
// open, seen by the server and in the records: the send time is taken after
// the cap admits a request, so [SendS, EndS) intervals never overlap more
// than the cap.
func TestConcurrencyCap(t *testing.T) {
	const limit = 3
	f := &fakeServer{hold: 10 * time.Millisecond, usage: true}
	srv := f.start(t)
	res, _, err := measure(context.Background(), Config{
		BaseURL: srv.URL, Samples: samples(15, 2), MaxConcurrency: limit,
	})
	if err != nil {
		t.Fatal(err)
	}
	if m := f.maxInflight.Load(); m > limit || m < 2 {
		t.Fatalf("server saw %d requests at once, cap %d", m, limit)
	}
	queued := 0
	for _, a := range res.Requests {
		open := 0
		for _, b := range res.Requests {
			if b.SendS <= a.SendS && a.SendS < b.EndS {
				open++
			}
		}
		if open > limit {
			t.Fatalf("%d requests open at t=%v, cap %d", open, a.SendS, limit)
		}
		if a.SendS-a.ArrivalS > 0.005 {
			queued++ // waited for the cap: the wait is not in its latency
		}
	}
	if queued == 0 {
		t.Fatal("with 15 requests released at once and cap 3, none waited")
	}
}

func TestScheduleIsFollowed(t *testing.T) {
	f := &fakeServer{usage: true}
	srv := f.start(t)
	const n, rate = 20, 200.0
	res, _, err := measure(context.Background(), Config{
		BaseURL: srv.URL, Samples: samples(n, 1), RequestRate: rate, Seed: 5,
	})
	if err != nil {
		t.Fatal(err)
	}
	want, _ := Schedule(n, rate, 1, 5)
	for i, r := range res.Requests {
		if r.ArrivalS < want[i] {
			t.Fatalf("request %d released at %v, before its time %v", i, r.ArrivalS, want[i])
		}
	}
	if last := res.Requests[n-1].ArrivalS; last < float64(n)/rate {
		t.Fatalf("last release %v before n/rate", last)
	}
}

func TestFailuresAreData(t *testing.T) {
	closed, _ := net.Listen("tcp", "127.0.0.1:0")
	refused := "http://" + closed.Addr().String()
	closed.Close()
	tests := []struct {
		name    string
		handler http.HandlerFunc
		url     string
		timeout time.Duration
		status  int
		want    string // substring of Error
	}{
		{name: "http 500 with body", handler: func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, `{"error":"model exploded"}`, 500)
		}, status: 500, want: `HTTP 500 Internal Server Error: {"error":"model exploded"}`},
		{name: "stream cut mid-way", handler: func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprint(w, "data: {\"choices\":[{\"text\":\"a\"}]}\n\ndata: {\"choi")
			w.(http.Flusher).Flush()
			c, _, _ := w.(http.Hijacker).Hijack()
			c.Close()
		}, status: 200, want: "stream cut after 1 token events"},
		{name: "garbage json", handler: func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprint(w, "data: {\"choices\":[{\"text\":\"a\"}]}\n\ndata: {not json}\n\n")
		}, status: 200, want: "malformed JSON chunk"},
		{name: "hang then timeout", handler: func(w http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body)
			fmt.Fprint(w, "data: {\"choices\":[{\"text\":\"a\"}]}\n\n")
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		}, timeout: 50 * time.Millisecond, status: 200, want: "request timeout after 50ms"},
		{name: "no token event", handler: func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprint(w, "data: {\"error\":{\"message\":\"overloaded\"}}\n\ndata: [DONE]\n\n")
		}, status: 200, want: `never received a valid chunk to calculate TTFT: server error {"message":"overloaded"}`},
		{name: "unreachable", url: refused, want: "connection refused"},
		// a server that ignores "stream": true and answers one JSON body
		{name: "not a stream", handler: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"choices":[{"text":"whole answer"}]}`)
		}, status: 200, want: `never received a valid chunk to calculate TTFT (the response is "application/json", not a text/event-stream)`},
		{name: "sse error event", handler: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprint(w, "event: error\ndata: {\"message\":\"queue full\"}\n\n")
		}, status: 200, want: `server error {"message":"queue full"}`},
	}
	for _, tc := range tests {
		url := tc.url
		if tc.handler != nil {
			srv := httptest.NewServer(tc.handler)
			defer srv.Close()
			url = srv.URL
		}
		res, _, err := measure(context.Background(), Config{
			BaseURL: url, Samples: samples(3, 4), RequestTimeout: tc.timeout,
		})
		if err != nil {
			t.Fatalf("%s: run error %v", tc.name, err)
		}
		if len(res.Requests) != 3 || res.Status != schema.StatusOK {
			t.Fatalf("%s: %d records, status %s", tc.name, len(res.Requests), res.Status)
		}
		for _, r := range res.Requests {
			if r.Success || !strings.Contains(r.Error, tc.want) || r.HTTPStatus != tc.status {
				t.Fatalf("%s: success %v status %d error %q, want %q", tc.name, r.Success, r.HTTPStatus, r.Error, tc.want)
			}
		}
	}
}

// TestCancelKeepsFinished: stopping the run (Ctrl-C) keeps the requests
// that finished and drops the ones cut by the stop.
func TestCancelKeepsFinished(t *testing.T) {
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body) // so that the server notices the client leaving
		if n.Add(1) > 2 {
			<-r.Context().Done() // the rest hang
			return
		}
		fmt.Fprint(w, "data: {\"choices\":[{\"text\":\"a\"}],\"usage\":{\"completion_tokens\":1}}\n\n")
	}))
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for n.Load() < 5 {
			time.Sleep(time.Millisecond)
		}
		time.Sleep(20 * time.Millisecond)
		cancel()
	}()
	res, _, err := measure(ctx, Config{BaseURL: srv.URL, Samples: samples(5, 1), MaxConcurrency: 5})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != schema.StatusInterrupted || len(res.Requests) != 2 {
		t.Fatalf("status %s, %d records, want interrupted with 2", res.Status, len(res.Requests))
	}
	for _, r := range res.Requests {
		if !r.Success {
			t.Fatalf("kept a failed record: %+v", r)
		}
	}
}

// TestRequestHeaders: extra headers reach every request, but the request
// id is ours (vLLM sets x-request-id after the extra headers), numbered
// from --request-id-prefix.
func TestRequestHeaders(t *testing.T) {
	var mu sync.Mutex
	got := map[string]http.Header{}
	f := &fakeServer{usage: true}
	srv := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got[r.Header.Get("x-request-id")] = r.Header.Clone()
		mu.Unlock()
		f.ServeHTTP(w, r)
	}))
	_, _, err := measure(context.Background(), Config{BaseURL: srv.URL, Samples: samples(2, 1), RequestIDPrefix: "run7-",
		Headers: map[string]string{"X-Tenant": "a", "x-request-id": "mine", "Authorization": "Bearer k"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"run7-0", "run7-1"} {
		h := got[id]
		if h == nil || h.Get("X-Tenant") != "a" || h.Get("Authorization") != "Bearer k" {
			t.Errorf("request %s: headers %v (all: %v)", id, h, got)
		}
	}
	if len(got) != 2 {
		t.Errorf("request ids %v, want run7-0 and run7-1", got)
	}
}

// TestCapAdmitsInOrder: with --max-concurrency the requests are sent in
// dataset order, as vLLM's FIFO asyncio.Semaphore sends them (a channel
// semaphore let the scheduler pick: Go runs the newest goroutine first).
func TestCapAdmitsInOrder(t *testing.T) {
	var mu sync.Mutex
	var order []string
	f := &fakeServer{usage: true}
	srv := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		order = append(order, r.Header.Get("x-request-id"))
		mu.Unlock()
		f.ServeHTTP(w, r)
	}))
	// cap 1: exact order (with a larger cap the admitted requests still
	// race each other to the socket, in vLLM too)
	_, _, err := measure(context.Background(), Config{BaseURL: srv.URL, Samples: samples(12, 1), MaxConcurrency: 1, RequestIDPrefix: "r"})
	if err != nil {
		t.Fatal(err)
	}
	for i, id := range order {
		if id != fmt.Sprintf("r%d", i) {
			t.Fatalf("send order %v, want r0 … r11", order)
		}
	}
}

// TestFIFOSemAbandon: a request cancelled while waiting leaves the queue;
// one cancelled after its admission passes its slot on.
func TestFIFOSemAbandon(t *testing.T) {
	s := newFIFOSem(1)
	a := s.enqueue() // admitted
	b := s.enqueue() // waits
	c := s.enqueue() // waits
	s.abandon(b)     // leaves the queue
	<-a
	s.release() // admits c, not b
	if len(c) != 1 || len(b) != 0 {
		t.Fatal("c not admitted after a's release, or b admitted")
	}
	d := s.enqueue()
	s.abandon(c) // c was admitted: its slot goes to d
	select {
	case <-d:
	default:
		t.Fatal("d not admitted after c gave up its slot")
	}
	s.release()
	if s.free != 1 || len(s.waiters) != 0 {
		t.Fatalf("free %d, waiters %d", s.free, len(s.waiters))
	}
}

// TestCountTextFallback: without usage, output tokens come from the
// generated text through CountText (vLLM's re-tokenizing fallback), not
// from the event count; the text kept for it is dropped afterwards.
func TestCountTextFallback(t *testing.T) {
	srv := (&fakeServer{}).start(t) // no usage chunk; texts "t0", "t1", …
	count := func(_ context.Context, text string) (int, error) { return len(text), nil }
	res, _, err := measure(context.Background(), Config{BaseURL: srv.URL, Samples: samples(2, 6), CountText: count})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Requests {
		// 6 events "t0".."t5": 12 characters, where the events count 6
		if !r.Success || r.OutputTokens != 12 || !r.OutputCounted || r.GeneratedText != "" {
			t.Errorf("record %+v", r)
		}
	}
	if len(res.Warnings) == 0 || !strings.Contains(strings.Join(res.Warnings, "\n"), "tokenizing the generated text") {
		t.Errorf("warnings %q", res.Warnings)
	}
	// a failing tokenizer leaves the event counts, and says so
	fail := func(context.Context, string) (int, error) { return 0, fmt.Errorf("tokenizer down") }
	res, _, err = measure(context.Background(), Config{BaseURL: srv.URL, Samples: samples(2, 6), CountText: fail, KeepText: true})
	if err != nil {
		t.Fatal(err)
	}
	w := strings.Join(res.Warnings, "\n")
	if res.Requests[0].OutputTokens != 6 || res.Requests[0].GeneratedText == "" || !strings.Contains(w, "tokenizer down") || !strings.Contains(w, "counted as token events") {
		t.Errorf("record %+v, warnings %q", res.Requests[0], res.Warnings)
	}
}

// TestCancelBeforeAnyFinished: a run stopped before its first request
// finished still comes back (interrupted, no summary), so that the command
// can report and save it; Summarize would refuse an empty run.
func TestCancelBeforeAnyFinished(t *testing.T) {
	var n atomic.Int64
	srv := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		n.Add(1)
		<-r.Context().Done() // every request hangs
	}))
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for n.Load() < 3 {
			time.Sleep(time.Millisecond)
		}
		cancel()
	}()
	res, err := Run(ctx, Config{BaseURL: srv.URL, Samples: samples(3, 1)})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != schema.StatusInterrupted || len(res.Requests) != 0 || res.Summary != nil || res.Client == nil {
		t.Fatalf("status %s, %d records, summary %v, client %v", res.Status, len(res.Requests), res.Summary, res.Client)
	}
}

func TestConfigErrors(t *testing.T) {
	for _, cfg := range []Config{
		{Samples: samples(1, 1), Backend: "tgi"},
		{Samples: samples(1, 1), Backend: "openai-chat", Endpoint: "/v1/completions"},
		{Samples: samples(1, 1), Endpoint: "/v1/embeddings"},
		{},
		{Samples: samples(1, 1), RequestRate: -1},
		{Samples: samples(1, 1), MaxConcurrency: -1},
	} {
		if _, _, err := measure(context.Background(), cfg); err == nil {
			t.Errorf("%+v: no error", cfg)
		}
	}
}

// TestRunSummarizes checks the records and the summary agree (Run =
// measure + metrics.Summarize with the run's duration).
func TestRunSummarizes(t *testing.T) {
	f := &fakeServer{ttft: 2 * time.Millisecond, itl: time.Millisecond, usage: true}
	srv := f.start(t)
	var progress bytes.Buffer
	res, err := Run(context.Background(), Config{
		BaseURL: srv.URL, Model: "m", Samples: samples(5, 4), MaxConcurrency: 2, Progress: &progress,
		Metrics: metrics.Options{Percentiles: []float64{50}},
	})
	if err != nil {
		t.Fatal(err)
	}
	s := res.Summary
	if s.Completed != 5 || s.Failed != 0 || s.TotalOutputTokens != 20 || s.TotalInputTokens != 5*7 {
		t.Fatalf("summary %+v", s)
	}
	if s.MaxConcurrentRequests == nil || *s.MaxConcurrentRequests > 2 {
		t.Fatalf("peak concurrency %v above the cap", s.MaxConcurrentRequests)
	}
	if p50, ok := s.TTFT.Get(50); !ok || p50 < 2 {
		t.Fatalf("TTFT p50 %v ms, server waits 2 ms", p50)
	}
	if !strings.Contains(progress.String(), "5/5 requests done, 0 failed") {
		t.Fatalf("progress %q", progress.String())
	}
}

func TestWarnings(t *testing.T) {
	ok := schema.Request{Success: true, EventS: []float64{1, 1.00001, 1.00002}}
	counted := ok
	counted.OutputCounted = true
	tests := []struct {
		name   string
		reqs   []schema.Request
		client schema.ClientStats
		want   []string // substrings, in order
	}{
		{"clean", []schema.Request{ok}, schema.ClientStats{SchedulingLagP99Ms: 2}, nil},
		{"fallback count", []schema.Request{ok, counted}, schema.ClientStats{}, []string{"1 of 2 successful requests"}},
		{"behind schedule", []schema.Request{ok}, schema.ClientStats{SchedulingLagP99Ms: 25, SchedulingLagMaxMs: 40}, []string{"fell behind the schedule: requests left up to 40.0 ms late"}},
		{"coalesced", []schema.Request{ok}, schema.ClientStats{CoalescedEventFraction: 0.8}, []string{"80% of ITL samples are under 0.1 ms"}},
	}
	for _, tc := range tests {
		res := &schema.Result{Requests: tc.reqs, Client: &tc.client}
		got := warnings(res, Config{})
		if len(got) != len(tc.want) {
			t.Fatalf("%s: warnings %q", tc.name, got)
		}
		for i, w := range tc.want {
			if !strings.Contains(got[i], w) {
				t.Errorf("%s: %q lacks %q", tc.name, got[i], w)
			}
		}
	}
	// the coalesced fraction is computed from the records
	cs := clientStats([]schema.Request{ok}, []float64{1, 2, 3}, 10, 2, 1)
	if cs.CoalescedEventFraction != 1 || cs.EventsPerS != 5 || cs.CPUPercent != 50 || cs.SchedulingLagMaxMs != 3 || cs.SchedulingLagP50Ms != 2 {
		t.Fatalf("client stats %+v", cs)
	}
}

// TestWarmupsAreNotRecorded: warmups send the first sample, are awaited,
// and leave no record.
func TestWarmupsAreNotRecorded(t *testing.T) {
	f := &fakeServer{usage: true}
	srv := f.start(t)
	res, _, err := measure(context.Background(), Config{BaseURL: srv.URL, Samples: samples(3, 2), NumWarmups: 4, MaxConcurrency: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(f.bodies) != 7 || len(res.Requests) != 3 {
		t.Fatalf("server saw %d requests, %d records; want 7 and 3", len(f.bodies), len(res.Requests))
	}
	for _, b := range f.bodies[:4] {
		if b["prompt"] != "prompt 0" {
			t.Fatalf("warmup sent %v, want the first sample", b["prompt"])
		}
	}
	if f.maxInflight.Load() > 2 {
		t.Fatalf("warmups ran %d at once, cap 2", f.maxInflight.Load())
	}
}
