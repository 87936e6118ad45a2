package render

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// Hashing the inputs was half of an unchanged 924-page rebuild (22 MB of
// Markdown through SHA-256). The input stat cache keeps, in the cache
// directory, each input file's identity as stat reports it (size,
// modification and change times in nanoseconds, inode and device) with
// the SHA-256 of its bytes, as git's index does; a file whose identity is
// unchanged is not hashed again (it is still read: Load parses it).
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
//     in between only makes the next build hash the file again.
//
// Platforms without ctime and inode in stat (statID returns false) hash
// every input, as before.

// inputsName is the input stat cache's file in the cache directory.
const inputsName = "inputs"

// inputsFormat heads the file; it changes with the encoding.
const inputsFormat = "perflab-inputs-1\n"

// fileID is a file's identity as stat reports it.
type fileID struct {
	Size, MTime, CTime int64 // times in nanoseconds since the epoch
	Ino, Dev           uint64
}

type statEntry struct {
	id  fileID
	sum [32]byte
}

// inputStats is one build's view of the input stat cache. Its methods are
// safe for concurrent use; a nil *inputStats hashes every file.
type inputStats struct {
	dir     string
	old     map[string]statEntry
	marker  *os.File // created before any input is read; becomes the new file
	horizon int64    // the marker's ctime: entries changed at or after it are racy

	mu       sync.Mutex
	next     map[string]statEntry
	unstable bool // a file was racy, unstat-able or hashed: the file must be rewritten
	hashed   int  // files hashed (not taken from the file)
	saved    bool
}

// openInputStats reads the input stat cache in dir and makes the marker
// that dates this build's reads. It returns nil (hash everything) when
// the platform or the directory does not allow it.
func openInputStats(dir string) *inputStats {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil
	}
	marker, err := os.CreateTemp(dir, ".inputs-*")
	if err != nil {
		return nil
	}
	fi, err := marker.Stat()
	var id fileID
	ok := false
	if err == nil {
		id, ok = statID(fi)
	}
	if !ok {
		marker.Close()
		os.Remove(marker.Name())
		return nil
	}
	s := &inputStats{dir: dir, marker: marker, horizon: id.CTime, next: map[string]statEntry{}}
	if data, err := os.ReadFile(filepath.Join(dir, inputsName)); err == nil {
		s.old = decodeInputStats(data) // nil when broken: hash everything
	}
	return s
}

// sum returns the SHA-256 of data, the bytes of the input at name whose
// stat, taken before they were read, is fi. It is the recorded sum when
// the file's identity is the recorded one.
func (s *inputStats) sum(name string, fi os.FileInfo, data []byte) [32]byte {
	if s == nil {
		return sha256.Sum256(data)
	}
	id, ok := statID(fi)
	if ok {
		if e, hit := s.old[name]; hit && e.id == id {
			s.mu.Lock()
			s.next[name] = e
			s.mu.Unlock()
			return e.sum
		}
	}
	sum := sha256.Sum256(data)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.unstable = true
	s.hashed++
	if ok && id.CTime < s.horizon {
		s.next[name] = statEntry{id: id, sum: sum}
	}
	return sum
}

// save writes the entries this build used (when they differ from the
// file's) after a successful build, and drops the marker.
func (s *inputStats) save() {
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
	if !s.unstable && len(s.next) == len(s.old) {
		s.marker.Close()
		os.Remove(tmp)
		return
	}
	_, werr := s.marker.Write(encodeInputStats(s.next))
	if cerr := s.marker.Close(); werr != nil || cerr != nil || os.Rename(tmp, filepath.Join(s.dir, inputsName)) != nil {
		os.Remove(tmp)
	}
	// Markers of interrupted builds.
	if entries, err := os.ReadDir(s.dir); err == nil {
		for _, e := range entries {
			if n := e.Name(); strings.HasPrefix(n, ".inputs-") && n != filepath.Base(tmp) {
				os.Remove(filepath.Join(s.dir, n))
			}
		}
	}
}

// abandon drops the marker after a failed build.
func (s *inputStats) abandon() {
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

// readInput reads the input file name and returns its bytes and their
// SHA-256 (from the input stat cache when the file is unchanged).
func (s *Site) readInput(name string) ([]byte, [32]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, [32]byte{}, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, [32]byte{}, err
	}
	if fi.IsDir() {
		return nil, [32]byte{}, &os.PathError{Op: "read", Path: name, Err: errors.New("is a directory")}
	}
	buf := bytes.NewBuffer(make([]byte, 0, fi.Size()+bytes.MinRead))
	if _, err := buf.ReadFrom(f); err != nil {
		return nil, [32]byte{}, &os.PathError{Op: "read", Path: name, Err: err}
	}
	data := buf.Bytes()
	return data, s.inputStats.sum(name, fi, data), nil
}

// The file: inputsFormat, then per entry the name (uvarint length and
// bytes), size, mtime, ctime, inode, device (8 bytes each, little
// endian) and the SHA-256.

func encodeInputStats(m map[string]statEntry) []byte {
	var b []byte
	b = append(b, inputsFormat...)
	for name, e := range m {
		b = binary.AppendUvarint(b, uint64(len(name)))
		b = append(b, name...)
		for _, v := range []uint64{uint64(e.id.Size), uint64(e.id.MTime), uint64(e.id.CTime), e.id.Ino, e.id.Dev} {
			b = binary.LittleEndian.AppendUint64(b, v)
		}
		b = append(b, e.sum[:]...)
	}
	return b
}

func decodeInputStats(b []byte) map[string]statEntry {
	rest, ok := bytes.CutPrefix(b, []byte(inputsFormat))
	if !ok {
		return nil
	}
	m := map[string]statEntry{}
	for len(rest) > 0 {
		n, k := binary.Uvarint(rest)
		if k <= 0 || n > uint64(len(rest)-k) || uint64(len(rest)-k)-n < 5*8+32 {
			return nil
		}
		name := string(rest[k : k+int(n)])
		rest = rest[k+int(n):]
		var v [5]uint64
		for i := range v {
			v[i] = binary.LittleEndian.Uint64(rest)
			rest = rest[8:]
		}
		e := statEntry{id: fileID{Size: int64(v[0]), MTime: int64(v[1]), CTime: int64(v[2]), Ino: v[3], Dev: v[4]}}
		copy(e.sum[:], rest)
		rest = rest[32:]
		m[name] = e
	}
	return m
}
