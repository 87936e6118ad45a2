package analysis

import (
	"math"
	"sort"

	"github.com/perflab/perflab/collect/schema"
	"github.com/perflab/perflab/collect/stats"
)

// Run is one result and the number of GPUs its experiment used (the
// divisor of throughput per GPU; at least 1).
type Run struct {
	Result *schema.Result
	GPUs   int
}

func (r Run) gpus() int {
	if r.GPUs < 1 {
		return 1
	}
	return r.GPUs
}

// ok reports whether a run has numbers: status ok with completed requests.
func ok(res *schema.Result) bool {
	return res != nil && res.Status == schema.StatusOK && res.Summary != nil && res.Summary.Completed > 0
}

// Getter reads one figure from a summary; false when it is missing.
type Getter func(*schema.Summary) (float64, bool)

// Values reads get from every run with numbers, in the order given;
// perGPU divides by each run's GPU count.
func Values(runs []Run, get Getter, perGPU bool) []float64 {
	var out []float64
	for _, r := range runs {
		if !ok(r.Result) {
			continue
		}
		v, found := get(r.Result.Summary)
		if !found || math.IsNaN(v) || math.IsInf(v, 0) {
			continue
		}
		if perGPU {
			v /= float64(r.gpus())
		}
		out = append(out, v)
	}
	return out
}

// Compare compares a figure of the new runs against the old ones (the
// repeats of one configuration at one load each): means, spread and the
// Mann-Whitney U test of stats.Compare.
func Compare(old, new []Run, get Getter, perGPU bool) stats.Delta {
	return stats.Compare(Values(old, get, perGPU), Values(new, get, perGPU))
}

// Group returns the runs of experiment exp on profile prof at point pt,
// every repeat, ordered by repeat index.
func Group(runs []Run, exp, prof string, pt schema.Point) []Run {
	var out []Run
	for _, r := range runs {
		res := r.Result
		if res.Experiment == exp && res.Profile == prof && schema.PointOf(res.Load) == pt {
			out = append(out, r)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Result.Repeat < out[j].Result.Repeat })
	return out
}

// Points returns the distinct load points recorded for profile prof (by
// any experiment), in increasing load (a rate of inf last).
func Points(runs []Run, prof string) []schema.Point {
	seen := map[schema.Point]bool{}
	var out []schema.Point
	for _, r := range runs {
		if r.Result.Profile != prof {
			continue
		}
		pt := schema.PointOf(r.Result.Load)
		if !seen[pt] {
			seen[pt] = true
			out = append(out, pt)
		}
	}
	sort.Slice(out, func(i, j int) bool { return loadOf(out[i]) < loadOf(out[j]) })
	return out
}

func loadOf(pt schema.Point) float64 {
	if pt.Sweep == schema.SweepRate && pt.Value == 0 {
		return math.Inf(1)
	}
	return pt.Value
}

// IsSweep reports whether profile prof has sweep points among runs.
func IsSweep(runs []Run, prof string) bool {
	for _, r := range runs {
		if r.Result.Profile == prof && r.Result.Load.Sweep != "" {
			return true
		}
	}
	return false
}

// CurvePoint is one load point of an experiment's curve: the means over
// its repeats (runs with numbers only).
type CurvePoint struct {
	Point schema.Point
	// Runs is the number of runs with numbers; Skipped is true when the
	// point was recorded as skipped by the sweep's early stop and none
	// ran.
	Runs    int
	Skipped bool
	GPUs    int
	// Throughput per GPU, tok/s: total and output, over the repeats.
	Total, Output stats.Sample
	// Interactivity is tok/s/user, 1000 / median TPOT (the mean of the
	// repeats' median TPOTs); NaN without TPOT.
	Interactivity float64
	// Latencies in ms, means over the repeats; NaN when not recorded.
	TTFTP50, TTFTP99, TPOTP50, TPOTP99 float64
	// RequestRate is the achieved request throughput (req/s), mean.
	RequestRate float64
	// TokPerJ is output tokens per joule of GPU energy (NaN without NVML
	// energy).
	TokPerJ float64
	// Summaries are the repeats' summaries, for SLO checks.
	Summaries []*schema.Summary
	// Failed and Requests count the failed and all requests of those
	// repeats (a point with failed requests does not meet an SLO).
	Failed, Requests int
}

// Throughput returns the point's mean throughput per GPU: output tokens
// when output is set, total tokens otherwise.
func (p CurvePoint) Throughput(output bool) float64 {
	if output {
		return p.Output.Mean
	}
	return p.Total.Mean
}

// Curve is one experiment's points on one profile, in increasing load.
type Curve struct {
	Experiment string
	Points     []CurvePoint
}

// CurveOf builds experiment exp's curve on profile prof from runs; gpus
// is the experiment's GPU count (used when a run does not say).
func CurveOf(runs []Run, exp, prof string) Curve {
	c := Curve{Experiment: exp}
	for _, pt := range Points(runs, prof) {
		g := Group(runs, exp, prof, pt)
		if len(g) == 0 {
			continue
		}
		cp := CurvePoint{Point: pt, GPUs: g[0].gpus()}
		cp.Total = stats.Summarize(Values(g, func(s *schema.Summary) (float64, bool) { return s.TotalTokenThroughput, true }, true))
		cp.Output = stats.Summarize(Values(g, func(s *schema.Summary) (float64, bool) { return s.OutputThroughput, true }, true))
		cp.Runs = cp.Total.N
		skipped := 0
		var tpotMed, ttft50, ttft99, tpot50, tpot99, rate, tpj []float64
		for _, r := range g {
			res := r.Result
			if res.Status == schema.StatusSkipped {
				skipped++
			}
			if !ok(res) {
				continue
			}
			s := res.Summary
			cp.Summaries = append(cp.Summaries, s)
			cp.Failed += s.Failed
			cp.Requests += max(s.Completed+s.Failed, res.Load.NumPrompts)
			if v, found := s.Value(schema.SLOKey{Metric: "tpot", Stat: "median"}); found {
				tpotMed = append(tpotMed, v)
			}
			ttft50 = appendStat(ttft50, s, "ttft", 50)
			ttft99 = appendStat(ttft99, s, "ttft", 99)
			tpot50 = appendStat(tpot50, s, "tpot", 50)
			tpot99 = appendStat(tpot99, s, "tpot", 99)
			rate = append(rate, s.RequestThroughput)
			if res.Telemetry != nil && res.Telemetry.TotalEnergyJ > 0 {
				tpj = append(tpj, float64(s.TotalOutputTokens)/res.Telemetry.TotalEnergyJ)
			}
		}
		cp.Skipped = cp.Runs == 0 && skipped > 0
		cp.Interactivity = stats.Interactivity(mean(tpotMed))
		cp.TTFTP50, cp.TTFTP99, cp.TPOTP50, cp.TPOTP99 = mean(ttft50), mean(ttft99), mean(tpot50), mean(tpot99)
		cp.RequestRate, cp.TokPerJ = mean(rate), mean(tpj)
		c.Points = append(c.Points, cp)
	}
	return c
}

func appendStat(list []float64, s *schema.Summary, metric string, p float64) []float64 {
	k := schema.SLOKey{Metric: metric, Stat: "p", P: p}
	if p == 50 {
		k = schema.SLOKey{Metric: metric, Stat: "median"}
	}
	if v, found := s.Value(k); found {
		return append(list, v)
	}
	return list
}

// mean of xs; NaN for none.
func mean(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	return stats.Summarize(xs).Mean
}

// FrontierPoint is a point on the Pareto frontier: curve Curve's point
// Index, at interactivity X and throughput per GPU Y.
type FrontierPoint struct {
	Curve, Index int
	X, Y         float64
}

// Frontier is the Pareto frontier across curves in the plane of
// interactivity (x, tok/s/user) and throughput per GPU (y, total or
// output): the points no other point beats on both, in increasing x. A
// point is dominated when another has x and y at least as large and one
// of them larger. Points without both numbers are left out.
func Frontier(curves []Curve, output bool) []FrontierPoint {
	var all []FrontierPoint
	for ci, c := range curves {
		for pi, p := range c.Points {
			x, y := p.Interactivity, p.Throughput(output)
			if p.Runs == 0 || math.IsNaN(x) || math.IsNaN(y) {
				continue
			}
			all = append(all, FrontierPoint{Curve: ci, Index: pi, X: x, Y: y})
		}
	}
	// Sweep from the highest x down, keeping each point whose y beats
	// every point with a larger x.
	sort.SliceStable(all, func(i, j int) bool {
		if all[i].X != all[j].X {
			return all[i].X > all[j].X
		}
		return all[i].Y > all[j].Y
	})
	var out []FrontierPoint
	best := math.Inf(-1)
	for _, p := range all {
		if p.Y > best {
			out = append(out, p)
			best = p.Y
		}
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}

// SLOAnswer is one experiment's answer to "the most load that meets the
// SLO".
type SLOAnswer struct {
	Experiment string
	// Best is the index in the curve's points of the highest load whose
	// repeats meet every limit (on their mean); -1 when none does.
	Best int
	// Point is that point's load; Checks its limits (or, when no point
	// meets them, the lowest measured point's, to show by how much).
	Point  schema.Point
	Checks []schema.SLOCheck
	// ThroughputPerGPU at Best, tok/s (total or output as asked).
	ThroughputPerGPU float64
	// CostPerMTok is US dollars per million tokens (of the same kind as
	// the throughput) at Best: GPU-hour price × GPUs ÷ (3600 × throughput)
	// × 10⁶; NaN without a price.
	CostPerMTok float64
	// TokPerJ is output tokens per joule at Best; NaN without energy.
	TokPerJ float64
	// Winner marks the answer with the most throughput per GPU.
	Winner bool
	// Failed and Requests are Point's failed and all requests (over its
	// repeats): a point with failed requests does not meet the SLO, however
	// fast the requests that succeeded were.
	Failed, Requests int
}

// Check evaluates slo against the mean of each limit's statistic over
// the summaries (the repeats of one point): a limit is met when that
// mean is at most the limit; a statistic no run recorded fails.
func Check(slo schema.SLO, sums []*schema.Summary) (checks []schema.SLOCheck, met bool) {
	met = true
	for _, key := range slo.Keys() {
		c := schema.SLOCheck{Key: key, LimitMs: slo[key]}
		if k, err := schema.ParseSLOKey(key); err == nil {
			var vs []float64
			for _, s := range sums {
				if v, found := s.Value(k); found {
					vs = append(vs, v)
				}
			}
			if len(vs) > 0 {
				c.ValueMs, c.Found = mean(vs), true
			}
		}
		c.Met = c.Found && c.ValueMs <= c.LimitMs
		met = met && c.Met
		checks = append(checks, c)
	}
	return checks, met
}

// SLOAnswers answers the SLO for each curve; the answer with the highest
// throughput per GPU is the winner (none when no curve meets the SLO).
func SLOAnswers(curves []Curve, slo schema.SLO, cost *schema.Cost, output bool) []SLOAnswer {
	var out []SLOAnswer
	win, winY := -1, math.Inf(-1)
	for _, c := range curves {
		a := SLOAnswer{Experiment: c.Experiment, Best: -1, ThroughputPerGPU: math.NaN(), CostPerMTok: math.NaN(), TokPerJ: math.NaN()}
		first := true
		for i, p := range c.Points {
			if p.Runs == 0 {
				continue
			}
			checks, met := Check(slo, p.Summaries)
			met = met && p.Failed == 0
			if met {
				a.Best, a.Point, a.Checks = i, p.Point, checks
				a.Failed, a.Requests = 0, p.Requests
			} else if first && a.Best < 0 {
				a.Point, a.Checks = p.Point, checks
				a.Failed, a.Requests = p.Failed, p.Requests
			}
			first = false
		}
		if a.Best >= 0 {
			p := c.Points[a.Best]
			a.ThroughputPerGPU = p.Throughput(output)
			a.TokPerJ = p.TokPerJ
			if cost != nil && cost.GPUHourUSD > 0 && a.ThroughputPerGPU > 0 {
				a.CostPerMTok = cost.GPUHourUSD / (3600 * a.ThroughputPerGPU) * 1e6
			}
			if a.ThroughputPerGPU > winY {
				win, winY = len(out), a.ThroughputPerGPU
			}
		}
		out = append(out, a)
	}
	if win >= 0 {
		out[win].Winner = true
	}
	return out
}
