package render

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
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
// unchanged is not hashed again. For a page it also keeps the front matter
// and first heading, so that an unchanged page is not even read unless it
// has to be rendered (reading 924 pages was most of what remained). No
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
//   - A page taken without reading it is read when it is rendered, and its
//     bytes must still hash to the recorded sum (its cache key was made
//     from it): otherwise the build fails, saying the page changed during
//     the build.
//   - A change time in whole seconds (a file system with coarse times)
//     must be 2 s older than the build's start (racy).
//
// Platforms without ctime and inode in stat (statID returns false) hash
// every input, as before.

// inputsName is the input stat cache's file in the cache directory.
const inputsName = "inputs"

// inputsFormat heads the file; it changes with the encoding. The perflab
// build that wrote the file (selfVersion) follows on its own line: a page's
// front matter and heading are what that build's parser made of the page,
// so another build (an upgrade) must read the pages again.
const inputsFormat = "perflab-inputs-3\n"

// inputsHeader is the file's first bytes for this perflab build.
func inputsHeader() string { return inputsFormat + selfVersion() + "\n" }

// fileID is a file's identity as stat reports it.
type fileID struct {
	Size, MTime, CTime int64 // times in nanoseconds since the epoch
	Ino, Dev           uint64
}

type statEntry struct {
	id  fileID
	sum [32]byte
	// page is set for a Markdown page: what Load needs of it besides
	// its body, so that an unchanged page is not even read (readPage).
	page *pageMeta
}

// pageMeta is what Load takes from a page's file: its front matter and
// the text of its first "# " line (its title in the navigation).
type pageMeta struct {
	fm         FrontMatter
	has        bool // HasFrontMatter
	lines      int  // bodyLine
	heading    string
	hasHeading bool
}

// lazyBody is a page whose body Load did not read: markdownBody reads it
// when the page is rendered and checks that its bytes are still those
// the page's cache key was made from.
type lazyBody struct {
	sum        [32]byte
	heading    string
	hasHeading bool
	once       sync.Once
	body       []byte
	err        error
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
	if ok && !racy(id.CTime, s.horizon) {
		s.next[name] = statEntry{id: id, sum: sum}
	}
	return sum
}

// page returns the recorded entry of the page at name when the file's
// identity (stat, without opening it) is the recorded one.
func (s *inputStats) page(name string) (statEntry, bool) {
	if s == nil {
		return statEntry{}, false
	}
	e, ok := s.old[name]
	if !ok || e.page == nil {
		return statEntry{}, false
	}
	fi, err := os.Stat(name)
	if err != nil || fi.IsDir() {
		return statEntry{}, false
	}
	if id, ok := statID(fi); !ok || id != e.id {
		return statEntry{}, false
	}
	s.mu.Lock()
	s.next[name] = e
	s.mu.Unlock()
	return e, true
}

// setPage adds m to name's entry if this build recorded one with sum.
func (s *inputStats) setPage(name string, sum [32]byte, m pageMeta) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if e, ok := s.next[name]; ok && e.sum == sum && e.page == nil {
		e.page = &m
		s.next[name] = e
		s.unstable = true
	}
}

// readPage reads the page p at src (or takes what Load needs of it from
// the input stat cache, leaving the body to be read when it is rendered)
// and adds it to p's input hash.
func (s *Site) readPage(p *Page, src string, ih inputHash) (FrontMatter, bool, int, error) {
	if e, ok := s.inputStats.page(src); ok {
		ih.addSum(p.Src, e.sum)
		m := e.page
		p.lazy = &lazyBody{sum: e.sum, heading: m.heading, hasHeading: m.hasHeading}
		return m.fm, m.has, m.lines, nil
	}
	data, sum, err := s.readInput(src)
	if os.IsNotExist(err) && filepath.Base(src) == "index.md" {
		data, sum, err = nil, sha256.Sum256(nil), nil // a campaign bundle without narrative
	}
	if err != nil {
		return FrontMatter{}, false, 0, fmt.Errorf("load: %w", err)
	}
	ih.addSum(p.Src, sum)
	fm, body, lines, has, err := parseFrontMatter(p.Src, data)
	if err != nil {
		return fm, false, 0, err
	}
	p.body = body
	if data != nil {
		h, hasH := headingLineOf(body)
		s.inputStats.setPage(src, sum, pageMeta{fm: fm, has: has, lines: lines, heading: h, hasHeading: hasH})
	}
	return fm, has, lines, nil
}

// markdownBody is the page's Markdown after its front matter.
func (p *Page) markdownBody() ([]byte, error) {
	l := p.lazy
	if l == nil {
		return p.body, nil
	}
	l.once.Do(func() {
		data, err := os.ReadFile(p.Src)
		if err == nil && sha256.Sum256(data) != l.sum {
			err = errors.New("changed during the build; build again")
		}
		if err != nil {
			l.err = fmt.Errorf("load: %s: %w", p.Src, err)
			return
		}
		_, l.body, _, _, l.err = parseFrontMatter(p.Src, data)
	})
	return l.body, l.err
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

// racy reports whether a change made after the moment ref could leave a
// file whose change time is ctime with that change time: ctime is not
// older than ref. A change time in whole seconds comes from a file system
// with coarse timestamps (FAT's are 2 s), where a later change in the
// same second or two keeps it although ref, stamped by the cache
// directory's file system, may be finer: it must be 2 s older.
func racy(ctime, ref int64) bool {
	if ctime%1e9 == 0 {
		return ctime >= ref-2e9
	}
	return ctime >= ref
}

// readInput reads the input file name and returns its bytes and their
// SHA-256 (from the input stat cache when the file is unchanged).
func (s *Site) readInput(name string) ([]byte, [32]byte, error) {
	f, err := openFile(name) // os.Open without the poller's calls (readfile_linux.go)
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
	if afterStat != nil {
		afterStat(name)
	}
	buf := bytes.NewBuffer(make([]byte, 0, fi.Size()+bytes.MinRead))
	if _, err := buf.ReadFrom(f); err != nil {
		return nil, [32]byte{}, &os.PathError{Op: "read", Path: name, Err: err}
	}
	data := buf.Bytes()
	// A file changed between the stat and the end of the read: its bytes
	// may not be those its recorded sum was made from (the page would be
	// taken from the build cache as it was, or cached under the old
	// sum): hash them, and record nothing.
	if after, err := f.Stat(); s.inputStats != nil && (err != nil || !sameID(fi, after)) {
		return data, sha256.Sum256(data), nil
	}
	return data, s.inputStats.sum(name, fi, data), nil
}

// afterStat, when set (tests), runs between readInput's stat and its read.
var afterStat func(name string)

// sameID reports whether a and b, two stats of one file, show the same
// identity (statID), or the same size and modification time where the
// platform reports no identity.
func sameID(a, b os.FileInfo) bool {
	ia, oka := statID(a)
	ib, okb := statID(b)
	if oka && okb {
		return ia == ib
	}
	return a.Size() == b.Size() && a.ModTime().Equal(b.ModTime())
}

// The file: inputsHeader, then per entry the name (uvarint length and
// bytes), size, mtime, ctime, inode, device (8 bytes each, little
// endian), the SHA-256, and a byte 1 followed by the page's meta (title,
// description, campaign, heading as strings, weight, lines and the flags
// draft, has front matter, has heading as uvarints) or 0; last, the
// CRC-32C of the rest as 4 little-endian bytes.

func encodeInputStats(m map[string]statEntry) []byte {
	var b []byte
	b = append(b, inputsHeader()...)
	for name, e := range m {
		b = binary.AppendUvarint(b, uint64(len(name)))
		b = append(b, name...)
		for _, v := range []uint64{uint64(e.id.Size), uint64(e.id.MTime), uint64(e.id.CTime), e.id.Ino, e.id.Dev} {
			b = binary.LittleEndian.AppendUint64(b, v)
		}
		b = append(b, e.sum[:]...)
		if m := e.page; m != nil {
			b = append(b, 1)
			for _, s := range []string{m.fm.Title, m.fm.Description, m.fm.Campaign, m.heading} {
				b = binary.AppendUvarint(b, uint64(len(s)))
				b = append(b, s...)
			}
			b = binary.AppendVarint(b, int64(m.fm.Weight))
			b = binary.AppendUvarint(b, uint64(m.lines))
			b = binary.AppendUvarint(b, flags(m.fm.Draft, m.has, m.hasHeading))
		} else {
			b = append(b, 0)
		}
	}
	// Last, the CRC-32C of all of the above (pack records carry one too,
	// cache.go): a page's title damaged in the file would be taken as the
	// page's while the page's identity holds.
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli))
}

func flags(bs ...bool) uint64 {
	var f uint64
	for i, b := range bs {
		if b {
			f |= 1 << i
		}
	}
	return f
}

// reader decodes the file; a short or malformed one sets bad.
type reader struct {
	b   []byte
	bad bool
}

func (r *reader) bytes(n uint64) []byte {
	if r.bad || n > uint64(len(r.b)) {
		r.bad = true
		return nil
	}
	v := r.b[:n]
	r.b = r.b[n:]
	return v
}

func (r *reader) uvarint() uint64 {
	v, k := binary.Uvarint(r.b)
	if k <= 0 {
		r.bad = true
		return 0
	}
	r.b = r.b[k:]
	return v
}

func (r *reader) varint() int64 {
	v, k := binary.Varint(r.b)
	if k <= 0 {
		r.bad = true
		return 0
	}
	r.b = r.b[k:]
	return v
}

func (r *reader) string() string { return string(r.bytes(r.uvarint())) }

func (r *reader) uint64() uint64 {
	if b := r.bytes(8); b != nil {
		return binary.LittleEndian.Uint64(b)
	}
	return 0
}

func decodeInputStats(b []byte) map[string]statEntry {
	if len(b) < 4 || crc32.Checksum(b[:len(b)-4], castagnoli) != binary.LittleEndian.Uint32(b[len(b)-4:]) {
		return nil
	}
	rest, ok := bytes.CutPrefix(b[:len(b)-4], []byte(inputsHeader()))
	if !ok {
		return nil
	}
	r := &reader{b: rest}
	m := map[string]statEntry{}
	for len(r.b) > 0 && !r.bad {
		name := r.string()
		var e statEntry
		e.id = fileID{Size: int64(r.uint64()), MTime: int64(r.uint64()), CTime: int64(r.uint64()), Ino: r.uint64(), Dev: r.uint64()}
		copy(e.sum[:], r.bytes(32))
		switch kind := r.bytes(1); {
		case kind == nil:
		case kind[0] == 1:
			pm := &pageMeta{}
			pm.fm.Title, pm.fm.Description, pm.fm.Campaign, pm.heading = r.string(), r.string(), r.string(), r.string()
			pm.fm.Weight = int(r.varint())
			pm.lines = int(r.uvarint())
			f := r.uvarint()
			pm.fm.Draft, pm.has, pm.hasHeading = f&1 != 0, f&2 != 0, f&4 != 0
			e.page = pm
		case kind[0] != 0:
			r.bad = true
		}
		m[name] = e
	}
	if r.bad {
		return nil
	}
	return m
}
