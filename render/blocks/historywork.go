package blocks

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"slices"
	"sort"
	"strings"

	"github.com/perflab/perflab/collect/schema"
	"github.com/perflab/perflab/collect/stats"
)

// A campaign edit that changes a profile's workload (its lengths, its
// dataset, its number of prompts…) between rounds moves every figure of
// the profile: the history cuts each line there (workChanged), seeks
// change points on each side apart, marks the round on the chart's x
// axis as it marks an engine version change, and names it under the
// table, so that the edit is never listed as a regression.

// historyChanges orders the history lines and finds their change
// points, in the series it returns (each of the line seriesLine gives).
func historyChanges(r *Report, lines []historyLine) ([]historyLine, []historyChange, []stats.Series, []int) {
	// The campaign's order, as every other block has it: its steps'
	// experiments, then its profiles, then the load points up.
	expAt, profAt := map[string]int{}, map[string]int{}
	for _, st := range r.Campaign.Steps {
		for _, e := range st.Experiments {
			if _, ok := expAt[e.ID]; !ok {
				expAt[e.ID] = len(expAt)
			}
		}
	}
	for i, p := range r.Campaign.Profiles {
		profAt[p.ID] = i
	}
	sort.SliceStable(lines, func(i, j int) bool {
		a, b := lines[i], lines[j]
		if a.exp.ID != b.exp.ID {
			return expAt[a.exp.ID] < expAt[b.exp.ID]
		}
		if a.prof.ID != b.prof.ID {
			return profAt[a.prof.ID] < profAt[b.prof.ID]
		}
		return a.pt.Value < b.pt.Value
	})
	// A line's series is cut where its workload changed (workChanged):
	// a level change there is the workload's, not the engine's, and is
	// neither tested nor flagged.
	var series []stats.Series
	var seriesLine []int
	for i, l := range lines {
		var s stats.Series
		for ri, v := range l.values {
			if len(v) == 0 {
				continue
			}
			if l.workChanged(ri) {
				series, seriesLine = append(series, s), append(seriesLine, i)
				s = stats.Series{}
			}
			s.Rounds = append(s.Rounds, ri)
			s.Samples = append(s.Samples, v)
		}
		if len(s.Rounds) > 0 { // none: every run of the line went wrong
			series, seriesLine = append(series, s), append(seriesLine, i)
		}
	}
	var changes []historyChange
	for _, c := range stats.SeriesChanges(series) {
		// Latest is of the series: an older segment's last round is not
		// the line's latest news.
		if next := c.Series + 1; next < len(series) && seriesLine[next] == seriesLine[c.Series] {
			c.Latest = false
		}
		changes = append(changes, historyChange{line: seriesLine[c.Series], round: c.Round, c: c})
	}
	return lines, changes, series, seriesLine
}

// workloadKey is what identifies a run's workload: its load as the
// result records it, less the command line (which names paths and hosts)
// and the rate changes a ramp-up saw (what happened, not what was
// asked), as collect/diff.WorkloadChange compares two runs; hashed.
func workloadKey(l schema.Load) string {
	l.Command, l.RPSChanges = "", nil
	b, _ := json.Marshal(l) // plain data: cannot fail
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8])
}

// workChanged reports whether round ri's runs of the line ran another
// workload than those of the round before in which it was measured.
func (l historyLine) workChanged(ri int) bool {
	if ri >= len(l.work) || l.work[ri] == "" {
		return false
	}
	for i := ri - 1; i >= 0; i-- {
		if len(l.values[i]) > 0 {
			return l.work[i] != "" && l.work[i] != l.work[ri]
		}
	}
	return false
}

// workChanges are the rounds, among rounds, where a line's workload
// changed, each with the profiles whose workload changed there (by
// name, in the lines' order).
func workChanges(lines []historyLine, rounds []int) map[int][]string {
	out := map[int][]string{}
	for _, ri := range rounds {
		for _, l := range lines {
			if l.workChanged(ri) && !slices.Contains(out[ri], l.prof.Name) {
				out[ri] = append(out[ri], l.prof.Name)
			}
		}
	}
	return out
}

// workChangesText says where the workloads changed, under the history's
// table: "The workload of Short Prompt changed in round 4; …"; "" where
// none did.
func workChangesText(r *Report, lines []historyLine, rounds []int) string {
	wc := workChanges(lines, rounds)
	var parts []string
	for _, ri := range rounds {
		if names := wc[ri]; len(names) > 0 {
			parts = append(parts, "the workload of "+joinAnd(names)+" changed in round "+r.Rounds[ri].ID)
		}
	}
	if len(parts) == 0 {
		return ""
	}
	s := strings.Join(parts, "; ")
	return strings.ToUpper(s[:1]) + s[1:] + " (a campaign edit): change points are sought on each side of it apart, never across it."
}

// joinAnd is "a", "a and b", "a, b and c".
func joinAnd(s []string) string {
	if len(s) < 2 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
}
