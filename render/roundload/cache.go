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

// Results returns the results of an older round whose result files are
// files (Dir.Files), each recorded through in as read (a File with its
// sum) whether or not it was: from the cache when the files are as they
// were when it was stored (their sums, the key, come from the input stat
// cache when their identities are unchanged), else read, decoded
// (schema.Unmarshal) and given to prep (redaction: salt must name what
// prep does, e.g. the secrets it hides, as it is part of the key). The
// results carry no Requests nor RawOutput.
func (c *Cache) Results(in *inputs.Reader, files []string, salt string, prep func(*schema.Result)) ([]*schema.Result, error) {
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
	var key string
	if c != nil {
		rk := sub.Key(0)
		key = c.c.Key(append([]byte(salt+"\x00"), rk[:]...))
		if b := c.c.Get(key); b != nil {
			var sm summary
			if wire.Decode(b, &sm) == nil && len(sm.Results) == len(files) {
				out := make([]*schema.Result, len(sm.Results))
				for i := range sm.Results {
					out[i] = &sm.Results[i]
				}
				return out, nil
			}
		}
	}
	recs := sub.Records() // one File per file, in order
	sm := summary{Results: make([]schema.Result, len(files))}
	out := make([]*schema.Result, len(files))
	for i, f := range files {
		b := data[i]
		if b == nil { // known by its identity: read it now, as it was recorded
			var err error
			if b, err = inputs.ReadInto(f, nil); err != nil {
				return nil, fmt.Errorf("load: %w", err)
			}
			if sha256.Sum256(b) != recs[i].Sum {
				return nil, fmt.Errorf("load: %s: %w", f, errChanged)
			}
		}
		res, err := schema.Unmarshal(f, b)
		if err != nil {
			return nil, err
		}
		res.Requests, res.RawOutput = nil, "" // the history needs the summaries only
		prep(res)
		sm.Results[i] = *res
		out[i] = &sm.Results[i]
	}
	if c != nil {
		c.c.Put(key, wire.Append(nil, sm))
	}
	return out, nil
}

var errChanged = errors.New("changed during the build (build again)")
