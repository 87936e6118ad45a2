package mock

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// BenchmarkFixedStreams measures the fixed timing mode under load: N
// concurrent streams of 50 tokens each against one in-process server, read
// by a lean Go client in the same process (so client and server share the
// CPU, as on a benchmark box), over connections opened beforehand.
// Reported per run:
//
//	events/s       token events received per second, all streams
//	itl_mean_ms    mean gap between a stream's token events (want ITL)
//	itl_p99_ms     99th percentile of those gaps, pooled
//	late_p50_ms    how late token k arrived against arrival+TTFT+k*ITL,
//	late_p99_ms    measured from the client's send time
//	ttft_p99_ms    99th percentile time to the first token event
//
// Run: go test -run '^$' -bench FixedStreams -benchtime 2x ./collect/mock/
func BenchmarkFixedStreams(b *testing.B) {
	for _, itl := range []time.Duration{5 * time.Millisecond, 20 * time.Millisecond} {
		for _, n := range []int{1, 256, 4096} {
			b.Run(fmt.Sprintf("itl=%v/streams=%d", itl, n), func(b *testing.B) {
				benchStreams(b, Config{TTFT: 20 * time.Millisecond, ITL: itl}, n, 50)
			})
		}
	}
}

func benchStreams(b *testing.B, cfg Config, streams, tokens int) {
	s, err := New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	benchHandler(b, s, cfg, streams, tokens)
}

func benchHandler(b *testing.B, h http.Handler, cfg Config, streams, tokens int) {
	ts := httptest.NewServer(h)
	defer ts.Close()
	var ru0, ru1 syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru0)
	client := &http.Client{Transport: &http.Transport{
		MaxIdleConns: streams, MaxIdleConnsPerHost: streams, DisableCompression: true,
		ReadBufferSize: 16 << 10,
	}}
	defer client.CloseIdleConnections()
	body := fmt.Sprintf(`{"prompt":"bench","max_tokens":%d,"stream":true,"ignore_eos":true}`, tokens)

	// Open the connections first, as a benchmark client's warm-up does:
	// 4096 cold dials take seconds on a small VM and are not the mock.
	var warm sync.WaitGroup
	for range streams {
		warm.Add(1)
		go func() {
			defer warm.Done()
			resp, err := client.Post(ts.URL+"/v1/completions?warm", "application/json", strings.NewReader(`{"prompt":"warm","max_tokens":1}`))
			if err == nil {
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		}()
	}
	warm.Wait()

	var gaps, late, ttfts []float64
	var events int
	var wall time.Duration
	for b.Loop() {
		type result struct {
			gaps, late []float64
			ttft       float64
			events     int
			err        error
		}
		res := make([]result, streams)
		var wg sync.WaitGroup
		start := time.Now()
		for i := range streams {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r := &res[i]
				r.gaps = make([]float64, 0, tokens)
				r.late = make([]float64, 0, tokens)
				sent := time.Now()
				resp, err := client.Post(ts.URL+"/v1/completions", "application/json", strings.NewReader(body))
				if err != nil {
					r.err = err
					return
				}
				defer resp.Body.Close()
				br := bufio.NewReaderSize(resp.Body, 16<<10)
				var last time.Time
				for {
					line, err := br.ReadSlice('\n')
					if err != nil {
						break
					}
					if !bytes.HasPrefix(line, []byte("data: {")) {
						continue
					}
					now := time.Now()
					k := r.events
					due := sent.Add(cfg.TTFT + time.Duration(k)*cfg.ITL)
					r.late = append(r.late, ms64(now.Sub(due)))
					if k == 0 {
						r.ttft = ms64(now.Sub(sent))
					} else {
						r.gaps = append(r.gaps, ms64(now.Sub(last)))
					}
					last = now
					r.events++
				}
			}()
		}
		wg.Wait()
		wall += time.Since(start)
		for _, r := range res {
			if r.err != nil {
				b.Fatal(r.err)
			}
			if r.events != tokens {
				b.Fatalf("a stream got %d of %d events", r.events, tokens)
			}
			gaps = append(gaps, r.gaps...)
			late = append(late, r.late...)
			ttfts = append(ttfts, r.ttft)
			events += r.events
		}
	}
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru1)
	cpu := time.Duration(ru1.Utime.Nano() + ru1.Stime.Nano() - ru0.Utime.Nano() - ru0.Stime.Nano())
	b.ReportMetric(float64(cpu.Microseconds())/float64(events), "cpu_µs/event")
	b.ReportMetric(float64(events)/wall.Seconds(), "events/s")
	b.ReportMetric(mean(gaps), "itl_mean_ms")
	b.ReportMetric(pct(gaps, 99), "itl_p99_ms")
	if cfg.Batching == nil { // lateness against a fixed schedule only
		b.ReportMetric(pct(late, 50), "late_p50_ms")
		b.ReportMetric(pct(late, 99), "late_p99_ms")
	}
	b.ReportMetric(pct(ttfts, 99), "ttft_p99_ms")
}

func ms64(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func mean(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}

// pct is a nearest-rank percentile, enough for a benchmark report.
func pct(v []float64, p float64) float64 {
	if len(v) == 0 {
		return 0
	}
	slices.Sort(v)
	i := int(p / 100 * float64(len(v)-1))
	return v[i]
}

// BenchmarkBatchingStreams is a similar load against the vllm preset
// (max batch 256): there the model is the limit by design, and itl_mean_ms
// should match its step time (8 ms + 256 × 60 µs + context ≈ 23.5 ms with
// a full batch); 4096 streams queue in 16 waves.
func BenchmarkBatchingStreams(b *testing.B) {
	p, _ := Preset("vllm")
	for _, c := range []struct{ streams, tokens int }{{256, 50}, {4096, 10}} {
		b.Run(fmt.Sprintf("streams=%d", c.streams), func(b *testing.B) {
			benchStreams(b, Config{Batching: &p}, c.streams, c.tokens)
		})
	}
}

// BenchmarkBareStreams is the floor: the same client against a bare Go
// SSE handler that only sleeps to each deadline and writes a constant
// event of the mock's size. The mock's numbers close to these mean the
// transport (loopback TCP, one write per event), not the mock, is the
// limit.
func BenchmarkBareStreams(b *testing.B) {
	for _, n := range []int{256, 4096} {
		b.Run(fmt.Sprintf("itl=20ms/streams=%d", n), func(b *testing.B) {
			cfg := Config{TTFT: 20 * time.Millisecond, ITL: 20 * time.Millisecond}
			benchHandler(b, bareSSE(cfg, 50), cfg, n, 50)
		})
	}
}

func bareSSE(cfg Config, tokens int) http.Handler {
	event := []byte(`data: {"id":"cmpl-00000000000000000000000000000000","object":"text_completion","created":1700000000,"model":"mock","choices":[{"index":0,"text":" abc","logprobs":null,"finish_reason":null,"stop_reason":null}]}` + "\n\n")
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		io.Copy(io.Discard, r.Body)
		n := tokens
		if strings.Contains(r.URL.RawQuery, "warm") {
			n = 1
		}
		w.Header().Set("Content-Type", "text/event-stream")
		rc := http.NewResponseController(w)
		rc.Flush()
		t := time.NewTimer(0)
		<-t.C
		for k := range n {
			if d := time.Until(start.Add(cfg.TTFT + time.Duration(k)*cfg.ITL)); d > 0 {
				t.Reset(d)
				<-t.C
			}
			w.Write(event)
			rc.Flush()
		}
		w.Write([]byte("data: [DONE]\n\n"))
	})
}

// discardWriter is a ResponseWriter that drops the body, for measuring the
// handler's own cost without a socket.
type discardWriter struct {
	h http.Header
	n int64
}

func (d *discardWriter) Header() http.Header         { return d.h }
func (d *discardWriter) Write(b []byte) (int, error) { d.n += int64(len(b)); return len(b), nil }
func (d *discardWriter) WriteHeader(int)             {}
func (d *discardWriter) Flush()                      {}

// BenchmarkHandlerPerToken is the mock's own CPU cost per streamed token:
// one 1000-token stream with no delays into a writer without a socket
// (parsing, formatting, pacing and flush calls; no syscalls).
func BenchmarkHandlerPerToken(b *testing.B) {
	for _, chat := range []bool{false, true} {
		path, body := "/v1/completions", `{"prompt":"hello","max_tokens":1000,"stream":true,"ignore_eos":true,"stream_options":{"include_usage":true}}`
		if chat {
			path, body = "/v1/chat/completions", `{"messages":[{"role":"user","content":"hello"}],"max_tokens":1000,"stream":true,"ignore_eos":true}`
		}
		b.Run(path, func(b *testing.B) {
			s, err := New(Config{})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			w := &discardWriter{h: http.Header{}}
			b.ReportAllocs()
			for b.Loop() {
				r := httptest.NewRequest("POST", path, strings.NewReader(body))
				s.ServeHTTP(w, r)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1000, "ns/token")
			b.ReportMetric(float64(w.n)/float64(b.N)/1000, "bytes/token")
		})
	}
}
