package site

import (
	"fmt"
	"path/filepath"

	"github.com/perflab/perflab/collect/redact"
	"github.com/perflab/perflab/collect/schema"
	"github.com/perflab/perflab/render/inputs"
)

// reportResultFiles is resultFiles for a report's results directory,
// which may hold rounds (schema.RoundsDir): every block shows the latest
// round, so only that round's files are listed; round 1 (the directory
// itself) leaves out rounds/, and a later round is its own directory. A
// directory with rounds is never flat: the site stamp leaves it to the
// full load, which lists the rounds again.
func reportResultFiles(in *inputs.Reader, dir string) (files []string, found bool, err error) {
	if !in.Exists(filepath.Join(dir, schema.RoundsDir)) {
		return in.Files(dir, ".json") // no rounds: as before
	}
	rd, ok, err := schema.Latest(dir)
	if err != nil {
		return nil, true, err
	}
	if ok {
		files, err = schema.RoundFiles(rd)
	}
	for i := range files {
		files[i] = filepath.ToSlash(files[i])
	}
	in.Tree(dir, ".json", files) // a listing by the rounds' rules: never stamped
	return files, true, err
}

// RoundResults is one round of a report's results.

// RoundResults is one round of a report's results.
type RoundResults struct {
	ID      string
	Record  *schema.Round // nil for round 1
	Results []*schema.Result
}

// Date is the round's start date (2026-10-26), "" when unknown.
func (r RoundResults) Date() string {
	if r.Record != nil && len(r.Record.Start) >= 10 {
		return r.Record.Start[:10]
	}
	for _, res := range r.Results {
		if len(res.Start) >= 10 {
			return res.Start[:10]
		}
	}
	return ""
}

// loadRounds reads every round of the report's results for the history,
// each file through the page's Reader (in), when the results have
// rounds; the latest round's results are the ones Load already read.
func (s *Site) loadRounds(r *Report, in *inputs.Reader, red *redact.Redactor) error {
	if !in.Exists(filepath.Join(r.ResultsDir, schema.RoundsDir)) {
		return nil
	}
	rds, err := schema.Rounds(r.ResultsDir)
	if err != nil {
		return fmt.Errorf("load: %w", err)
	}
	latest, ok, err := schema.Latest(r.ResultsDir)
	if err != nil || !ok {
		return err
	}
	for _, rd := range rds {
		rr := RoundResults{ID: rd.ID, Record: rd.Record}
		if rd.Record != nil {
			p := filepath.ToSlash(filepath.Join(rd.Dir, schema.RoundFile))
			if _, _, err := in.ReadFile(p); err != nil { // recorded: part of the page's key
				return fmt.Errorf("load: %w", err)
			}
			red.Walk(rd.Record) // its note and engines are shown as they came in, redacted
		}
		if rd.ID == latest.ID {
			for _, run := range r.All {
				rr.Results = append(rr.Results, run.Result)
			}
		} else {
			files, err := schema.RoundFiles(rd)
			if err != nil {
				return fmt.Errorf("load: %w", err)
			}
			for _, f := range files {
				f = filepath.ToSlash(f)
				data, _, err := in.ReadFile(f)
				if err != nil {
					return fmt.Errorf("load: %w", err)
				}
				res, err := schema.Unmarshal(f, data)
				if err != nil {
					return err
				}
				res.Requests = nil // the history needs the summaries only
				red.Walk(res)      // as the latest round's results are (site.go)
				rr.Results = append(rr.Results, res)
			}
		}
		if len(rr.Results) > 0 {
			r.Rounds = append(r.Rounds, rr)
		}
		if rd.ID == latest.ID {
			break // a later round holding no result yet is not history
		}
	}
	return nil
}

// Start is the round's start time (RFC 3339), "" when unknown.
func (r RoundResults) Start() string {
	if r.Record != nil && r.Record.Start != "" {
		return r.Record.Start
	}
	first := ""
	for _, res := range r.Results {
		if res.Start != "" && (first == "" || res.Start < first) {
			first = res.Start
		}
	}
	return first
}
