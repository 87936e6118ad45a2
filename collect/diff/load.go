package diff

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/perflab/perflab/collect/ingest"
	"github.com/perflab/perflab/collect/schema"
)

// Open reads one side of a diff from ref:
//
//   - a result file (perflab's JSON), or a benchmark output perflab
//     import reads (vllm bench serve JSON or text, guidellm JSON);
//   - a results directory: a campaign's (its latest round) or a round's;
//   - DIR@ROUND: round ROUND of the campaign results directory DIR, by
//     id, by number in order (1 is the first round), or latest/previous.
func Open(ref string) (Side, error) {
	if st, err := os.Stat(ref); err == nil {
		if st.IsDir() {
			rd, ok, err := schema.Latest(ref)
			if err != nil {
				return Side{}, fmt.Errorf("diff: %w", err)
			}
			if !ok {
				return Side{}, fmt.Errorf("diff: %s: no results", ref)
			}
			return openRound(ref, rd)
		}
		return openFile(ref)
	}
	i := strings.LastIndex(ref, "@")
	if i <= 0 {
		return Side{}, fmt.Errorf("diff: %s: no such file or directory (a side is a result file, a results directory or DIR@ROUND)", ref)
	}
	dir, want := ref[:i], ref[i+1:]
	rd, err := FindRound(dir, want)
	if err != nil {
		return Side{}, err
	}
	return openRound(dir, rd)
}

// FindRound finds round want of the campaign results directory dir: by
// id; "latest" or "previous"; or a number N, the N-th round in order
// (numbered as the history pages number them), when no round has that
// id. latest, previous and the numbers count the rounds holding results:
// a round just started, with no result yet, is not the latest (as on the
// pages and for a results directory); named by its id it is an error.
func FindRound(dir, want string) (schema.RoundDir, error) {
	all, err := schema.Rounds(dir)
	if err != nil {
		return schema.RoundDir{}, fmt.Errorf("diff: %w", err)
	}
	var rounds []schema.RoundDir
	var empty *schema.RoundDir
	for i, r := range all {
		has, err := schema.HoldsResult(r)
		if err != nil {
			return schema.RoundDir{}, fmt.Errorf("diff: %w", err)
		}
		if has {
			rounds = append(rounds, r)
		} else if r.ID == want {
			empty = &all[i]
		}
	}
	for _, r := range rounds {
		if r.ID == want {
			return r, nil
		}
	}
	if empty != nil {
		return schema.RoundDir{}, fmt.Errorf("diff: %s: round %s holds no results yet (%s)", dir, want, empty.Dir)
	}
	if len(rounds) == 0 {
		return schema.RoundDir{}, fmt.Errorf("diff: %s: no rounds (no results)", dir)
	}
	switch want {
	case "latest":
		return rounds[len(rounds)-1], nil
	case "previous":
		if len(rounds) < 2 {
			return schema.RoundDir{}, fmt.Errorf("diff: %s: one round only, no previous", dir)
		}
		return rounds[len(rounds)-2], nil
	}
	if n, err := strconv.Atoi(want); err == nil && n >= 1 && n <= len(rounds) {
		return rounds[n-1], nil
	}
	ids := make([]string, len(rounds))
	for i, r := range rounds {
		ids[i] = r.ID
	}
	return schema.RoundDir{}, fmt.Errorf("diff: %s: no round %q (rounds: %s; or a number 1–%d, latest, previous)", dir, want, strings.Join(ids, ", "), len(rounds))
}

func openRound(dir string, rd schema.RoundDir) (Side, error) {
	rs, err := schema.ReadRoundResults(rd)
	if err != nil {
		return Side{}, fmt.Errorf("diff: %w", err)
	}
	name := dir + " round " + rd.ID
	if rd.Record != nil {
		name += " (" + rd.Record.Start[:10] + ")"
	}
	if _, err := os.Stat(rd.Dir + "/" + schema.RoundsDir); err != nil && rd.ID == schema.FirstRound {
		name = dir // a plain results directory: no rounds to speak of
	}
	return NewSide(name, rs), nil
}

func openFile(path string) (Side, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Side{}, fmt.Errorf("diff: %w", err)
	}
	r, rerr := schema.Unmarshal(path, data)
	if rerr == nil {
		s := NewSide(path, []*schema.Result{r})
		s.File = true
		return s, nil
	}
	// Not a perflab result: a benchmark output perflab import reads?
	es, err := ingest.Parse(path, data)
	if err != nil || len(es) == 0 {
		return Side{}, fmt.Errorf("diff: %s is neither a perflab result (%v) nor a benchmark output perflab import reads", path, rerr)
	}
	rs, err := ingest.Results(es, ingest.Options{Experiment: "run", Profile: "run"})
	if err != nil {
		return Side{}, fmt.Errorf("diff: %w", err)
	}
	for _, r := range rs { // a file's runs go by their labels, as in a directory
		r.Experiment, r.Profile = "", ""
		if r.Label == "" {
			r.Label = r.ID
		}
	}
	s := NewSide(path, rs)
	s.File = true
	return s, nil
}
