package ingest

import (
	"fmt"
	"math"
	"strings"

	"github.com/perflab/perflab/collect/schema"
)

// Tolerances of Check.
const (
	// tokenTolerance is how far the token totals may be from
	// requests × profile length (random datasets) before Check warns.
	tokenTolerance = 0.05
	// peakFactor: a peak output throughput above this multiple of the
	// average total throughput is implausible for a 1-second bucket.
	peakFactor = 10
	// rateTolerance bounds the mismatch between a printed throughput and
	// the one implied by the totals and the duration (two-decimal
	// rounding of the printed numbers is allowed for on top).
	rateTolerance = 0.02
)

// Check returns warnings about numbers that look wrong. It never changes
// them. It uses the result's Load (the profile) where the check needs the
// configured workload.
func Check(r *schema.Result) []string {
	s := r.Summary
	if s == nil {
		return nil
	}
	var w []string
	n := r.Load.NumPrompts
	switch {
	case n > 0 && s.Completed < n:
		w = append(w, fmt.Sprintf("%d of %d requests succeeded (%.1f%%)", s.Completed, n, 100*float64(s.Completed)/float64(n)))
	case n > 0 && s.Completed > n:
		w = append(w, fmt.Sprintf("%d requests succeeded, more than the %d the profile sends", s.Completed, n))
	}
	if s.Failed > 0 {
		w = append(w, fmt.Sprintf("%d requests failed", s.Failed))
	}
	if s.Completed == 0 {
		w = append(w, "no request succeeded")
	}

	if p := s.MaxOutputTokensPerS; p != nil {
		switch {
		case s.TotalOutputTokens > 0 && *p > float64(s.TotalOutputTokens):
			w = append(w, fmt.Sprintf("peak output token throughput %s tok/s is impossible: more than the %d tokens generated in the whole run; treat it as a measurement artefact", formatFloat(*p), s.TotalOutputTokens))
		case s.TotalTokenThroughput > 0 && *p > peakFactor*s.TotalTokenThroughput:
			w = append(w, fmt.Sprintf("peak output token throughput %s tok/s is implausible: %.0f× the total token throughput %s tok/s", formatFloat(*p), *p/s.TotalTokenThroughput, formatFloat(s.TotalTokenThroughput)))
		}
	}

	if strings.EqualFold(r.Load.Dataset, "random") && s.Completed > 0 {
		ratio := r.Load.RangeRatio
		w = appendTokens(w, "input", s.TotalInputTokens, s.Completed, r.Load.InputLen, ratio)
		w = appendTokens(w, "generated", s.TotalOutputTokens, s.Completed, r.Load.OutputLen, ratio)
	}

	if s.DurationS > 0 {
		w = appendRate(w, "request throughput", s.RequestThroughput, float64(s.Completed)/s.DurationS, "req/s")
		if s.TotalTokenThroughput > 0 && s.TotalOutputTokens > 0 {
			w = appendRate(w, "total token throughput", s.TotalTokenThroughput, float64(s.TotalInputTokens+s.TotalOutputTokens)/s.DurationS, "tok/s")
		}
	}

	for _, m := range []struct {
		name string
		st   *schema.Stats
	}{{"TTFT", s.TTFT}, {"TPOT", s.TPOT}, {"ITL", s.ITL}, {"E2E latency", s.E2EL}} {
		w = append(w, checkStats(m.name, m.st)...)
	}
	return w
}

// appendTokens warns when a token total does not fit requests × length.
func appendTokens(w []string, what string, total, completed, perRequest int, ratio float64) []string {
	if perRequest <= 0 {
		return w
	}
	want := completed * perRequest
	dev := float64(total-want) / float64(want)
	if math.Abs(dev) <= tokenTolerance+ratio {
		return w
	}
	dir := "below"
	if dev > 0 {
		dir = "above"
	}
	why := ""
	if what == "generated" && dev < 0 {
		why = " (requests stopped before their output length: EOS not ignored?)"
	}
	return append(w, fmt.Sprintf("total %s tokens %d are %.1f%% %s %d requests × %d tokens = %d%s",
		what, total, 100*math.Abs(dev), dir, completed, perRequest, want, why))
}

// appendRate warns when a printed rate is not what the totals give.
func appendRate(w []string, what string, printed, implied float64, unit string) []string {
	if implied <= 0 {
		return w
	}
	// The printed numbers are rounded to two decimals.
	if math.Abs(printed-implied) <= rateTolerance*implied+0.01 {
		return w
	}
	return append(w, fmt.Sprintf("%s %s %s differs by %+.1f%% from the %.2f %s the totals and the duration give",
		what, formatFloat(printed), unit, 100*(printed-implied)/implied, implied, unit))
}

// checkStats warns about zero latencies and percentiles out of order.
func checkStats(name string, st *schema.Stats) []string {
	if st == nil {
		return nil
	}
	type val struct {
		what string
		v    float64
	}
	var vals []val
	if st.MeanMs != nil {
		vals = append(vals, val{"mean", *st.MeanMs})
	}
	if st.MedianMs != nil {
		vals = append(vals, val{"median", *st.MedianMs})
	}
	for _, p := range st.Percentiles {
		vals = append(vals, val{"p" + formatFloat(p.P), p.ValueMs})
	}
	var zero []string
	for _, v := range vals {
		if v.v == 0 {
			zero = append(zero, v.what)
		}
	}
	var w []string
	switch {
	case len(vals) > 0 && len(zero) == len(vals):
		w = append(w, fmt.Sprintf("%s was not measured: every %s value is 0.00 ms", name, name))
	case len(zero) > 0:
		w = append(w, fmt.Sprintf("%s %s is 0.00 ms, not a plausible latency (tokens arrived together or were not seen one by one)", name, strings.Join(zero, ", ")))
	}
	// median ≤ p_low ≤ p_high when the median is below them.
	prev, prevWhat := -1.0, ""
	if st.MedianMs != nil {
		prev, prevWhat = *st.MedianMs, "median"
	}
	for _, p := range st.Percentiles {
		if p.P < 50 {
			continue
		}
		if p.ValueMs < prev {
			w = append(w, fmt.Sprintf("%s p%s (%s ms) is below the %s (%s ms)", name, formatFloat(p.P), formatFloat(p.ValueMs), prevWhat, formatFloat(prev)))
		}
		prev, prevWhat = p.ValueMs, "p"+formatFloat(p.P)
	}
	return w
}
