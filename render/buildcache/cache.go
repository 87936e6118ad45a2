package buildcache

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/gob"
	"encoding/hex"
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
	packID   [16]byte              // its identity (header and index)
	packLen  int64                 // its entries' bytes that its index covers
	packLive int64                 // of which its index's entries hold
	indexFI  os.FileInfo           // the index file as read
	old      map[string]packRecord // its index

	next      *os.File // the pack being written (the old one when appending), or nil
	appending bool     // next is the old pack, its entries kept where they are
	nextID    [16]byte
	nextLen   int64          // next's entries' length: where put writes the next entry
	index     []packRecord   // of next, in no particular order
	writing   sync.WaitGroup // puts writing into next without c.mu
	fresh     map[string]bool
	broken    bool // writing next failed: keep the old pack
	done      bool
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
	if _, err := c.pack.ReadAt(data, headerLen+rec.off); err != nil {
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

// Put stores data under key in the pack the build is writing. The cache
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
	c.openPack()
	sum := crc32.Checksum(data, castagnoli)
	c.mu.Lock()
	if c.broken || c.done {
		c.mu.Unlock()
		return
	}
	if c.next == nil && !c.startNext() {
		c.broken = true
		c.mu.Unlock()
		return
	}
	f, off := c.next, c.nextLen
	c.nextLen += int64(len(data))
	c.writing.Add(1)
	c.mu.Unlock()
	_, err := f.WriteAt(data, headerLen+off)
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
// rebuild): a header (packMagic and the pack's random identity), then
// the entries (as Put was given them) one after another. Its index is
// the file indexName beside it: the pack's identity, the length of its
// entries that the index covers, each entry's key, place, length and
// sum (gob), then the CRC-32C of all that. An index is replaced by
// rename, whole; an index and a pack of other identities (a build
// stopped between the two renames of a rewrite) are an empty cache.
//
// A build appends the entries it stores to the old pack (appending),
// after the length its index covers (bytes past it are an interrupted
// build's, cut off), and writes a new index holding the old entries it
// used and its own: a build of round 100 does not copy the gigabytes of
// rounds 1..99's entries. Entries it did not use stay in the pack,
// dead; a build that finds the pack more than half dead (deadShare)
// writes a new pack instead: its entries, then the old pack's entries
// it used (copyKept), as every build did before. Appending takes an
// exclusive lock on the pack (lockFile); a build that cannot have it,
// or finds the index replaced since it read it, writes a new pack.
const (
	packName  = "pack"
	indexName = "pack.index"
	packMagic = "perflab-pack-2\n\x00" // 16 bytes
	headerLen = int64(len(packMagic) + 16)
)

// deadShare: a pack whose dead bytes exceed live bytes × deadShare is
// written anew rather than appended to.
const deadShare = 1

type packRecord struct {
	Key    string
	Off, N int64 // Off: from the end of the header
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

// packIndex is the index file's value.
type packIndex struct {
	ID   [16]byte
	Len  int64
	Recs []packRecord
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// openPack reads the pack's index once; a missing or broken pack or
// index, or a pack and an index of other identities, is an empty cache.
func (c *Cache) openPack() {
	c.packOnce.Do(func() {
		ifile := filepath.Join(c.dir, indexName)
		data, err := os.ReadFile(ifile)
		if err != nil || len(data) < 4 || crc32.Checksum(data[:len(data)-4], castagnoli) != binary.LittleEndian.Uint32(data[len(data)-4:]) {
			return
		}
		var ix packIndex
		if gob.NewDecoder(bytes.NewReader(data[:len(data)-4])).Decode(&ix) != nil || ix.Len < 0 {
			return
		}
		ifi, err := os.Stat(ifile)
		if err != nil {
			return
		}
		f, err := os.Open(filepath.Join(c.dir, packName))
		if err != nil {
			return
		}
		var head [headerLen]byte
		st, err := f.Stat()
		if err != nil || st.Size() < headerLen+ix.Len {
			f.Close()
			return
		}
		if _, err := f.ReadAt(head[:], 0); err != nil || string(head[:len(packMagic)]) != packMagic || !bytes.Equal(head[len(packMagic):], ix.ID[:]) {
			f.Close()
			return
		}
		old := make(map[string]packRecord, len(ix.Recs))
		var live int64
		for _, r := range ix.Recs {
			if r.Off < 0 || r.N < 0 || r.Off+r.N > ix.Len {
				f.Close()
				return
			}
			old[r.Key] = packRecord{Key: r.Key, off: r.Off, n: r.N, sum: r.Sum}
			live += r.N
		}
		c.mu.Lock()
		c.pack, c.old, c.packID, c.packLen, c.packLive, c.indexFI = f, old, ix.ID, ix.Len, live, ifi
		c.mu.Unlock()
	})
}

// startNext opens the pack Put writes into (with c.mu held): the old
// pack, appended to, when it is not too dead and this build can lock
// it, else a new pack.
func (c *Cache) startNext() bool {
	if c.pack != nil && c.packLen-c.packLive <= c.packLive*deadShare {
		if f := c.appendable(); f != nil {
			c.next, c.appending, c.nextID, c.nextLen = f, true, c.packID, c.packLen
			return true
		}
	}
	return c.startNew()
}

// appendable opens the old pack for appending: locked, the same file as
// read, its index not replaced since, and cut to the length its index
// covers; nil when it cannot be.
func (c *Cache) appendable() *os.File {
	f, err := os.OpenFile(filepath.Join(c.dir, packName), os.O_RDWR, 0)
	if err != nil {
		return nil
	}
	ok := lockFile(f)
	if ok {
		a, errA := f.Stat()
		b, errB := c.pack.Stat()
		ifi, errI := os.Stat(filepath.Join(c.dir, indexName))
		ok = errA == nil && errB == nil && errI == nil && os.SameFile(a, b) && os.SameFile(ifi, c.indexFI) &&
			ifi.ModTime().Equal(c.indexFI.ModTime()) && ifi.Size() == c.indexFI.Size()
	}
	if ok {
		ok = f.Truncate(headerLen+c.packLen) == nil
	}
	if !ok {
		f.Close() // and its lock
		return nil
	}
	return f
}

// Finish ends the build's use of the cache. After a successful build
// (ok) that stored an entry or left one unused, the pack's index names
// the entries it stored and those it used: appended to the old pack,
// or in a new pack (startNext); the old pack's index alone is rewritten
// when the build stored nothing, the pack is not too dead and no build
// replaced the index since this one read it. Old
// per-page entry files and temporaries of interrupted builds are
// removed. After a failed build what it stored is dropped.
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
	var keys []string // the old pack's entries kept
	var keptLen int64
	for k, r := range c.old {
		if !c.used[k] || c.fresh[k] {
			stale = true
			continue
		}
		keys = append(keys, k)
		keptLen += r.n
	}
	if !ok || c.broken || !stale {
		c.dropNext()
		if ok && c.pack != nil {
			c.removeTemporaries() // a killed build's, left by a build that stored
		}
		return
	}
	sort.Strings(keys)
	kept := make([]packRecord, len(keys))
	for i, k := range keys {
		kept[i] = c.old[k]
	}
	switch {
	case c.appending: // the old entries stay where they are
		if !c.replaceIndex(append(c.index, kept...), "") {
			c.dropNext()
			return
		}
		c.next.Close()
	case c.next == nil && c.pack != nil && c.packLen-keptLen <= keptLen*deadShare:
		// Of the same pack, nothing stored: under the pack's lock and
		// only when the index is still the one read (appendable), else
		// another build's index (appended to since) would be replaced by
		// an older one. Left as it is when it is not.
		if f := c.appendable(); f != nil {
			c.replaceIndex(kept, "")
			f.Close()
		}
	default: // a new pack: this build's entries, then the old ones it kept
		if c.next == nil && !c.startNew() {
			return
		}
		tmp := c.next // locked (startNew) until it is in place
		if !c.copyKept(tmp, kept) || !c.replaceIndex(c.index, tmp.Name()) {
			tmp.Close()
			os.Remove(tmp.Name())
			return
		}
		tmp.Close()
	}
	c.removeTemporaries()
}

// removeTemporaries removes the per-page entry files of
// perflab-build-cache-1 and the temporaries of killed builds, not those
// of a build still running (staleTemp). A perflab-pack-1 pack, its index
// inside, was replaced by the rename.
func (c *Cache) removeTemporaries() {
	if entries, err := os.ReadDir(c.dir); err == nil {
		for _, e := range entries {
			n := e.Name()
			if len(n) == 64 || strings.HasPrefix(n, ".tmp-") && staleTemp(filepath.Join(c.dir, n)) {
				os.Remove(filepath.Join(c.dir, n))
			}
		}
	}
}

// dropNext drops what the build stored: cut from the old pack, or the
// new pack removed (c.mu held).
func (c *Cache) dropNext() {
	switch {
	case c.next == nil:
	case c.appending:
		c.next.Truncate(headerLen + c.packLen)
		c.next.Close()
	default:
		c.next.Close()
		os.Remove(c.next.Name())
	}
}

// startNew starts a new pack for Put (c.mu held); startNext decides.
func (c *Cache) startNew() bool {
	if c.MkdirAll() != nil {
		return false
	}
	f, err := os.CreateTemp(c.dir, ".tmp-pack-*")
	if err != nil {
		return false
	}
	lockFile(f) // not another build's to remove (Finish)
	if _, err := rand.Read(c.nextID[:]); err != nil {
		f.Close()
		os.Remove(f.Name())
		return false
	}
	if _, err := f.Write(append([]byte(packMagic), c.nextID[:]...)); err != nil {
		f.Close()
		os.Remove(f.Name())
		return false
	}
	c.next, c.nextLen = f, 0
	return true
}

// replaceIndex writes the index of recs (entries of the pack being
// written, else of the old pack) beside the pack and puts it in place;
// with newPack, the new pack's temporary file, that pack is put in place
// first (between the two renames the pack and the index differ in
// identity: an empty cache, never a wrong entry).
func (c *Cache) replaceIndex(recs []packRecord, newPack string) bool {
	ix := packIndex{ID: c.packID, Len: c.packLen}
	if c.next != nil {
		ix.ID, ix.Len = c.nextID, c.nextLen
	}
	// In pack order, so that packs of equal entries have equal indexes
	// whatever order the workers stored them in.
	sort.Slice(recs, func(i, j int) bool { return recs[i].off < recs[j].off })
	for _, r := range recs {
		ix.Recs = append(ix.Recs, packRecord{Key: r.Key, Off: r.off, N: r.n, Sum: r.sum})
	}
	var buf bytes.Buffer
	if gob.NewEncoder(&buf).Encode(ix) != nil {
		return false
	}
	buf.Write(binary.LittleEndian.AppendUint32(nil, crc32.Checksum(buf.Bytes(), castagnoli)))
	f, err := os.CreateTemp(c.dir, ".tmp-index-*")
	if err != nil {
		return false
	}
	lockFile(f)     // not another build's to remove (Finish)
	defer f.Close() // after the renames: locked until in place
	if _, werr := f.Write(buf.Bytes()); werr != nil ||
		newPack != "" && os.Rename(newPack, filepath.Join(c.dir, packName)) != nil ||
		os.Rename(f.Name(), filepath.Join(c.dir, indexName)) != nil {
		os.Remove(f.Name())
		return false
	}
	return true
}

// copyKept appends the old pack's entries kept (sorted by key) to tmp,
// indexing them after c.nextLen (Finish, with c.mu held).
func (c *Cache) copyKept(tmp *os.File, kept []packRecord) bool {
	if _, err := tmp.Seek(headerLen+c.nextLen, io.SeekStart); err != nil {
		return false
	}
	// The kept entries are copied a run at a time (entries next to each
	// other in the old pack, as its kept entries mostly are: they were
	// written in this order), from the pack's file to the new one, which
	// the kernel does without a copy through user space (copy_file_range
	// on Linux, through io.Copy's LimitedReader of an *os.File).
	var runOff, runLen int64
	flush := func() bool {
		want := runLen
		runLen = 0
		if want == 0 {
			return true
		}
		if _, err := c.pack.Seek(headerLen+runOff, io.SeekStart); err != nil {
			return false
		}
		n, err := io.Copy(tmp, &io.LimitedReader{R: c.pack, N: want})
		return err == nil && n == want
	}
	for _, r := range kept {
		if runLen > 0 && r.off != runOff+runLen {
			if !flush() {
				return false
			}
		}
		if runLen == 0 {
			runOff = r.off
		}
		runLen += r.n
		c.index = append(c.index, packRecord{Key: r.Key, off: c.nextLen, n: r.n, sum: r.sum})
		c.nextLen += r.n
	}
	return flush()
}
