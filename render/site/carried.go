package site

import (
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

// carryRuns adds to r.All the runs carried from earlier rounds
// (schema.Carry, on Scan's listings: the files of the runs the shown
// round lacks, read in full through in and redacted by red), replacing
// the shown round's interrupted result of the same run. A report whose
// shown round has a finished result for every planned run reads
// nothing.
func (r *Report) carryRuns(in *inputs.Reader, red *redact.Redactor) error {
	d := r.roundDir
	if d == nil || r.ShownRound == "" {
		return nil
	}
	shown := slices.IndexFunc(d.Rounds, func(rd schema.RoundDir) bool { return rd.ID == r.ShownRound })
	own := make([]*schema.Result, len(r.All))
	for i, run := range r.All {
		own[i] = run.Result
	}
	list := func(rd schema.RoundDir) ([]string, error) { return d.Files(rd), nil }
	read := func(f string) (*schema.Result, error) {
		runs, err := readRuns(in, []string{f}, red) // in full: the page's blocks read requests too
		if err != nil {
			return nil, err
		}
		return runs[0].Result, nil
	}
	carried, err := schema.Carry(r.Campaign, d.Rounds, shown, own, list, read)
	if err != nil || len(carried) == 0 {
		return err
	}
	gone := map[schema.RunKey]bool{}
	var add []*Run
	for _, cr := range carried {
		res := cr.Result
		prof, err := checkResult(r.Campaign, r.CampaignFile, cr.File, res)
		if err != nil {
			return err
		}
		if outsideCampaign(prof, res) != "" {
			continue
		}
		k := schema.KeyOf(res)
		gone[k] = true
		run := &Run{Result: res, File: cr.File, Round: cr.Round.ID}
		add = append(add, run)
		if k.Point.Sweep == "" && k.Repeat == 0 {
			r.runs[runKey{res.Experiment, res.Profile}] = run
		}
	}
	// The shown round's interrupted result of a run carried gives way.
	kept := r.All[:0]
	for _, run := range r.All {
		if !gone[schema.KeyOf(run.Result)] {
			kept = append(kept, run)
		}
	}
	r.All = append(kept, add...)
	return nil
}

// Carried is what the page says of the runs it carries from earlier
// rounds (CarriedRuns): how many runs it shows, how many of them the
// shown round measured (a finished result of its own), and the rounds
// the carried ones come from with how many each, newest first.
type Carried struct {
	Shown    string
	Runs     int
	Measured int
	// NotOK counts the measured runs that did not end ok, by status
	// (crashed, failed …): a round whose runs all crashed measured
	// nothing to compare, and the note says so.
	NotOK map[schema.Status]int
	From  []CarriedFrom
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
			if st := run.Result.Status; st != schema.StatusOK {
				if c.NotOK == nil {
					c.NotOK = map[schema.Status]int{}
				}
				c.NotOK[st]++
			}
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
