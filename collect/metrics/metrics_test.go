package metrics

import (
	"math"
	"strings"
	"testing"

	"github.com/perflab/perflab/collect/schema"
)

// handRecords are four requests with binary-exact times, small enough to
// check every summary field by hand:
//
//	A  send 0     events 0.5 0.75 1.0 1.25  out 4  prompt 10 (usage 12)
//	B  send 1.25  events 1.5                out 1  prompt 20
//	C  send 0.25  failed, no events, ends 3.0       prompt 30
//	D  send 2.0   events 2.25 2.5           out 0 ("a b c") prompt 40
//
// A ends exactly when B starts.
func handRecords() []schema.Request {
	return []schema.Request{
		{Index: 0, SendS: 0, EventS: []float64{0.5, 0.75, 1.0, 1.25}, EndS: 1.3, OutputTokens: 4, PromptTokens: 10, UsagePromptTokens: schema.I(12), Success: true},
		{Index: 1, ArrivalS: 1, SendS: 1.25, EventS: []float64{1.5}, EndS: 1.5, OutputTokens: 1, PromptTokens: 20, Success: true},
		{Index: 2, SendS: 0.25, EndS: 3.0, PromptTokens: 30, Error: "Service Unavailable"},
		{Index: 3, ArrivalS: 1.5, SendS: 2.0, EventS: []float64{2.25, 2.5}, EndS: 2.75, PromptTokens: 40, GeneratedText: "a b c", Success: true},
	}
}

func mustSummarize(t *testing.T, reqs []schema.Request, opt Options) *schema.Summary {
	t.Helper()
	s, err := Summarize(reqs, opt)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestSummarizeByHand(t *testing.T) {
	s := mustSummarize(t, handRecords(), Options{})
	checks := []struct {
		name      string
		got, want float64
	}{
		{"duration (latest end_s, the failed request's)", s.DurationS, 3},
		{"completed", float64(s.Completed), 3},
		{"failed", float64(s.Failed), 1},
		{"input tokens: usage 12 + 20 + 40, failed excluded", float64(s.TotalInputTokens), 72},
		{"output tokens: 4 + 1 + 0 (no usage, no tokenizer)", float64(s.TotalOutputTokens), 5},
		{"request throughput", s.RequestThroughput, 1},
		{"output throughput", s.OutputThroughput, 5.0 / 3},
		{"total token throughput", s.TotalTokenThroughput, 77.0 / 3},
		{"peak output: buckets [2 3 2 0]", *s.MaxOutputTokensPerS, 3},
		{"peak concurrency: A ends when B starts", float64(*s.MaxConcurrentRequests), 1},
		{"ttft mean", *s.TTFT.MeanMs, (0.5 + 0.25 + 0.25) / 3 * 1000},
		{"ttft median", *s.TTFT.MedianMs, 250},
		{"tpot: only A has out > 1", *s.TPOT.MeanMs, 250},
		{"itl: 3 gaps of A and 1 of D", *s.ITL.MeanMs, 250},
		{"itl std", *s.ITL.StdMs, 0},
		{"e2el median of 1.25 0.25 0.5", *s.E2EL.MedianMs, 500},
		// h = 2·0.99, g ≈ 0.98 ≥ 0.5: 1.25 − 0.75·(1−g); numpy prints
		// 1234.9999999999998 for np.percentile([1.25, 0.25, 0.5], 99)*1000.
		{"e2el p99", s.E2EL.Percentiles[0].ValueMs, 1234.9999999999998},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s: got %v, want %v", c.name, c.got, c.want)
		}
	}
	if s.RequestGoodput != nil || s.MaxConcurrency != nil || s.ClientQueue != nil || s.E2ELInclQueue != nil {
		t.Errorf("optional fields set without their options: %+v", s)
	}
	if len(s.TTFT.Percentiles) != 1 || s.TTFT.Percentiles[0].P != 99 {
		t.Errorf("default percentiles: %+v", s.TTFT.Percentiles)
	}
}

func TestSummarizeSwitches(t *testing.T) {
	tests := []struct {
		name string
		opt  Options
		get  func(*schema.Summary) float64
		want float64
	}{
		// vLLM ≤ 0.28 counted A and B in second 1 together.
		{"bucketed concurrency overcounts", Options{BucketedPeakConcurrency: true},
			func(s *schema.Summary) float64 { return float64(*s.MaxConcurrentRequests) }, 2},
		{"dataset input tokens", Options{DatasetInputTokens: true},
			func(s *schema.Summary) float64 { return float64(s.TotalInputTokens) }, 70},
		{"skip tokenizer counts a usage-less output as 1", Options{SkipTokenizer: true},
			func(s *schema.Summary) float64 { return float64(s.TotalOutputTokens) }, 6},
		{"CountTokens re-counts the text", Options{CountTokens: wordCount},
			func(s *schema.Summary) float64 { return float64(s.TotalOutputTokens) }, 8},
		// With D at 3 tokens, D's TPOT (0.5−0.25)/2 = 125 ms joins A's 250.
		{"CountTokens makes D a TPOT sample", Options{CountTokens: wordCount},
			func(s *schema.Summary) float64 { return *s.TPOT.MeanMs }, 187.5},
		// E2EL to end_s: A 1.3, B 0.25, D 0.75.
		{"latency to stream end", Options{LatencyToStreamEnd: true},
			func(s *schema.Summary) float64 { return *s.E2EL.MedianMs }, 750},
		{"explicit duration", Options{DurationS: 10},
			func(s *schema.Summary) float64 { return s.RequestThroughput }, 0.3},
		// TTFTs 0.5, 0.25, 0.25: A misses a 300 ms SLO.
		{"goodput ttft", Options{Goodput: map[string]float64{"ttft": 300}},
			func(s *schema.Summary) float64 { return *s.RequestGoodput }, 2.0 / 3},
		// TPOT counts as 0 for B and D (out ≤ 1), so a 0 ms SLO keeps them.
		{"goodput tpot 0", Options{Goodput: map[string]float64{"tpot": 0}},
			func(s *schema.Summary) float64 { return *s.RequestGoodput }, 2.0 / 3},
		{"goodput all SLOs", Options{Goodput: map[string]float64{"ttft": 300, "e2el": 400}},
			func(s *schema.Summary) float64 { return *s.RequestGoodput }, 1.0 / 3},
		// Queue times send − arrival: A 0, B 0.25, D 0.5.
		{"client queue with a cap", Options{MaxConcurrency: 2},
			func(s *schema.Summary) float64 { return *s.ClientQueue.MeanMs }, 250},
		// E2EL + queue: 1.25, 0.5, 1.0.
		{"e2el incl queue with a cap and a rate", Options{MaxConcurrency: 2, RequestRate: 4},
			func(s *schema.Summary) float64 { return *s.E2ELInclQueue.MedianMs }, 1000},
		{"percentiles in the given order", Options{Percentiles: []float64{100, 0}},
			func(s *schema.Summary) float64 { return s.TTFT.Percentiles[1].ValueMs }, 250},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := mustSummarize(t, handRecords(), tt.opt)
			if got := tt.get(s); math.Abs(got-tt.want) > 1e-12*math.Abs(tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
	if s := mustSummarize(t, handRecords(), Options{MaxConcurrency: 2}); s.E2ELInclQueue != nil {
		t.Error("E2EL incl. queue computed with an infinite rate; vLLM skips it")
	}
}

// TestPeakThroughputBucketEdges: an event exactly at t0+1 belongs to the
// second bucket; events are counted, not tokens.
func TestPeakThroughputBucketEdges(t *testing.T) {
	reqs := []schema.Request{
		{SendS: 0, EventS: []float64{0.25, 0.5, 0.75, 1.0}, OutputTokens: 40, Success: true},
		{SendS: 0.5, EventS: []float64{1.0, 1.5, 1.75}, OutputTokens: 3, Success: true},
	}
	s := mustSummarize(t, reqs, Options{})
	// Bucket 0: 0.25 0.5 0.75; bucket 1: 1.0 1.0 1.5 1.75.
	if *s.MaxOutputTokensPerS != 4 {
		t.Errorf("peak = %v, want 4 events in second 1", *s.MaxOutputTokensPerS)
	}
	if *s.MaxConcurrentRequests != 2 {
		t.Errorf("peak concurrency = %d, want 2", *s.MaxConcurrentRequests)
	}
}

func TestSummarizeAllFailed(t *testing.T) {
	reqs := []schema.Request{{SendS: 0, EndS: 1, Error: "x"}, {SendS: 0, EndS: 2, Error: "y"}}
	s := mustSummarize(t, reqs, Options{Goodput: map[string]float64{"ttft": 1}})
	if s.Completed != 0 || s.Failed != 2 || *s.MaxOutputTokensPerS != 0 || *s.MaxConcurrentRequests != 0 ||
		*s.TTFT.MeanMs != 0 || s.ITL.Percentiles[0].ValueMs != 0 || *s.RequestGoodput != 0 || s.DurationS != 2 {
		t.Errorf("all-failed summary: %+v", s)
	}
}

func TestSummarizeErrors(t *testing.T) {
	ok := handRecords()
	mod := func(f func(r []schema.Request)) []schema.Request {
		r := handRecords()
		f(r)
		return r
	}
	tests := []struct {
		name string
		reqs []schema.Request
		opt  Options
		want string // a part of the message
	}{
		{"no requests", nil, Options{}, "no requests"},
		{"unknown metric", ok, Options{Metrics: []string{"ttfb"}}, `"ttfb"`},
		{"percentile above 100", ok, Options{Percentiles: []float64{100.5}}, "100.5"},
		{"goodput on itl", ok, Options{Goodput: map[string]float64{"itl": 5}}, `"itl"`},
		{"negative goodput", ok, Options{Goodput: map[string]float64{"ttft": -1}}, "non-negative"},
		{"negative duration", ok, Options{DurationS: -1}, "duration"},
		{"negative cap", ok, Options{MaxConcurrency: -2}, "max concurrency"},
		{"negative burstiness", ok, Options{Burstiness: -1}, "burstiness"},
		{"negative rate", ok, Options{RequestRate: -3}, "request rate"},
		{"event before send", mod(func(r []schema.Request) { r[1].EventS[0] = 1 }), Options{}, "request 1 (index 1): event_s[0] = 1 is before send_s = 1.25"},
		{"events out of order", mod(func(r []schema.Request) { r[0].EventS[2] = 0.6 }), Options{}, "event_s[2] = 0.6 is before event_s[1] = 0.75"},
		{"NaN time", mod(func(r []schema.Request) { r[2].EndS = math.NaN() }), Options{}, "end_s = NaN"},
		{"success without events", mod(func(r []schema.Request) { r[2].Success = true }), Options{}, "success without a token event"},
		{"negative tokens", mod(func(r []schema.Request) { r[0].OutputTokens = -1 }), Options{}, "negative token count"},
		{"all at t=0", []schema.Request{{Error: "x"}}, Options{}, "pass Options.DurationS"},
		{"times not in seconds", mod(func(r []schema.Request) { r[3].EventS[1] = 1e9 }), Options{}, "not seconds"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Summarize(tt.reqs, tt.opt)
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "metrics: ") {
				t.Errorf("error %v, want one containing %q", err, tt.want)
			}
		})
	}
}

func TestSummarizeDoesNotModifyRecords(t *testing.T) {
	reqs := genRecords(9, 50, 40)
	before := genRecords(9, 50, 40)
	if _, err := Summarize(reqs, Options{Metrics: []string{"ttft", "itl"}, Percentiles: []float64{1, 50}}); err != nil {
		t.Fatal(err)
	}
	for i := range reqs {
		for k := range reqs[i].EventS {
			if reqs[i].EventS[k] != before[i].EventS[k] {
				t.Fatalf("request %d event %d changed", i, k)
			}
		}
	}
}

// TestNumpy23Sum: the switch changes the summation of more than 8192
// samples (the ITLs here) and nothing else.
func TestNumpy23Sum(t *testing.T) {
	reqs := genRecords(5, 200, 300)
	old := mustSummarize(t, reqs, Options{})
	neu := mustSummarize(t, reqs, Options{Numpy23Sum: true})
	var itls []float64
	for _, r := range reqs {
		if r.Success {
			for k := 1; k < len(r.EventS); k++ {
				itls = append(itls, r.EventS[k]-r.EventS[k-1])
			}
		}
	}
	if len(itls) <= numpyBufSize {
		t.Fatalf("only %d ITLs; the test needs more than one chunk", len(itls))
	}
	if got, want := *neu.ITL.MeanMs, sumOf(itls, 0, pairwiseSum)/float64(len(itls))*1000; got != want {
		t.Errorf("numpy 2.3 ITL mean %v, want %v", got, want)
	}
	if got, want := *old.ITL.MeanMs, Mean(itls)*1000; got != want {
		t.Errorf("default ITL mean %v, want %v", got, want)
	}
	if *old.TTFT.MeanMs != *neu.TTFT.MeanMs || *old.ITL.MedianMs != *neu.ITL.MedianMs {
		t.Error("the summation switch changed a statistic of fewer than 8192 samples or a median")
	}
}
