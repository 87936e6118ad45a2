package metrics

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/perflab/perflab/collect/schema"
)

// blockWidth is the width of vLLM's title, section headers and closing rule.
const blockWidth = 50

// group is one metric group of the text block and the JSON.
type group struct {
	key    string // ttft, …: the JSON key part
	name   string // TTFT: the row label part
	header string // the centred section header
}

// groups returns vLLM's metric groups in print order.
func groups() []group {
	return []group{
		{MetricTTFT, "TTFT", "Time to First Token"},
		{MetricTPOT, "TPOT", "Time per Output Token (excl. 1st token)"},
		{MetricITL, "ITL", "Inter-token Latency"},
		{MetricE2EL, "E2EL", "End-to-end Latency"},
		{MetricClientQueue, "Client Queue Time", "Client-side Queueing"},
		{MetricE2ELInclQueue, "E2EL incl. Client Queue", "Queue-inclusive End-to-end Latency"},
	}
}

// stats returns the summary's Stats for a group key.
func stats(s *schema.Summary, key string) *schema.Stats {
	switch key {
	case MetricTTFT:
		return s.TTFT
	case MetricTPOT:
		return s.TPOT
	case MetricITL:
		return s.ITL
	case MetricE2EL:
		return s.E2EL
	case MetricClientQueue:
		return s.ClientQueue
	case MetricE2ELInclQueue:
		return s.E2ELInclQueue
	}
	return nil
}

// reported says whether a group is printed: selected in Options.Metrics,
// computed, and (for the token-based groups) a tokenizer present.
func (c *config) reported(s *schema.Summary, g group) bool {
	if !c.selected[g.key] || stats(s, g.key) == nil {
		return false
	}
	switch g.key {
	case MetricTTFT, MetricTPOT, MetricITL:
		return !c.SkipTokenizer
	}
	return true
}

// centre is Python's "{s:{c}^{n}}".format: the odd fill character goes to
// the right.
func centre(s string, fill byte, n int) string {
	pad := n - len(s)
	if pad <= 0 {
		return s
	}
	left := pad / 2
	return strings.Repeat(string(fill), left) + s + strings.Repeat(string(fill), pad-left)
}

// pyFixed2 is Python's "{:.2f}" (Go's %.2f spells NaN and infinities
// differently).
func pyFixed2(v float64) string {
	switch {
	case math.IsNaN(v):
		return "nan"
	case math.IsInf(v, 1):
		return "inf"
	case math.IsInf(v, -1):
		return "-inf"
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}

// percentileWord is vLLM's p_word: str(int(p)) if p is integral, else
// str(p) ("99", "99.9").
func percentileWord(p float64) string {
	if p == math.Trunc(p) {
		return strconv.FormatFloat(p+0, 'f', 0, 64) // +0 turns -0 into 0
	}
	return pyFloatStr(p)
}

type textBlock struct{ b strings.Builder }

// row is "{:<40} {:<10}" for ints and strings.
func (t *textBlock) row(label string, v string) {
	fmt.Fprintf(&t.b, "%-40s %-10s\n", label, v)
}
func (t *textBlock) int(label string, v int)       { t.row(label, strconv.Itoa(v)) }
func (t *textBlock) float(label string, v float64) { t.row(label, pyFixed2(v)) }
func (t *textBlock) line(s string)                 { t.b.WriteString(s + "\n") }

// WriteText writes the "Serving Benchmark Result" block byte for byte as
// the newest `vllm bench serve` prints it for the same numbers: labels
// padded to 40, values to 10 (so lines carry trailing spaces), centred
// headers, rows in vLLM's order. opt gives what the summary does not hold:
// the configured rate, the selected metric groups (Options.Metrics) and
// SkipTokenizer. A nil optional summary field leaves its row out (an
// imported summary may lack one). The block is written in one Write.
func WriteText(w io.Writer, s *schema.Summary, opt Options) error {
	if s == nil {
		return fmt.Errorf("metrics: write text: no summary")
	}
	c, err := opt.normalize()
	if err != nil {
		return err
	}
	var t textBlock
	t.line(centre(" Serving Benchmark Result ", '=', blockWidth))
	t.int("Successful requests:", s.Completed)
	t.int("Failed requests:", s.Failed)
	if s.MaxConcurrency != nil {
		t.int("Maximum request concurrency:", *s.MaxConcurrency)
	} else if c.MaxConcurrency > 0 {
		t.int("Maximum request concurrency:", c.MaxConcurrency)
	}
	if c.RequestRate > 0 {
		t.float("Request rate configured (RPS):", c.RequestRate)
	}
	t.float("Benchmark duration (s):", s.DurationS)
	t.int("Total input tokens:", s.TotalInputTokens)
	tok := !c.SkipTokenizer
	if tok {
		t.int("Total generated tokens:", s.TotalOutputTokens)
	}
	t.float("Request throughput (req/s):", s.RequestThroughput)
	if s.RequestGoodput != nil {
		t.float("Request goodput (req/s):", *s.RequestGoodput)
	}
	if tok {
		t.float("Output token throughput (tok/s):", s.OutputThroughput)
		if s.MaxOutputTokensPerS != nil {
			t.float("Peak output token throughput (tok/s):", *s.MaxOutputTokensPerS)
		}
	}
	if s.MaxConcurrentRequests != nil {
		t.float("Peak concurrent requests:", float64(*s.MaxConcurrentRequests))
	}
	if tok {
		label := "Total token throughput (tok/s):"
		if c.CapitalTokenLabel {
			label = "Total Token throughput (tok/s):"
		}
		t.float(label, s.TotalTokenThroughput)
	}
	for _, g := range groups() {
		if !c.reported(s, g) {
			continue
		}
		st := stats(s, g.key)
		t.line(centre(g.header, '-', blockWidth))
		if st.MeanMs != nil {
			t.float("Mean "+g.name+" (ms):", *st.MeanMs)
		}
		if st.MedianMs != nil {
			t.float("Median "+g.name+" (ms):", *st.MedianMs)
		}
		for _, p := range st.Percentiles {
			t.float("P"+percentileWord(p.P)+" "+g.name+" (ms):", p.ValueMs)
		}
	}
	if sd := s.SpecDecode; sd != nil {
		// vLLM's section, after the latency groups
		t.line(centre("Speculative Decoding", '-', blockWidth))
		t.float("Acceptance rate (%):", sd.AcceptanceRatePct)
		t.float("Acceptance length:", sd.AcceptanceLength)
		t.int("Drafts:", int(sd.Drafts))
		t.int("Draft tokens:", int(sd.DraftTokens))
		t.int("Accepted tokens:", int(sd.AcceptedTokens))
		if len(sd.PerPositionPct) > 0 {
			t.line("Per-position acceptance (%):")
			for i, v := range sd.PerPositionPct {
				t.float(fmt.Sprintf("  Position %d:", i), v)
			}
		}
	}
	t.line(strings.Repeat("=", blockWidth))
	if _, err := io.WriteString(w, t.b.String()); err != nil {
		return fmt.Errorf("metrics: write text: %w", err)
	}
	return nil
}

// WriteFailures writes what vLLM prints before the block when requests
// failed: a heading and the first 10 errors, "Error {i}: {error}". It
// writes nothing when every request succeeded.
func WriteFailures(w io.Writer, reqs []schema.Request) error {
	var b strings.Builder
	n := 0
	for i := range reqs {
		if reqs[i].Success {
			continue
		}
		if n == 0 {
			b.WriteString("Failed requests during benchmark run detected (capping to 10):\n")
		}
		if n < 10 {
			fmt.Fprintf(&b, "Error %d: %s\n", n, reqs[i].Error)
		}
		n++
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("metrics: write failures: %w", err)
	}
	return nil
}

// WritePerTurn writes a multi-turn run's latencies by turn, after the
// result block: one row per turn, in ms.
func WritePerTurn(w io.Writer, turns []schema.TurnSummary) error {
	if len(turns) == 0 {
		return nil
	}
	var b strings.Builder
	b.WriteString(centre(" Multi-turn: latency by turn (ms) ", '=', blockWidth+28) + "\n")
	fmt.Fprintf(&b, "%-5s %9s %6s %10s %10s %10s %10s %10s\n", "Turn", "Completed", "Failed", "Mean TTFT", "P50 TTFT", "Mean TPOT", "P50 ITL", "Mean E2EL")
	v := func(st *schema.Stats, median bool) string {
		switch {
		case st == nil:
			return "-"
		case median && st.MedianMs != nil:
			return pyFixed2(*st.MedianMs)
		case !median && st.MeanMs != nil:
			return pyFixed2(*st.MeanMs)
		}
		return "-"
	}
	for _, t := range turns {
		fmt.Fprintf(&b, "%-5d %9d %6d %10s %10s %10s %10s %10s\n", t.Turn, t.Completed, t.Failed,
			v(t.TTFT, false), v(t.TTFT, true), v(t.TPOT, false), v(t.ITL, true), v(t.E2EL, false))
	}
	b.WriteString(strings.Repeat("=", blockWidth+28) + "\n")
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("metrics: write per turn: %w", err)
	}
	return nil
}
