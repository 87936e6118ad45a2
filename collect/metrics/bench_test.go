package metrics

import (
	"io"
	"math/rand/v2"
	"testing"

	"github.com/perflab/perflab/collect/schema"
)

// benchRecords is a large run: n successful requests of exactly events
// token events each, 64 in flight.
func benchRecords(n, events int) []schema.Request {
	rng := rand.New(rand.NewPCG(1, 2))
	reqs := make([]schema.Request, n)
	for i := range reqs {
		r := &reqs[i]
		r.Index = i
		r.SendS = float64(i/64) * 4.5
		r.ArrivalS = r.SendS
		r.PromptTokens = 1024
		r.OutputTokens = events
		r.Success = true
		t := r.SendS + 0.05 + rng.ExpFloat64()*0.1
		r.EventS = make([]float64, events)
		for k := range r.EventS {
			t += rng.ExpFloat64() * 0.02
			r.EventS[k] = t
		}
		r.EndS = t
	}
	return reqs
}

// BenchmarkSummarize: 10,000 requests × 200 events (about 2 M ITL samples),
// every metric group and four percentiles.
func BenchmarkSummarize(b *testing.B) {
	reqs := benchRecords(10_000, 200)
	opt := Options{Metrics: []string{"ttft", "tpot", "itl", "e2el"}, Percentiles: []float64{50, 90, 99, 99.9},
		Goodput: map[string]float64{"ttft": 500}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Summarize(reqs, opt); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkWriteVLLMJSONDetailed: the --save-detailed file of the same run
// (about 2 M ITL floats in Python repr).
func BenchmarkWriteVLLMJSONDetailed(b *testing.B) {
	reqs := benchRecords(10_000, 200)
	opt := Options{}
	s, err := Summarize(reqs, opt)
	if err != nil {
		b.Fatal(err)
	}
	h := VLLMHeader{Backend: "openai", ModelID: "m", Options: opt}
	b.ReportAllocs()
	for b.Loop() {
		if err := WriteVLLMJSON(io.Discard, reqs, s, h, true); err != nil {
			b.Fatal(err)
		}
	}
}
