package site

import (
	"path/filepath"

	"github.com/perflab/perflab/collect/redact"
	"github.com/perflab/perflab/collect/schema"
	"github.com/perflab/perflab/render/inputs"
)

// reportResultFiles is resultFiles for report r's results directory,
// which may hold rounds (schema.RoundsDir): every block shows the latest
// round, so only that round's files are listed; round 1 (the directory
// itself) leaves out rounds/, and a later round is its own directory.
// The rounds are read once (roundload.Scan, kept in r.roundDir for
// loadRounds), recording the directories listed, so that the site stamp
// holds a report with rounds too.
func (s *Site) reportResultFiles(in *inputs.Reader, r *Report) (files []string, found bool, err error) {
	dir := r.ResultsDir
	if !in.Exists(filepath.Join(dir, schema.RoundsDir)) {
		return in.Files(dir, ".json") // no rounds: as before
	}
	d, err := s.RoundCache.Scan(in, dir)
	if err != nil {
		return nil, true, err
	}
	r.roundDir = d
	if d.HasLatest() {
		files = d.Files(d.Latest)
	}
	return files, true, nil
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
	if d == nil || !d.HasLatest() {
		return nil
	}
	salt := string(campaign[:])
	for _, rd := range d.Rounds {
		rr := RoundResults{ID: rd.ID, Record: rd.Record, Facts: &RoundFacts{}}
		if rd.Record != nil {
			red.Walk(rd.Record) // its note and engines are shown as they came in, redacted
		}
		if rd.ID == d.Latest.ID {
			for _, run := range r.All {
				rr.Results = append(rr.Results, run.Result)
			}
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
		if rd.ID == d.Latest.ID {
			break // a later round holding no result yet is not history
		}
	}
	return nil
}
