package schema

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// SLO is a set of latency limits a run must meet, in milliseconds, keyed
// "<metric>_<statistic>": metric one of ttft, tpot, itl, e2el; statistic
// mean, median or pNN (p50, p90, p99, p99.9). For example
// {"ttft_p99": 2000, "tpot_p99": 50}: the run's P99 TTFT must be at most
// 2000 ms and its P99 TPOT at most 50 ms. A limit is met when the value is
// less than or equal to it. perflab bench writes it as --slo ttft_p99:2000
// tpot_p99:50; a campaign as slo: {ttft_p99: 2000, tpot_p99: 50}.
type SLO map[string]float64

// SLOKey is one parsed SLO key.
type SLOKey struct {
	Metric string  // ttft, tpot, itl, e2el
	Stat   string  // mean, median, p
	P      float64 // the percentile when Stat is "p"
}

// ParseSLOKey checks and splits a key such as "ttft_p99".
func ParseSLOKey(key string) (SLOKey, error) {
	metric, stat, ok := strings.Cut(key, "_")
	if !ok {
		return SLOKey{}, fmt.Errorf("SLO key %q: want METRIC_STAT such as ttft_p99 or tpot_median", key)
	}
	switch metric {
	case "ttft", "tpot", "itl", "e2el":
	default:
		return SLOKey{}, fmt.Errorf("SLO key %q: unknown metric %q (one of ttft, tpot, itl, e2el)", key, metric)
	}
	switch {
	case stat == "mean" || stat == "median":
		return SLOKey{Metric: metric, Stat: stat}, nil
	case strings.HasPrefix(stat, "p"):
		p, err := strconv.ParseFloat(stat[1:], 64)
		if err != nil || !(p > 0 && p <= 100) { // NaN too
			return SLOKey{}, fmt.Errorf("SLO key %q: percentile %q is not a number in (0, 100]", key, stat[1:])
		}
		return SLOKey{Metric: metric, Stat: "p", P: p}, nil
	}
	return SLOKey{}, fmt.Errorf("SLO key %q: unknown statistic %q (mean, median or pNN such as p99)", key, stat)
}

// ParseSLO reads command-line limits of the form KEY:MS ("ttft_p99:2000"),
// each argument holding one or more of them separated by spaces.
func ParseSLO(args []string) (SLO, error) {
	slo := SLO{}
	for _, arg := range args {
		for _, f := range strings.Fields(arg) {
			k, v, ok := strings.Cut(f, ":")
			if !ok {
				return nil, fmt.Errorf("SLO %q: want KEY:MS such as ttft_p99:2000", f)
			}
			if _, err := ParseSLOKey(k); err != nil {
				return nil, err
			}
			ms, err := strconv.ParseFloat(v, 64)
			if err != nil || !(ms > 0) || math.IsInf(ms, 0) { // NaN too
				return nil, fmt.Errorf("SLO %q: limit %q is not a positive number of milliseconds", f, v)
			}
			slo[k] = ms
		}
	}
	return slo, nil
}

// Validate checks every key and limit.
func (s SLO) Validate() error {
	for _, k := range s.Keys() {
		if _, err := ParseSLOKey(k); err != nil {
			return err
		}
		if v := s[k]; !(v > 0) || math.IsInf(v, 0) {
			return fmt.Errorf("SLO key %q: limit %v is not a positive number of milliseconds", k, v)
		}
	}
	return nil
}

// Keys returns the keys in sorted order.
func (s SLO) Keys() []string {
	keys := make([]string, 0, len(s))
	for k := range s {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// String writes the limits as --slo takes them: "tpot_p99:50 ttft_p99:2000".
func (s SLO) String() string {
	var b strings.Builder
	for i, k := range s.Keys() {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%s:%s", k, strconv.FormatFloat(s[k], 'f', -1, 64))
	}
	return b.String()
}

// SLOCheck is one limit checked against one run.
type SLOCheck struct {
	Key     string
	LimitMs float64
	// ValueMs is the run's value; Found is false when the run did not
	// record that statistic (the check then fails).
	ValueMs float64
	Found   bool
	Met     bool
}

// Value returns the statistic an SLO key names from a summary.
func (sum *Summary) Value(k SLOKey) (float64, bool) {
	if sum == nil {
		return 0, false
	}
	var st *Stats
	switch k.Metric {
	case "ttft":
		st = sum.TTFT
	case "tpot":
		st = sum.TPOT
	case "itl":
		st = sum.ITL
	case "e2el":
		st = sum.E2EL
	}
	if st == nil {
		return 0, false
	}
	switch k.Stat {
	case "mean":
		if st.MeanMs != nil {
			return *st.MeanMs, true
		}
	case "median":
		if st.MedianMs != nil {
			return *st.MedianMs, true
		}
		return st.Get(50)
	case "p":
		if v, ok := st.Get(k.P); ok {
			return v, true
		}
		if k.P == 50 && st.MedianMs != nil {
			return *st.MedianMs, true
		}
	}
	return 0, false
}

// Check evaluates every limit against a run's summary, in key order; ok is
// true when every limit is met (a statistic the run did not record fails).
func (s SLO) Check(sum *Summary) (checks []SLOCheck, ok bool) {
	ok = true
	for _, key := range s.Keys() {
		c := SLOCheck{Key: key, LimitMs: s[key]}
		if k, err := ParseSLOKey(key); err == nil {
			c.ValueMs, c.Found = sum.Value(k)
		}
		c.Met = c.Found && c.ValueMs <= c.LimitMs
		ok = ok && c.Met
		checks = append(checks, c)
	}
	return checks, ok
}
