package sweep

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/perflab/perflab/collect/schema"
	"github.com/perflab/perflab/collect/stats"
)

// WriteRepeats writes the spread of repeated runs of one configuration
// (--num-runs): mean, sample standard deviation, min, max and CV of every
// headline metric that all runs recorded. ps are extra latency
// percentiles to list (--metric-percentiles).
func WriteRepeats(w io.Writer, runs []*schema.Summary, ps []float64) error {
	var b strings.Builder
	b.WriteString(centre(fmt.Sprintf(" Repeated Runs (n=%d) ", len(runs)), '=', 50) + "\n")
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "metric\tmean\tstd\tmin\tmax\tCV\t")
	for _, m := range Headline(ps) {
		v, all := m.Values(runs)
		if !all || len(v) == 0 {
			continue
		}
		s := stats.Summarize(v)
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t\n", m.Name, fixed2(s.Mean), fixed2(s.StdDev), fixed2(s.Min), fixed2(s.Max), pct(s.CV))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	b.WriteString("std: sample standard deviation (n-1); CV = std / mean\n")
	b.WriteString(strings.Repeat("=", 50) + "\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// pct writes a fraction as a percentage with two decimals.
func pct(f float64) string { return fixed2(f*100) + "%" }
