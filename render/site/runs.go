package site

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/perflab/perflab/collect/schema"
	"github.com/perflab/perflab/render/analysis"
	"github.com/perflab/perflab/render/roundload"
)

// Report is a page bundle's campaign and its results.
type Report struct {
	Page         *Page
	Campaign     *schema.Campaign
	CampaignFile string
	// ResultsDir is where its results live (results/<campaign.results or id>).
	ResultsDir string
	// resultsFound is what Load found at ResultsDir:
	// the directory, and one with no subdirectory (resultFiles).
	resultsFound bool
	runs         map[runKey]*Run
	// all holds every result, sweep points and repeats included, in file
	// order (see Analysis).
	All []*Run
	// rounds are every round of the results, oldest first, when they
	// have rounds (render's history block); the blocks show the
	// latest, all.
	Rounds []RoundResults
	// roundDir is the results directory's rounds as Load read them
	// (rounds.go), nil without rounds; shown is the round the page
	// shows (schema.Shown's rule), ShownRound its id ("" without rounds,
	// or when no round holds a finished result).
	roundDir   *roundload.Dir
	shown      schema.RoundDir
	ShownRound string
	// Stale are the results the campaign no longer defines (an experiment
	// or profile taken out of the campaign, a sweep point taken out of the
	// profile, a repeat beyond its repeats), in file
	// order: left out of every block, listed in a warning on the page and
	// in the build's output.
	Stale []StaleRun
	// Redefined are the runs on the page (the shown round's own and
	// those carried) that perflab collect measured under an older
	// definition of their run than the campaign's today (another run
	// key: a profile's workload, an engine's command or version changed
	// since), in r.All's order: shown, and named in a warning atop the
	// page and in the build's output, since a comparison with them is
	// not between runs of one definition.
	Redefined []*Run
	// shownOwn are the shown round's own results in file order, the stale
	// ones included: the round's own as its history values and data files
	// take them, the same as once a later round makes it an older one.
	shownOwn []*schema.Result
	// Hist is what render computes of the rounds (its history.go),
	// computed once under HistOnce: the model does not know its type.
	HistOnce sync.Once
	Hist     any
}

// StaleRun is a result left out because the campaign no longer defines
// its experiment, profile, point or repeat, and why.
type StaleRun struct {
	Run *Run
	Why string
}

// outsideCampaign says why result res, of profile prof, is one the
// campaign no longer defines: its sweep point is not among the profile's
// points, or its repeat index is beyond the profile's repeats; "" when it
// is defined. Only results perflab collect wrote are judged (tool "perflab
// bench", as collect.Imported tells them apart; render does not import
// collect): an imported sweep keeps the points and repeats its tool ran.
func outsideCampaign(prof *schema.Profile, res *schema.Result) string {
	if !collected(res) {
		return ""
	}
	pt := schema.PointOf(res.Load)
	if sw := prof.Sweep(); sw != "" && pt.Sweep == sw && !slices.Contains(prof.Points(), pt) {
		return fmt.Sprintf("%s is not among profile %s's points (%s)", pt, prof.ID, strings.Join(prof.PointValues(), ", "))
	}
	if n := prof.RepeatCount(); res.Repeat >= n {
		return fmt.Sprintf("it is run %d, but profile %s has repeats: %d", res.Repeat+1, prof.ID, n)
	}
	return ""
}

type runKey struct{ exp, prof string }

// pointKey identifies one result among a profile's sweep points and
// repeats.
type pointKey struct {
	exp, prof string
	pt        schema.Point
	repeat    int
}

// Run is one result with the file it came from.
type Run struct {
	Result *schema.Result
	File   string
	// Round is the id of the earlier round a run is carried from
	// (carried.go: the shown round has no finished result for it); ""
	// for the shown round's own runs.
	Round string
}

// Run returns the run of experiment exp on profile prof, or nil: for a
// profile at one load its first repeat; for a sweep profile the first
// repeat of the profile's highest load point that any experiment ran (the
// saturation end of the curve, the point pointLabel names, so that every
// experiment is shown at the same load; nil for an experiment without a
// run there, such as one whose sweep stopped early). The curve blocks use
// every point: AllRuns.
func (r *Report) Run(exp, prof string) *Run {
	if run := r.runs[runKey{exp, prof}]; run != nil {
		return run
	}
	pt, found := r.TopPoint(prof)
	if !found {
		return nil
	}
	var best *Run
	for _, run := range r.All {
		res := run.Result
		if res.Experiment != exp || res.Profile != prof || res.Status == schema.StatusSkipped || schema.PointOf(res.Load) != pt {
			continue
		}
		// The first repeat with numbers; a crashed one only when none has.
		if best == nil || repeatOK(res) && !repeatOK(best.Result) || repeatOK(res) == repeatOK(best.Result) && res.Repeat < best.Result.Repeat {
			best = run
		}
	}
	return best
}

// PointRuns returns the results of run's point (same experiment, profile
// and load), every repeat but skipped ones, in repeat order.
func (r *Report) PointRuns(run *Run) []*Run {
	return r.RunsAt(run.Result.Experiment, run.Result.Profile, schema.PointOf(run.Result.Load))
}

// RunsAt returns the results of experiment exp on profile prof at point
// pt, every repeat but skipped ones, in repeat order.
func (r *Report) RunsAt(exp, prof string, pt schema.Point) []*Run {
	var out []*Run
	for _, o := range r.All {
		or := o.Result
		if or.Experiment == exp && or.Profile == prof && or.Status != schema.StatusSkipped && schema.PointOf(or.Load) == pt {
			out = append(out, o)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Result.Repeat < out[j].Result.Repeat })
	return out
}

// repeatOK says a run counts among its point's repeats: status ok with
// completed requests (as the comparison and the curves count them).
func repeatOK(res *schema.Result) bool {
	return res.Status == schema.StatusOK && res.Summary != nil && res.Summary.Completed > 0
}

// PointValue is metric m of run, averaged over the repeats of run's point
// (same experiment, profile and load) that count (repeatOK), and how many
// they are: the number the comparison table and the curves show for that
// point. A run that does not count itself (crashed, failed) gives its own
// value and n = 1.
func (r *Report) PointValue(run *Run, m Metric) (v float64, n int, ok bool) {
	if run == nil {
		return 0, 0, false
	}
	res := run.Result
	own, found := m.Value(res.Summary)
	if !repeatOK(res) {
		return own, 1, found
	}
	pt, sum := schema.PointOf(res.Load), 0.0
	for _, o := range r.All {
		or := o.Result
		if or.Experiment != res.Experiment || or.Profile != res.Profile || !repeatOK(or) || schema.PointOf(or.Load) != pt {
			continue
		}
		if x, found := m.Value(or.Summary); found {
			sum += x
			n++
		}
	}
	if n == 0 {
		return own, 1, found
	}
	return sum / float64(n), n, true
}

// TopPoint is the highest load point of sweep profile prof that any
// experiment ran (skipped points left out); false when it has none.
func (r *Report) TopPoint(prof string) (schema.Point, bool) {
	best, found := schema.Point{}, false
	for _, run := range r.All {
		res := run.Result
		pt := schema.PointOf(res.Load)
		if res.Profile != prof || pt.Sweep == "" || res.Status == schema.StatusSkipped {
			continue
		}
		if !found || pointLoad(pt) > pointLoad(best) {
			best, found = pt, true
		}
	}
	return best, found
}

func pointLoad(pt schema.Point) float64 {
	if pt.Sweep == schema.SweepRate && pt.Value == 0 {
		return math.Inf(1)
	}
	return pt.Value
}

// Runs returns every run in campaign order (steps, experiments, profiles,
// then load points and repeats).
func (r *Report) Runs() []*Run {
	byKey := map[runKey][]*Run{}
	for _, run := range r.All {
		k := runKey{run.Result.Experiment, run.Result.Profile}
		byKey[k] = append(byKey[k], run)
	}
	var out []*Run
	for _, st := range r.Campaign.Steps {
		for _, e := range st.Experiments {
			for _, p := range r.Campaign.Profiles {
				group := byKey[runKey{e.ID, p.ID}]
				sort.SliceStable(group, func(i, j int) bool {
					a, b := group[i].Result, group[j].Result
					if la, lb := pointLoad(schema.PointOf(a.Load)), pointLoad(schema.PointOf(b.Load)); la != lb {
						return la < lb
					}
					return a.Repeat < b.Repeat
				})
				out = append(out, group...)
			}
		}
	}
	return out
}

// AllRuns returns every result of the report, sweep points and repeats
// included, as analysis runs (with each experiment's GPU count).
func (r *Report) AllRuns() []analysis.Run {
	out := make([]analysis.Run, 0, len(r.All))
	for _, run := range r.All {
		e, _ := r.Campaign.Experiment(run.Result.Experiment)
		out = append(out, analysis.Run{Result: run.Result, GPUs: r.GPUs(e)})
	}
	return out
}

// SweepProfile is the first profile with sweep points ("" when none):
// whether the report has a sweep at all.
func (r *Report) SweepProfile() string {
	runs := r.AllRuns()
	for _, p := range r.Campaign.Profiles {
		if analysis.IsSweep(runs, p.ID) {
			return p.ID
		}
	}
	return ""
}

// HasRepeats reports whether any result is a repeat.
func (r *Report) HasRepeats() bool {
	for _, run := range r.All {
		if run.Result.Repeat > 0 {
			return true
		}
	}
	return false
}

// Reference returns the experiment a step's results are compared with:
// the configuration carried into the step (the previous step's chosen
// experiment, or the baseline).
func (r *Report) Reference(stepIdx int) *schema.Experiment {
	ref := r.Baseline()
	for i := 0; i < stepIdx; i++ {
		if ch := r.Campaign.Steps[i].Chosen; ch != "" {
			ref, _ = r.Campaign.Experiment(ch)
		}
	}
	return ref
}

// SkippedAt returns the result of experiment exp at the point Run(exp,
// prof) stands for (the sweep profile's top point) when the sweep's early
// stop skipped it there; nil otherwise.
func (r *Report) SkippedAt(exp, prof string) *Run {
	pt, found := r.TopPoint(prof)
	if !found {
		return nil
	}
	for _, run := range r.All {
		res := run.Result
		if res.Experiment == exp && res.Profile == prof && res.Status == schema.StatusSkipped && schema.PointOf(res.Load) == pt {
			return run
		}
	}
	return nil
}

// HasTelemetry says whether any run of the report has GPU samples.
func (r *Report) HasTelemetry() bool {
	for _, run := range r.All {
		if t := run.Result.Telemetry; t != nil && len(t.Samples) > 0 {
			return true
		}
	}
	return false
}

// HasSingleRuns reports whether the report has a run at one load that
// is not a repeat (what Run finds without going to a sweep's top point).
func (r *Report) HasSingleRuns() bool { return len(r.runs) > 0 }

// collected reports whether perflab collect wrote result res (tool
// "perflab bench", as collect.Imported tells them apart; render does not
// import collect).
func collected(res *schema.Result) bool {
	return res.Tool.Name == "" || res.Tool.Name == "perflab bench"
}

// droppedFrom says why result res, which perflab collect wrote for
// campaign c, is one c no longer defines: its experiment or profile was
// taken out of the campaign (or renamed) since the round ran; "" when c
// has both, and for a result collect did not write or one of another
// campaign, which checkResult refuses (an imported output tied to an
// experiment that does not exist is a mistake to fix, not history).
func droppedFrom(c *schema.Campaign, res *schema.Result) string {
	if !collected(res) || res.Campaign != "" && res.Campaign != c.ID {
		return ""
	}
	if _, ok := c.Experiment(res.Experiment); !ok {
		return fmt.Sprintf("experiment %s is no longer in the campaign", res.Experiment)
	}
	if _, ok := c.Profile(res.Profile); !ok {
		return fmt.Sprintf("profile %s is no longer in the campaign", res.Profile)
	}
	return ""
}

// definitionKeys is the key (schema.DefinitionKey, the result id
// perflab collect gives the run) of every run campaign c plans, by
// experiment, profile, point and repeat.
func definitionKeys(c *schema.Campaign) map[schema.RunKey]string {
	keys := map[schema.RunKey]string{}
	for si := range c.Steps {
		for ei := range c.Steps[si].Experiments {
			e := &c.Steps[si].Experiments[ei]
			for pi := range c.Profiles {
				p := &c.Profiles[pi]
				if len(e.Profiles) > 0 && !slices.Contains(e.Profiles, p.ID) {
					continue
				}
				for _, pt := range p.Points() {
					at := schema.ProfileAt(p, pt)
					for rep := range p.RepeatCount() {
						keys[schema.RunKey{Experiment: e.ID, Profile: p.ID, Point: pt, Repeat: rep}] = schema.DefinitionKey(c, e, at, pt, rep)
					}
				}
			}
		}
	}
	return keys
}

// findRedefined sets r.Redefined: the runs of r.All perflab collect
// wrote (a run key for id: 16 hex digits) whose result id is not the key
// the campaign gives their run today (keys, definitionKeys).
func (r *Report) findRedefined(keys map[schema.RunKey]string) {
	for _, run := range r.All {
		res := run.Result
		if !collected(res) || !isRunKey(res.ID) {
			continue
		}
		if want, ok := keys[schema.KeyOf(res)]; ok && res.ID != want {
			r.Redefined = append(r.Redefined, run)
		}
	}
}

// isRunKey reports whether id has the form of a run key
// (schema.DefinitionKey: 16 lower-case hex digits), as the id of every
// result perflab collect writes has.
func isRunKey(id string) bool {
	if len(id) != 16 {
		return false
	}
	for _, c := range id {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
