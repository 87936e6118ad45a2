package blocks

import (
	"slices"
	"strconv"
	"strings"

	"github.com/perflab/perflab/collect/stats"
)

// historyCoverage says what the history's change-point tests judged:
// none, the sentence shown when they found no change, and notes, what
// they could not judge yet, shown under the changes or that sentence.
// "No change points" alone read as a test made and passed where none
// could be: a series of single runs (or of rounds with too few repeats
// for the U test) shows a change only with 3 rounds on each side of it
// (stats.Series.Judged), so its last 2 rounds, and every round of a
// series of fewer than 6, are not judged; the U test needs 4 runs a
// side (stats.Series.Untestable).
func historyCoverage(r *Report, h *reportHistory) (none string, notes []string) {
	var (
		uTested, judged bool
		pending         []int // rounds not judged yet: the last ones of judged series
		seenRound       = map[int]bool{}
		firstJudged     = -1     // the earliest round a change at was judged
		lastJudged      = -1     // the latest round a change at was judged
		short           int      // series too short to judge at all
		shortRounds     int      // the most rounds of such a series
		fewRepeats      [][2]int // adjacent rounds with repeats too few for the U test
		seenPair        = map[[2]int]bool{}
	)
	for _, s := range h.series {
		if len(s.Samples) < 2 {
			continue
		}
		bad := s.Untestable()
		if len(bad) == 0 {
			uTested = true
			continue
		}
		repeats := false
		for _, v := range s.Samples {
			repeats = repeats || len(v) > 1
		}
		if repeats {
			for _, i := range bad {
				p := [2]int{s.Rounds[i-1], s.Rounds[i]}
				if !seenPair[p] {
					seenPair[p] = true
					fewRepeats = append(fewRepeats, p)
				}
			}
		}
		from, to := s.Judged()
		if from > to {
			short++
			shortRounds = max(shortRounds, len(s.Samples))
			continue
		}
		judged = true
		lastJudged = max(lastJudged, s.Rounds[to])
		if firstJudged < 0 || s.Rounds[from] < firstJudged {
			firstJudged = s.Rounds[from]
		}
		for _, ri := range s.Rounds[to+1:] {
			if !seenRound[ri] {
				seenRound[ri] = true
				pending = append(pending, ri)
			}
		}
	}
	if !judged && short == 0 {
		return "No change points: no round differs from the one before beyond its runs' noise.", nil
	}
	none = "No change points among the rounds tested."
	if !judged && !uTested {
		none = "No change points could be tested yet."
	}
	const rule = "A series of single runs (one run a round, or too few repeats for the U test) shows a change once 3 rounds stand on each side of it"
	if judged {
		slices.Sort(pending)
		tested := "round " + r.Rounds[lastJudged].ID + " was"
		if firstJudged != lastJudged {
			tested = "rounds " + r.Rounds[firstJudged].ID + " to " + r.Rounds[lastJudged].ID + " were"
		}
		n := rule + ": " + tested + " tested for one; " + roundsNamed(r, pending) + " will be judged as more rounds come"
		if short > 0 {
			n += " (" + configurations(short) + " with fewer than 6 rounds: none of their rounds yet)"
		}
		notes = append(notes, n+".")
	} else {
		notes = append(notes, rule+": with "+strconv.Itoa(shortRounds)+" rounds so far, none of "+configurationsOf(short)+" rounds is judged yet.")
	}
	if len(fewRepeats) > 0 {
		var pairs []string
		for i, p := range fewRepeats {
			if i == 3 {
				pairs = append(pairs, "and "+strconv.Itoa(len(fewRepeats)-3)+" more")
				break
			}
			pairs = append(pairs, r.Rounds[p[0]].ID+" → "+r.Rounds[p[1]].ID)
		}
		notes = append(notes, "Too few repeats for the U test (it needs "+strconv.Itoa(stats.MinRunsPerSide)+" runs a side) between rounds "+
			strings.Join(pairs, ", ")+": those series were tested as single runs, by their rounds' means.")
	}
	return none, notes
}

// configurations is "1 configuration", "3 configurations".
func configurations(n int) string {
	if n == 1 {
		return "1 configuration"
	}
	return strconv.Itoa(n) + " configurations"
}

// configurationsOf is "its", "the 3 configurations'".
func configurationsOf(n int) string {
	if n == 1 {
		return "the configuration's"
	}
	return "the " + strconv.Itoa(n) + " configurations'"
}
