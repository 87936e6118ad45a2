package render

import (
	"path/filepath"

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
