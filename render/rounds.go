package render

import (
	"os"
	"path/filepath"

	"github.com/perflab/perflab/collect/schema"
)

// reportResultFiles is resultFiles for a report's results directory,
// which may hold rounds (schema.RoundsDir): every block shows the latest
// round, so only that round's files are listed; round 1 (the directory
// itself) leaves out rounds/, and a later round is its own directory. A
// directory with rounds is never flat: the site stamp leaves it to the
// full load, which lists the rounds again.
func reportResultFiles(dir string) (files []string, found, flat bool, err error) {
	if fi, err := os.Stat(filepath.Join(dir, schema.RoundsDir)); err != nil || !fi.IsDir() {
		return resultFiles(dir) // no rounds: as before
	}
	rd, ok, err := schema.Latest(dir)
	if err != nil {
		return nil, true, false, err
	}
	if !ok {
		return nil, true, false, nil
	}
	files, err = schema.RoundFiles(rd)
	for i := range files {
		files[i] = filepath.ToSlash(files[i])
	}
	return files, true, false, err
}
