package buildcache

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
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
)

// A Cache keeps entries, byte strings the caller encodes, under keys the
// caller computes, in one pack file in its directory (see packName);
// the directory can be deleted at any time and the next build makes the
// same output, only slower. Every key is salted (Open): the caller's
// salt, and perflab's own build (SelfVersion), so that no entry of
// another build of perflab is ever read.

// Cache is one build's view of the cache directory. Its methods are
// safe for concurrent use; a nil *Cache caches nothing.
type Cache struct {
	dir  string
	salt [32]byte // perflab's build and the caller's salt

	mkdir sync.Once
	mkerr error

	mu   sync.Mutex
	used map[string]bool

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
}

// Open returns the cache in dir for a build whose entries also depend
// on salt (the caller's options, templates, formats).
func Open(dir string, salt ...string) *Cache {
	h := sha256.New()
	field(h, SelfVersion())
	field(h, salt...)
	c := &Cache{dir: dir, used: map[string]bool{}, fresh: map[string]bool{}}
	h.Sum(c.salt[:0])
	return c
}

// Dir is the cache's directory.
func (c *Cache) Dir() string { return c.dir }

// MkdirAll makes the cache's directory, once a build.
func (c *Cache) MkdirAll() error {
	c.mkdir.Do(func() { c.mkerr = os.MkdirAll(c.dir, 0o755) })
	return c.mkerr
}

// Key is the entry name for work whose inputs hash to id: the salt and
// id. A nil cache's keys are "".
func (c *Cache) Key(id []byte) string {
	if c == nil {
		return ""
	}
	h := sha256.New()
	h.Write(c.salt[:])
	h.Write(id)
	return hex.EncodeToString(h.Sum(nil))
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

// SelfVersion identifies the perflab build that renders: the Go build ID
// of the running executable (it hashes the link's inputs and its output,
// so two builds of the same source with the same toolchain and flags,
// such as two `go run ./cmd/perflab` or `make build`, share it, and any
// change to the code changes it), else the SHA-256 of the executable's
// bytes. It is computed once a process.
func SelfVersion() string {
	selfOnce.Do(func() {
		exe, err := os.Executable()
		if err == nil {
			if id := ExeBuildID(exe); id != "" {
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

// ExeBuildID returns the Go build ID recorded in the executable at path,
// or "" when it has none (built with -buildid=) or cannot be read. The
// standard library has no reader for it (cmd/internal/buildid is
// internal), so this reads the two places the Go linker puts it: an ELF
// note named "Go\x00\x00" of type 4 in the section .note.go.buildid, and, on
// other formats, a `\xff Go build ID: "…"` line near the start of the
// text segment.
func ExeBuildID(path string) string {
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

// Get returns the entry under key, or nil, and counts it as used (kept
// in the next pack). A missing, unreadable or damaged entry is a miss.
func (c *Cache) Get(key string) []byte {
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
	c.mu.Lock()
	c.used[key] = true
	c.mu.Unlock()
	return data
}

// Has reports whether the pack holds an entry under key.
func (c *Cache) Has(key string) bool {
	c.openPack()
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.old[key]
	return ok
}

// Keep counts the entry under key as used without reading it.
func (c *Cache) Keep(key string) {
	c.mu.Lock()
	c.used[key] = true
	c.mu.Unlock()
}

// Put appends data under key to the pack the build is writing. The cache
// only saves work: a failure to store is not the build's (the entry is
// then missing next time).
//
// The entry's place in the pack is taken under c.mu, and its bytes are
// written there (pwrite) after c.mu is released: the pages' workers write
// their entries side by side. put wrote through one bufio.Writer while
// holding c.mu, so that the other worker waited on every 1 MB flush, and
// the buffer cost a copy of the pack's 106 MB (a 1,000-report site).
func (c *Cache) Put(key string, data []byte) {
	if c == nil {
		return
	}
	sum := crc32.Checksum(data, castagnoli)
	c.mu.Lock()
	if c.broken || c.done {
		c.mu.Unlock()
		return
	}
	if c.next == nil {
		mkerr := c.MkdirAll()
		f, err := os.CreateTemp(c.dir, ".tmp-pack-*")
		if mkerr != nil || err != nil {
			c.broken = true
			c.mu.Unlock()
			return
		}
		c.next = f
	}
	f, off := c.next, c.nextLen
	c.nextLen += int64(len(data))
	c.writing.Add(1)
	c.mu.Unlock()
	_, err := f.WriteAt(data, off)
	c.mu.Lock()
	if err != nil {
		c.broken = true
	} else {
		c.index = append(c.index, packRecord{Key: key, off: off, n: int64(len(data)), sum: sum})
		c.fresh[key] = true
	}
	c.mu.Unlock()
	c.writing.Done()
}

// The entries live in one pack file (creating a file per page was a
// fifth of a 924-page cold build, and opening one per page most of a
// rebuild): the entries (as Put was given them) one after another, then the index
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
	// damaged after it was written (a decoder checks lengths, not text)
	// is a miss, not a page with the damage in it. CRC-32C runs at
	// memory speed (hash/crc32 uses the CPU's
	// instruction); a damaged pack is rare enough that a cryptographic
	// sum would buy nothing.
	Sum    uint32
	off, n int64 // while writing (gob needs exported fields; see finish)
	sum    uint32
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// openPack reads the pack's index once; a missing or broken pack is empty.
func (c *Cache) openPack() {
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

// Finish ends the build's use of the cache. After a successful build
// (ok), a new pack replaces the old one if the build rendered an entry or
// left one unused; old per-page entry files and temporaries of
// interrupted builds are removed. After a failed one the new pack is
// dropped.
func (c *Cache) Finish(ok bool) {
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
		mkerr := c.MkdirAll()
		f, err := os.CreateTemp(c.dir, ".tmp-pack-*")
		if mkerr != nil || err != nil {
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
	if !c.copyKept(tmp, keys) {
		fail()
		return
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

// copyKept appends the old pack's entries under keys (sorted) to tmp,
// indexing them after c.nextLen (Finish, with c.mu held).
func (c *Cache) copyKept(tmp *os.File, keys []string) bool {
	// The kept entries are copied a run at a time (entries next to each
	// other in the old pack, as its kept entries mostly are: they were
	// written in this order), from the pack's file to the new one, which
	// the kernel does without a copy through user space (copy_file_range
	// on Linux, through io.Copy's LimitedReader of an *os.File): a pack
	// of a thousand reports' hundred rounds is gigabytes, copied by every
	// build that adds a round.
	var runOff, runLen int64
	flush := func() bool {
		want := runLen
		runLen = 0
		if want == 0 {
			return true
		}
		if _, err := c.pack.Seek(runOff, io.SeekStart); err != nil {
			return false
		}
		n, err := io.Copy(tmp, &io.LimitedReader{R: c.pack, N: want})
		return err == nil && n == want
	}
	for _, k := range keys {
		r := c.old[k]
		if runLen > 0 && r.off != runOff+runLen {
			if !flush() {
				return false
			}
		}
		if runLen == 0 {
			runOff = r.off
		}
		runLen += r.n
		c.index = append(c.index, packRecord{Key: k, off: c.nextLen, n: r.n, sum: r.sum})
		c.nextLen += r.n
	}
	return flush()
}
