package roundload

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"

	"github.com/perflab/perflab/collect/schema"
	"github.com/perflab/perflab/render/inputs"
)

// Dir is a results directory with rounds, as Scan read it.
type Dir struct {
	// Rounds are its rounds, oldest first (schema.Rounds). Which one a
	// page shows is schema's rule (schema.ShownOf), the caller's to
	// apply: it reads the results that rule looks at (render/site).
	Rounds []schema.RoundDir
	// files are each round's result files (slash-separated, sorted), by
	// round id.
	files map[string][]string
	// scanned is what the round cache kept of each round and its
	// directory's identity as listed now, by round id.
	scanned map[string]scanned
	c       *Cache
}

// scanned is a round's entry in the round cache (cached, when found)
// and its directory's identity as Scan listed it (now, without Files).
type scanned struct {
	cached roundEntry
	found  bool
	now    roundEntry
}

// Files are round rd's result files, slash-separated and sorted
// (schema.RoundFiles).
func (d *Dir) Files(rd schema.RoundDir) []string { return d.files[rd.ID] }

// Scan reads the rounds of the results directory dir (which holds
// schema.RoundsDir), recording through in what it read: the directories
// it listed (Listed: the site stamp keeps their identities) and each
// round's record (a File); the rounds' result files are for the caller
// to read (render/site reads the newest ones, to tell which round a
// page shows, and records them). A round holding
// a subdirectory is walked and recorded as a Tree (never stamped).
func Scan(in *inputs.Reader, dir string) (*Dir, error) {
	return (*Cache)(nil).Scan(in, dir)
}

// Scan is Scan (the function) with the round cache: a round directory
// whose identity is the one the cache kept with its listing is not
// listed again (inputs.Reader.ListedAs: one stat), and Dir.Results
// takes its files' sums from the same entry.
func (c *Cache) Scan(in *inputs.Reader, dir string) (*Dir, error) {
	rds, err := schema.Rounds(dir)
	if err != nil {
		return nil, err
	}
	d := &Dir{Rounds: rds, files: make(map[string][]string, len(rds)), scanned: make(map[string]scanned, len(rds)), c: c}
	in.Listed(filepath.ToSlash(dir))
	in.Listed(filepath.ToSlash(filepath.Join(dir, schema.RoundsDir)))
	for _, rd := range rds {
		files, sc, err := c.roundFiles(in, rd)
		if err != nil {
			return nil, err
		}
		d.scanned[rd.ID] = sc
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
	return d, nil
}

// roundFiles is schema.RoundFiles (slash-separated), recorded through
// in: a directory read once when it holds no subdirectory (Listed),
// else walked (a Tree). A flat directory whose identity is the one the
// round cache kept with its listing is not read (ListedAs).
func (c *Cache) roundFiles(in *inputs.Reader, rd schema.RoundDir) (files []string, sc scanned, err error) {
	name := filepath.ToSlash(rd.Dir)
	sc.cached, sc.found = c.entry(c.roundKey(rd.Dir))
	if sc.found && sc.cached.DirOK && in.ListedAs(name, sc.cached.Dir) {
		files = make([]string, len(sc.cached.Files))
		for i, f := range sc.cached.Files {
			files[i] = f.Name
		}
		sc.now = roundEntry{Dir: sc.cached.Dir, DirOK: true}
		return files, sc, nil
	}
	listings.Add(1)
	entries, id, ok, err := in.ReadDirID(rd.Dir)
	if err != nil {
		return nil, sc, fmt.Errorf("schema: %w", err)
	}
	sc.now = roundEntry{Dir: id, DirOK: ok}
	prefix := filepath.ToSlash(filepath.Join(rd.Dir, "x"))
	prefix = prefix[:len(prefix)-1]
	for _, de := range entries {
		n := de.Name()
		if de.IsDir() {
			if strings.HasPrefix(n, ".") || rd.ID == schema.FirstRound && n == schema.RoundsDir {
				continue // passed by, as RoundFiles does
			}
			all, err := schema.RoundFiles(rd)
			for i := range all {
				all[i] = filepath.ToSlash(all[i])
			}
			if err == nil {
				in.Tree(name, ".json", all) // walked: the stamp leaves it to a full load
			}
			sc.now.DirOK = false
			return all, sc, err
		}
		if schema.IsResultFile(n) {
			files = append(files, prefix+n)
		}
	}
	sort.Strings(files)
	in.Listed(name)
	return files, sc, nil
}

// listings counts the round directories roundFiles read in this process.
var listings atomic.Int64

// Listings is the number of round directories Scan listed (rather than
// took from the round cache) in this process so far (tests, benchmarks).
func Listings() int64 { return listings.Load() }
