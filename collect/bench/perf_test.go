package bench

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/perflab/perflab/collect/dataset"
	"github.com/perflab/perflab/collect/schema"
)

// eventReader returns a pre-built SSE stream perRead events per Read, as
// a network connection delivering them would.
type eventReader struct {
	events  [][]byte
	perRead int
	i       int
}

func (e *eventReader) Read(p []byte) (int, error) {
	if e.i >= len(e.events) {
		return 0, io.EOF
	}
	n := 0
	for k := 0; k < e.perRead && e.i < len(e.events) && n+len(e.events[e.i]) <= len(p); k++ {
		n += copy(p[n:], e.events[e.i])
		e.i++
	}
	return n, nil
}

// streamTransport answers every request with a 200 and a fresh stream.
type streamTransport struct {
	events  [][]byte
	perRead int
}

func (s *streamTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	io.Copy(io.Discard, req.Body)
	req.Body.Close()
	return &http.Response{StatusCode: 200, Status: "200 OK", Header: http.Header{},
		Body: io.NopCloser(&eventReader{events: s.events, perRead: s.perRead}), Request: req}, nil
}

// llamaStream is a llama.cpp-shaped completion stream of n token events.
func llamaStream(n int) [][]byte {
	var ev [][]byte
	for i := range n {
		ev = append(ev, []byte(`data: {"choices":[{"text":" token`+strconv.Itoa(i)+`","index":0,"logprobs":null,"finish_reason":null}],"created":1795338779,"model":"tiny-qwen","system_fingerprint":"b11669-Debian","object":"text_completion","id":"chatcmpl-dOEcAQ7CadqwAvINf14fQvF92nhUJcqa"}`+"\n\n"))
	}
	ev = append(ev, []byte(`data: {"choices":[{"text":"","index":0,"logprobs":null,"finish_reason":"length"}],"usage":{"completion_tokens":`+strconv.Itoa(n)+`,"prompt_tokens":33,"total_tokens":49}}`+"\n\n"))
	return append(ev, []byte("data: [DONE]\n\n"))
}

// BenchmarkStreamEvents measures the client's whole per-event path (SSE
// framing, chunk parsing, timestamp, record) with no network: token events
// per second per core. Run with -cpu 1 for one core.
func BenchmarkStreamEvents(b *testing.B) {
	const tokens = 1024
	// count-text: as perflab bench runs, with a tokenizer for the no-usage
	// fallback, and texts with escapes ("\n")
	count := func(context.Context, string) (int, error) { return 0, nil }
	for _, tc := range []struct {
		name    string
		perRead int
		count   func(context.Context, string) (int, error)
		stall   time.Duration // StallTimeout (0: off)
	}{{"events-per-read=1", 1, nil, 0}, {"events-per-read=16", 16, nil, 0}, {"events-per-read=16/count-text", 16, count, 0},
		// the stall watch's cost per event, beside events-per-read=1
		{"events-per-read=1/stall-watch", 1, nil, DefaultStallTimeout}} {
		perRead := tc.perRead
		b.Run(tc.name, func(b *testing.B) {
			events := llamaStream(tokens)
			if tc.count != nil {
				for i := range events {
					events[i] = bytes.Replace(events[i], []byte(`" token`), []byte(`"\n token`), 1)
				}
			}
			tr := &streamTransport{events: events, perRead: perRead}
			r := newRunner(Config{Backend: "openai", Model: "m", RequestTimeout: time.Hour, Samples: []dataset.Sample{{Prompt: "p", OutputLen: tokens}},
				CountText: tc.count, StallTimeout: tc.stall})
			r.url = "http://bench.invalid/v1/completions"
			r.client = &http.Client{Transport: tr}
			r.base = time.Now()
			b.ReportAllocs()
			start := time.Now()
			for b.Loop() {
				var rec schema.Request
				r.request(context.Background(), 0, &rec, nil)
				if !rec.Success || len(rec.EventS) != tokens+1 {
					b.Fatalf("%+v", rec)
				}
			}
			b.ReportMetric(float64(b.N*(tokens+1))/time.Since(start).Seconds(), "events/s")
			b.ReportMetric(0, "ns/op")
		})
	}
}

// fixedServer streams with exact delays (TTFT, then ITL between tokens,
// slept to absolute deadlines) and records when it flushed each token
// event, so the client's added latency can be told from the server's.
type fixedServer struct {
	ttft, itl time.Duration
	tokens    int
	noRecord  bool // do not keep flush times (the separate-process server)
	mu        sync.Mutex
	flushed   map[string][]time.Time // by x-request-id
}

func (f *fixedServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	io.Copy(io.Discard, r.Body)
	start := time.Now()
	w.Header().Set("Content-Type", "text/event-stream")
	fl := w.(http.Flusher)
	times := make([]time.Time, 0, f.tokens)
	for i := range f.tokens {
		time.Sleep(time.Until(start.Add(f.ttft + time.Duration(i)*f.itl)))
		fmt.Fprintf(w, "data: {\"choices\":[{\"text\":\" t%d\",\"index\":0}]}\n\n", i)
		fl.Flush()
		times = append(times, time.Now())
	}
	fmt.Fprintf(w, "data: {\"choices\":[],\"usage\":{\"completion_tokens\":%d}}\n\ndata: [DONE]\n\n", f.tokens)
	if f.noRecord {
		return
	}
	f.mu.Lock()
	f.flushed[r.Header.Get("x-request-id")] = times
	f.mu.Unlock()
}

func pct(s []float64, p float64) float64 {
	if len(s) == 0 {
		return math.NaN()
	}
	sort.Float64s(s)
	return percentile(s, p)
}

// BenchmarkClientLatency runs `streams` concurrent streams against an
// in-process server with known delays (TTFT 50 ms, ITL 20 ms, 32 tokens)
// and reports, in ms, how far the client's TTFT and ITL are from them
// (error, p50/p99), how long after the server's flush the client stamped
// each event (deliver, p50/p99), and the process CPU (client and server
// together). One iteration is one run; use -benchtime 1x.
func BenchmarkClientLatency(b *testing.B) {
	const ttft, itl, tokens = 50 * time.Millisecond, 20 * time.Millisecond, 32
	for _, streams := range []int{1, 256, 1024, 4096} {
		b.Run(fmt.Sprintf("streams=%d", streams), func(b *testing.B) {
			f := &fixedServer{ttft: ttft, itl: itl, tokens: tokens}
			srv := startServer(b, f)
			var ttftErr, itlErr, deliver []float64
			var cpu float64
			for b.Loop() {
				f.flushed = map[string][]time.Time{}
				var start time.Time
				res, _, err := measure(context.Background(), Config{
					BaseURL: srv.URL, Samples: samples(streams, tokens), RequestTimeout: time.Minute,
					// the warmups open the connections, so that TTFT is not
					// the cost of dialing thousands of sockets at once
					NumWarmups: streams, onStart: func(t time.Time) { start = t },
				})
				if err != nil {
					b.Fatal(err)
				}
				for _, r := range res.Requests {
					if !r.Success {
						b.Fatalf("request %d: %s", r.Index, r.Error)
					}
					ttftErr = append(ttftErr, (r.EventS[0]-r.SendS)*1000-ttft.Seconds()*1000)
					for k := 1; k < len(r.EventS); k++ {
						itlErr = append(itlErr, math.Abs((r.EventS[k]-r.EventS[k-1])*1000-itl.Seconds()*1000))
					}
					var fl []time.Time
					for id, t := range f.flushed {
						if strings.HasSuffix(id, "-"+strconv.Itoa(r.Index)) {
							fl = t
						}
					}
					for k := range min(len(fl), len(r.EventS)) {
						client := start.Add(time.Duration(r.EventS[k] * float64(time.Second)))
						deliver = append(deliver, float64(client.Sub(fl[k]).Nanoseconds())/1e6)
					}
				}
				cpu = res.Client.CPUPercent
			}
			b.ReportMetric(pct(ttftErr, 50), "ttft-err-p50-ms")
			b.ReportMetric(pct(ttftErr, 99), "ttft-err-p99-ms")
			b.ReportMetric(pct(itlErr, 50), "itl-err-p50-ms")
			b.ReportMetric(pct(itlErr, 99), "itl-err-p99-ms")
			b.ReportMetric(pct(deliver, 50), "deliver-p50-ms")
			b.ReportMetric(pct(deliver, 99), "deliver-p99-ms")
			b.ReportMetric(cpu, "cpu-%")
			b.ReportMetric(float64(runtime.GOMAXPROCS(0)), "procs")
			b.ReportMetric(0, "ns/op")
		})
	}
}

// BenchmarkClientLatencyProc is BenchmarkClientLatency with the server in
// another process: cpu-% is then the client's own CPU (100 = one core).
func BenchmarkClientLatencyProc(b *testing.B) {
	const ttft, itl, tokens = 50 * time.Millisecond, 20 * time.Millisecond, 32
	for _, streams := range []int{1, 256, 1024, 4096} {
		b.Run(fmt.Sprintf("streams=%d", streams), func(b *testing.B) {
			url := startFixedServer(b, ttft, itl, tokens)
			var ttftErr, itlErr []float64
			var cpu, evs float64
			for b.Loop() {
				res, _, err := measure(context.Background(), Config{
					BaseURL: url, Samples: samples(streams, tokens), RequestTimeout: time.Minute, NumWarmups: streams,
				})
				if err != nil {
					b.Fatal(err)
				}
				for _, r := range res.Requests {
					if !r.Success {
						b.Fatalf("request %d: %s", r.Index, r.Error)
					}
					ttftErr = append(ttftErr, (r.EventS[0]-r.SendS)*1000-ttft.Seconds()*1000)
					for k := 1; k < len(r.EventS); k++ {
						itlErr = append(itlErr, math.Abs((r.EventS[k]-r.EventS[k-1])*1000-itl.Seconds()*1000))
					}
				}
				cpu, evs = res.Client.CPUPercent, res.Client.EventsPerS
			}
			b.ReportMetric(pct(ttftErr, 50), "ttft-err-p50-ms")
			b.ReportMetric(pct(ttftErr, 99), "ttft-err-p99-ms")
			b.ReportMetric(pct(itlErr, 50), "itl-err-p50-ms")
			b.ReportMetric(pct(itlErr, 99), "itl-err-p99-ms")
			b.ReportMetric(cpu, "client-cpu-%")
			b.ReportMetric(evs, "events/s")
			b.ReportMetric(0, "ns/op")
		})
	}
}
