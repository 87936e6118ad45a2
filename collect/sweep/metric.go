package sweep

import (
	"math"

	"github.com/perflab/perflab/collect/schema"
	"github.com/perflab/perflab/collect/stats"
)

// Metric is one headline figure of a run.
type Metric struct {
	Name string // as printed: "Output token throughput (tok/s)"
	// LowerBetter is true for latencies.
	LowerBetter bool
	// Get returns the figure, false when the run did not record it.
	Get func(*schema.Summary) (float64, bool)
}

func statGet(pick func(*schema.Summary) *schema.Stats, stat string, p float64) func(*schema.Summary) (float64, bool) {
	return func(s *schema.Summary) (float64, bool) {
		if s == nil {
			return 0, false
		}
		st := pick(s)
		if st == nil {
			return 0, false
		}
		switch stat {
		case "mean":
			if st.MeanMs != nil {
				return *st.MeanMs, true
			}
			return 0, false
		case "median":
			if st.MedianMs != nil {
				return *st.MedianMs, true
			}
			return st.Get(50)
		}
		return st.Get(p)
	}
}

// Interactivity returns a run's tok/s/user, 1000 / median TPOT (ms).
func Interactivity(s *schema.Summary) (float64, bool) {
	m, ok := statGet(func(s *schema.Summary) *schema.Stats { return s.TPOT }, "median", 0)(s)
	if !ok {
		return 0, false
	}
	v := stats.Interactivity(m)
	return v, !math.IsNaN(v)
}

// Headline lists the metrics --num-runs and --compare report, in order.
// Latency percentiles other than P99 are reported when every run has them
// (ps are the extra percentiles to list, e.g. from --metric-percentiles).
func Headline(ps []float64) []Metric {
	ms := []Metric{mReq, mGoodput, mOut, mTotal, mInteractivity}
	groups := []struct {
		name string
		pick func(*schema.Summary) *schema.Stats
	}{
		{"TTFT", func(s *schema.Summary) *schema.Stats { return s.TTFT }},
		{"TPOT", func(s *schema.Summary) *schema.Stats { return s.TPOT }},
		{"ITL", func(s *schema.Summary) *schema.Stats { return s.ITL }},
		{"E2EL", func(s *schema.Summary) *schema.Stats { return s.E2EL }},
	}
	pcts := []float64{99}
	for _, p := range ps {
		if p != 99 && p != 50 {
			pcts = append(pcts, p)
		}
	}
	for _, g := range groups {
		ms = append(ms,
			Metric{Name: "Mean " + g.name + " (ms)", LowerBetter: true, Get: statGet(g.pick, "mean", 0)},
			Metric{Name: "Median " + g.name + " (ms)", LowerBetter: true, Get: statGet(g.pick, "median", 0)})
		for _, p := range pcts {
			ms = append(ms, Metric{Name: "P" + pWord(p) + " " + g.name + " (ms)", LowerBetter: true, Get: statGet(g.pick, "p", p)})
		}
	}
	ms = append(ms, Metric{Name: "Steady-state output throughput (tok/s)", Get: func(s *schema.Summary) (float64, bool) {
		if s == nil || s.SteadyState == nil {
			return 0, false
		}
		return s.SteadyState.OutputThroughput, true
	}})
	return ms
}

func pWord(p float64) string { return formatG(p) }

// The throughput metrics.
var (
	mReq     = Metric{Name: "Request throughput (req/s)", Get: func(s *schema.Summary) (float64, bool) { return s.RequestThroughput, s != nil }}
	mGoodput = Metric{Name: "Request goodput (req/s)", Get: func(s *schema.Summary) (float64, bool) {
		if s == nil || s.RequestGoodput == nil {
			return 0, false
		}
		return *s.RequestGoodput, true
	}}
	mOut           = Metric{Name: "Output token throughput (tok/s)", Get: func(s *schema.Summary) (float64, bool) { return s.OutputThroughput, s != nil }}
	mTotal         = Metric{Name: "Total token throughput (tok/s)", Get: func(s *schema.Summary) (float64, bool) { return s.TotalTokenThroughput, s != nil }}
	mInteractivity = Metric{Name: "Interactivity (tok/s/user)", Get: Interactivity}
)

// Values returns m for every run that recorded it, and whether every run
// did.
func (m Metric) Values(runs []*schema.Summary) ([]float64, bool) {
	var v []float64
	all := true
	for _, s := range runs {
		x, ok := m.Get(s)
		if !ok {
			all = false
			continue
		}
		v = append(v, x)
	}
	return v, all
}
