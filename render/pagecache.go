package render

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"io/fs"
	"path/filepath"
	"sort"
	"sync"

	"github.com/perflab/perflab/render/blocks"
	"github.com/perflab/perflab/render/buildcache"
	"github.com/perflab/perflab/render/inputs"
	"github.com/perflab/perflab/render/layout"
	"github.com/perflab/perflab/render/wire"
)

// The build cache keeps each page's rendered content (its body, title,
// search entry and data files: everything but the layout, which holds
// the navigation and is applied on every build) under a key made of what
// the page was made from: every input Load read for it (p.In's records:
// its Markdown, its campaign, its results directory and results), every
// input its blocks read when it was rendered (recorded by the Reader
// they are handed, see pageKey), the templates, perflab's own build, and
// the options that show in a page (base URL, live reload, the content
// and results directories). An unchanged page is therefore not rendered
// again, and any change to what it is made from misses; nothing is added
// to a key by hand. The store itself is render/buildcache.

// DefaultCacheDir is where a build keeps its cache when Options.CacheDir
// is empty: .cache/perflab-build beside the output directory.
func DefaultCacheDir(out string) string {
	return filepath.Join(filepath.Dir(filepath.Clean(out)), ".cache", "perflab-build")
}

// cacheDir is the build cache's directory for opt.
func (o Options) cacheDir() string {
	if o.CacheDir != "" {
		return o.CacheDir
	}
	return DefaultCacheDir(o.Out)
}

// cacheEntry is what the cache keeps of a page (render/layout's Entry:
// its content before the layout), encoded by render/wire.
type cacheEntry = layout.Entry

// entryVersion and depsVersion salt every key: an entry written for
// other types is never read.
var (
	entryVersion = wire.Version(layout.Entry{})
	depsVersion  = wire.Version([]inputs.Record{})
)

// buildCache is render's use of the build cache: page entries, and
// which pages came from it. Its methods are safe for concurrent use; a
// nil *buildCache caches nothing.
type buildCache struct {
	*buildcache.Cache
	mu      sync.Mutex
	counted map[string]bool
	hits    int
}

// openCache returns the cache for a build with opt and the templates in
// tmpl, or nil when opt.NoCache is set.
func openCache(opt Options, tmpl fs.FS) (*buildCache, error) {
	if opt.NoCache {
		return nil, nil
	}
	salt := []string{entryVersion, depsVersion, string(wire.Append(nil, opt.pageOptions()))}
	names, err := fs.Glob(tmpl, "*.html")
	if err != nil {
		return nil, fmt.Errorf("render: cache: templates: %w", err)
	}
	sort.Strings(names)
	for _, n := range names {
		data, err := fs.ReadFile(tmpl, n)
		if err != nil {
			return nil, fmt.Errorf("render: cache: templates: %w", err)
		}
		salt = append(salt, n, string(data))
	}
	return &buildCache{Cache: buildcache.Open(opt.cacheDir(), salt...), counted: map[string]bool{}}, nil
}

// pageOptions are the options that may show in a page: all of them but
// where the site and the cache are written (a field added to Options is
// in the cache's salt unless it is taken out here, which errs on the side
// of a miss).
func (o Options) pageOptions() Options {
	o.Out, o.CacheDir, o.NoCache = "", "", false
	return o
}

// selfVersion identifies the perflab build that renders
// (buildcache.SelfVersion).
func selfVersion() string { return buildcache.SelfVersion() }

// pageKey returns the cache key of page p and the Reader holding what
// its blocks read (nil when nothing): the salt, what Load read for it,
// and the inputs its blocks read the last time it was rendered, as they
// are now. Those are only known once the page was rendered (a block may
// read a file named in its spec), so the cache keeps them under the
// page's Load key (depsKey), and they are replayed here: a file that
// changed gives another key, a miss.
func (c *buildCache) pageKey(p *Page, stats *inputs.Stats) (string, *inputs.Reader) {
	if c == nil {
		return "", nil
	}
	data := c.Get(c.depsKey(p))
	if data == nil {
		return c.keyOf(p, nil), nil
	}
	var deps []inputs.Record
	if wire.Decode(data, &deps) != nil {
		return c.keyOf(p, nil), nil
	}
	rd := inputs.NewReader(stats)
	rd.Replay(deps)
	return c.keyOf(p, rd), rd
}

// depsKey is where the inputs p's blocks read are kept.
func (c *buildCache) depsKey(p *Page) string {
	return c.Key(append([]byte("blocks' inputs\x00"), p.Inputs[:]...))
}

// keyOf is p's key with the inputs its blocks read as rd recorded them.
func (c *buildCache) keyOf(p *Page, rd *inputs.Reader) string {
	var dyn [32]byte
	if rd != nil {
		dyn = rd.Key(0)
	}
	h := sha256.New()
	h.Write(p.Inputs[:])
	h.Write(dyn[:])
	return c.Key(h.Sum(nil))
}

// putPage keeps e, rendered with its blocks' reads in rd, and returns
// the key it is kept under. The blocks' inputs are kept when there are any, or when the
// page had some before (which then no longer hold).
func (c *buildCache) putPage(p *Page, rd *inputs.Reader, had bool, e *cacheEntry) string {
	if c == nil {
		return ""
	}
	deps := rd.Records()
	if len(deps) > 0 || had {
		c.Put(c.depsKey(p), wire.Append(nil, deps))
	}
	if len(deps) == 0 {
		rd = nil
	}
	key := c.keyOf(p, rd)
	c.put(key, e)
	return key
}

// get returns the entry under key, or nil; a hit counts its page as
// taken from the cache.
func (c *buildCache) get(key string) *cacheEntry {
	if c == nil {
		return nil
	}
	data := c.Get(key)
	if data == nil {
		return nil
	}
	e := &layout.Entry{}
	if wire.Decode(data, e) != nil {
		return nil
	}
	c.touch(key)
	return e
}

// has reports whether the cache holds an entry under key.
func (c *buildCache) has(key string) bool { return c != nil && c.Has(key) }

// touch counts the entry under key as used and its page as taken from
// the cache, once (a page rendered again for its search entry is still
// one page) without reading it (its page is already in the output
// directory, see outputs.reuse).
func (c *buildCache) touch(key string) {
	c.Keep(key)
	c.mu.Lock()
	if !c.counted[key] {
		c.counted[key] = true
		c.hits++
	}
	c.mu.Unlock()
}

// hitCount is how many pages came from the cache.
func (c *buildCache) hitCount() int {
	if c == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.hits
}

// put stores e under key.
func (c *buildCache) put(key string, e *cacheEntry) {
	if c == nil {
		return
	}
	buf := entryBufs.Get()
	defer entryBufs.Put(buf)
	size := len(e.Page.Body) + len(e.Search.Text) + 256
	for _, f := range e.Files {
		size += len(f.Path) + len(f.Data) + 16
	}
	buf.Grow(size)
	buf.Write(wire.Append(buf.AvailableBuffer(), *e))
	c.Put(key, buf.Bytes())
}

// entryBufs lend the buffers entries are encoded into.
var entryBufs blocks.Buffers

// finish ends the build's use of the cache (buildcache.Cache.Finish).
func (c *buildCache) finish(ok bool) {
	if c != nil {
		c.Finish(ok)
	}
}

// field writes length-prefixed strings into h, so that no two lists of
// fields hash alike.
func field(h hash.Hash, ss ...string) {
	var n [8]byte
	for _, s := range ss {
		binary.LittleEndian.PutUint64(n[:], uint64(len(s)))
		h.Write(n[:])
		io.WriteString(h, s)
	}
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)
