package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/perflab/perflab/collect"
	"github.com/perflab/perflab/collect/diff"
)

const diffUsage = `usage: perflab diff OLD NEW [--campaign CAMPAIGN] [--format text|markdown|json] [--fail-on regression[:5%]]

Compares two sets of results as benchstat does: every run both hold (an
experiment, profile and load point, repeats pooled), each metric's mean ±
CV, the change, and whether it is significant: a Mann-Whitney U test per
run and metric, the p-values adjusted together with Benjamini-Hochberg so
that two rounds of an unchanged configuration are called different in at
most 5 % of diffs however many runs are compared. Runs found on one side
only are listed.

OLD and NEW are each
  a result file, or a vllm bench serve / guidellm output;
  a results directory (a campaign's: the round its page shows);
  DIR@ROUND, a round of a campaign's results directory: id:ID (its
  id), n:N (its number in order), latest, previous, or a bare ID or N
  (an error when a numeric id and a number name different rounds);
  with --campaign, a round of that campaign.
latest is the round the page shows, the newest holding a finished
result (a round whose runs were all interrupted is not it), and only
that round's own results: not the runs the page carries over from
earlier rounds; previous is the round with a finished result before it.

Exit status: 0 no regression (or no --fail-on), 1 --fail-on found one
(or a run that no longer finishes, or new failed requests), 2 bad
usage, 3 a side that could not be read or found, or sides that share
no run to gate on.

flags:
`

// runDiff implements perflab diff.
func runDiff(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("diff", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, diffUsage)
		fs.PrintDefaults()
	}
	format := fs.String("format", "text", "output `FORMAT`: text, markdown (a pull-request comment) or json")
	failOn := fs.String("fail-on", "", "exit 1 when the diff finds a `KIND`: regression (any significant one) or regression:5% (beyond 5 %); a run no longer finishing and new failed requests fail it too")
	campaign := fs.String("campaign", "", "OLD and NEW are rounds of this `CAMPAIGN` (a campaign.yaml or its report directory)")
	results := fs.String("results", "results", "results root of --campaign (`DIR`)")
	var pos []string
	rest := args
	for {
		if err := fs.Parse(rest); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil
			}
			return usageError("diff: %v", err)
		}
		if fs.NArg() == 0 {
			break
		}
		pos = append(pos, fs.Arg(0))
		rest = fs.Args()[1:]
	}
	if len(pos) != 2 {
		fs.Usage()
		return usageError("diff: want OLD and NEW, got %d argument(s)", len(pos))
	}
	switch *format {
	case "text", "markdown", "json":
	default:
		return usageError("diff: --format %q: want text, markdown or json", *format)
	}
	margin, gate := 0.0, false
	if *failOn != "" {
		kind, pct, hasPct := strings.Cut(*failOn, ":")
		if kind != "regression" {
			return usageError("diff: --fail-on %q: want regression or regression:PCT%%", *failOn)
		}
		gate = true
		if hasPct {
			v, err := strconv.ParseFloat(strings.TrimSuffix(pct, "%"), 64)
			// NaN and Inf parse, and no change is beyond them: a gate
			// that never fails.
			if err != nil || !(v >= 0) || math.IsInf(v, 0) {
				return usageError("diff: --fail-on %q: the margin is a percentage ≥ 0 (regression:5%%)", *failOn)
			}
			margin = v
		}
	}
	if *campaign != "" {
		path := *campaign
		if st, err := os.Stat(path); err == nil && st.IsDir() {
			path = filepath.Join(path, "campaign.yaml")
		}
		f, err := collect.Load(path)
		if err != nil {
			return inputError{fmt.Errorf("diff: --campaign: %w", err)}
		}
		dir := f.Campaign.Results
		if dir == "" {
			dir = f.Campaign.ID
		}
		for i := range pos {
			pos[i] = filepath.Join(*results, dir) + "@" + pos[i]
		}
	}
	// What cannot be read or found exits 3, so that a CI gate tells a
	// missing round or a damaged file from a regression (1).
	old, err := diff.Open(pos[0])
	if err != nil {
		return inputError{err}
	}
	nw, err := diff.Open(pos[1])
	if err != nil {
		return inputError{err}
	}
	if o, n := strings.Join(old.Campaigns, ", "), strings.Join(nw.Campaigns, ", "); o != "" && n != "" && o != n {
		fmt.Fprintf(stderr, "perflab diff: warning: %s holds campaign %s and %s campaign %s: their runs are matched by experiment, profile and load point only\n", old.Name, o, nw.Name, n)
	}
	t := diff.Compare(old, nw, margin)
	t.Gated = gate
	if len(t.OtherLoad) > 0 {
		fmt.Fprintf(stderr, "perflab diff: warning: compared at another load: %s\n", strings.Join(t.OtherLoad, "; "))
	}
	switch *format {
	case "markdown":
		err = t.WriteMarkdown(stdout)
	case "json":
		err = t.WriteJSON(stdout)
	default:
		err = t.WriteText(stdout)
	}
	if err != nil {
		return err
	}
	if gate {
		if len(t.Rows) == 0 && len(t.FailedNew) == 0 {
			return inputError{fmt.Errorf("diff: --fail-on: %s and %s share no run: nothing to gate on", t.Old, t.New)}
		}
		// A gate that cannot fail on a regression says so: single runs
		// (one vllm bench serve file a side) are never tested, and a
		// green gate that could not have been red (a 45 % drop over
		// single runs passes it) must not read as a pass.
		if untested := len(t.Rows) - t.Tests; t.Tests == 0 && len(t.Rows) > 0 {
			fmt.Fprintf(stderr, "perflab diff: warning: --fail-on: none of the %d comparisons could be tested (the U test needs 4 runs a side, or 3+5; these have %s): the gate fails only on runs no longer finishing; raise the profiles' repeats to gate on changes\n", len(t.Rows), runCounts(t.Rows))
		} else if untested > 0 {
			fmt.Fprintf(stderr, "perflab diff: warning: --fail-on: %d of %d comparisons have too few repeats to be tested (the U test needs 4 runs a side, or 3+5): no regression can be found in them\n", untested, len(t.Rows))
		}
		if what := t.Gate(); len(what) > 0 {
			var n []string
			if k := len(t.Regressions()); k > 0 {
				n = append(n, fmt.Sprintf("%d significant regression(s) beyond %g%%", k, margin))
			}
			if k := len(t.FailedNew); k > 0 {
				n = append(n, fmt.Sprintf("%d run(s) no longer finishing", k))
			}
			if k := len(t.NewFailures); k > 0 {
				n = append(n, fmt.Sprintf("%d run(s) with failed requests", k))
			}
			return fmt.Errorf("diff: %s: %s", strings.Join(n, ", "), strings.Join(what, "; "))
		}
	}
	return nil
}

// runCounts says how many runs a side the rows compared ("1+1", "1+1
// and 2+2"), for the gate's warning.
func runCounts(rows []diff.Row) string {
	var seen []string
	for _, r := range rows {
		n := fmt.Sprintf("%d+%d", r.Old.N, r.New.N)
		if !slices.Contains(seen, n) {
			seen = append(seen, n)
		}
	}
	return strings.Join(seen, ", ")
}
