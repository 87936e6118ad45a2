package site

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/perflab/perflab/collect/redact"
	"github.com/perflab/perflab/collect/schema"
	"github.com/perflab/perflab/render/inputs"
)

// reportResults reads the results of the round report r shows, through
// in and redacted by red (found false when its results directory does
// not exist). A results directory with rounds (schema.RoundsDir) shows
// one round (schema.ShownOf: the newest holding a finished result); its
// rounds are read once (roundload.Scan, kept in r.roundDir for
// loadRounds and carryRuns), recording the directories listed, so that
// the site stamp holds a report with rounds too. The newest rounds'
// results are read to tell whether they hold a finished result: the
// shown round's are the ones returned (read once), and those of a newer
// round holding none (a collect stopped before any run finished) are
// recorded, so that the page changes when that round finishes a run.
func (s *Site) reportResults(in *inputs.Reader, r *Report, red *redact.Redactor) (runs []*Run, found bool, err error) {
	dir := r.ResultsDir
	if !in.Exists(filepath.Join(dir, schema.RoundsDir)) {
		files, found, err := in.Files(dir, ".json") // no rounds: as before
		if err != nil || !found {
			if err != nil {
				err = fmt.Errorf("load: %w", err)
			}
			return nil, found, err
		}
		runs, err := readRuns(in, files, red)
		return runs, true, err
	}
	d, err := s.RoundCache.Scan(in, dir)
	if err != nil {
		return nil, true, fmt.Errorf("load: %w", err)
	}
	r.roundDir = d
	var read []*Run
	i, err := schema.ShownOf(d.Rounds, func(rd schema.RoundDir) (bool, error) {
		files := d.Files(rd)
		if len(files) == 0 {
			return false, nil
		}
		runs, err := readRuns(in, files, red)
		if err != nil {
			return false, err
		}
		read = runs
		for _, run := range runs {
			if run.Result.Status.Finished() {
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil || i < 0 {
		return nil, true, err
	}
	r.shown, r.ShownRound = d.Rounds[i], d.Rounds[i].ID
	in.Value("latest round of "+filepath.ToSlash(dir), r.ShownRound+"\x00"+strings.Join(d.Files(r.shown), "\x00"))
	return read, true, nil
}

// readRuns reads, decodes and redacts the result files files through
// in.
func readRuns(in *inputs.Reader, files []string, red *redact.Redactor) ([]*Run, error) {
	// The bytes of a result are dropped once hashed and decoded
	// (Unmarshal copies what it keeps): one buffer, reused (render/inputs).
	buf := inputs.GetBuf()
	defer inputs.PutBuf(buf)
	out := make([]*Run, 0, len(files))
	for _, f := range files {
		data, err := in.ReadInto(f, (*buf)[:0])
		*buf = data
		if err != nil {
			return nil, fmt.Errorf("schema: %w", err)
		}
		res, err := schema.Unmarshal(f, data)
		if err != nil {
			return nil, err
		}
		red.Walk(res)
		out = append(out, &Run{Result: res, File: f})
	}
	return out, nil
}

// loadRounds reads every older round of the report's results for the
// history, when the results have rounds (r.roundDir, read by
// reportResultFiles): each round's files are recorded through the page's
// Reader (in), and its results come from the round cache when those
// files are as they were (render/roundload: their sums from the input
// stat cache, so an unchanged round is neither read nor hashed). The
// latest round's results are the ones Load already read; an older
// round's come in through the same redaction (red, made of the secrets
// of the campaign whose file's sum is campaign: part of the round's key,
// with what its data.json fragment is made of, render/blocks'
// roundsdata.go).
func (s *Site) loadRounds(r *Report, in *inputs.Reader, red *redact.Redactor, campaign [32]byte) error {
	d := r.roundDir
	if d == nil || r.ShownRound == "" {
		return nil
	}
	salt := string(campaign[:])
	for _, rd := range d.Rounds {
		rr := RoundResults{ID: rd.ID, Record: rd.Record, Facts: &RoundFacts{}}
		if rd.Record != nil {
			red.Walk(rd.Record) // its note and engines are shown as they came in, redacted
		}
		if rd.ID == r.ShownRound {
			// The shown round's own (carryRuns adds the others after),
			// those the campaign no longer defines included, as an older
			// round's are: its history values and data files do not
			// change when a later round comes (r.All leaves them out).
			rr.Results = r.shownOwn
		} else {
			got, err := d.Results(in, rd, salt, func(res *schema.Result) { red.Walk(res) })
			if err != nil {
				return err
			}
			rr.Cached = got
		}
		if len(rr.Results) > 0 || rr.Cached != nil && len(d.Files(rd)) > 0 {
			r.Rounds = append(r.Rounds, rr)
		}
		if rd.ID == r.ShownRound {
			break // a later round holding no finished result yet is not history
		}
	}
	d.Keep() // the older rounds' entries, for the next build
	return nil
}
