package render

import (
	"bytes"
	"crypto/sha256"
	"debug/elf"
	"encoding/binary"
	"encoding/gob"
	"encoding/hex"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"
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
// any change to what it is made from misses. Entries are kept under
// their key in one pack file in Options.CacheDir (see packName); the
// directory can be deleted at any time and the next build writes the same
// site, only slower.

// cacheFormat changes when the entry format or the way keys are made
// does, so that an old cache is not read by a new perflab.
const cacheFormat = "perflab-build-cache-7"

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

	packOnce sync.Once
	pack     *os.File              // the old pack, or nil
	old      map[string]packRecord // its index

	next    *os.File       // the new pack being written, or nil
	nextLen int64          // next's length: where put writes the next entry
	index   []packRecord   // of next, in no particular order
	writing sync.WaitGroup // puts writing into next without c.mu
	fresh   map[string]bool
	broken  bool // writing next failed: keep the old pack
	done    bool

	bufs buffers // for encoding entries
}

// openCache returns the cache for a build with opt and the templates in
// tmpl, or nil when opt.NoCache is set.
func openCache(opt Options, tmpl fs.FS) (*buildCache, error) {
	if opt.NoCache {
		return nil, nil
	}
	dir := opt.cacheDir()
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
	c := &buildCache{dir: dir, used: map[string]bool{}, fresh: map[string]bool{}}
	h.Sum(c.salt[:0])
	return c, nil
}

// cacheDir is the build cache's directory for opt.
func (o Options) cacheDir() string {
	if o.CacheDir != "" {
		return o.CacheDir
	}
	return DefaultCacheDir(o.Out)
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

var (
	selfOnce sync.Once
	self     string
)

// selfVersion identifies the perflab build that renders: the Go build ID
// of the running executable (it hashes the link's inputs and its output,
// so two builds of the same source with the same toolchain and flags,
// such as two `go run ./cmd/perflab` or `make build`, share it, and any
// change to the code changes it), else the SHA-256 of the executable's
// bytes. It is computed once a process.
func selfVersion() string {
	selfOnce.Do(func() {
		exe, err := os.Executable()
		if err == nil {
			if id := exeBuildID(exe); id != "" {
				self = "buildid " + id
				return
			}
			if f, err := os.Open(exe); err == nil {
				h := sha256.New()
				_, err = io.Copy(h, f)
				f.Close()
				if err == nil {
					self = "sha256 " + hex.EncodeToString(h.Sum(nil))
					return
				}
			}
		}
		// Nothing identifies this build: a key no other process makes.
		self = fmt.Sprintf("pid %d %p", os.Getpid(), &self)
	})
	return self
}

// exeBuildID returns the Go build ID recorded in the executable at path,
// or "" when it has none (built with -buildid=) or cannot be read. The
// standard library has no reader for it (cmd/internal/buildid is
// internal), so this reads the two places the Go linker puts it: an ELF
// note named "Go\x00\x00" of type 4 in the section .note.go.buildid, and, on
// other formats, a `\xff Go build ID: "…"` line near the start of the
// text segment.
func exeBuildID(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	if ef, err := elf.NewFile(f); err == nil {
		s := ef.Section(".note.go.buildid")
		if s == nil {
			return ""
		}
		data, err := s.Data()
		if err != nil || len(data) < 16 {
			return ""
		}
		bo := ef.ByteOrder
		namesz, descsz, typ := bo.Uint32(data), bo.Uint32(data[4:]), bo.Uint32(data[8:])
		if namesz != 4 || typ != 4 || uint64(len(data)) < 16+uint64(descsz) || string(data[12:16]) != "Go\x00\x00" {
			return ""
		}
		return string(data[16 : 16+descsz])
	}
	head := make([]byte, 32<<10)
	n, _ := io.ReadFull(f, head)
	head = head[:n]
	const prefix = "\xff Go build ID: \""
	i := bytes.Index(head, []byte(prefix))
	if i < 0 {
		return ""
	}
	rest := head[i+len(prefix):]
	j := bytes.IndexByte(rest, '"')
	if j <= 0 {
		return ""
	}
	return string(rest[:j])
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
	c.openPack()
	c.mu.Lock()
	rec, ok := c.old[key]
	c.mu.Unlock()
	if !ok {
		return nil
	}
	data := make([]byte, rec.n)
	if _, err := c.pack.ReadAt(data, rec.off); err != nil {
		return nil
	}
	if crc32.Checksum(data, castagnoli) != rec.sum {
		return nil
	}
	e, err := decodeEntry(data)
	if err != nil {
		return nil
	}
	c.mu.Lock()
	c.hit(key)
	c.mu.Unlock()
	return e
}

// has reports whether the pack holds an entry under key.
func (c *buildCache) has(key string) bool {
	c.openPack()
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.old[key]
	return ok
}

// touch counts the entry under key as used and as a hit without reading
// it (its page is already in the output directory, see outputs.reuse).
func (c *buildCache) touch(key string) {
	c.mu.Lock()
	c.hit(key)
	c.mu.Unlock()
}

// hit counts the entry under key as used and, once (a page rendered
// again for its search entry is still one page), as a hit. c.mu is held.
func (c *buildCache) hit(key string) {
	if !c.used[key] {
		c.hits++
	}
	c.used[key] = true
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

// put appends e under key to the pack the build is writing. The cache
// only saves work: a failure to store is not the build's (the entry is
// then missing next time).
//
// The entry's place in the pack is taken under c.mu, and its bytes are
// written there (pwrite) after c.mu is released: the pages' workers write
// their entries side by side. put wrote through one bufio.Writer while
// holding c.mu, so that the other worker waited on every 1 MB flush, and
// the buffer cost a copy of the pack's 106 MB (a 1,000-report site).
func (c *buildCache) put(key string, e *cacheEntry) {
	if c == nil {
		return
	}
	buf := c.bufs.get()
	defer c.bufs.put(buf)
	encodeEntry(buf, e) // cacheentry.go
	sum := crc32.Checksum(buf.Bytes(), castagnoli)
	c.mu.Lock()
	if c.broken || c.done {
		c.mu.Unlock()
		return
	}
	if c.next == nil {
		c.mkdir.Do(func() { c.mkerr = os.MkdirAll(c.dir, 0o755) })
		f, err := os.CreateTemp(c.dir, ".tmp-pack-*")
		if c.mkerr != nil || err != nil {
			c.broken = true
			c.mu.Unlock()
			return
		}
		c.next = f
	}
	f, off := c.next, c.nextLen
	c.nextLen += int64(buf.Len())
	c.writing.Add(1)
	c.mu.Unlock()
	_, err := f.WriteAt(buf.Bytes(), off)
	c.mu.Lock()
	if err != nil {
		c.broken = true
	} else {
		c.index = append(c.index, packRecord{Key: key, off: off, n: int64(buf.Len()), sum: sum})
		c.fresh[key] = true
	}
	c.mu.Unlock()
	c.writing.Done()
}

// The entries live in one pack file (creating a file per page was a
// fifth of a 924-page cold build, and opening one per page most of a
// rebuild): the entries (encodeEntry, cacheentry.go) one after another, then the index
// (gob: key, offset, length of each), then the index's offset as 8
// little-endian bytes. A build reads entries from the pack with ReadAt
// and writes a new pack (the entries it rendered, then those it took
// from the old pack) only when something changed; entries the build did
// not use are thereby dropped.
const packName = "pack"

type packRecord struct {
	Key    string
	Off, N int64
	// Sum is the CRC-32C of the entry's bytes: an entry whose bytes were
	// damaged after it was written (a length field is checked by
	// decodeEntry, its text is not) is a miss, not a page with the damage
	// in it. CRC-32C runs at memory speed (hash/crc32 uses the CPU's
	// instruction); a damaged pack is rare enough that a cryptographic
	// sum would buy nothing.
	Sum    uint32
	off, n int64 // while writing (gob needs exported fields; see finish)
	sum    uint32
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// openPack reads the pack's index once; a missing or broken pack is empty.
func (c *buildCache) openPack() {
	c.packOnce.Do(func() {
		f, err := os.Open(filepath.Join(c.dir, packName))
		if err != nil {
			return
		}
		st, err := f.Stat()
		var tail [8]byte
		if err != nil || st.Size() < 8 {
			f.Close()
			return
		}
		if _, err := f.ReadAt(tail[:], st.Size()-8); err != nil {
			f.Close()
			return
		}
		at := int64(binary.LittleEndian.Uint64(tail[:]))
		if at < 0 || at > st.Size()-8 {
			f.Close()
			return
		}
		var recs []packRecord
		if gob.NewDecoder(io.NewSectionReader(f, at, st.Size()-8-at)).Decode(&recs) != nil {
			f.Close()
			return
		}
		old := make(map[string]packRecord, len(recs))
		for _, r := range recs {
			if r.Off < 0 || r.N < 0 || r.Off+r.N > at {
				f.Close()
				return
			}
			old[r.Key] = packRecord{Key: r.Key, off: r.Off, n: r.N, sum: r.Sum}
		}
		c.mu.Lock()
		c.pack, c.old = f, old
		c.mu.Unlock()
	})
}

// finish ends the build's use of the cache. After a successful build
// (ok), a new pack replaces the old one if the build rendered an entry or
// left one unused; old per-page entry files and temporaries of
// interrupted builds are removed. After a failed one the new pack is
// dropped.
func (c *buildCache) finish(ok bool) {
	if c == nil {
		return
	}
	c.openPack()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.done {
		return
	}
	c.done = true // no put starts writing from now on
	c.mu.Unlock()
	c.writing.Wait() // nor is one still writing
	c.mu.Lock()
	defer func() {
		if c.pack != nil {
			c.pack.Close()
		}
	}()
	stale := len(c.fresh) > 0
	for k := range c.old {
		if !c.used[k] || c.fresh[k] {
			stale = true
		}
	}
	if !ok || c.broken || !stale {
		if c.next != nil {
			c.next.Close()
			os.Remove(c.next.Name())
		}
		return
	}
	if c.next == nil {
		c.mkdir.Do(func() { c.mkerr = os.MkdirAll(c.dir, 0o755) })
		f, err := os.CreateTemp(c.dir, ".tmp-pack-*")
		if c.mkerr != nil || err != nil {
			return
		}
		c.next = f
	}
	tmp := c.next
	fail := func() { tmp.Close(); os.Remove(tmp.Name()) }
	// put wrote its entries with WriteAt: the old pack's entries and the
	// index go after them.
	if _, err := tmp.Seek(c.nextLen, io.SeekStart); err != nil {
		fail()
		return
	}
	keys := make([]string, 0, len(c.old))
	for k := range c.old {
		if c.used[k] && !c.fresh[k] {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		r := c.old[k]
		if _, err := io.Copy(tmp, io.NewSectionReader(c.pack, r.off, r.n)); err != nil {
			fail()
			return
		}
		c.index = append(c.index, packRecord{Key: k, off: c.nextLen, n: r.n, sum: r.sum})
		c.nextLen += r.n
	}
	// The index in pack order, so that packs of equal entries are equal
	// whatever order the workers stored them in.
	sort.Slice(c.index, func(i, j int) bool { return c.index[i].off < c.index[j].off })
	recs := make([]packRecord, len(c.index))
	for i, r := range c.index {
		recs[i] = packRecord{Key: r.Key, Off: r.off, N: r.n, Sum: r.sum}
	}
	var buf bytes.Buffer
	if gob.NewEncoder(&buf).Encode(recs) != nil {
		fail()
		return
	}
	var tail [8]byte
	binary.LittleEndian.PutUint64(tail[:], uint64(c.nextLen))
	buf.Write(tail[:])
	if _, err := tmp.Write(buf.Bytes()); err != nil {
		fail()
		return
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return
	}
	if os.Rename(tmp.Name(), filepath.Join(c.dir, packName)) != nil {
		os.Remove(tmp.Name())
		return
	}
	// Per-page entry files of perflab-build-cache-1, and temporaries
	// of interrupted builds.
	if entries, err := os.ReadDir(c.dir); err == nil {
		for _, e := range entries {
			if n := e.Name(); len(n) == 64 || (strings.HasPrefix(n, ".tmp-") && n != filepath.Base(tmp.Name())) {
				os.Remove(filepath.Join(c.dir, n))
			}
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
	ih.addSum(name, sha256.Sum256(data))
}

// addSum records an input file's name and the SHA-256 of its bytes
// (Site.readInput's, which the input stat cache spares recomputing).
func (ih inputHash) addSum(name string, sum [32]byte) {
	field(ih.h, name)
	ih.h.Write(sum[:])
}

func (ih inputHash) sum(p *Page) { ih.h.Sum(p.inputs[:0]) }
