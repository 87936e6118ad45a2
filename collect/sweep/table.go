package sweep

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/perflab/perflab/collect/schema"
	"github.com/perflab/perflab/collect/stats"
)

// Row is one sweep point's runs (one, or --num-runs repeats).
type Row struct {
	Point Point
	Runs  []*schema.Summary
}

// mean is the mean of m over the row's runs, NaN when no run has it.
func (r Row) mean(m Metric) float64 {
	v, _ := m.Values(r.Runs)
	if len(v) == 0 {
		return math.NaN()
	}
	return stats.Summarize(v).Mean
}

// TableOptions select the optional columns and marks.
type TableOptions struct {
	// Goodput adds the goodput column (the run had --goodput).
	Goodput bool
	// SLO adds the SLO column and the best point within it.
	SLO schema.SLO
	// Title heads the table (default "Sweep Summary").
	Title string
}

// Marks are the sweep's notable points, indexes into the rows (−1: none).
type Marks struct {
	BestThroughput int
	BestWithinSLO  int // with TableOptions.SLO
	BestGoodput    int // with TableOptions.Goodput and no SLO
}

// MeetsSLO reports whether every run of the row meets the SLO, with the
// first broken limit when not. A run with failed requests does not meet
// it: the latencies cover only the requests that succeeded.
func (r Row) MeetsSLO(slo schema.SLO) (bool, string) {
	if len(r.Runs) == 0 {
		return false, "no run"
	}
	for _, s := range r.Runs {
		if s.Failed > 0 {
			return false, fmt.Sprintf("%d of %d requests failed", s.Failed, s.Completed+s.Failed)
		}
		checks, ok := slo.Check(s)
		if ok {
			continue
		}
		for _, c := range checks {
			if !c.Met {
				if !c.Found {
					return false, c.Key + " not recorded"
				}
				return false, fmt.Sprintf("%s %s > %s", c.Key, fixed2(c.ValueMs), fixed2(c.LimitMs))
			}
		}
	}
	return true, ""
}

// Mark finds the best-throughput point, the best point within the SLO and
// the best-goodput point.
func Mark(rows []Row, opt TableOptions) Marks {
	mk := Marks{BestThroughput: -1, BestWithinSLO: -1, BestGoodput: -1}
	best := func(idx *int, i int, v, cur float64) {
		if !math.IsNaN(v) && (*idx < 0 || v > cur) {
			*idx = i
		}
	}
	for i, r := range rows {
		out := r.mean(mOut)
		cur := math.NaN()
		if mk.BestThroughput >= 0 {
			cur = rows[mk.BestThroughput].mean(mOut)
		}
		best(&mk.BestThroughput, i, out, cur)
		if len(opt.SLO) > 0 {
			if ok, _ := r.MeetsSLO(opt.SLO); ok {
				cur := math.NaN()
				if mk.BestWithinSLO >= 0 {
					cur = rows[mk.BestWithinSLO].mean(mOut)
				}
				best(&mk.BestWithinSLO, i, out, cur)
			}
		} else if opt.Goodput {
			cur := math.NaN()
			if mk.BestGoodput >= 0 {
				cur = rows[mk.BestGoodput].mean(mGoodput)
			}
			best(&mk.BestGoodput, i, r.mean(mGoodput), cur)
		}
	}
	return mk
}

// WriteTable writes the sweep summary: one row per point with request
// throughput, output and total token throughput, TTFT and TPOT median and
// P99, interactivity (tok/s/user), goodput (with --goodput) and whether
// the point meets the SLO (with --slo); values are means over a point's
// repeats. A legend names the marked points.
func WriteTable(w io.Writer, rows []Row, opt TableOptions) error {
	var b strings.Builder
	title := opt.Title
	if title == "" {
		title = "Sweep Summary"
	}
	b.WriteString(centre(" "+title+" ", '=', 50) + "\n")
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	head := []string{"point", "runs", "req/s", "out tok/s", "total tok/s", "TTFT p50", "TTFT p99", "TPOT p50", "TPOT p99", "tok/s/user"}
	if opt.Goodput {
		head = append(head, "goodput")
	}
	if len(opt.SLO) > 0 {
		head = append(head, "SLO")
	}
	head = append(head, "")
	fmt.Fprintln(tw, strings.Join(head, "\t")+"\t")
	ttft := func(s *schema.Summary) *schema.Stats { return s.TTFT }
	tpot := func(s *schema.Summary) *schema.Stats { return s.TPOT }
	cols := []Metric{
		mReq, mOut, mTotal,
		{Get: statGet(ttft, "median", 0)}, {Get: statGet(ttft, "p", 99)},
		{Get: statGet(tpot, "median", 0)}, {Get: statGet(tpot, "p", 99)},
		{Get: Interactivity},
	}
	if opt.Goodput {
		cols = append(cols, mGoodput)
	}
	mk := Mark(rows, opt)
	for i, r := range rows {
		cells := []string{r.Point.String(), strconv.Itoa(len(r.Runs))}
		for _, m := range cols {
			cells = append(cells, fixed2(r.mean(m)))
		}
		if len(opt.SLO) > 0 {
			if ok, why := r.MeetsSLO(opt.SLO); ok {
				cells = append(cells, "ok")
			} else {
				cells = append(cells, "no: "+why)
			}
		}
		var notes []string
		if i == mk.BestThroughput {
			notes = append(notes, "<- best throughput")
		}
		if i == mk.BestWithinSLO {
			notes = append(notes, "<- best within SLO")
		}
		if i == mk.BestGoodput {
			notes = append(notes, "<- best goodput")
		}
		cells = append(cells, strings.Join(notes, " "))
		fmt.Fprintln(tw, strings.Join(cells, "\t")+"\t")
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	b.WriteString("latencies in ms; tok/s/user = 1000 / median TPOT; values are means over a point's runs\n")
	if mk.BestThroughput >= 0 {
		fmt.Fprintf(&b, "Best throughput: %s (%s output tok/s)\n", rows[mk.BestThroughput].Point, fixed2(rows[mk.BestThroughput].mean(mOut)))
	}
	if len(opt.SLO) > 0 {
		if mk.BestWithinSLO >= 0 {
			fmt.Fprintf(&b, "Best within SLO %s: %s (%s output tok/s)\n", opt.SLO, rows[mk.BestWithinSLO].Point, fixed2(rows[mk.BestWithinSLO].mean(mOut)))
		} else {
			fmt.Fprintf(&b, "Best within SLO %s: none of the points meets it\n", opt.SLO)
		}
	} else if opt.Goodput && mk.BestGoodput >= 0 {
		fmt.Fprintf(&b, "Best goodput: %s (%s req/s)\n", rows[mk.BestGoodput].Point, fixed2(rows[mk.BestGoodput].mean(mGoodput)))
	}
	b.WriteString(strings.Repeat("=", 50) + "\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// fixed2 writes v with two decimals, "-" for NaN.
func fixed2(v float64) string {
	if math.IsNaN(v) {
		return "-"
	}
	if math.IsInf(v, 1) {
		return "inf"
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}

func formatG(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// centre pads s with fill on both sides to n characters, as Python's
// str.center (the extra character goes right).
func centre(s string, fill byte, n int) string {
	if len(s) >= n {
		return s
	}
	pad := n - len(s)
	left := pad / 2
	return strings.Repeat(string(fill), left) + s + strings.Repeat(string(fill), pad-left)
}
