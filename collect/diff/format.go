package diff

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"

	"github.com/perflab/perflab/collect/stats"
)

// sample formats a side's mean ± CV ("1234.5 ± 2%", "1234.5" for one run).
func sample(s stats.Sample) string {
	v := fmtNum(s.Mean)
	if s.N > 1 {
		v += fmt.Sprintf(" ± %.0f%%", s.CV*100)
	}
	return v
}

// fmtNum prints a figure with four significant digits, no exponent below
// a million.
func fmtNum(v float64) string {
	switch a := math.Abs(v); {
	case math.IsNaN(v):
		return "?"
	case a >= 1e6:
		return fmt.Sprintf("%.4g", v)
	case a >= 1000:
		return fmt.Sprintf("%.0f", v)
	case a >= 100:
		return fmt.Sprintf("%.1f", v)
	case a >= 10:
		return fmt.Sprintf("%.2f", v)
	}
	return fmt.Sprintf("%.3f", v)
}

func (t *Table) sections() [][]Row {
	var out [][]Row
	for _, m := range Metrics {
		var rows []Row
		for _, r := range t.Rows {
			if r.Metric.Key == m.Key {
				rows = append(rows, r)
			}
		}
		if len(rows) > 0 {
			out = append(out, rows)
		}
	}
	return out
}

func better(m Metric) string {
	if m.HigherIsBetter {
		return "higher is better"
	}
	return "lower is better"
}

// footer says how significance was decided, and lists unmatched runs.
func (t *Table) footer() []string {
	var out []string
	out = append(out, fmt.Sprintf("old, new: mean ± coefficient of variation of the repeats. Mann-Whitney U test per run and metric; q: p adjusted with Benjamini-Hochberg over the %d tested comparisons; ~: q > %.2f, or a change under %g pooled standard deviations of the repeats (d).", t.Tests, stats.Alpha, MinEffect))
	if len(t.OnlyOld) > 0 {
		out = append(out, "only in "+t.Old+": "+strings.Join(t.OnlyOld, ", "))
	}
	if len(t.OnlyNew) > 0 {
		out = append(out, "only in "+t.New+": "+strings.Join(t.OnlyNew, ", "))
	}
	if len(t.FailedNew) > 0 {
		out = append(out, "finished in "+t.Old+", no ok result in "+t.New+": "+strings.Join(t.FailedNew, ", "))
	}
	if len(t.OneSided) > 0 {
		out = append(out, "recorded on one side only, not compared: "+strings.Join(t.OneSided, ", "))
	}
	if len(t.OtherLoad) > 0 {
		out = append(out, "compared at another load: "+strings.Join(t.OtherLoad, "; "))
	}
	if len(t.FailedRequests) > 0 {
		out = append(out, "failed requests ("+t.Old+" → "+t.New+"): "+strings.Join(t.FailedRequests, "; "))
	}
	if len(t.OtherWorkload) > 0 {
		out = append(out, "measured on another workload in "+t.New+" than in "+t.Old+" (the campaign changed the profile; their changes are not the engines'): "+strings.Join(t.OtherWorkload, "; "))
	}
	if n := len(t.Regressions()); n > 0 {
		margin := ""
		if t.MarginPct > 0 {
			margin = fmt.Sprintf(" beyond %g%%", t.MarginPct)
		}
		out = append(out, fmt.Sprintf("%d significant regression(s)%s.", n, margin))
	}
	return out
}

// engines says which engine versions the sides' results report:
// "vllm 0.13.0 → vllm 0.15.1", or one list when both ran the same ("" when
// neither reports one).
func (t *Table) engines() string {
	o, n := strings.Join(t.OldEngines, ", "), strings.Join(t.NewEngines, ", ")
	switch {
	case o == "" && n == "":
		return ""
	case o == n:
		return o
	}
	return orNone(o) + " → " + orNone(n)
}

func orNone(s string) string {
	if s == "" {
		return "(none reported)"
	}
	return s
}

// WriteText writes the table as benchstat does: one section per metric,
// aligned columns.
func (t *Table) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "old: %s\nnew: %s\n", t.Old, t.New)
	if e := t.engines(); e != "" {
		fmt.Fprintf(&b, "engines: %s\n", e)
	}
	for _, rows := range t.sections() {
		m := rows[0].Metric
		fmt.Fprintf(&b, "\n%s (%s, %s)\n", m.Name, m.Unit, better(m))
		tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "run\told\tnew\tdelta\t")
		for _, r := range rows {
			d, note := r.DeltaText()
			if note != "" {
				d += " (" + note + ")"
			}
			if r.Regression {
				d += " REGRESSION"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t\n", r.Run, sample(r.Old), sample(r.New), d)
		}
		tw.Flush()
	}
	b.WriteString("\n")
	for _, l := range t.footer() {
		b.WriteString(l + "\n")
	}
	_, err := io.WriteString(w, trimLines(b.String()))
	return err
}

// trimLines drops the spaces tabwriter leaves at the ends of lines.
func trimLines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n")
}

type jsonSample struct {
	N    int       `json:"n"`
	Mean float64   `json:"mean"`
	CV   float64   `json:"cv"`
	Vals []float64 `json:"values"`
}

type jsonRow struct {
	Run            string     `json:"run"`
	Metric         string     `json:"metric"`
	Unit           string     `json:"unit"`
	HigherIsBetter bool       `json:"higher_is_better"`
	Old            jsonSample `json:"old"`
	New            jsonSample `json:"new"`
	DeltaPct       *float64   `json:"delta_pct"`
	Tested         bool       `json:"tested"`
	P              *float64   `json:"p,omitempty"`
	Q              *float64   `json:"q,omitempty"`
	Effect         *float64   `json:"effect_d,omitempty"`
	Significant    bool       `json:"significant"`
	Regression     bool       `json:"regression"`
}

// WriteJSON writes the table as one JSON object: the sides, the test and
// its correction, every row and the unmatched runs.
func (t *Table) WriteJSON(w io.Writer) error {
	out := struct {
		Old         string    `json:"old"`
		New         string    `json:"new"`
		OldEngines  []string  `json:"old_engines"`
		NewEngines  []string  `json:"new_engines"`
		Test        string    `json:"test"`
		Correction  string    `json:"correction"`
		Alpha       float64   `json:"alpha"`
		MinEffect   float64   `json:"min_effect_d"`
		Tests       int       `json:"tests"`
		MarginPct   float64   `json:"margin_pct"`
		Rows        []jsonRow `json:"rows"`
		OnlyOld     []string  `json:"only_old"`
		OnlyNew     []string  `json:"only_new"`
		FailedNew   []string  `json:"failed_new"`
		OneSided    []string  `json:"one_sided_metrics"`
		OtherLoad   []string  `json:"other_load"`
		Workload    []string  `json:"other_workload"`
		FailedReqs  []string  `json:"failed_requests"`
		NewFailures []string  `json:"new_failed_requests"`
		Regressions int       `json:"regressions"`
		Gate        []string  `json:"gate_failures"`
	}{Old: t.Old, New: t.New, OldEngines: nonNil(t.OldEngines), NewEngines: nonNil(t.NewEngines), Test: "mann-whitney-u", Correction: "benjamini-hochberg", Alpha: stats.Alpha, MinEffect: MinEffect,
		Tests: t.Tests, MarginPct: t.MarginPct, Rows: []jsonRow{}, OnlyOld: nonNil(t.OnlyOld), OnlyNew: nonNil(t.OnlyNew),
		FailedNew: nonNil(t.FailedNew), OneSided: nonNil(t.OneSided), OtherLoad: nonNil(t.OtherLoad), Workload: nonNil(t.OtherWorkload), FailedReqs: nonNil(t.FailedRequests), NewFailures: nonNil(t.NewFailures), Regressions: len(t.Regressions()), Gate: nonNil(t.Gate())}
	js := func(s stats.Sample) jsonSample { return jsonSample{s.N, s.Mean, s.CV, s.Values} }
	for _, r := range t.Rows {
		jr := jsonRow{Run: r.Run, Metric: r.Metric.Key, Unit: r.Metric.Unit, HigherIsBetter: r.Metric.HigherIsBetter,
			Old: js(r.Old), New: js(r.New), Tested: r.Tested, Significant: r.Significant, Regression: r.Regression}
		if !math.IsNaN(r.Pct) {
			jr.DeltaPct = &r.Pct
		}
		if r.Tested {
			p, q := r.P, r.Q
			jr.P, jr.Q = &p, &q
			if e := r.Effect; !math.IsInf(e, 0) && !math.IsNaN(e) {
				jr.Effect = &e
			}
		}
		out.Rows = append(out.Rows, jr)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
