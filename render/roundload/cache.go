package roundload

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"weak"

	"github.com/perflab/perflab/collect/schema"
	"github.com/perflab/perflab/render/buildcache"
	"github.com/perflab/perflab/render/inputs"
	"github.com/perflab/perflab/render/wire"
)

// summary is an older round's results as Load makes them (read,
// redacted), less what the history does not use and an older round's
// results never show: the per-request records and the raw output. The
// cache does not keep it (what builds keep of a round are the memos and
// prefixes made of it: a round's summary is its files, known by their
// sums); its type salts the keys.
type summary struct {
	Results []schema.Result
}

// version salts every key: an entry written for other types is never
// read.
var version = wire.Version(summary{})

// Cache keeps what builds make of older rounds (Round.Memo, Prefix)
// between builds. Its methods are safe for concurrent use; a nil *Cache
// keeps nothing.
type Cache struct {
	c *buildcache.Cache
}

// CacheDir is where the round cache lives in the build's cache directory.
func CacheDir(cacheDir string) string { return filepath.Join(cacheDir, "rounds") }

// Open opens the round cache in the cache directory cacheDir (CacheDir).
func Open(cacheDir string) *Cache {
	return &Cache{c: buildcache.Open(CacheDir(cacheDir), version, wire.Version(roundBlock{}))}
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
	// files (Load gives them); nil when their sums were known.
	kept  []*schema.Result
	c     *Cache
	key   []byte // the round's key: the salt and its files' records
	files []string
	sums  [][32]byte // each file's, as recorded
	prep  func(*schema.Result)
	// loaded are weak pointers to the results Load made last (one
	// array, which the results a caller holds keep alive): while they
	// are, a later Load gives them again rather than reading the files;
	// mu orders Loads.
	mu     sync.Mutex
	loaded []weak.Pointer[schema.Result]
}

// Load returns the round's results, without Requests nor RawOutput: as
// this build read them, or the round's files read again, their bytes
// checked against the sums recorded (an error says a file changed
// during the build). A report's older rounds are not held between uses
// (a thousand reports of a hundred rounds are 1.4 million results): a
// call while the results of an earlier one are still in use elsewhere
// (the history and the round's data files of one page) gets those, a
// later one reads the files again. The results are shared: callers
// read them, never change them. A build whose history and data.json
// find their memos and prefixes calls it for no round the build before
// saw (Loads).
func (r *Round) Load() ([]*schema.Result, error) {
	if r.kept != nil || len(r.files) == 0 {
		return r.kept, nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if out := alive(r.loaded); out != nil {
		return out, nil
	}
	loads.Add(1)
	sm, err := r.read(make([][]byte, len(r.files)))
	if err != nil {
		return nil, err
	}
	out := make([]*schema.Result, len(sm.Results))
	r.loaded = make([]weak.Pointer[schema.Result], len(sm.Results))
	for i := range sm.Results {
		out[i] = &sm.Results[i]
		r.loaded[i] = weak.Make(out[i])
	}
	return out, nil
}

// alive returns the results ws point to, nil when any was collected.
func alive(ws []weak.Pointer[schema.Result]) []*schema.Result {
	if len(ws) == 0 {
		return nil
	}
	out := make([]*schema.Result, len(ws))
	for i, w := range ws {
		if out[i] = w.Value(); out[i] == nil {
			return nil
		}
	}
	return out
}

// read decodes the round's files, data[i] holding file i's bytes when
// they were read, nil to read them now (checked against their sums).
func (r *Round) read(data [][]byte) (summary, error) {
	sm := summary{Results: make([]schema.Result, len(r.files))}
	// A file read now goes into one lent buffer (decode copies what it
	// keeps): read into a fresh one each, a result file of 26 KB took
	// a dozen reads and as many buffers, and a build remaking 300
	// rounds' files after the output was deleted was slower than one
	// with no cache, which reads each file once into the lent buffer.
	buf := inputs.GetBuf()
	defer inputs.PutBuf(buf)
	for i, f := range r.files {
		b := data[i]
		if b == nil { // known by its identity: read it now, as it was recorded
			var err error
			b, err = inputs.ReadInto(f, (*buf)[:0])
			*buf = b
			if err != nil {
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
// whether or not it was. When every file's sum is known (the input stat
// cache's, its identity unchanged) nothing is read or decoded now: the
// round's key is made of the sums, and Round.Load reads the files when
// the round is used. Otherwise the files are decoded now (decode:
// without requests and raw output), given to prep (redaction) and kept
// for the build. Salt names what else the round's memos depend on
// (prep's secrets; a report's campaign, of which a memo may be made):
// it is part of the key.
func (c *Cache) Results(in *inputs.Reader, files []string, salt string, prep func(*schema.Result)) (*Round, error) {
	key := c.fileIDsKey(files)
	cached, found := c.entry(key)
	r, ids, same, err := c.results(in, files, cached, found, roundEntry{}, salt, prep)
	if err == nil && c != nil {
		if same {
			c.c.Keep(key)
		} else {
			c.c.Put(key, wire.Append(nil, ids))
		}
	}
	return r, err
}

// Results is Cache.Results for round rd as Scan read it: its files'
// sums from the round's entry, which keeps its listing and record too
// (Scan). The round's entry is kept for the next build by Keep, with
// those of the other rounds given to Results (blocks.go). Rounds are
// given to it one at a time.
func (d *Dir) Results(in *inputs.Reader, rd schema.RoundDir, salt string, prep func(*schema.Result)) (*Round, error) {
	s := d.scanned[rd.ID]
	r, ids, same, err := d.c.results(in, d.files[rd.ID], s.cached, s.found, s.now, salt, prep)
	if err == nil && d.c != nil {
		d.kept = append(d.kept, roundRec{Dir: rd.Dir, Entry: ids})
		if !same {
			d.changed[rd.Dir] = true
		}
	}
	return r, err
}

// results is Results with the round's entry that keeps the files'
// identities (cached, when found) and the directory's identity as Scan
// listed it now (now: no Files). It returns the round's entry as it is
// now (ids), and whether it is cached (same).
func (c *Cache) results(in *inputs.Reader, files []string, cached roundEntry, found bool, now roundEntry, salt string, prep func(*schema.Result)) (_ *Round, ids roundEntry, same bool, _ error) {
	sub := in.Sub() // the round's records: its key
	sub.Grow(len(files))
	var data [][]byte // each file's bytes when read now
	sums := make([][32]byte, 0, len(files))
	ids = now // for the next build: the directory and record as Scan found them, the files below
	ids.Files = nil
	same = found && cached.Dir == now.Dir && cached.DirOK == now.DirOK &&
		cached.RecordOK == now.RecordOK && cached.RecordID == now.RecordID && cached.RecordSum == now.RecordSum
	// fresh are the files' identities once one differs from cached's
	// (nil while each is cached.Files[i]: then they are cached.Files).
	var fresh []fileID
	differs := func(i int, id fileID) {
		if fresh == nil {
			fresh = append(make([]fileID, 0, len(files)), cached.Files[:i]...)
		}
		fresh = append(fresh, id)
	}
	for i, f := range files {
		if i < len(cached.Files) && cached.Files[i].OK && cached.Files[i].Name == f && sub.KnownAs(f, cached.Files[i].ID, cached.Files[i].Sum) {
			if fresh != nil {
				fresh = append(fresh, cached.Files[i])
			}
			sums = append(sums, cached.Files[i].Sum)
			continue
		}
		if sum, id, ok := sub.KnownID(f); ok { // read by the build before (the latest round then)
			differs(i, fileID{Name: f, ID: id, Sum: sum, OK: true})
			sums = append(sums, sum)
			continue
		}
		b, sum, id, ok, err := sub.ReadFileID(f)
		if err != nil {
			in.Include(sub)
			return nil, ids, false, fmt.Errorf("load: %w", err)
		}
		differs(i, fileID{Name: f, ID: id, Sum: sum, OK: ok})
		sums = append(sums, sum)
		if data == nil {
			data = make([][]byte, len(files))
		}
		data[i] = b
	}
	in.Include(sub)
	same = same && fresh == nil && len(cached.Files) == len(files)
	if ids.Files = fresh; fresh == nil {
		ids.Files = cached.Files[:len(files)]
	}
	rk := sub.Key(0)
	round := &Round{c: c, key: append([]byte(salt+"\x00"), rk[:]...), files: files, sums: sums, prep: prep}
	if data == nil {
		return round, ids, same, nil // read when used (Load)
	}
	sm, err := round.read(data)
	if err != nil {
		return nil, ids, false, err
	}
	round.kept = make([]*schema.Result, len(sm.Results))
	for i := range sm.Results {
		round.kept[i] = &sm.Results[i]
	}
	return round, ids, same, nil
}

// roundEntry is what the round cache keeps of a round's files, rather
// than the input stat cache (a thousand reports' hundred rounds are 1.4
// million files, which the stat cache's one file would decode and write
// again in every build): each file's identity and sum, from
// inputs.Reader.KnownID and ReadFileID under the stat cache's rules and
// checked file by file (inputs.Reader.KnownAs: one stat); and, for a
// round Scan listed, its directory's identity when listed (DirOK: the
// listing, the files' names, may be taken for it: flat, not racy;
// inputs.Reader.ListedAs).
type roundEntry struct {
	Dir   inputs.ID
	DirOK bool
	Files []fileID
	// Record is the round's record as parsed from its file (round.json;
	// a schema.Round encoded by wire when parsed, before the build
	// redacts it in place), whose identity and sum are RecordID and
	// RecordSum; RecordOK: it may be taken for that identity (read, not
	// racy).
	Record    []byte
	RecordID  inputs.ID
	RecordSum [32]byte
	RecordOK  bool
}

// fileID is a file's identity and sum; OK is false when the sum may
// not be taken for the identity (racy, or changed while it was read).
type fileID struct {
	Name string
	ID   inputs.ID
	Sum  [32]byte
	OK   bool
}

// fileIDsKey is the entry of files that no Scan listed (Cache.Results).
func (c *Cache) fileIDsKey(files []string) string {
	if c == nil {
		return ""
	}
	h := sha256.New()
	for _, f := range files {
		h.Write([]byte(f))
		h.Write([]byte{0})
	}
	return c.c.Key(append([]byte("files\x00"), h.Sum(nil)...))
}

// entry returns the entry under key, if any.
func (c *Cache) entry(key string) (roundEntry, bool) {
	var e roundEntry
	if c == nil || key == "" || !c.c.Has(key) {
		return e, false
	}
	if b := c.c.Get(key); b == nil || wire.Decode(b, &e) != nil {
		return roundEntry{}, false
	}
	return e, true
}

var errChanged = errors.New("changed during the build (build again)")

// loads counts the older rounds decoded again by Load (from the cache's
// entry or their files) in this process.
var loads atomic.Int64

// Loads is the number of times Load decoded an older round that this
// build did not read from its files (its cache entry, or its files
// again), in this process so far: what a build of round 100 should not
// do for the rounds the build of round 99 saw (tests, benchmarks).
func Loads() int64 { return loads.Load() }
