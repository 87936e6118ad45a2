package site

import (
	"path/filepath"
	"slices"
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
// interrupted result of the same run. An earlier round's result of a
// run is its file of the name collect gives the run (schema.RunName),
// found in the round's listing (Scan's, no read), then read: the run's
// if it says so (experiment, profile, point and repeat) and finished.
// Outputs imported under other names are not carried. A report whose
// shown round has a finished result for every planned run reads
// nothing; one whose runs some round lacks reads only their files.
func (r *Report) carryRuns(in *inputs.Reader, red *redact.Redactor) error {
	d := r.roundDir
	if d == nil || r.ShownRound == "" {
		return nil
	}
	missing := r.missingRuns()
	if len(missing) == 0 {
		return nil
	}
	shown := len(d.Rounds) - 1
	for shown >= 0 && d.Rounds[shown].ID != r.ShownRound {
		shown--
	}
	carried := map[pointKey]bool{}
	var add []*Run
	for i := shown - 1; i >= 0 && len(missing) > 0; i-- {
		rd := d.Rounds[i]
		files := d.Files(rd) // sorted
		dir := filepath.ToSlash(rd.Dir) + "/"
		var found []string
		for k := range missing {
			f := dir + schema.RunName(k.exp, k.prof, k.pt, k.repeat) + ".json"
			if j := sort.SearchStrings(files, f); j < len(files) && files[j] == f {
				found = append(found, f)
			}
		}
		sort.Strings(found)
		for _, f := range found {
			runs, err := readRuns(in, []string{f}, red) // in full: the page's blocks read requests too
			if err != nil {
				return err
			}
			run, res := runs[0], runs[0].Result
			k := pointKey{res.Experiment, res.Profile, schema.PointOf(res.Load), res.Repeat}
			if !missing[k] || !res.Status.Finished() {
				continue // another run under its name, or interrupted there too
			}
			prof, err := checkResult(r.Campaign, r.CampaignFile, f, res)
			if err != nil {
				return err
			}
			if outsideCampaign(prof, res) != "" {
				continue
			}
			delete(missing, k)
			run.Round = rd.ID
			carried[k] = true
			add = append(add, run)
			if k.pt.Sweep == "" && k.repeat == 0 {
				r.runs[runKey{res.Experiment, res.Profile}] = run
			}
		}
	}
	if len(add) == 0 {
		return nil
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
// on their profiles, at each load point and repeat: collect's plan)
// that the shown round has no finished result for.
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
				if len(e.Profiles) > 0 && !slices.Contains(e.Profiles, p.ID) {
					continue
				}
				for _, pt := range p.Points() {
					for rep := range p.RepeatCount() {
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
	if r.roundDir != nil {
		for i, rd := range r.roundDir.Rounds {
			order[rd.ID] = i
		}
	}
	for id, k := range n {
		c.From = append(c.From, CarriedFrom{Round: id, Runs: k})
	}
	sort.Slice(c.From, func(i, j int) bool { return order[c.From[i].Round] > order[c.From[j].Round] })
	return c, true
}
