package inputs

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/perflab/perflab/render/wire"
)

// Hashing the inputs was half of an unchanged 924-page rebuild (22 MB of
// Markdown through SHA-256). The input stat cache keeps, in the cache
// directory, each input file's identity as stat reports it (size,
// modification and change times in nanoseconds, inode and device) with
// the SHA-256 of its bytes, as git's index does; a file whose identity is
// unchanged is not hashed again. An entry may also keep a memo, what the
// caller made of the bytes (render: a page's front matter and first
// heading), so that an unchanged page is not even read unless it has to
// be rendered (reading 924 pages was most of what remained). No
// library does this for us (git's index is git's own format); the file
// is a few lines of binary encoding below.
//
// What makes this safe:
//   - The change time (ctime) cannot be set by a user: writing, touch,
//     touch -d, chmod and replacing a file by rename all set it to the
//     current time (and a rename gives another inode), so a file changed
//     since it was recorded never matches, even with the same size and a
//     modification time put back.
//   - The racy case: a file changed twice within one timestamp tick, the
//     second time after the build read it, keeps its ctime. So an entry is
//     recorded only when the file's ctime is older than the build's start
//     as the file system itself stamps it (the ctime of a marker file made
//     in the cache directory before any input is read); a file changed at
//     or after that moment is hashed again by the next build, and recorded
//     then.
//   - The identity is taken (fstat) before the bytes are read, so a change
//     in between only makes the next build hash the file again; and again
//     after, so that the recorded sum is given only to bytes read while
//     the file kept the recorded identity (a change in between hashes
//     them).
//   - A file taken from its memo without reading it is read when it is
//     needed (render: when the page is rendered), and its
//     bytes must still hash to the recorded sum (its cache key was made
//     from it): otherwise the build fails, saying the page changed during
//     the build.
//   - A change time in whole seconds (a file system with coarse times)
//     must be 2 s older than the build's start (racy).
//
// Platforms without ctime and inode in stat (StatID returns false) hash
// every input, as before.

// statsName is the input stat cache's file in the cache directory.
const statsName = "inputs"

// ID is a file's identity as stat reports it.
type ID struct {
	Size, MTime, CTime int64 // times in nanoseconds since the epoch
	Ino, Dev           uint64
}

// entry is one file of the input stat cache.
type entry struct {
	ID  ID
	Sum [32]byte
	// Memo is what the caller made of the bytes (SetMemo), or nil.
	Memo []byte
}

// statsFile is the input stat cache's file (after its header line and
// before its CRC-32C): the salt it was written under, then the entries.
type statsFile struct {
	Salt    string
	Entries map[string]entry
}

// statsVersion heads the file: wire's version of statsFile.
var statsVersion = wire.Version(statsFile{}) + "\n"

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Stats is one build's view of the input stat cache. Its methods are
// safe for concurrent use; a nil *Stats hashes every file and keeps no
// memo.
type Stats struct {
	dir     string
	salt    string
	old     map[string]entry
	marker  *os.File // created before any input is read; becomes the new file
	horizon int64    // the marker's ctime: entries changed at or after it are racy

	mu       sync.Mutex
	next     map[string]entry
	unstable bool // a file was racy, unstat-able or hashed: the file must be rewritten
	hashed   int  // files hashed (not taken from the file)
	saved    bool
}

// OpenStats reads the input stat cache in dir and makes the marker that
// dates this build's reads. Salt names what the memos depend on besides
// the bytes (the parser's build): a file written under another salt is
// not read. It returns nil (hash everything) when the platform or the
// directory does not allow it.
func OpenStats(dir, salt string) *Stats {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil
	}
	marker, err := os.CreateTemp(dir, ".inputs-*")
	if err != nil {
		return nil
	}
	holdMarker(marker)
	fi, err := marker.Stat()
	var id ID
	ok := false
	if err == nil {
		id, ok = StatID(fi)
	}
	if !ok {
		marker.Close()
		os.Remove(marker.Name())
		return nil
	}
	s := &Stats{dir: dir, salt: salt, marker: marker, horizon: id.CTime, next: map[string]entry{}}
	if data, err := os.ReadFile(filepath.Join(dir, statsName)); err == nil {
		s.old = decodeStats(data, salt) // nil when broken: hash everything
		s.next = make(map[string]entry, len(s.old))
	}
	return s
}

// Horizon is the moment (as the cache directory's file system stamps it)
// from which a change to a file may go unseen: a file whose change time
// is not older is racy (Racy).
func (s *Stats) Horizon() int64 { return s.horizon }

// Len is the number of entries the input stat cache held when opened.
func (s *Stats) Len() int {
	if s == nil {
		return 0
	}
	return len(s.old)
}

// Hashed is how many files this build hashed rather than took from the
// cache.
func (s *Stats) Hashed() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hashed
}

// sum returns the SHA-256 of data, the bytes of the input at name whose
// stat, taken before they were read, is fi. It is the recorded sum when
// the file's identity is the recorded one.
func (s *Stats) sum(name string, fi os.FileInfo, data []byte) [32]byte {
	if s == nil {
		return sha256.Sum256(data)
	}
	id, ok := StatID(fi)
	if ok {
		if e, hit := s.old[name]; hit && e.ID == id {
			s.mu.Lock()
			s.next[name] = e
			s.mu.Unlock()
			return e.Sum
		}
	}
	sum := sha256.Sum256(data)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.unstable = true
	s.hashed++
	if ok && !Racy(id.CTime, s.horizon) {
		s.next[name] = entry{ID: id, Sum: sum}
	}
	return sum
}

// memo returns the recorded sum and memo of the file at name when it
// has a memo and the file's identity (stat, without opening it) is the
// recorded one.
func (s *Stats) memo(name string) (sum [32]byte, memo []byte, ok bool) {
	if s == nil {
		return sum, nil, false
	}
	e, ok := s.old[name]
	if !ok || e.Memo == nil {
		return sum, nil, false
	}
	fi, err := os.Stat(name)
	if err != nil || fi.IsDir() {
		return sum, nil, false
	}
	if id, ok := StatID(fi); !ok || id != e.ID {
		return sum, nil, false
	}
	s.mu.Lock()
	s.next[name] = e
	s.mu.Unlock()
	return e.Sum, e.Memo, true
}

// setMemo adds memo to name's entry if this build recorded one with sum.
func (s *Stats) setMemo(name string, sum [32]byte, memo []byte) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if e, ok := s.next[name]; ok && e.Sum == sum && e.Memo == nil {
		e.Memo = memo
		s.next[name] = e
		s.unstable = true
	}
}

// Save writes the entries this build used (when they differ from the
// file's) after a successful build, and drops the marker.
func (s *Stats) Save() {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.saved {
		return
	}
	s.saved = true
	tmp := s.marker.Name()
	defer removeStaleMarkers(s.dir, filepath.Base(tmp))
	if !s.unstable && len(s.next) == len(s.old) {
		s.marker.Close()
		os.Remove(tmp)
		return
	}
	_, werr := s.marker.Write(encodeStats(s.salt, s.next))
	if werr != nil || os.Rename(tmp, filepath.Join(s.dir, statsName)) != nil {
		os.Remove(tmp)
	}
	s.marker.Close() // after the rename: locked until it is in place
}

// removeStaleMarkers removes the markers of interrupted builds (killed
// before Save or Abandon) from dir, whether or not this build rewrote the
// file: not own, nor a running build's (its lock is held: staleMarker).
func removeStaleMarkers(dir, own string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if n := e.Name(); strings.HasPrefix(n, ".inputs-") && n != own && staleMarker(filepath.Join(dir, n)) {
			os.Remove(filepath.Join(dir, n))
		}
	}
}

// Abandon drops the marker after a failed build.
func (s *Stats) Abandon() {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.saved {
		s.saved = true
		s.marker.Close()
		os.Remove(s.marker.Name())
	}
}

// Racy reports whether a change made after the moment ref could leave a
// file whose change time is ctime with that change time: ctime is not
// older than ref. A change time in whole seconds comes from a file system
// with coarse timestamps (FAT's are 2 s), where a later change in the
// same second or two keeps it although ref, stamped by the cache
// directory's file system, may be finer: it must be 2 s older.
func Racy(ctime, ref int64) bool {
	if ctime%1e9 == 0 {
		return ctime >= ref-2e9
	}
	return ctime >= ref
}

// ReadFile reads the input file name and returns its bytes and their
// SHA-256 (from the input stat cache when the file is unchanged).
func (s *Stats) ReadFile(name string) ([]byte, [32]byte, error) {
	data, fi, stable, err := readStat(name)
	if err != nil {
		return nil, [32]byte{}, err
	}
	// A file changed between the stat and the end of the read: its bytes
	// may not be those its recorded sum was made from (the page would be
	// taken from the build cache as it was, or cached under the old
	// sum): hash them, and record nothing.
	if s != nil && !stable {
		return data, sha256.Sum256(data), nil
	}
	return data, s.sum(name, fi, data), nil
}

// readFileID reads and hashes the file name as ReadFile does, without
// the input stat cache: id is the file's identity while it was read, ok
// whether the sum may be remembered under it (not racy, unchanged
// during the read).
func (s *Stats) readFileID(name string) (data []byte, sum [32]byte, id ID, ok bool, err error) {
	data, fi, stable, err := readStat(name)
	if err != nil {
		return nil, sum, id, false, err
	}
	sum = sha256.Sum256(data)
	if s == nil {
		return data, sum, id, false, nil
	}
	s.mu.Lock()
	s.hashed++
	s.mu.Unlock()
	id, ok = StatID(fi)
	return data, sum, id, ok && stable && !Racy(id.CTime, s.horizon), nil
}

// readStat reads the file name, returning its stat taken before the
// read and whether the file kept that identity until after it (stable).
func readStat(name string) (data []byte, fi os.FileInfo, stable bool, err error) {
	f, err := OpenFile(name) // os.Open without the poller's calls (readfile_linux.go)
	if err != nil {
		return nil, nil, false, err
	}
	defer f.Close()
	fi, err = f.Stat()
	if err != nil {
		return nil, nil, false, err
	}
	if fi.IsDir() {
		return nil, nil, false, &os.PathError{Op: "read", Path: name, Err: errors.New("is a directory")}
	}
	if TestHookAfterStat != nil {
		TestHookAfterStat(name)
	}
	buf := bytes.NewBuffer(make([]byte, 0, fi.Size()+bytes.MinRead))
	if _, err := buf.ReadFrom(f); err != nil {
		return nil, nil, false, &os.PathError{Op: "read", Path: name, Err: err}
	}
	after, err := f.Stat()
	return buf.Bytes(), fi, err == nil && SameID(fi, after), nil
}

// TestHookAfterStat, when set (tests only), runs between ReadFile's stat
// and its read.
var TestHookAfterStat func(name string)

// SameID reports whether a and b, two stats of one file, show the same
// identity (StatID), or the same size and modification time where the
// platform reports no identity.
func SameID(a, b os.FileInfo) bool {
	ia, oka := StatID(a)
	ib, okb := StatID(b)
	if oka && okb {
		return ia == ib
	}
	return a.Size() == b.Size() && a.ModTime().Equal(b.ModTime())
}

// The file: statsVersion (a line), the statsFile (wire), then the
// CRC-32C of all of that as 4 little-endian bytes (a page's title
// damaged in the file would be taken as the page's while the page's
// identity holds).

func encodeStats(salt string, m map[string]entry) []byte {
	n := len(statsVersion) + len(salt) + 16
	for name, e := range m {
		n += len(name) + len(e.Memo) + 100 // the identity's varints, the sum, lengths
	}
	b := append(make([]byte, 0, n), statsVersion...)
	b = wire.Append(b, statsFile{Salt: salt, Entries: m})
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli))
}

func decodeStats(b []byte, salt string) map[string]entry {
	if len(b) < 4 || crc32.Checksum(b[:len(b)-4], castagnoli) != binary.LittleEndian.Uint32(b[len(b)-4:]) {
		return nil
	}
	rest, ok := bytes.CutPrefix(b[:len(b)-4], []byte(statsVersion))
	if !ok {
		return nil
	}
	var f statsFile
	if wire.Decode(rest, &f) != nil || f.Salt != salt {
		return nil
	}
	return f.Entries
}
