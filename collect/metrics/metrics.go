// Package metrics turns per-request records into vLLM's metrics: pure
// functions, no I/O but the writers. (API contract; the implementation is
// being written.)
package metrics

import (
	"errors"
	"io"

	"github.com/perflab/perflab/collect/schema"
)

// Options select what Summarize computes, as `vllm bench serve` flags do.
type Options struct {
	// DurationS is the benchmark's wall time (first send to last end).
	DurationS float64
	// Metrics is --percentile-metrics (ttft, tpot, itl, e2el); default ttft,tpot,itl.
	Metrics []string
	// Percentiles is --metric-percentiles; default [99].
	Percentiles []float64
	// Goodput holds the --goodput SLOs in ms by metric name (ttft, tpot,
	// e2el); empty means no goodput.
	Goodput map[string]float64
	// MaxConcurrency is the configured cap (0 = none), for the text block.
	MaxConcurrency int
	// RequestRate (0 = inf) and Burstiness, for the text block and JSON.
	RequestRate float64
	Burstiness  float64
}

// Summarize computes the summary of reqs with vLLM's definitions.
func Summarize(reqs []schema.Request, opt Options) (*schema.Summary, error) {
	return nil, errors.New("metrics: not implemented")
}

// WriteText writes the "Serving Benchmark Result" block in vLLM's exact layout.
func WriteText(w io.Writer, s *schema.Summary, opt Options) error {
	return errors.New("metrics: not implemented")
}
