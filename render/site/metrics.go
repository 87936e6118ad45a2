package site

import (
	"bytes"
	"fmt"
	"html/template"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/perflab/perflab/collect/schema"
)

// Metric is a number read from a run's summary, with its definition.
type Metric struct {
	ID    string
	Label string // short label for tables: "Total TPS"
	Name  string // long name: "Total token throughput"
	Unit  string // "tok/s", "ms"
	// HigherBetter says which direction is an improvement.
	HigherBetter bool
	// PerGPU says the metric scales with GPU count (throughput), so it is
	// normalised per GPU when compared across different GPU counts.
	PerGPU bool
	get    func(*schema.Summary) (float64, bool)
}

// IsGuidellm says the run was measured by guidellm, whose metrics have
// guidellm's definitions (its TPOT includes the first token).
func IsGuidellm(res *schema.Result) bool {
	return strings.Contains(strings.ToLower(res.Tool.Name), "guidellm")
}

// LabelFor is the metric's table label for one run's value: a TPOT
// measured by guidellm is labelled with guidellm's definition, so a number
// is never shown under a definition it does not have.
func (m Metric) LabelFor(res *schema.Result) string {
	if strings.HasSuffix(m.ID, "_tpot") && IsGuidellm(res) {
		return strings.Replace(m.Label, "TPOT", "TPOT incl. 1st token", 1)
	}
	return m.Label
}

// Value reads the metric from a summary.
func (m Metric) Value(s *schema.Summary) (float64, bool) {
	if s == nil {
		return 0, false
	}
	v, ok := m.get(s)
	if !ok || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, false
	}
	return v, true
}

func StatMean(s *schema.Stats) (float64, bool) {
	if s == nil || s.MeanMs == nil {
		return 0, false
	}
	return *s.MeanMs, true
}

func StatMedian(s *schema.Stats) (float64, bool) {
	if s == nil || s.MedianMs == nil {
		return 0, false
	}
	return *s.MedianMs, true
}

// MetricByID returns a metric by id or alias.
func MetricByID(id string) (Metric, bool) {
	id = strings.ToLower(strings.TrimSpace(id))
	switch id {
	case "", "total_token_throughput", "total_tps", "total_token_throughput_tok_per_s":
		return Metric{ID: "total_token_throughput", Label: "Total TPS", Name: "Total token throughput", Unit: "tok/s", HigherBetter: true, PerGPU: true,
			get: func(s *schema.Summary) (float64, bool) {
				return s.TotalTokenThroughput, s.TotalTokenThroughput > 0 || s.Completed > 0
			}}, true
	case "output_throughput", "output_tps", "output_throughput_tok_per_s":
		return Metric{ID: "output_throughput", Label: "Output TPS", Name: "Output token throughput", Unit: "tok/s", HigherBetter: true, PerGPU: true,
			get: func(s *schema.Summary) (float64, bool) {
				return s.OutputThroughput, s.OutputThroughput > 0 || s.Completed > 0
			}}, true
	case "request_throughput", "rps", "request_throughput_req_per_s":
		return Metric{ID: "request_throughput", Label: "Req/s", Name: "Request throughput", Unit: "req/s", HigherBetter: true, PerGPU: true,
			get: func(s *schema.Summary) (float64, bool) {
				return s.RequestThroughput, s.RequestThroughput > 0 || s.Completed > 0
			}}, true
	case "mean_ttft", "ttft":
		return Metric{ID: "mean_ttft", Label: "Mean TTFT (ms)", Name: "Mean time to first token", Unit: "ms", get: func(s *schema.Summary) (float64, bool) { return StatMean(s.TTFT) }}, true
	case "median_ttft":
		return Metric{ID: "median_ttft", Label: "Median TTFT (ms)", Name: "Median time to first token", Unit: "ms", get: func(s *schema.Summary) (float64, bool) { return StatMedian(s.TTFT) }}, true
	case "p99_ttft":
		return Metric{ID: "p99_ttft", Label: "P99 TTFT (ms)", Name: "P99 time to first token", Unit: "ms", get: func(s *schema.Summary) (float64, bool) { return s.TTFT.Get(99) }}, true
	case "mean_tpot", "tpot":
		return Metric{ID: "mean_tpot", Label: "Mean TPOT (ms)", Name: "Mean time per output token (excl. 1st token)", Unit: "ms", get: func(s *schema.Summary) (float64, bool) { return StatMean(s.TPOT) }}, true
	case "median_tpot":
		return Metric{ID: "median_tpot", Label: "Median TPOT (ms)", Name: "Median time per output token (excl. 1st token)", Unit: "ms", get: func(s *schema.Summary) (float64, bool) { return StatMedian(s.TPOT) }}, true
	case "p99_tpot":
		return Metric{ID: "p99_tpot", Label: "P99 TPOT (ms)", Name: "P99 time per output token (excl. 1st token)", Unit: "ms", get: func(s *schema.Summary) (float64, bool) { return s.TPOT.Get(99) }}, true
	case "mean_itl", "itl":
		return Metric{ID: "mean_itl", Label: "Mean ITL (ms)", Name: "Mean inter-token latency", Unit: "ms", get: func(s *schema.Summary) (float64, bool) { return StatMean(s.ITL) }}, true
	case "mean_e2el", "e2el", "latency":
		return Metric{ID: "mean_e2el", Label: "Mean E2E latency (ms)", Name: "Mean end-to-end latency", Unit: "ms", get: func(s *schema.Summary) (float64, bool) { return StatMean(s.E2EL) }}, true
	}
	return Metric{}, false
}

// MetricIDs lists the accepted metric ids, for error messages.
const MetricIDs = "total_token_throughput, output_throughput, request_throughput, mean_ttft, median_ttft, p99_ttft, mean_tpot, median_tpot, p99_tpot, mean_itl, mean_e2el"

func MustMetric(id string) Metric { m, _ := MetricByID(id); return m }

// PrimaryMetrics returns the headline metric and the secondary one shown
// under it, by objective: throughput pages lead with total token
// throughput and mean TPOT (GPUStack's cells); latency pages with mean
// end-to-end latency and mean TTFT, or mean TTFT and TPOT when no run
// recorded end-to-end latency.
func (r *Report) PrimaryMetrics() (Metric, Metric) {
	if r.Objective() == "latency" {
		// Mean end-to-end latency when the runs recorded it (vLLM prints
		// it only with --percentile-metrics e2el); never derived.
		e2el := MustMetric("mean_e2el")
		for _, run := range r.Runs() {
			if _, ok := e2el.Value(run.Result.Summary); ok {
				return e2el, MustMetric("mean_ttft")
			}
		}
		return MustMetric("mean_ttft"), MustMetric("mean_tpot")
	}
	return MustMetric("total_token_throughput"), MustMetric("mean_tpot")
}

// Delta compares a new value with a reference.
type Delta struct {
	// Pct is (new-ref)/ref*100.
	Pct float64
	// Sign is +1 when the change is an improvement, -1 when it is a
	// regression, 0 when unchanged at the printed precision.
	Sign int
	OK   bool // false when ref is zero or a value is missing
	// NA marks a delta that is computed but not a fair comparison: the new
	// run lost a larger share of its requests than the reference (the
	// Qwen3.5 MTP run, 516 of 1000, showed a green "+46.8%"). It is shown
	// uncoloured.
	NA bool
	// Untested and Noise judge a delta between points with repeats by the
	// Mann-Whitney U test (Report.judge): too few runs to test, or within
	// noise ("~"). Either is uncoloured: a difference not shown to be real
	// is no gain or loss.
	Untested, Noise bool
}

// successRate is the share of a run's requests that succeeded; ok is false
// when the run has no summary or no request count.
func successRate(res *schema.Result) (rate float64, ok bool) {
	if res == nil || res.Summary == nil {
		return 0, false
	}
	s := res.Summary
	total := max(s.Completed+s.Failed, res.Load.NumPrompts)
	if total == 0 {
		return 0, false
	}
	return float64(s.Completed) / float64(total), true
}

// LessSuccessful reports whether run lost a larger share of its requests
// than ref: its throughput then counts fewer requests' work and latencies
// only the requests that got through, so a delta against ref is not a fair
// comparison. Runs with the same share (the 235B page's runs, all 984 of
// 1000) compare as usual.
func LessSuccessful(run, ref *schema.Result) bool {
	a, ok1 := successRate(run)
	b, ok2 := successRate(ref)
	return ok1 && ok2 && a < b-1e-9
}

// Compare computes the relative change from ref to v for a metric where
// higher is better (throughput) or lower is better (latency).
func Compare(ref, v float64, higherBetter bool) Delta {
	if ref == 0 || math.IsNaN(ref) || math.IsNaN(v) || math.IsInf(ref, 0) || math.IsInf(v, 0) {
		return Delta{}
	}
	d := Delta{Pct: (v - ref) / math.Abs(ref) * 100, OK: true}
	switch rounded := math.Round(d.Pct * 10); {
	case rounded == 0:
		d.Sign = 0
	case (rounded > 0) == higherBetter:
		d.Sign = 1
	default:
		d.Sign = -1
	}
	return d
}

// String formats the delta like benchstat: "+4.2%", "-3.0%", "~" when it
// rounds to zero, "" when not computable.
func (d Delta) String() string {
	if !d.OK {
		return ""
	}
	if d.Noise {
		return "~"
	}
	r := math.Round(d.Pct*10) / 10
	if r == 0 {
		return "~"
	}
	t := strconv.FormatFloat(r, 'f', 1, 64) // fmt's "%+.1f%%" without fmt
	if t[0] != '-' && t[0] != '+' {
		t = "+" + t
	}
	return t + "%"
}

// HTML is String for templates: html/template would print "+" as "&#43;".
// The text is ours (digits, sign, %, ~), never input.
func (d Delta) HTML() template.HTML { return template.HTML(d.String()) }

// Class is the CSS class colouring the delta.
func (d Delta) Class() string {
	switch {
	case !d.OK:
		return "delta"
	case d.NA:
		return "delta na"
	case d.Untested:
		return "delta untested"
	case d.Noise:
		return "delta same"
	case d.Sign > 0:
		return "delta better"
	case d.Sign < 0:
		return "delta worse"
	}
	return "delta same"
}

// Normalized returns v divided by gpus when the metric scales with GPU
// count and the two sides of a comparison use different counts.
func Normalized(m Metric, v float64, gpus int, normalize bool) float64 {
	if normalize && m.PerGPU && gpus > 0 {
		return v / float64(gpus)
	}
	return v
}

// FmtNum prints a metric value with two decimals and thousands separators.
func FmtNum(v float64) string {
	var b [48]byte
	return string(AppendNum(b[:0], v))
}

// AppendNum appends FmtNum(v) to dst: fmt.Sprintf("%.2f") (which is
// strconv's 'f' format) with a comma between the thousands of the part
// before the point. (NaN and ±Inf have no point: "NaN.", "+,Inf.", as
// ever.)
func AppendNum(dst []byte, v float64) []byte {
	var b [48]byte
	s := strconv.AppendFloat(b[:0], v, 'f', 2, 64)
	if len(s) > 0 && s[0] == '-' {
		dst = append(dst, '-')
		s = s[1:]
	}
	intPart, frac, _ := bytes.Cut(s, []byte("."))
	for i, c := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, c)
	}
	dst = append(dst, '.')
	return append(dst, frac...)
}

// SortKey is a value's data-sort attribute: fmt's "%.4f".
func SortKey(v float64) string { return strconv.FormatFloat(v, 'f', 4, 64) }

// Caveats returns what a reader must know about a run's numbers, next to
// which they are shown: the run's own warnings, a non-ok status, partial
// success, implausible values, tool-specific definitions.
func Caveats(res *schema.Result) []string {
	var out []string
	if res.Status != schema.StatusOK && res.Status != "" {
		msg := string(res.Status)
		if res.Error != "" {
			msg += ": " + res.Error
		}
		out = append(out, msg)
	}
	if s := res.Summary; s != nil {
		total := s.Completed + s.Failed
		if res.Load.NumPrompts > total {
			total = res.Load.NumPrompts
		}
		if total > 0 && s.Completed < total && !mentions(res.Warnings, "requests succeeded") {
			out = append(out, fmt.Sprintf("%d of %d requests succeeded (%.1f%%)", s.Completed, total, float64(s.Completed)/float64(total)*100))
		}
		if s.MaxOutputTokensPerS != nil && s.OutputThroughput > 0 && *s.MaxOutputTokensPerS > implausiblePeak*s.OutputThroughput && !mentions(res.Warnings, "peak output") {
			out = append(out, fmt.Sprintf("implausible peak output throughput: %s tok/s is %.0f× the average output throughput (%s tok/s); it cannot be a 1-second peak and is not comparable",
				FmtNum(*s.MaxOutputTokensPerS), *s.MaxOutputTokensPerS/s.OutputThroughput, FmtNum(s.OutputThroughput)))
		}
		if s.TotalTokenThroughput > 0 && s.OutputThroughput > s.TotalTokenThroughput*1.001 {
			out = append(out, "output throughput exceeds total token throughput: the summary is inconsistent")
		}
	}
	if IsGuidellm(res) && !mentions(res.Warnings, "guidellm") {
		out = append(out, "measured with guidellm: its TPOT includes the first token and its peak output throughput is not a 1-second peak")
	}
	// The importer's warnings may repeat among themselves (a check run
	// twice over one result); a caveat is shown once.
	for _, w := range res.Warnings {
		if !slices.Contains(out, w) && !TelemetryWarning(w) {
			out = append(out, w)
		}
	}
	return out
}

// TelemetryWarning reports whether a run's warning says only that no GPU
// telemetry was recorded (no NVML on the node): every run of a campaign
// shares it, and it concerns power and energy, not the numbers, so the
// page says it once, in the setup's hardware (see setup), not under
// every run.
func TelemetryWarning(w string) bool {
	return strings.HasPrefix(w, "no GPU telemetry: ") || strings.HasPrefix(w, "no GPU inventory: ")
}

// implausiblePeak is how many times the average output throughput a
// 1-second peak may reach before it is flagged. Bursts at the start of a
// run reach a few times the average; GPUStack's guidellm imports show
// thousands of times (30,810,010 tok/s on one H200).
const implausiblePeak = 20

// Successful reports whether every request of a run succeeded.
func Successful(res *schema.Result) bool {
	if res == nil || (res.Status != schema.StatusOK && res.Status != "") || res.Summary == nil {
		return false
	}
	s := res.Summary
	total := s.Completed + s.Failed
	if res.Load.NumPrompts > total {
		total = res.Load.NumPrompts
	}
	return s.Completed > 0 && s.Completed == total
}

// mentions reports whether a warning already says something (the
// importer writes its own caveats; ours are not repeated then).
func mentions(warnings []string, sub string) bool {
	for _, w := range warnings {
		if strings.Contains(strings.ToLower(w), sub) {
			return true
		}
	}
	return false
}
