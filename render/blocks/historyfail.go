package blocks

import (
	"fmt"
	"slices"
	"strings"

	"github.com/perflab/perflab/collect/schema"
	"github.com/perflab/perflab/collect/stats"
	"github.com/perflab/perflab/render/charts"
)

// A run that went wrong gives no headline figure, but the history says
// what happened: a line whose runs of a round all crashed or failed
// shows "crashed" or "failed (500 of 500 requests)" in that round's
// cell, not the "–" of a round that did not run it, the chart marks the
// round on the line, data.json's headline entry lists the runs'
// statuses (not_ok), and the home page lists a line that went wrong in
// the latest round after a figure in the round before as a regression.
// The change points are sought in the figures alone: such a round is no
// value of the line's series.

// runOutcome is what the history takes of a result: figure, when it has
// a headline figure (an ok run some of whose requests completed); else
// status, the run having gone wrong: crashed, failed (an ok run none of
// whose requests completed failed too) or interrupted; neither for a
// run decided against (unsupported, skipped by the sweep's early stop),
// which measured nothing and went nowhere wrong.
func runOutcome(res *schema.Result) (status schema.Status, figure bool) {
	switch res.Status {
	case schema.StatusOK:
		if res.Summary != nil && res.Summary.Completed > 0 {
			return "", true
		}
		return schema.StatusFailed, false
	case schema.StatusFailed, schema.StatusCrashed, schema.StatusInterrupted:
		return res.Status, false
	}
	return "", false
}

// wentWrongIn says whether every run of the line in round ri went wrong
// (it has runs, none with a figure).
func (l historyLine) wentWrongIn(ri int) bool {
	return ri < len(l.notOK) && len(l.notOK[ri]) > 0 && len(l.values[ri]) == 0
}

// statusText says what round ri's runs of the line that gave no figure
// did: "crashed", "failed (500 of 500 requests)", "interrupted" where
// all of them did it; "1 of 3 runs crashed" otherwise, statuses joined
// by ", "; "" where every run gave its figure.
func (l historyLine) statusText(ri int) string {
	if ri >= len(l.notOK) || len(l.notOK[ri]) == 0 {
		return ""
	}
	bad := l.notOK[ri]
	runs := len(bad) + len(l.values[ri])
	var seen []schema.Status
	for _, st := range bad {
		if !slices.Contains(seen, st) {
			seen = append(seen, st)
		}
	}
	parts := make([]string, len(seen))
	for i, st := range seen {
		n := 0
		for _, b := range bad {
			if b == st {
				n++
			}
		}
		switch {
		case n < runs:
			parts[i] = fmt.Sprintf("%d of %d runs %s", n, runs, st)
		case st == schema.StatusFailed && l.failed[ri][1] > 0:
			parts[i] = fmt.Sprintf("failed (%d of %d requests)", l.failed[ri][0], l.failed[ri][1])
		default:
			parts[i] = string(st)
		}
	}
	return strings.Join(parts, ", ")
}

// cellNote is what a history cell with a figure says under it: the runs
// of the round that went wrong, and the requests that failed.
func (l historyLine) cellNote(ri int) string {
	var parts []string
	if s := l.statusText(ri); s != "" {
		parts = append(parts, "✗ "+s)
	}
	if f := l.failedText(ri); f != "" {
		parts = append(parts, f)
	}
	return strings.Join(parts, "; ")
}

// failurePins are the chart's marks of the rounds (among rounds, whose
// x they have) where every run of the line went wrong: at the line's
// level, its mean in the round before it had a figure (else the round
// after); none where it never had one.
func failurePins(r *Report, l historyLine, rounds []int, x []any) []charts.Pin {
	var pins []charts.Pin
	for j, ri := range rounds {
		if !l.wentWrongIn(ri) {
			continue
		}
		y, ok := 0.0, false
		for k := j - 1; k >= 0 && !ok; k-- {
			if v := l.values[rounds[k]]; len(v) > 0 {
				y, ok = stats.Summarize(v).Mean, true
			}
		}
		for k := j + 1; k < len(rounds) && !ok; k++ {
			if v := l.values[rounds[k]]; len(v) > 0 {
				y, ok = stats.Summarize(v).Mean, true
			}
		}
		if !ok {
			continue
		}
		word := string(l.notOK[ri][0])
		for _, st := range l.notOK[ri] {
			if st != l.notOK[ri][0] {
				word = "went wrong"
			}
		}
		pins = append(pins, charts.Pin{X: x[j], Y: y, Label: word, Name: "round " + r.Rounds[ri].ID + ": " + l.statusText(ri), Failure: true})
	}
	return pins
}
