package render

import (
	"path/filepath"

	"github.com/perflab/perflab/collect/schema"
	"github.com/perflab/perflab/render/inputs"
	"github.com/perflab/perflab/render/roundload"
)

// reportResultFiles is resultFiles for report r's results directory,
// which may hold rounds (schema.RoundsDir): every block shows the latest
// round, so only that round's files are listed; round 1 (the directory
// itself) leaves out rounds/, and a later round is its own directory.
// The rounds are read once (roundload.Scan, kept in r.roundDir for
// loadRounds), recording the directories listed, so that the site stamp
// holds a report with rounds too.
func reportResultFiles(in *inputs.Reader, r *Report) (files []string, found bool, err error) {
	dir := r.ResultsDir
	if !in.Exists(filepath.Join(dir, schema.RoundsDir)) {
		return in.Files(dir, ".json") // no rounds: as before
	}
	d, err := roundload.Scan(in, dir)
	if err != nil {
		return nil, true, err
	}
	r.roundDir = d
	if d.HasLatest() {
		files = d.Files(d.Latest)
	}
	return files, true, nil
}
