package metrics

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/perflab/perflab/collect/schema"
)

// Metric names accepted in Options.Metrics (vLLM's --percentile-metrics),
// in the order vLLM prints them whatever order they are given in.
const (
	MetricTTFT          = "ttft"
	MetricTPOT          = "tpot"
	MetricITL           = "itl"
	MetricE2EL          = "e2el"
	MetricClientQueue   = "client_queue_time"
	MetricE2ELInclQueue = "e2el_including_client_queue"
)

// metricNames lists the metric names in the print order of vLLM's
// process_one_metric calls.
func metricNames() []string {
	return []string{MetricTTFT, MetricTPOT, MetricITL, MetricE2EL, MetricClientQueue, MetricE2ELInclQueue}
}

// Options select what Summarize computes and how the writers lay it out,
// as `vllm bench serve` flags do. The zero value is vLLM's defaults with
// the duration taken from the records.
type Options struct {
	// DurationS is the benchmark's wall time in seconds, from the start of
	// the dispatch loop (the run's t=0) until every request has ended. Zero
	// means: derive it from the records (see the package doc).
	DurationS float64
	// Metrics is --percentile-metrics: which of ttft, tpot, itl, e2el,
	// client_queue_time, e2el_including_client_queue the text block and
	// the vLLM JSON report. Nil means vLLM's default ttft,tpot,itl.
	// Summarize computes TTFT, TPOT, ITL and E2EL whatever is selected.
	Metrics []string
	// Percentiles is --metric-percentiles, each in [0, 100], reported in
	// this order. Nil means [99].
	Percentiles []float64
	// Goodput holds the --goodput SLOs in ms by metric name (ttft, tpot,
	// e2el), each >= 0. Empty means no goodput (Summary.RequestGoodput nil).
	Goodput map[string]float64
	// MaxConcurrency is the configured cap (--max-concurrency); 0 = none.
	// With a cap, the client-queue metrics are computed.
	MaxConcurrency int
	// RequestRate is --request-rate in requests/s; 0 means inf.
	RequestRate float64
	// Burstiness is --burstiness; 0 means 1.0. Only written to the JSON.
	Burstiness float64

	// SkipTokenizer mirrors --skip-tokenizer-init: a successful request
	// whose OutputTokens is 0 counts as 1 token, and the text block and
	// JSON leave out the token rows and the TTFT/TPOT/ITL groups, as vLLM
	// does without a tokenizer.
	SkipTokenizer bool
	// CountTokens, when set and SkipTokenizer is false, counts the tokens
	// of GeneratedText for a successful request whose OutputTokens is 0
	// (vLLM re-tokenizes then). Nil keeps the recorded 0.
	CountTokens func(text string) int

	// The switches below select older vLLM behaviour; false is the newest.

	// DatasetInputTokens counts input tokens from the dataset
	// (Request.PromptTokens) even when the server reported
	// usage.prompt_tokens, as vLLM before the usage change (mid/old) did.
	DatasetInputTokens bool
	// BucketedPeakConcurrency computes "Peak concurrent requests" as vLLM
	// up to at least 0.28 did: a request counts in every whole second from
	// int(start−t0) to int(end−t0) inclusive, and the peak is the largest
	// second's count. It overcounts requests that merely share a second.
	BucketedPeakConcurrency bool
	// LatencyToStreamEnd ends E2EL (and so TPOT) at Request.EndS (the
	// [DONE] or EOF) instead of the last token event, as 2024 vLLM did.
	LatencyToStreamEnd bool
	// CapitalTokenLabel prints "Total Token throughput (tok/s):" as vLLM
	// releases from 2024 to about autumn 2025 did.
	CapitalTokenLabel bool
	// Numpy23Sum sums means and standard deviations as numpy 2.3 and later
	// do (one pairwise pass over the whole array) instead of as numpy up to
	// 2.2 (pairwise within 8192-element chunks, the chunks added in order).
	// The default follows the numpy that vLLM's environments lock (2.2.x,
	// and numba 0.61 requires < 2.3). The two differ only in the last bits
	// and only for more than 8192 samples (in practice the pooled ITLs).
	Numpy23Sum bool
}

// sumChunk is the summation chunk the kernel uses.
func (o Options) sumChunk() int {
	if o.Numpy23Sum {
		return 0
	}
	return numpyBufSize
}

// maxBuckets bounds the per-second arrays of the peak metrics (115 days);
// a longer span means the record times are not seconds.
const maxBuckets = 10_000_000

// config is Options with defaults applied and validated.
type config struct {
	Options
	selected map[string]bool
}

func (o Options) normalize() (config, error) {
	c := config{Options: o, selected: map[string]bool{}}
	if c.Metrics == nil {
		c.Metrics = []string{MetricTTFT, MetricTPOT, MetricITL}
	}
	for _, m := range c.Metrics {
		m = strings.TrimSpace(m)
		if !slices.Contains(metricNames(), m) {
			return c, fmt.Errorf("metrics: percentile metric %q: want one of %s", m, strings.Join(metricNames(), ", "))
		}
		c.selected[m] = true
	}
	if c.Percentiles == nil {
		c.Percentiles = []float64{99}
	}
	if err := checkPercentiles(c.Percentiles); err != nil {
		return c, err
	}
	for k, v := range c.Goodput {
		switch k {
		case MetricTTFT, MetricTPOT, MetricE2EL:
		default:
			return c, fmt.Errorf("metrics: goodput SLO %q: want ttft, tpot or e2el", k)
		}
		if !(v >= 0) {
			return c, fmt.Errorf("metrics: goodput SLO %s:%v: want a non-negative number of ms", k, v)
		}
	}
	if c.DurationS < 0 || math.IsNaN(c.DurationS) || math.IsInf(c.DurationS, 0) {
		return c, fmt.Errorf("metrics: duration %v s: want a positive number (0 = from the records)", c.DurationS)
	}
	if c.RequestRate < 0 || math.IsNaN(c.RequestRate) {
		return c, fmt.Errorf("metrics: request rate %v: want a positive number (0 = inf)", c.RequestRate)
	}
	if math.IsInf(c.RequestRate, 1) {
		c.RequestRate = 0
	}
	if c.Burstiness == 0 {
		c.Burstiness = 1
	}
	if !(c.Burstiness > 0) {
		return c, fmt.Errorf("metrics: burstiness %v: want a positive number (0 = 1.0)", c.Burstiness)
	}
	if c.MaxConcurrency < 0 {
		return c, fmt.Errorf("metrics: max concurrency %d: want >= 0 (0 = none)", c.MaxConcurrency)
	}
	return c, nil
}

// inputTokens is a request's input length: the server's
// usage.prompt_tokens when reported (newest vLLM), else the dataset count.
func (c *config) inputTokens(r *schema.Request) int {
	if r.UsagePromptTokens != nil && !c.DatasetInputTokens {
		return *r.UsagePromptTokens
	}
	return r.PromptTokens
}

// outputTokens is a successful request's output length with vLLM's
// fallbacks for a missing or zero usage count.
func (c *config) outputTokens(r *schema.Request) int {
	n := r.OutputTokens
	if n == 0 {
		switch {
		case c.SkipTokenizer:
			n = 1
		case c.CountTokens != nil:
			n = c.CountTokens(r.GeneratedText)
		}
	}
	return n
}

// ttft is the time from send to the first token event, in seconds; 0 when
// no event arrived (vLLM's default value).
func ttft(r *schema.Request) float64 {
	if len(r.EventS) == 0 {
		return 0
	}
	return r.EventS[0] - r.SendS
}

// latency is a successful request's E2EL in seconds.
func (c *config) latency(r *schema.Request) float64 {
	if c.LatencyToStreamEnd {
		return r.EndS - r.SendS
	}
	return r.EventS[len(r.EventS)-1] - r.SendS
}

// checkRequest rejects records no clock could produce, naming the record.
func checkRequest(i int, r *schema.Request) error {
	bad := func(field string, v float64) error {
		return fmt.Errorf("metrics: request %d (index %d): %s = %v: want a finite number of seconds", i, r.Index, field, v)
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"arrival_s", r.ArrivalS}, {"send_s", r.SendS}, {"end_s", r.EndS}} {
		if math.IsNaN(f.v) || math.IsInf(f.v, 0) {
			return bad(f.name, f.v)
		}
	}
	prev := r.SendS
	for k, t := range r.EventS {
		if math.IsNaN(t) || math.IsInf(t, 0) {
			return bad(fmt.Sprintf("event_s[%d]", k), t)
		}
		if t < prev {
			what := "send_s"
			if k > 0 {
				what = fmt.Sprintf("event_s[%d]", k-1)
			}
			return fmt.Errorf("metrics: request %d (index %d): event_s[%d] = %v is before %s = %v", i, r.Index, k, t, what, prev)
		}
		prev = t
	}
	if r.Success && len(r.EventS) == 0 {
		return fmt.Errorf("metrics: request %d (index %d): success without a token event (event_s empty); vLLM counts such a request as failed", i, r.Index)
	}
	if r.OutputTokens < 0 || r.PromptTokens < 0 || (r.UsagePromptTokens != nil && *r.UsagePromptTokens < 0) {
		return fmt.Errorf("metrics: request %d (index %d): negative token count", i, r.Index)
	}
	return nil
}

// recordsDuration is the default duration: the latest moment any request
// (failed ones included) was seen, since the run's t=0.
func recordsDuration(reqs []schema.Request) float64 {
	d := 0.0
	for i := range reqs {
		r := &reqs[i]
		d = max(d, r.SendS, r.EndS)
		if n := len(r.EventS); n > 0 {
			d = max(d, r.EventS[n-1])
		}
	}
	return d
}

// Summarize computes the summary of reqs with the definitions of
// `vllm bench serve`'s calculate_metrics (see the package doc for each
// field). reqs are in dataset order; failed requests are counted and
// otherwise ignored, as vLLM does. It fails on an invalid option or a
// record with impossible times, naming the record.
func Summarize(reqs []schema.Request, opt Options) (*schema.Summary, error) {
	c, err := opt.normalize()
	if err != nil {
		return nil, err
	}
	if len(reqs) == 0 {
		return nil, errors.New("metrics: no requests to summarize")
	}
	nITL := 0 // successful requests' ITL samples, to size the pool once
	for i := range reqs {
		if err := checkRequest(i, &reqs[i]); err != nil {
			return nil, err
		}
		if reqs[i].Success {
			nITL += len(reqs[i].EventS) - 1
		}
	}
	dur := c.DurationS
	if dur == 0 {
		dur = recordsDuration(reqs)
		if dur <= 0 {
			return nil, errors.New("metrics: duration: the records end at t=0; pass Options.DurationS")
		}
	}

	var (
		completed, failed, good int
		totalIn, totalOut       int
		ttfts, tpots, e2els     []float64
		allTPOTs                []float64
		itls                    = make([]float64, 0, nITL)
		queues, e2elsQueue      []float64
	)
	withQueue := c.MaxConcurrency > 0
	withQueueE2EL := withQueue && c.RequestRate > 0
	for i := range reqs {
		r := &reqs[i]
		if !r.Success {
			failed++
			continue
		}
		completed++
		out := c.outputTokens(r)
		totalOut += out
		totalIn += c.inputTokens(r)
		t := ttft(r)
		lat := c.latency(r)
		tpot := 0.0
		if out > 1 {
			tpot = (lat - t) / float64(out-1)
			tpots = append(tpots, tpot)
		}
		allTPOTs = append(allTPOTs, tpot)
		for k := 1; k < len(r.EventS); k++ {
			itls = append(itls, r.EventS[k]-r.EventS[k-1])
		}
		ttfts = append(ttfts, t)
		e2els = append(e2els, lat)
		if withQueue {
			q := r.SendS - r.ArrivalS
			queues = append(queues, q)
			if withQueueE2EL {
				e2elsQueue = append(e2elsQueue, lat+q)
			}
		}
	}
	if len(c.Goodput) > 0 {
		for k := range ttfts {
			if c.isGood(ttfts[k], allTPOTs[k], e2els[k]) {
				good++
			}
		}
	}

	s := &schema.Summary{
		DurationS:            dur,
		Completed:            completed,
		Failed:               failed,
		TotalInputTokens:     totalIn,
		TotalOutputTokens:    totalOut,
		RequestThroughput:    float64(completed) / dur,
		OutputThroughput:     float64(totalOut) / dur,
		TotalTokenThroughput: float64(totalIn+totalOut) / dur,
	}
	if c.MaxConcurrency > 0 {
		s.MaxConcurrency = schema.I(c.MaxConcurrency)
	}
	if len(c.Goodput) > 0 {
		s.RequestGoodput = schema.F(float64(good) / dur)
	}
	peakTok, peakConc, err := c.peaks(reqs)
	if err != nil {
		return nil, err
	}
	s.MaxOutputTokensPerS = schema.F(peakTok)
	s.MaxConcurrentRequests = schema.I(peakConc)

	// describe sorts its input, so each list is used for nothing else after.
	s.TTFT = describe(ttfts, c.Percentiles, 1000, c.sumChunk())
	s.TPOT = describe(tpots, c.Percentiles, 1000, c.sumChunk())
	s.ITL = describe(itls, c.Percentiles, 1000, c.sumChunk())
	s.E2EL = describe(e2els, c.Percentiles, 1000, c.sumChunk())
	if withQueue {
		s.ClientQueue = describe(queues, c.Percentiles, 1000, c.sumChunk())
	}
	if withQueueE2EL {
		s.E2ELInclQueue = describe(e2elsQueue, c.Percentiles, 1000, c.sumChunk())
	}
	return s, nil
}

// isGood applies the goodput SLOs: every given SLO (ms, compared in
// seconds as vLLM does: slo/1000 >= value) must hold. TPOT is 0 for a
// request with at most one output token.
func (c *config) isGood(ttft, tpot, e2el float64) bool {
	for k, slo := range c.Goodput {
		v := ttft
		switch k {
		case MetricTPOT:
			v = tpot
		case MetricE2EL:
			v = e2el
		}
		if !(slo/1000 >= v) {
			return false
		}
	}
	return true
}

// peaks computes "Peak output token throughput" (the most token events in
// one whole second after the first successful send) and "Peak concurrent
// requests" over the successful requests.
func (c *config) peaks(reqs []schema.Request) (float64, int, error) {
	t0, tEnd := math.Inf(1), math.Inf(-1)
	n := 0
	for i := range reqs {
		r := &reqs[i]
		if !r.Success {
			continue
		}
		n++
		t0 = min(t0, r.SendS)
		tEnd = max(tEnd, r.SendS+c.latency(r))
	}
	if n == 0 {
		return 0, 0, nil
	}
	span := math.Ceil(tEnd - t0)
	if span+1 > maxBuckets {
		return 0, 0, fmt.Errorf("metrics: peak throughput: successful requests span %v s; the record times are not seconds", tEnd-t0)
	}
	nb := int(span) + 1
	tokens := make([]int, nb)
	var conc []int
	if c.BucketedPeakConcurrency {
		conc = make([]int, nb)
	}
	for i := range reqs {
		r := &reqs[i]
		if !r.Success {
			continue
		}
		// Rebuild the event times as vLLM does, start + ttft + Σ itl, so
		// that the rounding of a time at a bucket edge matches.
		cur := r.SendS + ttft(r)
		countBucket(tokens, cur-t0)
		for k := 1; k < len(r.EventS); k++ {
			cur += r.EventS[k] - r.EventS[k-1]
			countBucket(tokens, cur-t0)
		}
		if conc != nil {
			from := int(r.SendS - t0)
			to := int((r.SendS + c.latency(r)) - t0)
			for sec := max(from, 0); sec <= to && sec < nb; sec++ {
				conc[sec]++
			}
		}
	}
	peakTok := slices.Max(tokens)
	if conc != nil {
		return float64(peakTok), slices.Max(conc), nil
	}
	return float64(peakTok), c.sweepPeak(reqs, n), nil
}

func countBucket(b []int, dt float64) {
	k := int(dt) // Python int(): truncation toward zero
	if k >= 0 && k < len(b) {
		b[k]++
	}
}

// sweepPeak is the exact peak of in-flight successful requests over
// half-open intervals [start, start+latency): at equal times departures
// come before arrivals.
func (c *config) sweepPeak(reqs []schema.Request, n int) int {
	type edge struct {
		t float64
		d int
	}
	edges := make([]edge, 0, 2*n)
	for i := range reqs {
		r := &reqs[i]
		if r.Success {
			edges = append(edges, edge{r.SendS, 1}, edge{r.SendS + c.latency(r), -1})
		}
	}
	slices.SortFunc(edges, func(a, b edge) int {
		if x := cmp.Compare(a.t, b.t); x != 0 {
			return x
		}
		return cmp.Compare(a.d, b.d)
	})
	cur, peak := 0, 0
	for _, e := range edges {
		cur += e.d
		peak = max(peak, cur)
	}
	return peak
}
