package redact

import (
	"io"
	"strings"
	"testing"
)

// BenchmarkWriter measures the redacting writer on engine-log-like lines:
// every byte an engine prints passes through it on its way to the log.
func BenchmarkWriter(b *testing.B) {
	line := "INFO 11-22 09:10:57 [loggers.py:123] Engine 000: Avg prompt throughput: 35012.3 tokens/s, Avg generation throughput: 2127.9 tokens/s, Running: 32 reqs, Waiting: 0 reqs, GPU KV cache usage: 41.2%, Prefix cache hit rate: 0.0%\n"
	chunk := []byte(strings.Repeat(line, 64))
	w := New("hf_secretsecretsecretsecret1234").Writer(io.Discard)
	b.SetBytes(int64(len(chunk)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		w.Write(chunk)
	}
}

// BenchmarkWalkResult measures Walk on a result as render loads it: a
// vLLM result block of raw output, commands, warnings and per-request
// records (render redacts every result of a site this way).
func BenchmarkWalkResult(b *testing.B) {
	type request struct {
		TTFTMs, LatencyMs float64
		ITLMs             []float64
		Error             string
	}
	type result struct {
		Command, RawOutput string
		Env                map[string]string
		Warnings           []string
		Requests           []request
	}
	raw := strings.Repeat("============ Serving Benchmark Result ============\nSuccessful requests:                     1000\nTotal input tokens:                      1024000\nTotal generated tokens:                  128000\nOutput token throughput (tok/s):         2127.9\nMean TTFT (ms):                          12.3\nMean TPOT (ms):                          4.5\n", 4)
	fresh := func() *result {
		r := &result{Command: "vllm serve Qwen/Qwen3-32B --max-num-batched-tokens 16384 -tp 2", RawOutput: raw,
			Env: map[string]string{"VLLM_USE_V1": "1"}, Warnings: []string{"the client's lag p99 passed 10 ms"}, Requests: make([]request, 1000)}
		for i := range r.Requests {
			r.Requests[i].ITLMs = make([]float64, 8)
		}
		return r
	}
	rs := make([]*result, b.N)
	for i := range rs {
		rs[i] = fresh()
	}
	red := New()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		red.Walk(rs[i])
	}
}
