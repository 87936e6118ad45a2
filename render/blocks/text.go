package blocks

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/perflab/perflab/collect/schema"
	"github.com/perflab/perflab/render/site"
)

// RawText returns a run's benchmark output in the `vllm bench serve`
// layout: the recorded RawOutput when there is one, else a block written
// from the Summary (generated reports whether it was). Lines the summary
// has no value for are left out rather than printed as zero.
func RawText(res *schema.Result) (text string, generated bool) {
	if strings.TrimSpace(res.RawOutput) != "" {
		return res.RawOutput, false
	}
	if res.Summary == nil {
		var b strings.Builder
		fmt.Fprintf(&b, "status: %s\n", res.Status)
		if res.Error != "" {
			fmt.Fprintf(&b, "error: %s\n", res.Error)
		}
		if res.LogTail != "" {
			b.WriteString("---- engine log (tail) ----\n")
			b.WriteString(res.LogTail)
			if !strings.HasSuffix(res.LogTail, "\n") {
				b.WriteByte('\n')
			}
		}
		return b.String(), true
	}
	return SummaryText(res), true
}

// SummaryText writes the Serving Benchmark Result block from a summary,
// with vLLM's widths: labels left-justified to 40, values to 10 (so lines
// carry trailing spaces), section headers centred in 50 columns.
//
// collect/metrics.WriteText writes the same layout from the collector's
// side; render may import collect/schema only, so the layout is written
// here again from the recorded summary.
func SummaryText(res *schema.Result) string {
	s := res.Summary
	var b strings.Builder
	row := func(label, value string) { fmt.Fprintf(&b, "%-40s %-10s\n", label, value) }
	f2 := func(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) }
	b.WriteString(center(" Serving Benchmark Result ", '=') + "\n")
	row("Successful requests:", strconv.Itoa(s.Completed))
	row("Failed requests:", strconv.Itoa(s.Failed))
	if s.MaxConcurrency != nil {
		row("Maximum request concurrency:", strconv.Itoa(*s.MaxConcurrency))
	} else if res.Load.MaxConcurrency > 0 {
		row("Maximum request concurrency:", strconv.Itoa(res.Load.MaxConcurrency))
	}
	if res.Load.RequestRate > 0 {
		row("Request rate configured (RPS):", f2(res.Load.RequestRate))
	}
	row("Benchmark duration (s):", f2(s.DurationS))
	row("Total input tokens:", strconv.Itoa(s.TotalInputTokens))
	row("Total generated tokens:", strconv.Itoa(s.TotalOutputTokens))
	row("Request throughput (req/s):", f2(s.RequestThroughput))
	if s.RequestGoodput != nil {
		row("Request goodput (req/s):", f2(*s.RequestGoodput))
	}
	row("Output token throughput (tok/s):", f2(s.OutputThroughput))
	if s.MaxOutputTokensPerS != nil {
		label := "Peak output token throughput (tok/s):"
		if site.IsGuidellm(res) {
			label = "Max output tok/s (guidellm):" // not a 1-second peak
		}
		row(label, f2(*s.MaxOutputTokensPerS))
	}
	if s.MaxConcurrentRequests != nil {
		row("Peak concurrent requests:", f2(float64(*s.MaxConcurrentRequests)))
	}
	row("Total token throughput (tok/s):", f2(s.TotalTokenThroughput))
	section := func(header, short string, st *schema.Stats) {
		if st == nil {
			return
		}
		b.WriteString(center(header, '-') + "\n")
		if st.MeanMs != nil {
			row("Mean "+short+" (ms):", f2(*st.MeanMs))
		}
		if st.MedianMs != nil {
			row("Median "+short+" (ms):", f2(*st.MedianMs))
		}
		ps := append([]schema.Percentile(nil), st.Percentiles...)
		sort.SliceStable(ps, func(i, j int) bool { return ps[i].P < ps[j].P })
		for _, p := range ps {
			row("P"+pctWord(p.P)+" "+short+" (ms):", f2(p.ValueMs))
		}
	}
	section("Time to First Token", "TTFT", s.TTFT)
	if site.IsGuidellm(res) {
		// guidellm's time_per_output_token includes the first token: the
		// vLLM header would put its numbers under the wrong definition.
		section("Time per Output Token (guidellm: incl. 1st token)", "TPOT", s.TPOT)
	} else {
		section("Time per Output Token (excl. 1st token)", "TPOT", s.TPOT)
	}
	section("Inter-token Latency", "ITL", s.ITL)
	section("End-to-end Latency", "E2EL", s.E2EL)
	b.WriteString(strings.Repeat("=", 50) + "\n")
	return b.String()
}

// center centres s in 50 columns with fill, the odd pad on the right
// (Python's str.format "^").
func center(s string, fill byte) string {
	n := 50 - len(s)
	if n <= 0 {
		return s
	}
	left := n / 2
	return strings.Repeat(string(fill), left) + s + strings.Repeat(string(fill), n-left)
}

// pctWord spells a percentile as vLLM does: 99 → "99", 99.9 → "99.9".
func pctWord(p float64) string {
	if p == float64(int(p)) {
		return strconv.Itoa(int(p))
	}
	return strconv.FormatFloat(p, 'f', -1, 64)
}
