package ingest

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/perflab/perflab/collect/schema"
)

// FormatGuideLLMJSON is guidellm's report (benchmarks.json), or a GPUStack
// benchmark export holding one under raw_metrics.
const FormatGuideLLMJSON = "guidellm-json"

// guideDist is one guidellm distribution summary (the "successful" part of
// a StatusDistributionSummary).
type guideDist struct {
	Mean        *float64            `json:"mean"`
	Median      *float64            `json:"median"`
	StdDev      *float64            `json:"std_dev"`
	Max         *float64            `json:"max"`
	Count       *float64            `json:"count"`
	TotalSum    *float64            `json:"total_sum"`
	Percentiles map[string]*float64 `json:"percentiles"` // nil: NaN, not measured
}

type guideStatus struct {
	Successful *guideDist `json:"successful"`
}

type guideBenchmark struct {
	Config struct {
		Strategy struct {
			Type           string   `json:"type_"`
			Rate           *float64 `json:"rate"`
			Streams        *int     `json:"streams"`
			MaxConcurrency *int     `json:"max_concurrency"`
		} `json:"strategy"`
	} `json:"config"`
	Duration         *float64 `json:"duration"`
	SchedulerMetrics struct {
		MeasureStart *float64 `json:"measure_start_time"`
		MeasureEnd   *float64 `json:"measure_end_time"`
	} `json:"scheduler_metrics"`
	Metrics map[string]json.RawMessage `json:"metrics"`
}

type guideReport struct {
	Benchmarks []guideBenchmark `json:"benchmarks"`
}

// guidePercentile turns guidellm's percentile keys into numbers: p50 → 50,
// p999 → 99.9, p001 → 0.1.
func guidePercentile(key string) (float64, bool) {
	d, ok := strings.CutPrefix(key, "p")
	if !ok || d == "" {
		return 0, false
	}
	if len(d) == 3 {
		d = d[:2] + "." + d[2:]
	}
	v, err := strconv.ParseFloat(d, 64)
	return v, err == nil
}

// parseGuideLLM reads a guidellm report; every benchmark (one per
// strategy of a sweep) becomes an entry. rec is the decoded top level.
//
// A NaN figure (pythonJSON made it null) is not measured; an infinite one
// is an error naming it.
func parseGuideLLM(name string, line int, data []byte, top map[string]any) ([]Entry, error) {
	if at, tok := findInfinite(top, ""); tok != "" {
		return nil, fmt.Errorf("%s:%d: field %q: expected a finite number, found %s", name, line, at, tok)
	}
	payload := data
	meta := map[string]string{}
	if rm, ok := top["raw_metrics"]; ok {
		// A GPUStack benchmark export: the report sits under raw_metrics.
		b, err := json.Marshal(rm)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: raw_metrics: %v", name, line, err)
		}
		payload = b
		if g, ok := top["gpu_summary"].(string); ok && g != "" {
			meta["gpu_summary"] = g
		}
	}
	var rep guideReport
	if err := json.Unmarshal(payload, &rep); err != nil {
		return nil, fmt.Errorf("%s:%d: guidellm report: %v", name, line, err)
	}
	if len(rep.Benchmarks) == 0 {
		return nil, fmt.Errorf("%s:%d: guidellm report has no benchmarks", name, line)
	}
	model, _ := top["model_name"].(string)
	var out []Entry
	for i, b := range rep.Benchmarks {
		e, err := guideEntry(name, line, i, b)
		if err != nil {
			return nil, err
		}
		e.Model = model
		for k, v := range meta {
			e.Metadata[k] = v
		}
		out = append(out, e)
	}
	return out, nil
}

func guideEntry(name string, line, i int, b guideBenchmark) (Entry, error) {
	where := fmt.Sprintf("%s:%d: benchmarks[%d]", name, line, i)
	dist := func(key string) (*guideDist, error) {
		raw, ok := b.Metrics[key]
		if !ok {
			return nil, nil
		}
		var st guideStatus
		if err := json.Unmarshal(raw, &st); err != nil {
			return nil, fmt.Errorf("%s: metrics.%s: %v", where, key, err)
		}
		return st.Successful, nil
	}
	var totals struct {
		Successful, Errored, Incomplete, Total *int
	}
	raw, ok := b.Metrics["request_totals"]
	if !ok {
		return Entry{}, fmt.Errorf("%s: missing metrics.request_totals: not a guidellm generative benchmark", where)
	}
	if err := json.Unmarshal(raw, &totals); err != nil {
		return Entry{}, fmt.Errorf("%s: metrics.request_totals: %v", where, err)
	}
	if totals.Successful == nil {
		return Entry{}, fmt.Errorf("%s: metrics.request_totals has no \"successful\" count", where)
	}
	s := &schema.Summary{Completed: *totals.Successful}
	if totals.Errored != nil {
		s.Failed = *totals.Errored
	}
	e := Entry{Format: FormatGuideLLMJSON, Summary: s, Metadata: map[string]string{}}
	if totals.Incomplete != nil && *totals.Incomplete > 0 {
		e.Notes = append(e.Notes, fmt.Sprintf("%d requests were incomplete (cancelled at the end of the measurement window)", *totals.Incomplete))
	}
	switch {
	case b.Duration != nil:
		s.DurationS = *b.Duration
	case b.SchedulerMetrics.MeasureStart != nil && b.SchedulerMetrics.MeasureEnd != nil:
		s.DurationS = *b.SchedulerMetrics.MeasureEnd - *b.SchedulerMetrics.MeasureStart
	default:
		return Entry{}, fmt.Errorf("%s: no duration (neither duration nor scheduler_metrics.measure_*_time)", where)
	}
	var err error
	mean := func(key string) float64 {
		d, e2 := dist(key)
		if e2 != nil && err == nil {
			err = e2
		}
		if d == nil || d.Mean == nil {
			return 0
		}
		return *d.Mean
	}
	total := func(key, what string) int {
		d, e2 := dist(key)
		if e2 != nil && err == nil {
			err = e2
		}
		switch {
		case d == nil:
			return 0
		case d.TotalSum != nil:
			return int(math.Round(*d.TotalSum))
		case d.Mean != nil:
			e.Notes = append(e.Notes, fmt.Sprintf("total %s tokens derived as mean × successful requests (the report has no total_sum)", what))
			return int(math.Round(*d.Mean * float64(s.Completed)))
		}
		return 0
	}
	s.RequestThroughput = mean("requests_per_second")
	s.OutputThroughput = mean("output_tokens_per_second")
	s.TotalTokenThroughput = mean("tokens_per_second")
	s.TotalInputTokens = total("prompt_token_count", "input")
	s.TotalOutputTokens = total("output_token_count", "generated")
	if d, _ := dist("output_tokens_per_second"); d != nil && d.Max != nil {
		s.MaxOutputTokensPerS = schema.F(*d.Max)
	}
	if d, _ := dist("request_concurrency"); d != nil && d.Max != nil {
		s.MaxConcurrentRequests = schema.I(int(math.Round(*d.Max)))
	}
	stats := func(key string, scale float64) *schema.Stats {
		d, e2 := dist(key)
		if e2 != nil && err == nil {
			err = e2
		}
		if d == nil {
			return nil
		}
		st := &schema.Stats{}
		sc := func(p *float64) *float64 {
			if p == nil {
				return nil
			}
			return schema.F(*p * scale)
		}
		st.MeanMs, st.MedianMs, st.StdMs = sc(d.Mean), sc(d.Median), sc(d.StdDev)
		keys := make([]string, 0, len(d.Percentiles))
		for k := range d.Percentiles {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if p, ok := guidePercentile(k); ok && d.Percentiles[k] != nil {
				st.Percentiles = append(st.Percentiles, schema.Percentile{P: p, ValueMs: *d.Percentiles[k] * scale})
			}
		}
		sort.Slice(st.Percentiles, func(a, c int) bool { return st.Percentiles[a].P < st.Percentiles[c].P })
		return st
	}
	s.TTFT = stats("time_to_first_token_ms", 1)
	s.TPOT = stats("time_per_output_token_ms", 1)
	s.ITL = stats("inter_token_latency_ms", 1)
	s.E2EL = stats("request_latency", 1000)
	if err != nil {
		return Entry{}, err
	}
	st := b.Config.Strategy
	label := st.Type
	if st.Rate != nil {
		e.Load.RequestRate = *st.Rate
		label += "@" + formatFloat(*st.Rate)
	}
	for _, c := range []*int{st.Streams, st.MaxConcurrency} {
		if c != nil && *c > 0 {
			e.Load.MaxConcurrency = *c
			s.MaxConcurrency = schema.I(*c)
			break
		}
	}
	if st.Type == "synchronous" {
		// One request at a time: as a point of a rate sweep it sits at the
		// rate it reached (it has no configured rate).
		e.Load.MaxConcurrency = 1
		e.Load.RequestRate = s.RequestThroughput
		e.Notes = append(e.Notes, fmt.Sprintf("guidellm's synchronous strategy (one request at a time) has no configured rate: its load is recorded as concurrency 1 at the rate it reached, %s req/s", formatFloat(s.RequestThroughput)))
	}
	e.Label = label
	return e, nil
}
