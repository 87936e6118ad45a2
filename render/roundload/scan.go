package roundload

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"

	"github.com/perflab/perflab/collect/schema"
	"github.com/perflab/perflab/render/inputs"
	"github.com/perflab/perflab/render/wire"
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
	dir     string
	// cached are the round entries the cache kept (blocks.go), by
	// round directory, had each block's round directories; kept are the
	// entries of the rounds given to Results, changed those that differ
	// from cached (Keep).
	cached  map[string]roundEntry
	had     [][]string
	kept    []roundRec
	changed map[string]bool
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
	d := &Dir{c: c, dir: dir, changed: map[string]bool{}}
	d.cached, d.had = c.readBlocks(dir)
	got := map[string]scanned{} // by round directory: the entry and the record as read now
	rds, err := schema.RoundsWith(dir, func(rdir string) (*schema.Round, error) {
		sc, rec, err := c.readRecord(in, rdir, d.cached)
		got[rdir] = sc
		return rec, err
	})
	if err != nil {
		return nil, err
	}
	d.Rounds, d.files, d.scanned = rds, make(map[string][]string, len(rds)), make(map[string]scanned, len(rds))
	in.Listed(filepath.ToSlash(dir))
	in.Listed(filepath.ToSlash(filepath.Join(dir, schema.RoundsDir)))
	for _, rd := range rds {
		sc, ok := got[rd.Dir]
		if !ok { // round 1, the results directory: no record
			sc.cached, sc.found = d.cached[rd.Dir]
		}
		files, sc, err := c.roundFiles(in, rd, sc)
		if err != nil {
			return nil, err
		}
		d.scanned[rd.ID] = sc
		d.files[rd.ID] = files
	}
	return d, nil
}

// roundFiles is schema.RoundFiles (slash-separated), recorded through
// in: a directory read once when it holds no subdirectory (Listed),
// else walked (a Tree). A flat directory whose identity is the one the
// round cache kept with its listing is not read (ListedAs). sc is the
// round's entry as Scan found it; the directory's identity now is added.
func (c *Cache) roundFiles(in *inputs.Reader, rd schema.RoundDir, sc scanned) (files []string, _ scanned, err error) {
	name := filepath.ToSlash(rd.Dir)
	if sc.found && sc.cached.DirOK && in.ListedAs(name, sc.cached.Dir) {
		files = make([]string, len(sc.cached.Files))
		for i, f := range sc.cached.Files {
			files[i] = f.Name
		}
		sc.now.Dir, sc.now.DirOK = sc.cached.Dir, true
		return files, sc, nil
	}
	listings.Add(1)
	entries, id, ok, err := in.ReadDirID(rd.Dir)
	if err != nil {
		return nil, sc, fmt.Errorf("schema: %w", err)
	}
	sc.now.Dir, sc.now.DirOK = id, ok
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

// readRecord reads the record of the round directory rdir as
// schema.ReadRound does, recording its file through in (part of the
// page's key: it orders the rounds, and its start, commit and engines
// show in the history): from the round's entry when the file's identity
// is the one kept there (inputs.Reader.KnownAs: one stat, not parsed
// again), else read (ReadFileID) and parsed (schema.ParseRound). sc is
// the round's entry (cached, from entries) with the record as read now
// (now).
func (c *Cache) readRecord(in *inputs.Reader, rdir string, entries map[string]roundEntry) (sc scanned, rec *schema.Round, err error) {
	sc.cached, sc.found = entries[rdir]
	name := filepath.ToSlash(filepath.Join(rdir, schema.RoundFile))
	var r schema.Round // decoded anew: the build redacts its record in place
	if k := sc.cached; sc.found && k.RecordOK && wire.Decode(k.Record, &r) == nil && in.KnownAs(name, k.RecordID, k.RecordSum) {
		sc.now.Record, sc.now.RecordID, sc.now.RecordSum, sc.now.RecordOK = k.Record, k.RecordID, k.RecordSum, true
		return sc, &r, nil
	}
	records.Add(1)
	data, sum, id, ok, err := in.ReadFileID(name)
	if errors.Is(err, fs.ErrNotExist) {
		return sc, nil, nil
	}
	if err != nil {
		return sc, nil, fmt.Errorf("schema: %w", err)
	}
	if rec, err = schema.ParseRound(rdir, data); err != nil {
		return sc, nil, err
	}
	sc.now.Record, sc.now.RecordID, sc.now.RecordSum, sc.now.RecordOK = wire.Append(nil, *rec), id, sum, ok
	return sc, rec, nil
}

// records counts the round records readRecord read in this process.
var records atomic.Int64

// Records is the number of round records Scan read and parsed (rather
// than took from the round cache) in this process so far (tests).
func Records() int64 { return records.Load() }
