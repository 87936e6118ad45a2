package schema

import (
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// A round may measure only part of its campaign: `collect --new-round
// --only vllm` re-measures one engine, a round's shards may not all have
// run, a run may have been interrupted. A page shows the round Shown
// picks and, for every run the campaign plans that this round has no
// finished result for, the newest earlier round's finished result of
// that run (Carry), marked with its round: they are the newest numbers
// of those configurations. `perflab check` checks a page against the
// same results (ReadPageResults); `perflab diff` compares rounds' own
// results, never carried ones.

// RunKey identifies a run of a campaign in every round: its experiment,
// profile, load point and repeat.
type RunKey struct {
	Experiment, Profile string
	Point               Point
	Repeat              int
}

// KeyOf is result r's run.
func KeyOf(r *Result) RunKey {
	return RunKey{r.Experiment, r.Profile, PointOf(r.Load), r.Repeat}
}

// PlannedRuns are the runs campaign c plans, in collect's order: each
// step's experiments on their profiles (an experiment's profiles: list,
// else every profile), at each load point and repeat.
func (c *Campaign) PlannedRuns() []RunKey {
	var out []RunKey
	for _, st := range c.Steps {
		for _, e := range st.Experiments {
			for _, p := range c.Profiles {
				if len(e.Profiles) > 0 && !slices.Contains(e.Profiles, p.ID) {
					continue
				}
				for _, pt := range p.Points() {
					for rep := range p.RepeatCount() {
						out = append(out, RunKey{e.ID, p.ID, pt, rep})
					}
				}
			}
		}
	}
	return out
}

// CarriedRun is a run carried into the round shown from an earlier
// round: the round, its result file and the result as read.
type CarriedRun struct {
	Round  RoundDir
	File   string
	Result *Result
}

// Carry returns the runs campaign c plans that the round shown
// (rounds[shown], whose results are own) has no finished result for,
// each from the newest earlier round holding a finished result of it in
// the file collect names it (RunName; outputs imported under other
// names are not carried), ordered by round (newest first), then file.
// list gives a round's result files, slash-separated and sorted (a
// caller's listing: no directory is read here); read reads one (a
// caller reading through a recording reader, and redacting, reads it so).
// Only the files of runs missing from the rounds after them are read: a
// round that measured every planned run reads nothing.
func Carry(c *Campaign, rounds []RoundDir, shown int, own []*Result, list func(RoundDir) ([]string, error), read func(file string) (*Result, error)) ([]CarriedRun, error) {
	have := make(map[RunKey]bool, len(own))
	for _, r := range own {
		if r.Status.Finished() {
			have[KeyOf(r)] = true
		}
	}
	missing := map[RunKey]bool{}
	for _, k := range c.PlannedRuns() {
		if !have[k] {
			missing[k] = true
		}
	}
	// A missing run's file in a round is the round's directory joined
	// with its name: named once here (a report whose campaign plans runs
	// no round measured walks every round, and did that join for each
	// run in each), then found among the round's files by what follows
	// the directory. A name the join would clean (none collect writes)
	// is joined in each round as it is.
	named := map[string][]RunKey{} // the missing runs by their names, as joined
	var odd []RunKey
	for k := range missing {
		n := RunName(k.Experiment, k.Profile, k.Point, k.Repeat) + ".json"
		if j := filepath.ToSlash(filepath.Join("/d", n)); j == "/d/"+n {
			named[n] = append(named[n], k)
		} else {
			odd = append(odd, k)
		}
	}
	var out []CarriedRun
	for i := shown - 1; i >= 0 && len(missing) > 0; i-- {
		rd := rounds[i]
		files, err := list(rd)
		if err != nil {
			return nil, err
		}
		var found []string
		in := filepath.ToSlash(filepath.Join(rd.Dir, "x"))
		in = in[:len(in)-1] // the round's directory as joined, and a slash
		for _, f := range files {
			if !strings.HasPrefix(f, in) {
				continue
			}
			for _, k := range named[f[len(in):]] {
				if missing[k] {
					found = append(found, f) // once for each run still missing under this name, as the join found it
				}
			}
		}
		for _, k := range odd {
			if !missing[k] {
				continue
			}
			f := filepath.ToSlash(filepath.Join(rd.Dir, RunName(k.Experiment, k.Profile, k.Point, k.Repeat)+".json"))
			if j := sort.SearchStrings(files, f); j < len(files) && files[j] == f {
				found = append(found, f)
			}
		}
		sort.Strings(found)
		for _, f := range found {
			res, err := read(f)
			if err != nil {
				return nil, err
			}
			k := KeyOf(res)
			if !missing[k] || !res.Status.Finished() {
				continue // another run under its name, or interrupted there too
			}
			delete(missing, k)
			out = append(out, CarriedRun{Round: rd, File: f, Result: res})
		}
	}
	return out, nil
}

// ReadPageResults reads the results a page of campaign c shows from its
// results directory dir: the round Shown picks, its interrupted results
// of runs carried from earlier rounds left out, and the runs Carry
// carries (perflab check checks the page against them).
func ReadPageResults(dir string, c *Campaign) ([]*Result, error) {
	rs, err := Rounds(dir)
	if err != nil {
		return nil, err
	}
	shown, err := ShownOf(rs, HoldsFinished)
	if err != nil || shown < 0 {
		return nil, err
	}
	own, err := ReadRoundResults(rs[shown])
	if err != nil {
		return nil, err
	}
	list := func(rd RoundDir) ([]string, error) {
		files, err := RoundFiles(rd)
		for i := range files {
			files[i] = filepath.ToSlash(files[i])
		}
		sort.Strings(files)
		return files, err
	}
	carried, err := Carry(c, rs, shown, own, list, func(f string) (*Result, error) { return ReadFile(filepath.FromSlash(f)) })
	if err != nil || len(carried) == 0 {
		return own, err
	}
	gone := make(map[RunKey]bool, len(carried))
	for _, cr := range carried {
		gone[KeyOf(cr.Result)] = true
	}
	out := make([]*Result, 0, len(own)+len(carried))
	for _, r := range own {
		if !gone[KeyOf(r)] {
			out = append(out, r)
		}
	}
	for _, cr := range carried {
		out = append(out, cr.Result)
	}
	return out, nil
}
