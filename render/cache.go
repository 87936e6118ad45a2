package render

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/gob"
	"encoding/hex"
	"fmt"
	"hash"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strings"
	"sync"
)

// The build cache keeps each page's rendered content (its body, title,
// search entry and data files: everything but the layout, which holds
// the navigation and is applied on every build) under a key that hashes
// every input of the page: its Markdown, its campaign and results (names
// and bytes), the templates, perflab's own build, and the options that
// show in a page (base URL, live reload, the content and results
// directories). An unchanged page is therefore not rendered again, and
// any change to what it is made from misses. Entries are files named by
// their key in Options.CacheDir; the directory can be deleted at any
// time and the next build writes the same site, only slower.

// cacheFormat changes when the entry format or the way keys are made
// does, so that an old cache is not read by a new perflab.
const cacheFormat = "perflab-build-cache-1"

// DefaultCacheDir is where a build keeps its cache when Options.CacheDir
// is empty: .cache/perflab-build beside the output directory.
func DefaultCacheDir(out string) string {
	return filepath.Join(filepath.Dir(filepath.Clean(out)), ".cache", "perflab-build")
}

// cacheEntry is what the cache keeps of a page.
type cacheEntry struct {
	Page   renderedPage
	Search searchEntry
	Files  []File // a report's data.json and data.csv
}

// buildCache is one build's view of the cache directory. Its methods are
// safe for concurrent use; a nil *buildCache caches nothing.
type buildCache struct {
	dir  string
	salt [32]byte // format, perflab's build, templates, options

	mkdir sync.Once
	mkerr error

	mu   sync.Mutex
	used map[string]bool
	hits int
}

// openCache returns the cache for a build with opt and the templates in
// tmpl, or nil when opt.NoCache is set.
func openCache(opt Options, tmpl fs.FS) (*buildCache, error) {
	if opt.NoCache {
		return nil, nil
	}
	dir := opt.CacheDir
	if dir == "" {
		dir = DefaultCacheDir(opt.Out)
	}
	h := sha256.New()
	field(h, cacheFormat)
	field(h, selfVersion())
	field(h, opt.Content, opt.Results, opt.BaseURL, fmt.Sprint(opt.LiveReload))
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
		field(h, n, string(data))
	}
	c := &buildCache{dir: dir, used: map[string]bool{}}
	h.Sum(c.salt[:0])
	return c, nil
}

// field writes length-prefixed strings into h, so that no two lists of
// fields hash alike.
func field(h hash.Hash, ss ...string) {
	var n [8]byte
	for _, s := range ss {
		binary.LittleEndian.PutUint64(n[:], uint64(len(s)))
		h.Write(n[:])
		h.Write([]byte(s))
	}
}

var (
	selfOnce sync.Once
	self     string
)

// selfVersion identifies the perflab build that renders: the commit of a
// clean release build, else the executable's path, size and modification
// time (go run, go test and a dirty tree rebuild it, which then misses).
func selfVersion() string {
	selfOnce.Do(func() {
		if bi, ok := debug.ReadBuildInfo(); ok {
			var rev, modified string
			for _, s := range bi.Settings {
				switch s.Key {
				case "vcs.revision":
					rev = s.Value
				case "vcs.modified":
					modified = s.Value
				}
			}
			if rev != "" && modified == "false" {
				self = "rev " + rev + " " + bi.GoVersion
				return
			}
		}
		exe, err := os.Executable()
		if err == nil {
			var st os.FileInfo
			if st, err = os.Stat(exe); err == nil {
				self = fmt.Sprintf("exe %s %d %d", exe, st.Size(), st.ModTime().UnixNano())
				return
			}
		}
		// Nothing identifies this build: a key no other process makes.
		self = fmt.Sprintf("pid %d %p", os.Getpid(), &self)
	})
	return self
}

// key is the page's entry name: the salt and the page's inputs.
func (c *buildCache) key(p *Page) string {
	if c == nil {
		return ""
	}
	h := sha256.New()
	h.Write(c.salt[:])
	h.Write(p.inputs[:])
	return hex.EncodeToString(h.Sum(nil))
}

// get returns the entry under key, or nil. A missing, unreadable or
// broken entry is a miss.
func (c *buildCache) get(key string) *cacheEntry {
	if c == nil {
		return nil
	}
	data, err := os.ReadFile(filepath.Join(c.dir, key))
	if err != nil {
		return nil
	}
	var e cacheEntry
	if gob.NewDecoder(bytes.NewReader(data)).Decode(&e) != nil {
		return nil
	}
	c.mu.Lock()
	c.used[key] = true
	c.hits++
	c.mu.Unlock()
	return &e
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

func (c *buildCache) mark(key string) {
	c.mu.Lock()
	c.used[key] = true
	c.mu.Unlock()
}

// put stores e under key through a temporary file and a rename. The cache
// only saves work: a failure to store is not the build's.
func (c *buildCache) put(key string, e *cacheEntry) {
	if c == nil {
		return
	}
	c.mark(key)
	var buf bytes.Buffer
	if gob.NewEncoder(&buf).Encode(e) != nil {
		return
	}
	c.mkdir.Do(func() { c.mkerr = os.MkdirAll(c.dir, 0o755) })
	if c.mkerr != nil {
		return
	}
	tmp, err := os.CreateTemp(c.dir, ".tmp-*")
	if err != nil {
		return
	}
	_, werr := tmp.Write(buf.Bytes())
	if cerr := tmp.Close(); werr != nil || cerr != nil || os.Rename(tmp.Name(), filepath.Join(c.dir, key)) != nil {
		os.Remove(tmp.Name())
	}
}

// prune removes the entries this build did not use (pages changed or
// gone), and temporaries of interrupted builds.
func (c *buildCache) prune() {
	if c == nil {
		return
	}
	entries, err := os.ReadDir(c.dir)
	if err != nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, e := range entries {
		if n := e.Name(); !c.used[n] && (len(n) == 64 || strings.HasPrefix(n, ".tmp-")) {
			os.Remove(filepath.Join(c.dir, n))
		}
	}
}

// inputHash accumulates a page's inputs while Load reads them.
type inputHash struct{ h hash.Hash }

func newInputHash(p *Page) inputHash {
	ih := inputHash{sha256.New()}
	field(ih.h, p.Src, p.Rel, p.URL)
	return ih
}

// add records an input file's name and bytes.
func (ih inputHash) add(name string, data []byte) {
	field(ih.h, name, string(data))
}

func (ih inputHash) sum(p *Page) { ih.h.Sum(p.inputs[:0]) }
