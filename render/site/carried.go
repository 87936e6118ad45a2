package site

import (
	"fmt"
	"sort"

	"github.com/perflab/perflab/collect/redact"
	"github.com/perflab/perflab/collect/schema"
	"github.com/perflab/perflab/render/inputs"
)

// A page shows one round of a report with rounds (schema.Shown: the
// newest holding a finished result). A round may measure only part of
// the campaign: `collect --new-round --only vllm` re-measures one
// engine, a round's shards may not all have run, a run may have been
// interrupted. Every run the campaign plans that the shown round has no
// finished result for is shown from the newest earlier round that has
// one (same experiment, profile, load point and repeat), marked with
// that round (Run.Round): they are the newest numbers for those
// configurations, so the comparisons and charts use them. The history
// keeps each round's own results (loadRounds ran before), and so do
// `perflab diff` and the round's own data files.

// carryRuns adds to r.All the runs carried from earlier rounds (read in
// full through in, redacted by red), replacing the shown round's
// interrupted result of the same run. A report whose shown round has a
// finished result for every planned run reads nothing.
func (r *Report) carryRuns(in *inputs.Reader, red *redact.Redactor) error {
	d := r.roundDir
	if d == nil || r.ShownRound == "" {
		return nil
	}
	missing := r.missingRuns()
	if len(missing) == 0 {
		return nil
	}
	dirs := make(map[string]schema.RoundDir, len(d.Rounds))
	for _, rd := range d.Rounds {
		dirs[rd.ID] = rd
	}
	type pick struct {
		file, round string
	}
	var picks []pick
	for i := len(r.Rounds) - 1; i >= 0 && len(missing) > 0; i-- {
		rr := r.Rounds[i]
		if rr.ID == r.ShownRound {
			continue
		}
		results, err := rr.Load()
		if err != nil {
			return err
		}
		files := d.Files(dirs[rr.ID])
		if len(files) != len(results) {
			return fmt.Errorf("load: round %s of %s: %d results of %d files", rr.ID, r.ResultsDir, len(results), len(files))
		}
		for j, res := range results {
			k := pointKey{res.Experiment, res.Profile, schema.PointOf(res.Load), res.Repeat}
			if !missing[k] || !res.Status.Finished() {
				continue
			}
			delete(missing, k)
			picks = append(picks, pick{files[j], rr.ID})
		}
	}
	if len(picks) == 0 {
		return nil
	}
	sort.Slice(picks, func(i, j int) bool { return picks[i].file < picks[j].file })
	carried := map[pointKey]bool{}
	var add []*Run
	for _, p := range picks {
		runs, err := readRuns(in, []string{p.file}, red) // in full: the page's blocks read requests too
		if err != nil {
			return err
		}
		run := runs[0]
		run.Round = p.round
		res := run.Result
		prof, err := checkResult(r.Campaign, r.CampaignFile, p.file, res)
		if err != nil {
			return err
		}
		if outsideCampaign(prof, res) != "" {
			continue
		}
		pk := pointKey{res.Experiment, res.Profile, schema.PointOf(res.Load), res.Repeat}
		carried[pk] = true
		add = append(add, run)
		if pk.pt.Sweep == "" && pk.repeat == 0 {
			r.runs[runKey{res.Experiment, res.Profile}] = run
		}
	}
	// The shown round's interrupted result of a run carried gives way.
	kept := r.All[:0]
	for _, run := range r.All {
		res := run.Result
		if carried[pointKey{res.Experiment, res.Profile, schema.PointOf(res.Load), res.Repeat}] {
			continue
		}
		kept = append(kept, run)
	}
	r.All = append(kept, add...)
	return nil
}

// missingRuns are the runs the campaign plans (each step's experiments
// on every profile, at each load point and repeat) that the shown
// round has no finished result for.
func (r *Report) missingRuns() map[pointKey]bool {
	have := make(map[pointKey]bool, len(r.All))
	for _, run := range r.All {
		res := run.Result
		if res.Status.Finished() {
			have[pointKey{res.Experiment, res.Profile, schema.PointOf(res.Load), res.Repeat}] = true
		}
	}
	missing := map[pointKey]bool{}
	for _, st := range r.Campaign.Steps {
		for _, e := range st.Experiments {
			for _, p := range r.Campaign.Profiles {
				for _, pt := range p.Points() {
					for rep := 0; rep < p.RepeatCount(); rep++ {
						if k := (pointKey{e.ID, p.ID, pt, rep}); !have[k] {
							missing[k] = true
						}
					}
				}
			}
		}
	}
	return missing
}

// Carried is what the page says of the runs it carries from earlier
// rounds (CarriedRuns): how many runs it shows, how many of them the
// shown round measured (a finished result of its own), and the rounds
// the carried ones come from with how many each, newest first.
type Carried struct {
	Shown    string
	Runs     int
	Measured int
	From     []CarriedFrom
}

// CarriedFrom is one earlier round some of a page's runs come from.
type CarriedFrom struct {
	Round string
	Runs  int
}

// CarriedRuns says which of the report's runs come from earlier rounds;
// ok is false when none does.
func (r *Report) CarriedRuns() (c Carried, ok bool) {
	c.Shown = r.ShownRound
	n := map[string]int{}
	for _, run := range r.All {
		c.Runs++
		switch {
		case run.Round != "":
			n[run.Round]++
		case run.Result.Status.Finished():
			c.Measured++
		}
	}
	if len(n) == 0 {
		return c, false
	}
	order := map[string]int{}
	for i, rr := range r.Rounds {
		order[rr.ID] = i
	}
	for id, k := range n {
		c.From = append(c.From, CarriedFrom{Round: id, Runs: k})
	}
	sort.Slice(c.From, func(i, j int) bool { return order[c.From[i].Round] > order[c.From[j].Round] })
	return c, true
}
