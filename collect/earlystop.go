package collect

import (
	"encoding/json"
	"fmt"
	"math"
	"os"

	"github.com/perflab/perflab/collect/schema"
)

// The early stop of a sweep (EarlyStop) saves the GPU-hours of points
// past saturation that the SLO rules out anyway.
const (
	// EarlyStopGain: throughput "stopped rising" when a point's mean total
	// token throughput is less than this fraction above the point before.
	EarlyStopGain = 0.05
	// EarlyStopMargin: the SLO is "broken by a wide margin" when a limit's
	// statistic (mean over the point's repeats) is more than this many
	// times the limit.
	EarlyStopMargin = 2.0
)

// EarlyStop says why run r, a sweep point, should not be run ("" when it
// should). The rule, applied to each experiment's sweep of a profile in
// increasing load, only when the campaign declares an SLO:
//
//   - before point i (i ≥ 2), look at the two points before it, A = i−2
//     and B = i−1, as recorded (their finished ok runs, all repeats);
//   - if B's mean total token throughput is less than EarlyStopGain
//     (5 %) above A's, and B's value of some SLO limit is more than
//     EarlyStopMargin (2×) the limit, point i and every higher point are
//     skipped;
//   - a point after a skipped point is skipped too.
//
// A skipped point is recorded as a result with status skipped and the
// reason, so the page and the next collect see it; `collect
// --no-early-stop` runs it.
func EarlyStop(p *Plan, r Run) string {
	slo := p.Campaign.SLO
	if r.Point.Sweep == "" || len(slo) == 0 {
		return ""
	}
	pts := r.Source.Points()
	i := -1
	for j, pt := range pts {
		if pt == r.Point {
			i = j
			break
		}
	}
	if i < 2 {
		return ""
	}
	a := pointResults(p, r, pts[i-2])
	b := pointResults(p, r, pts[i-1])
	if len(b) > 0 && allStatus(b, schema.StatusSkipped) {
		return fmt.Sprintf("the sweep's early stop: the point before it (%s) was skipped", pts[i-1])
	}
	okA, okB := okSummaries(a), okSummaries(b)
	if len(okA) == 0 || len(okB) == 0 {
		return ""
	}
	thrA, thrB := meanOf(okA, func(s *schema.Summary) (float64, bool) { return s.TotalTokenThroughput, true }),
		meanOf(okB, func(s *schema.Summary) (float64, bool) { return s.TotalTokenThroughput, true })
	if !(thrA > 0) || thrB >= thrA*(1+EarlyStopGain) {
		return ""
	}
	for _, key := range slo.Keys() {
		k, err := schema.ParseSLOKey(key)
		if err != nil {
			continue
		}
		v := meanOf(okB, func(s *schema.Summary) (float64, bool) { return s.Value(k) })
		if v > EarlyStopMargin*slo[key] {
			return fmt.Sprintf("the sweep's early stop: at %s throughput rose %+.1f%% over %s (under %.0f%%) and %s is %.0f ms, %.1f× the SLO's %.0f ms; collect --no-early-stop runs it",
				pts[i-1], (thrB/thrA-1)*100, pts[i-2], EarlyStopGain*100, key, v, v/slo[key], slo[key])
		}
	}
	return ""
}

// pointResults reads the results recorded for r's experiment and profile
// at point pt, every repeat (missing files are left out).
func pointResults(p *Plan, r Run, pt schema.Point) []*schema.Result {
	var out []*schema.Result
	for _, o := range p.Runs {
		if o.Experiment != r.Experiment || o.Source != r.Source || o.Point != pt {
			continue
		}
		res, err := readVerdict(o.Path)
		if err != nil || res.ID != o.Key {
			continue
		}
		out = append(out, res)
	}
	return out
}

// readVerdict reads what the early stop needs of a result (id, status,
// summary), leaving its per-request records undecoded: a real run's file
// holds every token's time and runs to megabytes.
func readVerdict(path string) (*schema.Result, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var head struct {
		ID      string          `json:"id"`
		Status  schema.Status   `json:"status"`
		Summary *schema.Summary `json:"summary"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &schema.Result{ID: head.ID, Status: head.Status, Summary: head.Summary}, nil
}

func allStatus(rs []*schema.Result, st schema.Status) bool {
	for _, r := range rs {
		if r.Status != st {
			return false
		}
	}
	return true
}

func okSummaries(rs []*schema.Result) []*schema.Summary {
	var out []*schema.Summary
	for _, r := range rs {
		if r.Status == schema.StatusOK && r.Summary != nil && r.Summary.Completed > 0 {
			out = append(out, r.Summary)
		}
	}
	return out
}

// meanOf is the mean of f over the summaries that have it; NaN if none.
func meanOf(ss []*schema.Summary, f func(*schema.Summary) (float64, bool)) float64 {
	sum, n := 0.0, 0
	for _, s := range ss {
		if v, ok := f(s); ok {
			sum += v
			n++
		}
	}
	if n == 0 {
		return math.NaN()
	}
	return sum / float64(n)
}
