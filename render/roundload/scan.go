package roundload

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/perflab/perflab/collect/schema"
	"github.com/perflab/perflab/render/inputs"
)

// Dir is a results directory with rounds, as Scan read it.
type Dir struct {
	// Rounds are its rounds, oldest first (schema.Rounds).
	Rounds []schema.RoundDir
	// Latest is the latest round holding a result (schema.Latest); ok
	// is false when none does.
	Latest schema.RoundDir
	ok     bool
	// files are each round's result files (slash-separated, sorted), by
	// round id.
	files map[string][]string
}

// HasLatest reports whether a round holds a result.
func (d *Dir) HasLatest() bool { return d.ok }

// Files are round rd's result files, slash-separated and sorted
// (schema.RoundFiles).
func (d *Dir) Files(rd schema.RoundDir) []string { return d.files[rd.ID] }

// Scan reads the rounds of the results directory dir (which holds
// schema.RoundsDir), recording through in what it read: the directories
// it listed (Listed: the site stamp keeps their identities), each
// round's record (a File), and the latest round's files (a Value of
// their names; their bytes are for the caller to read). A round holding
// a subdirectory is walked and recorded as a Tree (never stamped).
func Scan(in *inputs.Reader, dir string) (*Dir, error) {
	rds, err := schema.Rounds(dir)
	if err != nil {
		return nil, err
	}
	d := &Dir{Rounds: rds, files: make(map[string][]string, len(rds))}
	in.Listed(filepath.ToSlash(dir))
	in.Listed(filepath.ToSlash(filepath.Join(dir, schema.RoundsDir)))
	for _, rd := range rds {
		files, flat, err := roundFiles(rd)
		if err != nil {
			return nil, err
		}
		name := filepath.ToSlash(rd.Dir)
		if flat {
			in.Listed(name)
		} else {
			in.Tree(name, ".json", files) // walked: the stamp leaves it to a full load
		}
		if rd.Record != nil {
			// Part of the page's key (schema.Rounds read it to order the
			// rounds; its start, commit and engines show in the history).
			rf := filepath.ToSlash(filepath.Join(rd.Dir, schema.RoundFile))
			if _, ok := in.Known(rf); !ok {
				if _, _, err := in.ReadFile(rf); err != nil {
					return nil, fmt.Errorf("load: %w", err)
				}
			}
		}
		d.files[rd.ID] = files
	}
	// The latest round holding a result (schema.Latest's rule, on the
	// listings just made).
	for i := len(rds) - 1; i >= 0; i-- {
		if len(d.files[rds[i].ID]) > 0 {
			d.Latest, d.ok = rds[i], true
			break
		}
	}
	if d.ok {
		in.Value("latest round of "+filepath.ToSlash(dir), d.Latest.ID+"\x00"+strings.Join(d.files[d.Latest.ID], "\x00"))
	}
	return d, nil
}

// roundFiles is schema.RoundFiles (slash-separated): a directory read
// once when it holds no subdirectory (flat), else walked.
func roundFiles(rd schema.RoundDir) (files []string, flat bool, err error) {
	entries, err := os.ReadDir(rd.Dir)
	if err != nil {
		return nil, false, fmt.Errorf("schema: %w", err)
	}
	prefix := filepath.ToSlash(filepath.Join(rd.Dir, "x"))
	prefix = prefix[:len(prefix)-1]
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() {
			if strings.HasPrefix(name, ".") || rd.ID == schema.FirstRound && name == schema.RoundsDir {
				continue // passed by, as RoundFiles does
			}
			all, err := schema.RoundFiles(rd)
			for i := range all {
				all[i] = filepath.ToSlash(all[i])
			}
			return all, false, err
		}
		if schema.IsResultFile(name) {
			files = append(files, prefix+name)
		}
	}
	sort.Strings(files)
	return files, true, nil
}
