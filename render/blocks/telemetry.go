package blocks

import (
	"bytes"
	"fmt"
	"html/template"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/perflab/perflab/collect/schema"
	"github.com/perflab/perflab/render/charts"
	"github.com/perflab/perflab/render/site"
)

// The telemetry block: one run's GPU samples (collect's NVML sampler,
// schema.Telemetry) over the run's time, as four stacked panels of lines
// (utilization, memory used, power, SM and memory clocks), one line per
// GPU, under a one-line summary. A run without samples gets one sentence
// saying why (the sampler's warning) instead.

// telemetryBlock renders the telemetry block of spec (blocks.go's
// dispatch; experiment and profile were checked there).
func (c *Ctx) telemetryBlock(w *bytes.Buffer, spec BlockSpec) error {
	run, err := c.telemetryRun(spec)
	if err != nil {
		return err
	}
	return c.telemetry(w, run, spec.Title)
}

// telemetryRun picks the block's run: experiment (default: the optimized
// one) on profile (default: the experiment's first), at point (default: a
// sweep's highest), its first repeat.
func (c *Ctx) telemetryRun(spec BlockSpec) (*Run, error) {
	camp := c.rep.Campaign
	exp := spec.Experiment
	if exp == "" {
		exp = camp.Optimized
	}
	e, ok := camp.Experiment(exp)
	if !ok {
		return nil, fmt.Errorf("block telemetry: field experiment: missing, and the campaign %s names no optimized experiment", c.rep.CampaignFile)
	}
	prof := spec.Profile
	if prof == "" {
		profs := c.rep.ProfilesOf(e)
		if len(profs) == 0 {
			return nil, fmt.Errorf("block telemetry: field profile: missing, and experiment %q has no profile in %s", exp, c.rep.CampaignFile)
		}
		prof = profs[0].ID
	}
	run, err := c.runAt("telemetry", exp, prof, spec.Point)
	if err == nil && run == nil {
		err = fmt.Errorf("block telemetry: no result for experiment %q on profile %q (expected a file in %s with experiment %q and profile %q)",
			exp, prof, c.rep.ResultsDir, exp, prof)
	}
	return run, err
}

// skeletonTelemetry is the telemetry block the generated skeleton places
// in experiment exp's section: the block's default run, when exp is the
// optimized experiment, it has that run, and some run of the report has
// samples (a report collected without GPUs shows nothing new).
func (c *Ctx) skeletonTelemetry(exp string) (template.HTML, error) {
	if exp != c.rep.Campaign.Optimized || !c.rep.HasTelemetry() {
		return "", nil
	}
	run, err := c.telemetryRun(BlockSpec{})
	if err != nil {
		return "", nil // no run to show: the step's table says so
	}
	return c.html(func(w *bytes.Buffer) error {
		w.WriteByte('\n')
		return c.telemetry(w, run, "")
	})
}

// telemetryMetric is one panel of the chart.
type telemetryMetric struct {
	panel, name, unit string
	value             func(s *schema.GPUSample) float64
}

// MaxTelemetryPoints bounds the points drawn per GPU and metric.
const MaxTelemetryPoints = 300

var telemetryMetrics = []telemetryMetric{
	{"GPU utilization (%)", "utilization (%)", "%", func(s *schema.GPUSample) float64 { return s.UtilPct }},
	{"GPU memory used (GiB)", "memory used (GiB)", "GiB", func(s *schema.GPUSample) float64 { return s.MemUsedMiB / 1024 }},
	{"GPU power (W)", "power (W)", "W", func(s *schema.GPUSample) float64 { return s.PowerW }},
	{"Clocks (MHz)", "SM clock (MHz)", "MHz", func(s *schema.GPUSample) float64 { return s.SMClockMHz }},
	{"Clocks (MHz)", "memory clock (MHz)", "MHz", func(s *schema.GPUSample) float64 { return s.MemClockMHz }},
}

// telemetryNote is the telemetry block's sentence (templates/history.html):
// the summary line, or (None) why the run has no telemetry.
type telemetryNote struct {
	None                bool
	Label, Why, Summary string
}

// telemetry writes run's summary line and chart, or the sentence saying
// why it has none.
func (c *Ctx) telemetry(w *bytes.Buffer, run *Run, title string) error {
	label := c.runLabel(run)
	t := run.Result.Telemetry
	if t == nil || len(t.Samples) == 0 {
		why := "no samples were recorded"
		switch {
		case t == nil:
			why = "it was collected without the GPU sampler"
		case t.Warning != "":
			why = strings.TrimRight(t.Warning, ".")
		}
		return c.execTo(w, "telemetry-note", telemetryNote{None: true, Label: label, Why: why})
	}
	// One line per GPU, in GPU order, a colour each (the same in every
	// panel).
	var gpus []int
	for i := range t.Samples {
		if !slices.Contains(gpus, t.Samples[i].GPU) {
			gpus = append(gpus, t.Samples[i].GPU)
		}
	}
	slices.Sort(gpus)
	// A long run on eight GPUs holds tens of thousands of samples: the chart
	// draws at most MaxTelemetryPoints of each GPU's, evenly spaced, the
	// last kept (the summary line is over every sample).
	drawn := map[int][]int{} // GPU → indexes of its samples drawn
	thinned := false
	for _, g := range gpus {
		var idx []int
		for i := range t.Samples {
			if t.Samples[i].GPU == g {
				idx = append(idx, i)
			}
		}
		if n := len(idx); n > MaxTelemetryPoints {
			step := (n + MaxTelemetryPoints - 1) / MaxTelemetryPoints
			var kept []int
			for k := 0; k < n; k += step {
				kept = append(kept, idx[k])
			}
			if kept[len(kept)-1] != idx[n-1] {
				kept = append(kept, idx[n-1])
			}
			idx, thinned = kept, true
		}
		drawn[g] = idx
	}
	palette := charts.Palette()
	var panels []charts.XYPanel
	for _, m := range telemetryMetrics {
		if len(panels) == 0 || panels[len(panels)-1].Title != m.panel {
			panels = append(panels, charts.XYPanel{Title: m.panel, XName: "Time (s)", YName: m.unit})
		}
		p := &panels[len(panels)-1]
		for gi, g := range gpus {
			s := charts.XYSeries{Name: "GPU " + strconv.Itoa(g) + " " + m.name, Color: palette[gi%len(palette)],
				Dashed: m.name == "memory clock (MHz)"}
			for _, i := range drawn[g] {
				smp := &t.Samples[i]
				v := m.value(smp)
				s.Points = append(s.Points, charts.XYPoint{X: smp.TimeS, Y: v,
					Tip: []string{site.FmtNum(smp.TimeS) + " s", site.FmtNum(v) + " " + m.unit}})
			}
			p.Series = append(p.Series, s)
		}
	}
	if err := c.execTo(w, "telemetry-note", telemetryNote{Summary: telemetrySummary(t, len(gpus))}); err != nil {
		return err
	}
	if title == "" {
		title = "GPU telemetry: " + label
	}
	every := ""
	if t.IntervalS > 0 {
		every = " (sampled every " + strconv.FormatFloat(t.IntervalS, 'f', -1, 64) + " s)"
	}
	if thinned {
		every += ", " + strconv.Itoa(MaxTelemetryPoints) + " or so of each GPU's samples drawn, evenly spaced"
	}
	caption := "GPU utilization, memory used, power, and SM (solid) and memory (dashed) clocks of each GPU over the run" + every +
		"; hover a point for its time and value."
	return c.chartHTML(w, charts.Lines(c.nextChartID("telemetry"), panels), title, caption)
}

// telemetrySummary is the line over the chart: power, memory and
// utilization per GPU over the samples, and the run's energy.
func telemetrySummary(t *schema.Telemetry, gpus int) string {
	var power, util, peakPower, peakMem float64
	for i := range t.Samples {
		s := &t.Samples[i]
		power += s.PowerW
		util += s.UtilPct
		peakPower = math.Max(peakPower, s.PowerW)
		peakMem = math.Max(peakMem, s.MemUsedMiB)
	}
	n := float64(len(t.Samples))
	per := ""
	if gpus > 1 {
		per = " per GPU"
	}
	energy := "energy not recorded"
	if t.TotalEnergyJ > 0 {
		energy = "energy " + site.FmtNum(t.TotalEnergyJ) + " J"
		if gpus > 1 {
			energy += " (all " + strconv.Itoa(gpus) + " GPUs)"
		}
	}
	return fmt.Sprintf("GPU telemetry%s: mean power %s W (peak %s W), peak memory used %s GiB, mean utilization %s%%, %s.",
		per, site.FmtNum(power/n), site.FmtNum(peakPower), site.FmtNum(peakMem/1024), site.FmtNum(util/n), energy)
}
