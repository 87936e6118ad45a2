package check

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/perflab/perflab/collect/ingest"
	"github.com/perflab/perflab/collect/schema"
	"github.com/perflab/perflab/collect/stats"
)

// run is one benchmark run a page's numbers may come from: a raw output
// pasted on the page, or a perflab result.
type run struct {
	// where: "line 97" for a pasted block, "vllm--sharegpt" for a result
	where   string
	line    int
	label   string
	command string
	cmdLine int
	// profile and gpus group runs for computed changes (perflab pages).
	profile string
	// workload is the run's dataset, lengths and load, "" when unknown:
	// two runs of one workload compare like with like even when filed
	// under two profiles (a sweep's c64 point and a profile run at
	// concurrency 64).
	workload string
	gpus     int
	values   []value
	// rate is the offered load in requests/s (0: unknown or unlimited).
	rate float64
	// reqPerS is the measured request throughput.
	reqPerS float64
}

// get returns a run's value of a metric (0 when it has none).
func (r *run) get(metric string) float64 {
	for _, v := range r.values {
		if v.metric == metric {
			return v.v
		}
	}
	return 0
}

// value is one number of a run.
type value struct {
	metric string // total_tps, mean_tpot, …
	unit   string // tok/s, req/s, ms, s, or "" for counts
	v      float64
}

// Metric keys of the run values.
var (
	reRawRow  = regexp.MustCompile(`(?m)^[ \t]*([A-Za-z][^:\n]*?):[ \t]*([-+]?[0-9][0-9.,]*)[ \t]*$`)
	reStatKey = regexp.MustCompile(`^(mean|median|std|max|min|p\d+(?:\.\d+)?) ?(ttft|tpot|itl|e2el|e2e latency|latency) ?\((ms|s)\)$`)
	reUnitKey = regexp.MustCompile(`\((ms|s|tok/s|req/s)\)$`)
)

// rawMetric maps a raw row label to a metric key and its unit.
func rawMetric(label string) (string, string) {
	l := strings.Join(strings.Fields(strings.ToLower(label)), " ")
	switch l {
	case "total token throughput (tok/s)":
		return "total_tps", "tok/s"
	case "output token throughput (tok/s)":
		return "output_tps", "tok/s"
	case "peak output token throughput (tok/s)":
		return "peak_output_tps", "tok/s"
	case "request throughput (req/s)":
		return "req_tps", "req/s"
	case "request goodput (req/s)":
		return "goodput", "req/s"
	case "request rate configured (rps)":
		return "rate", "req/s"
	case "benchmark duration (s)":
		return "duration", "s"
	}
	if m := reStatKey.FindStringSubmatch(l); m != nil {
		metric := m[2]
		if metric == "e2e latency" { // SGLang's bench_serving
			metric = "e2el"
		}
		return m[1] + "_" + metric, m[3]
	}
	switch l {
	case "input token throughput (tok/s)": // SGLang's bench_serving
		return "input_tps", "tok/s"
	}
	if m := reUnitKey.FindStringSubmatch(l); m != nil {
		return l, m[1]
	}
	return l, ""
}

// claimMetrics says which run metrics a number on the page may stand for,
// from its label or unit; nil means any.
func claimMetrics(n *number) []string {
	l := n.label
	switch {
	case l == "":
	case strings.Contains(l, "output") && strings.Contains(l, "peak"):
		return []string{"peak_output_tps"}
	case strings.Contains(l, "output"):
		return []string{"output_tps"}
	case strings.Contains(l, "request"):
		return []string{"req_tps"}
	case strings.Contains(l, "tps") || strings.Contains(l, "throughput"):
		return []string{"total_tps"}
	default:
		f := strings.Fields(l)
		metric := f[len(f)-1]
		if metric == "latency" && len(f) > 1 && (f[len(f)-2] == "e2e") {
			metric = "e2el"
		}
		if len(f) == 1 {
			return []string{"mean_" + metric, "median_" + metric}
		}
		stat := f[0]
		return []string{stat + "_" + metric}
	}
	return nil
}

// unitOK says whether a run value may be what a number with unit u
// stands for.
func unitOK(u string, v value) bool {
	return u == "" || u == v.unit
}

// runsFromEntries turns the benchmark blocks found on a page into runs.
func runsFromEntries(entries []ingest.Entry, pageRate float64) []*run {
	var out []*run
	for _, e := range entries {
		if e.Summary == nil {
			continue
		}
		r := &run{where: fmt.Sprintf("line %d", e.Line), line: e.Line, label: e.Label, command: e.Command, cmdLine: e.CommandLine,
			rate: e.Load.RequestRate, reqPerS: e.Summary.RequestThroughput}
		if r.rate == 0 {
			r.rate = pageRate
		}
		r.gpus = commandGPUs(e.Command)
		for _, m := range reRawRow.FindAllStringSubmatch(e.Raw, -1) {
			v, err := strconv.ParseFloat(strings.ReplaceAll(m[2], ",", ""), 64)
			if err != nil {
				continue
			}
			key, unit := rawMetric(m[1])
			r.values = append(r.values, value{key, unit, v})
		}
		r.values = append(r.values, summaryValues(e.Summary)...)
		out = append(out, r)
	}
	return out
}

// runsFromResults turns a campaign's results into runs: one per result
// with numbers (files of them), and a median and a mean run per load
// point with repeats (repeated of them).
func runsFromResults(c *schema.Campaign, results []*schema.Result) (out []*run, files, repeated int) {
	groups := map[string][]*run{}
	var keys []string
	for _, res := range results {
		if res.Campaign != c.ID || res.Summary == nil || res.Status != schema.StatusOK {
			continue
		}
		r := &run{where: res.Experiment + "--" + res.Profile, command: res.Engine.Command,
			profile: res.Profile, rate: res.Load.RequestRate, reqPerS: res.Summary.RequestThroughput}
		if l := res.Load; l.Dataset != "" {
			r.workload = fmt.Sprintf("%s|%s|%d|%d|%g|%d|%d|%g|%g|%t", l.Dataset, l.DatasetPath, l.InputLen, l.OutputLen, l.RangeRatio, l.PrefixLen, l.MaxConcurrency, l.RequestRate, l.Burstiness, l.IgnoreEOS)
		}
		r.gpus = c.Hardware.Count
		if x, ok := c.Experiment(res.Experiment); ok && x.GPUs > 0 {
			r.gpus = x.GPUs
		}
		if res.RawOutput != "" {
			for _, m := range reRawRow.FindAllStringSubmatch(res.RawOutput, -1) {
				v, err := strconv.ParseFloat(strings.ReplaceAll(m[2], ",", ""), 64)
				if err != nil {
					continue
				}
				key, unit := rawMetric(m[1])
				r.values = append(r.values, value{key, unit, v})
			}
		}
		r.values = append(r.values, summaryValues(res.Summary)...)
		out = append(out, r)
		files++
		key := fmt.Sprintf("%s--%s@%d/%g", res.Experiment, res.Profile, res.Load.MaxConcurrency, res.Load.RequestRate)
		groups[key] = append(groups[key], r)
		if len(groups[key]) == 1 {
			keys = append(keys, key)
		}
	}
	// Repeats of one run: a page may quote their median or mean.
	for _, k := range keys {
		g := groups[k]
		if len(g) < 2 {
			continue
		}
		repeated++
		med := &run{where: fmt.Sprintf("%s (median of %d repeats)", g[0].where, len(g)), profile: g[0].profile, gpus: g[0].gpus, command: g[0].command}
		mean := &run{where: fmt.Sprintf("%s (mean of %d repeats)", g[0].where, len(g)), profile: g[0].profile, gpus: g[0].gpus, command: g[0].command}
		for _, v := range g[0].values {
			var xs []float64
			for _, r := range g {
				for _, w := range r.values {
					if w.metric == v.metric {
						xs = append(xs, w.v)
						break
					}
				}
			}
			if len(xs) != len(g) {
				continue // not recorded by every repeat
			}
			sm := stats.Summarize(xs)
			med.values = append(med.values, value{v.metric, v.unit, sm.Median()})
			mean.values = append(mean.values, value{v.metric, v.unit, sm.Mean})
		}
		out = append(out, med, mean)
	}
	return out, files, repeated
}

// summaryValues lists a summary's numbers under the metric keys.
func summaryValues(s *schema.Summary) []value {
	out := []value{
		{"total_tps", "tok/s", s.TotalTokenThroughput},
		{"output_tps", "tok/s", s.OutputThroughput},
		{"req_tps", "req/s", s.RequestThroughput},
		{"duration", "s", s.DurationS},
		{"completed", "", float64(s.Completed)},
		{"failed", "", float64(s.Failed)},
		{"total input tokens", "", float64(s.TotalInputTokens)},
		{"total generated tokens", "", float64(s.TotalOutputTokens)},
	}
	if s.MaxOutputTokensPerS != nil {
		out = append(out, value{"peak_output_tps", "tok/s", *s.MaxOutputTokensPerS})
	}
	if s.RequestGoodput != nil {
		out = append(out, value{"goodput", "req/s", *s.RequestGoodput})
	}
	for _, st := range []struct {
		name string
		s    *schema.Stats
	}{{"ttft", s.TTFT}, {"tpot", s.TPOT}, {"itl", s.ITL}, {"e2el", s.E2EL}} {
		if st.s == nil {
			continue
		}
		if st.s.MeanMs != nil {
			out = append(out, value{"mean_" + st.name, "ms", *st.s.MeanMs})
		}
		if st.s.MedianMs != nil {
			out = append(out, value{"median_" + st.name, "ms", *st.s.MedianMs})
			if st.name == "tpot" && *st.s.MedianMs > 0 {
				out = append(out, value{"interactivity", "tok/s/user", stats.Interactivity(*st.s.MedianMs)})
			}
		}
		if st.s.StdMs != nil {
			out = append(out, value{"std_" + st.name, "ms", *st.s.StdMs})
		}
		for _, p := range st.s.Percentiles {
			out = append(out, value{"p" + strconv.FormatFloat(p.P, 'f', -1, 64) + "_" + st.name, "ms", p.ValueMs})
		}
	}
	return out
}

// commandGPUs is the GPU count a serving command's parallelism flags ask
// for (tensor × data × pipeline parallel; 1 without them). SGLang's
// --enable-dp-attention splits the tensor-parallel group's GPUs among the
// attention data-parallel ranks: --tp 8 --dp 8 runs on 8 GPUs, not 64.
func commandGPUs(cmd string) int {
	f := strings.Fields(strings.ReplaceAll(cmd, "\\\n", " "))
	dpAttention := slices.Contains(f, "--enable-dp-attention")
	n := 1
	for i := 0; i < len(f); i++ {
		name, val, ok := strings.Cut(f[i], "=")
		if !ok && i+1 < len(f) {
			val = f[i+1]
		}
		switch name {
		case "-dp", "--dp", "--dp-size", "--data-parallel-size":
			if dpAttention {
				continue
			}
			fallthrough
		case "-tp", "--tp", "--tp-size", "--tensor-parallel-size", "-pp", "--pp", "--pp-size", "--pipeline-parallel-size":
			if k, err := strconv.Atoi(val); err == nil && k > 0 {
				n *= k
			}
		}
	}
	return n
}
