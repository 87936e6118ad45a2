package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/perflab/perflab/collect/benchflags"
	"github.com/perflab/perflab/collect/benchrun"
	"github.com/perflab/perflab/collect/metrics"
	"github.com/perflab/perflab/collect/schema"
	"github.com/perflab/perflab/collect/sweep"
)

// seriesFlags are perflab bench's flags for more than one run: sweeps,
// repeats, comparisons, the SLO and its search (vllm-bench's names where
// it has the feature), and the steady-state window.
type seriesFlags struct {
	sweepConc, sweepRate string
	factor               float64
	numRuns              int
	compare              itemFlag
	slo                  listFlag
	sloSearch            string
	sloStart, sloMax     float64
	sloResolution        float64
	sloProbes            int
	noSteady             bool
	steadyThreshold      float64
	steadyMinWindow      float64

	// parsed
	points    []sweep.Point
	sloLimits schema.SLO
	search    sweep.Kind
}

// seriesRows are the series flags' rows of the flag table (vllm-bench's
// names where it has the feature; --slo and the search are perflab's).
var seriesRows = func() benchflags.Table {
	f := func(name string, k benchflags.Kind, def, help string, o benchflags.Origin) benchflags.Flag {
		return benchflags.Flag{Name: name, Kind: k, Default: def, Help: help, Action: benchflags.Act, Origin: o,
			Group: "Sweeps, repeats, comparisons and SLOs"}
	}
	vb, own := benchflags.VLLMBench, benchflags.Perflab
	return benchflags.Table{
		f("sweep-max-concurrency", benchflags.String, "", "sweep: run once per concurrency in this comma-separated list (e.g. 1,8,64), then print a sweep summary table", vb),
		f("sweep-request-rate", benchflags.String, "", "sweep: run once per request rate in this comma-separated list (e.g. 1,10,inf)", vb),
		f("sweep-num-prompts-factor", benchflags.Float, "", "concurrency sweep or search: num_prompts = concurrency × F at each point (default: --num-prompts)", vb),
		f("num-runs", benchflags.Int, "1", "repeat each run N times and print mean, std, min, max and CV of the headline metrics (every run is saved; --compare needs >=4 runs per side, or unequal counts such as 3+5, to call a change significant)", vb),
		f("compare", benchflags.List, "", "compare OLD NEW (no server): each a comma-separated list of result files or globs (perflab JSON, vLLM JSON, --append-result JSON lines); ~ marks a change that is not significant (Mann-Whitney U, p>0.05, as benchstat; needs >=4 runs per side, or unequal counts such as 3+5)", vb),
		f("slo", benchflags.List, "", "latency limits in ms, e.g. ttft_p99:2000 tpot_p99:50 (METRIC_STAT: ttft, tpot, itl, e2el × mean, median, pNN): marked in a sweep, searched with --slo-search, checked after a single run or each --num-runs repeat", own),
		f("slo-search", benchflags.String, "", "max_concurrency or request_rate: find the highest load that meets --slo: probe --slo-search-start, doubling while the SLO holds (up to --slo-search-max), then bisect [last met, first broken] to --slo-search-resolution, in at most --slo-search-max-probes runs; prints every probe and the answer (assumes latency grows with load)", own),
		f("slo-search-start", benchflags.Float, "1", "SLO search: the first load probed (a rate search does not go below it)", own),
		f("slo-search-max", benchflags.Float, "", "SLO search: the highest load probed (default 1024 concurrency, 1000 req/s)", own),
		f("slo-search-max-probes", benchflags.Int, "12", "SLO search: at most this many runs", own),
		f("slo-search-resolution", benchflags.Float, "", "SLO search: stop bisecting when the bracket is this narrow (default: 1 concurrency; 5% of the rate)", own),
		f("no-steady-state", benchflags.Bool, "", "do not compute the steady-state metrics", vb),
		f("steady-state-threshold", benchflags.Float, strconv.FormatFloat(metrics.DefaultSteadyThreshold, 'g', -1, 64), "steady state: the window holds at least ceil(threshold × --max-concurrency) requests in flight; in (0, 1]", vb),
		f("steady-state-min-window", benchflags.Float, "", "steady state: warn when the window is shorter than this many seconds (default max(10, 10% of the run))", vb),
	}
}()

// binds adds the series flags' fields to the command's bindings.
func (s *seriesFlags) binds(m map[string]any) {
	for name, p := range map[string]any{
		"sweep-max-concurrency": &s.sweepConc, "sweep-request-rate": &s.sweepRate, "sweep-num-prompts-factor": &s.factor,
		"num-runs": &s.numRuns, "compare": &s.compare, "slo": &s.slo, "slo-search": &s.sloSearch,
		"slo-search-start": &s.sloStart, "slo-search-max": &s.sloMax, "slo-search-max-probes": &s.sloProbes,
		"slo-search-resolution": &s.sloResolution, "no-steady-state": &s.noSteady,
		"steady-state-threshold": &s.steadyThreshold, "steady-state-min-window": &s.steadyMinWindow,
	} {
		m[name] = p
	}
}

// parse checks the flags' values and how they combine.
func (s *seriesFlags) parse(set map[string]bool) error {
	var err error
	if s.sweepConc != "" && s.sweepRate != "" {
		return usageError("bench: --sweep-max-concurrency and --sweep-request-rate: sweep one at a time")
	}
	if s.sweepConc != "" {
		if s.points, err = sweep.ParseList(sweep.Concurrency, s.sweepConc); err != nil {
			return usageError("bench: --sweep-max-concurrency: %v", err)
		}
	}
	if s.sweepRate != "" {
		if s.points, err = sweep.ParseList(sweep.Rate, s.sweepRate); err != nil {
			return usageError("bench: --sweep-request-rate: %v", err)
		}
	}
	if len(s.slo) > 0 {
		if s.sloLimits, err = schema.ParseSLO(s.slo); err != nil {
			return usageError("bench: --slo: %v", err)
		}
	}
	switch s.sloSearch {
	case "":
	case "max_concurrency", "concurrency":
		s.search = sweep.Concurrency
	case "request_rate", "rate":
		s.search = sweep.Rate
	default:
		return usageError("bench: --slo-search %q: want max_concurrency or request_rate", s.sloSearch)
	}
	switch {
	case s.numRuns < 1:
		return usageError("bench: --num-runs %d: want at least 1", s.numRuns)
	case s.factor < 0 || math.IsInf(s.factor, 0) || math.IsNaN(s.factor):
		return usageError("bench: --sweep-num-prompts-factor %v: want a positive number", s.factor)
	case s.factor > 0 && (s.sweepRate != "" || s.search == sweep.Rate):
		return usageError("bench: --sweep-num-prompts-factor scales the prompts with the concurrency: it needs --sweep-max-concurrency or --slo-search max_concurrency")
	case s.factor > 0 && s.sweepConc == "" && s.search == "":
		return usageError("bench: --sweep-num-prompts-factor needs --sweep-max-concurrency or --slo-search max_concurrency")
	case s.search != "" && len(s.sloLimits) == 0:
		return usageError("bench: --slo-search needs --slo limits")
	case s.search != "" && len(s.points) > 0:
		return usageError("bench: --slo-search chooses its own points: drop the --sweep-* list")
	case s.search != "" && s.numRuns > 1:
		return usageError("bench: --slo-search runs each load once: drop --num-runs")
	case !(s.steadyThreshold > 0 && s.steadyThreshold <= 1):
		return usageError("bench: --steady-state-threshold %v: want a fraction in (0, 1]", s.steadyThreshold)
	case !(s.steadyMinWindow >= 0): // NaN too
		return usageError("bench: --steady-state-min-window %v: want a number of seconds >= 0", s.steadyMinWindow)
	case len(s.compare) != 0 && len(s.compare) != 2:
		return usageError("bench: --compare takes two arguments, OLD and NEW (each a comma-separated list of files or globs); got %d", len(s.compare))
	}
	return nil
}

// active is true when the command runs more than one benchmark.
func (s *seriesFlags) active() bool {
	return len(s.points) > 0 || s.numRuns > 1 || s.search != ""
}

// seriesState is where a series stands.
type seriesState struct {
	point  *sweep.Point // the sweep point or search probe running; nil for none
	repeat int          // 0-based, with --num-runs > 1
	// workloads are the datasets built, by number of prompts.
	workloads map[int]*benchrun.Workload
}

// prepareSeries adds the percentiles the summary table and the SLO need
// (P99, and each pNN of --slo) to --metric-percentiles, as vllm-bench
// adds its summary percentiles, so that they are computed and saved.
func (r *benchRun) prepareSeries() error {
	s := &r.f.series
	var need []float64
	if s.active() {
		need = append(need, 99)
	}
	for _, k := range s.sloLimits.Keys() {
		key, err := schema.ParseSLOKey(k)
		if err != nil {
			return usageError("bench: --slo: %v", err)
		}
		if key.Stat == "p" {
			need = append(need, key.P)
		}
	}
	ps := r.opt.Bench.Metrics.Percentiles
	if ps == nil {
		ps = []float64{99}
	}
	for _, p := range need {
		if !slices.Contains(ps, p) {
			ps = append(ps, p)
		}
	}
	r.opt.Bench.Metrics.Percentiles = ps
	return nil
}

// workload builds the dataset for the current number of prompts once
// (a sweep with --sweep-num-prompts-factor changes it point by point).
func (r *benchRun) workload(ctx context.Context) (*benchrun.Workload, error) {
	n := r.opt.Dataset.NumPrompts
	if w, ok := r.series.workloads[n]; ok {
		return w, nil
	}
	w, err := benchrun.Build(ctx, &r.opt)
	if err != nil {
		return nil, datasetError(err)
	}
	if r.series.workloads == nil {
		r.series.workloads = map[int]*benchrun.Workload{}
	}
	r.series.workloads[n] = w
	return w, nil
}

// setLoad points the next run at a sweep point or search probe.
func (r *benchRun) setLoad(p sweep.Point) {
	r.series.point = &p
	switch p.Kind {
	case sweep.Concurrency:
		c := int(p.Value)
		r.opt.Bench.MaxConcurrency, r.opt.Bench.Metrics.MaxConcurrency = c, c
		if f := r.f.series.factor; f > 0 {
			r.opt.Dataset.NumPrompts = max(1, int(math.Ceil(float64(c)*f)))
		}
	case sweep.Rate:
		r.rate, r.opt.Bench.RequestRate = p.Value, p.Value
		r.opt.Bench.Metrics.RequestRate = 0
		if !math.IsInf(p.Value, 1) {
			r.opt.Bench.Metrics.RequestRate = p.Value
		}
	}
}

// suffix names the current point and repeat in file names and ids:
// "-concurrency8", "-qps10", "-run2".
func (r *benchRun) suffix(withPoint bool) string {
	var b strings.Builder
	if p := r.series.point; p != nil && withPoint {
		if p.Kind == sweep.Concurrency {
			fmt.Fprintf(&b, "-concurrency%d", int(p.Value))
		} else {
			fmt.Fprintf(&b, "-qps%s", sweep.FormatRate(p.Value))
		}
	}
	if r.f.series.numRuns > 1 {
		fmt.Fprintf(&b, "-run%d", r.series.repeat+1)
	}
	return b.String()
}

// seriesFileName makes each run of a series its own file: vLLM's default
// name already holds the rate and concurrency, so only a repeat's
// "-runK" is added; a --result-filename gets the point too. With
// --append-result every run goes to the same JSON-lines file.
func (r *benchRun) seriesFileName(name string) string {
	if !r.f.series.active() || r.f.appendResult {
		return name
	}
	ext := ".json"
	base, ok := strings.CutSuffix(name, ext)
	if !ok {
		ext = ""
	}
	return base + r.suffix(r.f.resultFilename != "") + ext
}

// seriesOutputJSON gives each run of a series its own --output-json
// file: the point and repeat go before ".json" ("r.json" →
// "r-concurrency8-run2.json").
func (r *benchRun) seriesOutputJSON(name string) string {
	if name == "" || !r.f.series.active() {
		return name
	}
	base, ok := strings.CutSuffix(name, ".json")
	if !ok {
		return name + r.suffix(true)
	}
	return base + r.suffix(true) + ".json"
}

// markSeries records the run's place in the series.
func (r *benchRun) markSeries(res *schema.Result) {
	if !r.f.series.active() {
		return
	}
	res.ID += r.suffix(true)
	if p := r.series.point; p != nil {
		res.Load.Sweep = string(p.Kind)
	}
	res.Repeat = r.series.repeat
}

// runSeries runs a sweep (each point --num-runs times), repeats of one
// configuration, or an SLO search. Ctrl-C stops it after saving what
// finished; the summary covers the finished points.
func (r *benchRun) runSeries(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	s := &r.f.series
	if s.search != "" {
		return r.runSearch(ctx, args, stdout, stderr)
	}
	points := s.points
	if len(points) == 0 {
		points = []sweep.Point{{}} // repeats of the configured load
	}
	var rows []sweep.Row
	var failed []string
	interrupted := false
	runsDone, pointsDone := 0, 0 // runs that ended (ok or failed); points whose every run did
	for i, p := range points {
		row := sweep.Row{Point: p}
		if p.Kind != "" {
			r.setLoad(p)
		}
		for k := 0; k < s.numRuns && !interrupted; k++ {
			r.series.repeat = k
			fmt.Fprintln(stdout, seriesHeading(p, i, len(points), k, s.numRuns))
			res, err := r.runOnce(ctx, args, stdout, stderr)
			if ctx.Err() != nil {
				interrupted = true
				break
			}
			if err != nil && res == nil {
				return err
			}
			runsDone++
			if err != nil {
				failed = append(failed, fmt.Sprintf("%s: %v", seriesName(p, k, s.numRuns), err))
				continue
			}
			row.Runs = append(row.Runs, res.Summary)
		}
		if s.numRuns > 1 && len(row.Runs) > 1 {
			if err := sweep.WriteRepeats(stdout, row.Runs, r.opt.Bench.Metrics.Percentiles); err != nil {
				return err
			}
		}
		if len(row.Runs) > 0 {
			rows = append(rows, row)
		}
		if interrupted {
			break
		}
		pointsDone++
	}
	if len(s.points) > 0 && len(rows) > 0 {
		fmt.Fprintln(stdout)
		opt := sweep.TableOptions{Goodput: len(r.opt.Bench.Metrics.Goodput) > 0, SLO: s.sloLimits}
		if err := sweep.WriteTable(stdout, rows, opt); err != nil {
			return err
		}
	}
	if interrupted {
		total := len(points) * s.numRuns
		switch {
		case len(s.points) == 0:
			return fmt.Errorf("bench: interrupted: %d of %d runs finished (their files are saved)", runsDone, total)
		case s.numRuns > 1:
			return fmt.Errorf("bench: interrupted: %d of %d points finished, %d of %d runs (their files are saved)", pointsDone, len(s.points), runsDone, total)
		}
		return fmt.Errorf("bench: interrupted: %d of %d points finished (their files are saved)", pointsDone, len(s.points))
	}
	if len(failed) > 0 {
		return fmt.Errorf("bench: %d of %d runs failed: %s", len(failed), runsDone, strings.Join(failed, "; "))
	}
	return nil
}

// seriesHeading is the line printed before each run of a series.
func seriesHeading(p sweep.Point, i, n, k, runs int) string {
	var parts []string
	if p.Kind != "" {
		parts = append(parts, fmt.Sprintf("Sweep point %s (%d of %d)", p, i+1, n))
	}
	if runs > 1 {
		parts = append(parts, fmt.Sprintf("run %d of %d", k+1, runs))
	}
	return "\n### " + strings.Join(parts, ", ")
}

func seriesName(p sweep.Point, k, runs int) string {
	name := "run"
	if p.Kind != "" {
		name = p.String()
	}
	if runs > 1 {
		name += " run " + strconv.Itoa(k+1)
	}
	return name
}

// runSearch finds the highest load meeting --slo (sweep.Search's rule),
// printing each probe's block, a line per probe and the answer.
func (r *benchRun) runSearch(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	s := &r.f.series
	cfg := sweep.SearchConfig{Kind: s.search, Start: s.sloStart, Max: s.sloMax, MaxProbes: s.sloProbes, Resolution: s.sloResolution,
		OnProbe: func(i int, p sweep.Probed) { _ = sweep.WriteProbe(stdout, i, p) }}
	n := 0
	probe := func(ctx context.Context, load float64) (*schema.Summary, error) {
		p := sweep.Point{Kind: s.search, Value: load}
		r.setLoad(p)
		n++
		fmt.Fprintf(stdout, "\n### SLO search probe %d: %s\n", n, p)
		res, err := r.runOnce(ctx, args, stdout, stderr)
		if err != nil {
			return nil, err
		}
		return res.Summary, nil
	}
	res, err := sweep.Search(ctx, s.sloLimits, cfg, probe)
	if len(res.Probes) > 0 {
		if werr := sweep.WriteSearch(stdout, res); werr != nil {
			return werr
		}
	}
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	return nil
}

// runCompare prints --compare OLD NEW.
func runCompare(f *benchFlags, stdout io.Writer) error {
	old, err := sweep.ReadSide(f.series.compare[0])
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	new, err := sweep.ReadSide(f.series.compare[1])
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	ps, err := metrics.ParsePercentiles(f.metricPercentile)
	if err != nil {
		return usageError("%v", err)
	}
	return sweep.WriteCompare(stdout, old, new, ps)
}

// writeSLOCheck prints whether a single run met --slo, limit by limit.
func writeSLOCheck(w io.Writer, slo schema.SLO, sum *schema.Summary) error {
	checks, ok := slo.Check(sum)
	verdict := "met"
	if !ok {
		verdict = "broken"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "SLO %s: %s\n", slo, verdict)
	for _, c := range checks {
		switch {
		case !c.Found:
			fmt.Fprintf(&b, "  %s: not recorded\n", c.Key)
		case c.Met:
			fmt.Fprintf(&b, "  %s: %.2f <= %g ms\n", c.Key, c.ValueMs, c.LimitMs)
		default:
			fmt.Fprintf(&b, "  %s: %.2f > %g ms\n", c.Key, c.ValueMs, c.LimitMs)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
