package roundload

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/perflab/perflab/collect/schema"
	"github.com/perflab/perflab/render/buildcache"
	"github.com/perflab/perflab/render/inputs"
	"github.com/perflab/perflab/render/wire"
)

// summary is what the cache keeps of an older round: its results as
// Load made them (read, redacted), less what the history does not use
// and an older round's results never show: the per-request records and
// the raw output.
type summary struct {
	Results []schema.Result
}

// version salts every key: an entry written for other types is never
// read.
var version = wire.Version(summary{})

// Cache keeps older rounds' results between builds. Its methods are
// safe for concurrent use; a nil *Cache keeps nothing (every round is
// read from its files).
type Cache struct {
	c *buildcache.Cache
}

// CacheDir is where the round cache lives in the build's cache directory.
func CacheDir(cacheDir string) string { return filepath.Join(cacheDir, "rounds") }

// Open opens the round cache in the cache directory cacheDir (CacheDir).
func Open(cacheDir string) *Cache {
	return &Cache{c: buildcache.Open(CacheDir(cacheDir), version)}
}

// Finish ends the build's use of the cache (buildcache.Cache.Finish):
// after a successful build the rounds it used are kept, others dropped.
func (c *Cache) Finish(ok bool) {
	if c != nil {
		c.c.Finish(ok)
	}
}

// A Round is an older round as Results found it.
type Round struct {
	// kept are the round's results when this build read them from its
	// files (Load gives them); nil when the cache holds the round.
	kept  []*schema.Result
	c     *Cache
	key   []byte // the round's key: the salt and its files' records
	files []string
	sums  [][32]byte // each file's, as recorded
	prep  func(*schema.Result)
}

// Load returns the round's results, without Requests nor RawOutput: as
// this build read them, or the cache's entry decoded anew each call
// (a report's older rounds are not held between uses: a thousand
// reports of a hundred rounds are 1.4 million results), or, should the
// entry be unreadable, the round's files read again (their bytes must
// be those recorded: an error says a file changed during the build).
func (r *Round) Load() ([]*schema.Result, error) {
	if r.kept != nil || len(r.files) == 0 {
		return r.kept, nil
	}
	if b := r.c.c.Get(r.c.c.Key(r.key)); b != nil {
		var sm summary
		if wire.Decode(b, &sm) == nil && len(sm.Results) == len(r.files) {
			out := make([]*schema.Result, len(sm.Results))
			for i := range sm.Results {
				out[i] = &sm.Results[i]
			}
			return out, nil
		}
	}
	sm, err := r.read(make([][]byte, len(r.files)))
	if err != nil {
		return nil, err
	}
	out := make([]*schema.Result, len(sm.Results))
	for i := range sm.Results {
		out[i] = &sm.Results[i]
	}
	return out, nil
}

// read decodes the round's files, data[i] holding file i's bytes when
// they were read, nil to read them now (checked against their sums).
func (r *Round) read(data [][]byte) (summary, error) {
	sm := summary{Results: make([]schema.Result, len(r.files))}
	for i, f := range r.files {
		b := data[i]
		if b == nil { // known by its identity: read it now, as it was recorded
			var err error
			if b, err = inputs.ReadInto(f, nil); err != nil {
				return sm, fmt.Errorf("load: %w", err)
			}
			if sha256.Sum256(b) != r.sums[i] {
				return sm, fmt.Errorf("load: %s: %w", f, errChanged)
			}
		}
		res, err := decode(f, b) // less requests and raw output: the history needs the summaries only
		if err != nil {
			return sm, err
		}
		r.prep(res)
		sm.Results[i] = *res
	}
	return sm, nil
}

// Key identifies the round as Results found it: its files' recorded
// sums and the salt (what else its entries depend on). Two Rounds with
// the same Key have the same results, prepared alike; anything made of
// a round's results and of what the salt names can be keyed by it (a
// report's per-round data files, render/blocks' roundsdata.go).
func (r *Round) Key() [32]byte { return sha256.Sum256(r.key) }

// Memo returns what SetMemo kept under name for the round as it is
// (its files and the salt as they were), or nil.
func (r *Round) Memo(name string) []byte {
	if r == nil || r.c == nil {
		return nil
	}
	return r.c.c.Get(r.memoKey(name))
}

// SetMemo keeps b under name for the round, for a later build's Memo:
// what the caller made of the round's results and of what the salt
// names (a report's data.json fragment made of them and its campaign),
// nothing else.
func (r *Round) SetMemo(name string, b []byte) {
	if r != nil && r.c != nil {
		r.c.c.Put(r.memoKey(name), b)
	}
}

func (r *Round) memoKey(name string) string {
	return r.c.c.Key(append([]byte("memo\x00"+name+"\x00"), r.key...))
}

// Results returns an older round whose result files are files
// (Dir.Files), each recorded through in as read (a File with its sum)
// whether or not it was. When the cache holds the round as its files
// are (their sums, the key, come from the input stat cache when their
// identities are unchanged) nothing is read or decoded now: Round.Load
// decodes the entry when the round is used. Otherwise the files are
// decoded (decode: without requests and raw output), given to prep
// (redaction) and stored. Salt names what else the round's entries
// depend on (prep's secrets; a report's campaign, of which a memo may
// be made): it is part of the key.
func (c *Cache) Results(in *inputs.Reader, files []string, salt string, prep func(*schema.Result)) (*Round, error) {
	sub := in.Sub() // the round's records: its key
	data := make([][]byte, len(files))
	for i, f := range files {
		if _, ok := sub.Known(f); ok {
			continue
		}
		b, _, err := sub.ReadFile(f)
		if err != nil {
			in.Include(sub)
			return nil, fmt.Errorf("load: %w", err)
		}
		data[i] = b
	}
	in.Include(sub)
	rk := sub.Key(0)
	round := &Round{c: c, key: append([]byte(salt+"\x00"), rk[:]...), files: files, prep: prep}
	for _, rec := range sub.Records() { // one File per file, in order
		round.sums = append(round.sums, rec.Sum)
	}
	var key string
	if c != nil {
		key = c.c.Key(round.key)
		if c.c.Has(key) {
			c.c.Keep(key) // read when the round is used (Load)
			return round, nil
		}
	}
	sm, err := round.read(data)
	if err != nil {
		return nil, err
	}
	if c != nil {
		c.c.Put(key, wire.Append(nil, sm))
	}
	round.kept = make([]*schema.Result, len(sm.Results))
	for i := range sm.Results {
		round.kept[i] = &sm.Results[i]
	}
	return round, nil
}

var errChanged = errors.New("changed during the build (build again)")
