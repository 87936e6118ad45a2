package metrics

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/perflab/perflab/collect/schema"
)

// DefaultSteadyThreshold is vllm-bench's --steady-state-threshold: the
// window opens when the requests in flight reach 95 % of the cap.
const DefaultSteadyThreshold = 0.95

// SteadyOptions tune SteadyState.
type SteadyOptions struct {
	// Threshold is the fraction of the cap, in (0, 1]; 0 means
	// DefaultSteadyThreshold.
	Threshold float64
	// MinWindowS is the window length below which the result carries a
	// warning; 0 means vllm-bench's default, max(10 s, 10 % of the run).
	MinWindowS float64
}

// SteadyState measures a closed-loop run over its plateau (see
// schema.SteadyState for the window and each figure). It returns nil, and
// no error, when the run is not closed-loop (opt.MaxConcurrency 0 or a
// finite opt.RequestRate) or the in-flight count never reached
// ceil(Threshold × cap). Every request, failed ones included, counts as
// in flight from SendS to EndS; at equal times a departure comes first.
func SteadyState(reqs []schema.Request, opt Options, so SteadyOptions) (*schema.SteadyState, error) {
	c, err := opt.normalize()
	if err != nil {
		return nil, err
	}
	if c.MaxConcurrency <= 0 || (c.RequestRate > 0 && !math.IsInf(c.RequestRate, 1)) {
		return nil, nil
	}
	th := so.Threshold
	if th == 0 {
		th = DefaultSteadyThreshold
	}
	if !(th > 0 && th <= 1) {
		return nil, fmt.Errorf("metrics: steady state: threshold %v: want a fraction in (0, 1]", th)
	}
	need := int(math.Ceil(th*float64(c.MaxConcurrency) - 1e-9))
	need = max(need, 1)

	type edge struct {
		t float64
		d int
	}
	edges := make([]edge, 0, 2*len(reqs))
	for i := range reqs {
		r := &reqs[i]
		if err := checkRequest(i, r); err != nil {
			return nil, err
		}
		end := max(r.EndS, r.SendS)
		if r.Success {
			end = max(end, r.SendS+c.latency(r))
		}
		edges = append(edges, edge{r.SendS, 1}, edge{end, -1})
	}
	slices.SortFunc(edges, func(a, b edge) int {
		if x := cmp.Compare(a.t, b.t); x != 0 {
			return x
		}
		return cmp.Compare(a.d, b.d)
	})
	start, stop := math.NaN(), math.NaN()
	n := 0
	for _, e := range edges {
		before := n
		n += e.d
		if before < need && n >= need && math.IsNaN(start) {
			start = e.t
		}
		if before >= need && n < need {
			stop = e.t
		}
	}
	if math.IsNaN(start) || math.IsNaN(stop) || !(stop > start) {
		return nil, nil
	}
	dur := stop - start
	ss := &schema.SteadyState{Threshold: th, MinInFlight: need, StartS: start, EndS: stop, DurationS: dur}
	var (
		ttfts, tpots []float64
		done, in     int
		out          float64
	)
	inside := func(t float64) bool { return t >= start && t <= stop }
	for i := range reqs {
		r := &reqs[i]
		if inside(r.SendS) {
			in += c.inputTokens(r)
		}
		if !r.Success {
			continue
		}
		end := r.SendS + c.latency(r)
		if inside(end) {
			done++
		}
		tokens := c.outputTokens(r)
		if k := len(r.EventS); k > 0 {
			per := float64(tokens) / float64(k)
			for _, t := range r.EventS {
				if inside(t) {
					out += per
				}
			}
		}
		if inside(r.SendS) && inside(end) {
			ss.Requests++
			ttfts = append(ttfts, ttft(r))
			if tokens > 1 {
				tpots = append(tpots, (c.latency(r)-ttft(r))/float64(tokens-1))
			}
		}
	}
	ss.RequestThroughput = float64(done) / dur
	ss.InputThroughput = float64(in) / dur
	ss.OutputThroughput = out / dur
	ss.TotalTokenThroughput = ss.InputThroughput + ss.OutputThroughput
	if len(ttfts) > 0 {
		ss.TTFT = describe(ttfts, c.Percentiles, 1000, c.sumChunk())
	}
	if len(tpots) > 0 {
		ss.TPOT = describe(tpots, c.Percentiles, 1000, c.sumChunk())
	}
	minWin := so.MinWindowS
	if minWin == 0 {
		minWin = max(10, 0.1*recordsDuration(reqs))
	}
	if dur < minWin {
		ss.Warning = fmt.Sprintf("steady-state window %.2f s is shorter than %.2f s (--steady-state-min-window): few requests ran at the cap; use more prompts", dur, minWin)
	}
	return ss, nil
}

// WriteSteadyText writes the steady-state section printed after the
// result block, in the block's layout; nothing when ss is nil.
func WriteSteadyText(w io.Writer, ss *schema.SteadyState, maxConcurrency int) error {
	if ss == nil {
		return nil
	}
	var t textBlock
	t.line(centre(" Steady-State Metrics ", '=', blockWidth))
	t.row("In-flight threshold:", strconv.Itoa(ss.MinInFlight)+" ("+strconv.FormatFloat(ss.Threshold, 'g', -1, 64)+" x "+strconv.Itoa(maxConcurrency)+")")
	t.row("Window (s):", pyFixed2(ss.StartS)+" - "+pyFixed2(ss.EndS))
	t.float("Window duration (s):", ss.DurationS)
	t.int("Requests in window:", ss.Requests)
	t.float("Request throughput (req/s):", ss.RequestThroughput)
	t.float("Input token throughput (tok/s):", ss.InputThroughput)
	t.float("Output token throughput (tok/s):", ss.OutputThroughput)
	t.float("Total token throughput (tok/s):", ss.TotalTokenThroughput)
	for _, g := range []struct {
		name string
		st   *schema.Stats
	}{{"TTFT", ss.TTFT}, {"TPOT", ss.TPOT}} {
		if g.st == nil {
			continue
		}
		t.float("Mean "+g.name+" (ms):", *g.st.MeanMs)
		t.float("Median "+g.name+" (ms):", *g.st.MedianMs)
		for _, p := range g.st.Percentiles {
			t.float("P"+percentileWord(p.P)+" "+g.name+" (ms):", p.ValueMs)
		}
	}
	if ss.Warning != "" {
		t.line("Warning: " + ss.Warning)
	}
	t.line(strings.Repeat("=", blockWidth))
	if _, err := io.WriteString(w, t.b.String()); err != nil {
		return fmt.Errorf("metrics: write steady state: %w", err)
	}
	return nil
}
