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
//   - a results directory: a campaign's (the round its page shows,
//     schema.Shown: the newest holding a finished result) or a round's;
//   - DIR@ROUND: round ROUND of the campaign results directory DIR, by
//     id, by number in order (1 is the first round), or latest/previous
//     (FindRound).
//
// A side is one round's own results: the runs a page carries over from
// earlier rounds (those its shown round has no finished result for) are
// not in it.
func Open(ref string) (Side, error) {
	if st, err := os.Stat(ref); err == nil {
		if st.IsDir() {
			rd, ok, err := schema.Shown(ref)
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

// FindRound finds round want of the campaign results directory dir. A
// round is named by
//
//   - id:ID, the round whose id (directory name) is ID;
//   - n:N, the N-th round in order (the history's columns, whose
//     headings are the ids, 1 the first);
//   - latest or previous;
//   - a bare ID or N: the round with that id, or the N-th round. When a
//     round's id is a number (--round 3), the bare number could name two
//     rounds: it names one when both readings agree or only one exists,
//     and is an error naming both rounds when they differ, so that a
//     selector never silently picks the other round (nor changes its
//     meaning as rounds are added: it turns into that error).
//
// The numbers count the rounds holding results: a round just started,
// with no result yet, has none; named by its id it is an error. latest
// is the round the pages show (schema.Shown: the newest holding a
// finished result, so a round whose collect was stopped before any run
// finished is not it), previous the round holding a finished result
// before it.
func FindRound(dir, want string) (schema.RoundDir, error) {
	// A typo in DIR is not a campaign without results.
	if st, err := os.Stat(dir); err != nil {
		return schema.RoundDir{}, fmt.Errorf("diff: %s@%s: %w (DIR@ROUND: DIR is a campaign's results directory)", dir, want, err)
	} else if !st.IsDir() {
		return schema.RoundDir{}, fmt.Errorf("diff: %s@%s: %s is a file, not a results directory (DIR@ROUND names a round of a campaign's results directory)", dir, want, dir)
	}
	all, err := schema.Rounds(dir)
	if err != nil {
		return schema.RoundDir{}, fmt.Errorf("diff: %w", err)
	}
	var rounds []schema.RoundDir
	byID := map[string]int{} // id → index in rounds; -1 for a round holding no result
	for _, r := range all {
		has, err := schema.HoldsResult(r)
		if err != nil {
			return schema.RoundDir{}, fmt.Errorf("diff: %w", err)
		}
		byID[r.ID] = -1
		if has {
			byID[r.ID] = len(rounds)
			rounds = append(rounds, r)
		}
	}
	// shown is the index in rounds of the round the pages show, and
	// before it the one holding a finished result before that (-1: none).
	shown, err := schema.ShownOf(rounds, schema.HoldsFinished)
	if err != nil {
		return schema.RoundDir{}, fmt.Errorf("diff: %w", err)
	}
	before := -1
	if shown > 0 {
		if before, err = schema.ShownOf(rounds[:shown], schema.HoldsFinished); err != nil {
			return schema.RoundDir{}, fmt.Errorf("diff: %w", err)
		}
	}
	// ofID is the round with id, ofNumber the n-th round (each ok false
	// when there is none); an empty round named by its id is an error.
	ofID := func(id string) (schema.RoundDir, bool, error) {
		i, ok := byID[id]
		if !ok {
			return schema.RoundDir{}, false, nil
		}
		if i < 0 {
			return schema.RoundDir{}, false, fmt.Errorf("diff: %s: round %s holds no results yet (%s)", dir, id, schema.RoundPath(dir, id))
		}
		return rounds[i], true, nil
	}
	ofNumber := func(s string) (schema.RoundDir, bool) {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > len(rounds) || strconv.Itoa(n) != s {
			return schema.RoundDir{}, false
		}
		return rounds[n-1], true
	}
	notFound := func() error {
		ids := make([]string, len(rounds))
		for i, r := range rounds {
			ids[i] = r.ID
		}
		if len(rounds) == 0 {
			return fmt.Errorf("diff: %s: no rounds (no results)", dir)
		}
		return fmt.Errorf("diff: %s: no round %q (rounds, in order: %s; name one by id:ID, by number n:1 to n:%d, latest or previous)", dir, want, strings.Join(ids, ", "), len(rounds))
	}
	if id, ok := strings.CutPrefix(want, "id:"); ok {
		r, found, err := ofID(id)
		if err != nil {
			return schema.RoundDir{}, err
		}
		if !found {
			return schema.RoundDir{}, notFound()
		}
		return r, nil
	}
	if s, ok := strings.CutPrefix(want, "n:"); ok {
		r, found := ofNumber(s)
		if !found {
			return schema.RoundDir{}, notFound()
		}
		return r, nil
	}
	switch want {
	case "latest", "previous":
		if shown < 0 {
			if len(rounds) == 0 {
				return schema.RoundDir{}, notFound()
			}
			return schema.RoundDir{}, fmt.Errorf("diff: %s: no round holds a finished result (every run interrupted); name a round by id:ID or n:N", dir)
		}
		if want == "latest" {
			return rounds[shown], nil
		}
		if before < 0 && len(rounds) < 2 {
			return schema.RoundDir{}, fmt.Errorf("diff: %s: one round only, no previous", dir)
		}
		if before < 0 {
			return schema.RoundDir{}, fmt.Errorf("diff: %s: no round before round %s (latest) holds a finished result, no previous", dir, rounds[shown].ID)
		}
		return rounds[before], nil
	}
	byNum, isNum := ofNumber(want)
	r, isID, err := ofID(want)
	if err != nil {
		if isNum {
			return schema.RoundDir{}, fmt.Errorf("diff: %s: round %q is ambiguous: round id %s holds no results yet, and round number %s is round %s; say n:%s for round %s", dir, want, want, want, byNum.ID, want, byNum.ID)
		}
		return schema.RoundDir{}, err
	}
	switch {
	case isID && isNum && r.Dir != byNum.Dir:
		return schema.RoundDir{}, fmt.Errorf("diff: %s: round %q is ambiguous: round id %s is round number %d (%s), and round number %s is round %s (%s); say id:%s for the first, n:%s for the second",
			dir, want, want, byID[want]+1, r.Dir, want, byNum.ID, byNum.Dir, want, want)
	case isID:
		return r, nil
	case isNum:
		return byNum, nil
	}
	return schema.RoundDir{}, notFound()
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
	if schema.DeclaresVersion(data) { // a perflab result that does not read: its error names the line and field
		return Side{}, fmt.Errorf("diff: %w", rerr)
	}
	// Not a perflab result: a benchmark output perflab import reads?
	es, err := ingest.Parse(path, data)
	if err != nil { // a damaged output: import's error, with its line and field
		return Side{}, fmt.Errorf("diff: %w (read as a benchmark output: it has no schema_version, so it is no perflab result)", err)
	}
	if len(es) == 0 {
		return Side{}, fmt.Errorf("diff: %s is neither a perflab result (%v) nor a benchmark output perflab import reads", path, rerr)
	}
	rs, err := ingest.Results(es, ingest.Options{Experiment: "run", Profile: "run"})
	if err != nil {
		return Side{}, fmt.Errorf("diff: %w", err)
	}
	// Every run of the output is experiment "run", profile "run" (the
	// options above): RunKey matches its runs by load point alone, as in
	// the same output of the other side, and pools the repeats of a point
	// (an --append-result file's records at one concurrency), which their
	// ids tell apart (run--run--r1) and which, matched by id, were as many
	// single runs, never tested.
	s := NewSide(path, rs)
	s.File = true
	return s, nil
}
