package sweep

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/perflab/perflab/collect/schema"
)

// SearchConfig bounds the SLO search.
type SearchConfig struct {
	Kind Kind
	// Start is the first load probed (default 1); Max the most the
	// bracketing probes (default 1024 for concurrency, 1000 req/s for a
	// rate).
	Start, Max float64
	// MaxProbes bounds the runs (default 12).
	MaxProbes int
	// Resolution ends the bisection once the bracket [met, broken] is at
	// most this wide. Concurrency: 1 (exact, the default and the least).
	// Rate: default 5 % of the broken end.
	Resolution float64
	// OnProbe, when set, is called after each probe (to print it).
	OnProbe func(i int, p Probed)
}

// Probe runs the benchmark at one load and returns its summary.
type Probe func(ctx context.Context, load float64) (*schema.Summary, error)

// Probed is one run of the search.
type Probed struct {
	Kind    Kind
	SLO     schema.SLO
	Phase   string // "bracket" or "bisect"
	Load    float64
	Summary *schema.Summary
	Met     bool
	Why     string // the first broken limit
}

// SearchResult is the search's answer.
type SearchResult struct {
	Kind   Kind
	SLO    schema.SLO
	Probes []Probed
	// Best is the highest load probed that met the SLO; 0 (and BestIndex
	// −1) when none did.
	Best      float64
	BestIndex int
	// Broken is the lowest load probed above Best that broke the SLO; 0
	// when none did (every probe up to Max met it).
	Broken float64
	// Exact is true when the bisection closed the bracket to Resolution;
	// false when it stopped at MaxProbes or at Max (the answer is then a
	// lower bound).
	Exact  bool
	Reason string
}

func (c SearchConfig) withDefaults() (SearchConfig, error) {
	if c.Kind != Concurrency && c.Kind != Rate {
		return c, fmt.Errorf("slo search: kind %q: want %s or %s", c.Kind, Concurrency, Rate)
	}
	if c.Start == 0 {
		c.Start = 1
	}
	if c.Max == 0 {
		c.Max = 1024
		if c.Kind == Rate {
			c.Max = 1000
		}
	}
	if c.MaxProbes == 0 {
		c.MaxProbes = 12
	}
	switch {
	case !(c.Start > 0) || math.IsInf(c.Start, 0):
		return c, fmt.Errorf("slo search: start %v: want a positive number", c.Start)
	case !(c.Max >= c.Start) || math.IsInf(c.Max, 0):
		return c, fmt.Errorf("slo search: max %v: want a finite number ≥ start %v", c.Max, c.Start)
	case c.MaxProbes < 1:
		return c, fmt.Errorf("slo search: max probes %d: want at least 1", c.MaxProbes)
	case !(c.Resolution >= 0): // NaN too
		return c, fmt.Errorf("slo search: resolution %v: must not be negative", c.Resolution)
	}
	if c.Kind == Concurrency {
		if c.Start != math.Trunc(c.Start) || c.Max != math.Trunc(c.Max) {
			return c, fmt.Errorf("slo search: concurrency start %v and max %v must be whole numbers", c.Start, c.Max)
		}
		c.Resolution = max(math.Round(c.Resolution), 1)
	}
	return c, nil
}

// Search finds the highest load that meets slo, in at most MaxProbes
// runs. The rule:
//
//  1. Bracket: probe Start, 2×Start, 4×Start, … (capped at Max) while
//     the SLO is met; the first load that breaks it closes the bracket
//     [last met, first broken] (0 stands for "met" below Start). If Max
//     itself meets the SLO, the answer is Max and the search stops.
//     A rate search that breaks the SLO at Start stops there (no
//     answer): below Start a rate has no floor.
//  2. Bisect: probe the middle of the bracket (rounded down to a whole
//     concurrency) and keep the half whose ends still are "met" and
//     "broken", until the bracket is at most Resolution wide.
//
// It assumes that latency grows with load (one broken probe means every
// higher load breaks too); a noisy probe near the limit can make the
// answer one step low or high. The answer is the highest load probed that
// met the SLO. Every probe is kept, in order. An error from probe ends
// the search with the probes so far.
func Search(ctx context.Context, slo schema.SLO, cfg SearchConfig, probe Probe) (SearchResult, error) {
	res := SearchResult{Kind: cfg.Kind, SLO: slo, BestIndex: -1}
	if len(slo) == 0 {
		return res, errors.New("slo search: no SLO given (--slo)")
	}
	if err := slo.Validate(); err != nil {
		return res, fmt.Errorf("slo search: %w", err)
	}
	cfg, err := cfg.withDefaults()
	if err != nil {
		return res, err
	}
	run := func(phase string, load float64) (bool, error) {
		sum, err := probe(ctx, load)
		if err != nil {
			return false, fmt.Errorf("slo search: probe %s: %w", Point{cfg.Kind, load}, err)
		}
		p := Probed{Kind: cfg.Kind, SLO: slo, Phase: phase, Load: load, Summary: sum}
		p.Met, p.Why = Row{Runs: []*schema.Summary{sum}}.MeetsSLO(slo)
		res.Probes = append(res.Probes, p)
		if cfg.OnProbe != nil {
			cfg.OnProbe(len(res.Probes)-1, p)
		}
		if p.Met && load > res.Best {
			res.Best, res.BestIndex = load, len(res.Probes)-1
		}
		return p.Met, nil
	}
	lo, hi := 0.0, math.NaN() // lo met (0: nothing probed met), hi broken
	for x := cfg.Start; ; x = math.Min(2*x, cfg.Max) {
		if len(res.Probes) >= cfg.MaxProbes {
			res.Reason = fmt.Sprintf("stopped after %d probes while bracketing: the answer is a lower bound", cfg.MaxProbes)
			return res, nil
		}
		met, err := run("bracket", x)
		if err != nil {
			return res, err
		}
		if !met {
			hi = x
			break
		}
		lo = x
		if x >= cfg.Max {
			res.Reason = fmt.Sprintf("met at the search's upper bound %s: raise it (--slo-search-max) to look further", Point{cfg.Kind, x})
			return res, nil
		}
	}
	res.Broken = hi
	if cfg.Kind == Rate && lo == 0 {
		// Below Start a rate has no floor: halving it toward 0 never
		// closes a bracket whose width is relative to its top, and each
		// probe lasts num_prompts / rate seconds. Stop at Start.
		res.Reason = fmt.Sprintf("no load meets the SLO: %s, the search's start, breaks it (lower --slo-search-start to look below it)", Point{cfg.Kind, hi})
		return res, nil
	}
	for {
		width := cfg.Resolution
		if cfg.Kind == Rate && width == 0 {
			width = 0.05 * hi
		}
		if hi-lo <= width {
			res.Exact = true
			break
		}
		if len(res.Probes) >= cfg.MaxProbes {
			res.Reason = fmt.Sprintf("stopped after %d probes with the bracket [%s, %s] open", cfg.MaxProbes, FormatRate(lo), FormatRate(hi))
			return res, nil
		}
		mid := (lo + hi) / 2
		if cfg.Kind == Concurrency {
			mid = math.Floor(mid)
		}
		met, err := run("bisect", mid)
		if err != nil {
			return res, err
		}
		if met {
			lo = mid
		} else {
			hi = mid
			res.Broken = hi
		}
	}
	switch {
	case res.BestIndex < 0:
		res.Reason = fmt.Sprintf("no load meets the SLO: %s breaks it", Point{cfg.Kind, hi})
	default:
		res.Reason = fmt.Sprintf("%s meets the SLO, %s breaks it", Point{cfg.Kind, res.Best}, Point{cfg.Kind, hi})
	}
	return res, nil
}

// WriteProbe writes one probe's line as the search runs.
func WriteProbe(w io.Writer, i int, p Probed) error {
	verdict := "breaks the SLO: " + p.Why
	if p.Met {
		var vals []string
		checks, _ := p.SLO.Check(p.Summary)
		for _, c := range checks {
			vals = append(vals, fmt.Sprintf("%s %s <= %s", c.Key, fixed2(c.ValueMs), fixed2(c.LimitMs)))
		}
		verdict = "meets the SLO (" + strings.Join(vals, ", ") + ")"
	}
	_, err := fmt.Fprintf(w, "SLO search probe %d (%s): %s: %s\n", i+1, p.Phase, Point{p.Kind, p.Load}, verdict)
	return err
}

// WriteSearch writes every probe and the answer.
func WriteSearch(w io.Writer, r SearchResult) error {
	var b strings.Builder
	b.WriteString("\n")
	rows := make([]Row, len(r.Probes))
	for i, p := range r.Probes {
		rows[i] = Row{Point: Point{r.Kind, p.Load}, Runs: []*schema.Summary{p.Summary}}
	}
	if err := WriteTable(&b, rows, TableOptions{SLO: r.SLO, Title: "SLO Search: " + string(r.Kind)}); err != nil {
		return err
	}
	if r.BestIndex >= 0 {
		s := r.Probes[r.BestIndex].Summary
		fmt.Fprintf(&b, "Answer: %s (%s output tok/s, %s req/s)", Point{r.Kind, r.Best}, fixed2(s.OutputThroughput), fixed2(s.RequestThroughput))
	} else {
		b.WriteString("Answer: none")
	}
	fmt.Fprintf(&b, " after %s; %s\n", plural(len(r.Probes), "probe"), r.Reason)
	_, err := io.WriteString(w, b.String())
	return err
}
