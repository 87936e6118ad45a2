// Package bench is the benchmark core: arrival schedule, concurrency cap,
// streaming requests and per-request records. (API contract; the
// implementation is being written.)
package bench

import (
	"context"
	"errors"
	"io"
	"time"

	"github.com/perflab/perflab/collect/dataset"
	"github.com/perflab/perflab/collect/metrics"
	"github.com/perflab/perflab/collect/schema"
)

// Config is one benchmark run. Zero values mean vLLM's defaults.
type Config struct {
	BaseURL  string // http://127.0.0.1:8000
	Endpoint string // /v1/completions or /v1/chat/completions
	Backend  string // openai or openai-chat
	Model    string // the "model" field sent
	Samples  []dataset.Sample

	RequestRate    float64 // requests/s; 0 = inf
	Burstiness     float64 // 1 = Poisson
	MaxConcurrency int     // 0 = unlimited
	Seed           int64
	IgnoreEOS      bool
	NumWarmups     int
	// RequestTimeout bounds one request (0 = 6 h, as aiohttp's default in vLLM).
	RequestTimeout time.Duration
	Metrics        metrics.Options
	// Progress receives a live progress line (nil: quiet).
	Progress io.Writer
}

// Run runs the benchmark and returns a result with its records, summary
// and client statistics. Request failures are data in the result; an error
// means the run itself could not happen.
func Run(ctx context.Context, cfg Config) (*schema.Result, error) {
	return nil, errors.New("bench: not implemented")
}
